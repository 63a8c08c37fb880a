// Discovering a cluster's devices: every task's GetStatus, asked at once,
// each with a deadline. What a master does before placing a graph over the
// cluster (`dflow place --cluster`).
#ifndef DFLOW_DISTRIBUTED_REMOTE_DEVICES_H_
#define DFLOW_DISTRIBUTED_REMOTE_DEVICES_H_

#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
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

}  // namespace dflow

#endif  // DFLOW_DISTRIBUTED_REMOTE_DEVICES_H_
