// Discovering a cluster's devices: every task's GetStatus, asked at once,
// each with a deadline. What a master does before placing a graph over the
// cluster (`dflow place --cluster`).
#ifndef DFLOW_DISTRIBUTED_REMOTE_DEVICES_H_
#define DFLOW_DISTRIBUTED_REMOTE_DEVICES_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "compiler/placement_device.h"
#include "distributed/cluster_spec.h"
#include "proto/device_attributes.pb.h"

namespace dflow {

// Every device of every task, task by task in the cluster's order. A task
// that has not answered by `timeout` (one that is still starting is waited
// for until then) fails the whole discovery with DeadlineExceeded or
// Unavailable naming the task, its address and the command that serves
// it; so does a task that reports devices of another task (a worker started
// with another cluster spec, or another job or task).
absl::StatusOr<std::vector<DeviceAttributesProto>> DiscoverClusterDevices(
    const ClusterSpec& cluster, absl::Duration timeout);

// The task a session target names: "grpc://host:port" or "host:port" (empty:
// the cluster's first task). InvalidArgument if no task has that address.
absl::StatusOr<ClusterTask> TargetTask(const ClusterSpec& cluster,
                                       const std::string& target);

// The devices found, as the placer sees them: by type first (a GPU of any
// task before a CPU), then the target task's, so what asks for no device
// runs beside the feeds and fetches. InvalidArgument for a malformed name
// or no device at all.
absl::StatusOr<std::vector<PlacementDevice>> ClusterPlacementDevices(
    const std::vector<DeviceAttributesProto>& found, const ClusterTask& target);

}  // namespace dflow

#endif  // DFLOW_DISTRIBUTED_REMOTE_DEVICES_H_
