// gRPC stubs to the tasks of a cluster, made on first use and shared: one
// HTTP/2 connection per task however many calls go to it.
#ifndef DFLOW_DISTRIBUTED_WORKER_CHANNELS_H_
#define DFLOW_DISTRIBUTED_WORKER_CHANNELS_H_

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "absl/status/statusor.h"
#include "distributed/cluster_spec.h"
#include "grpcpp/generic/generic_stub.h"
#include "proto/worker_service.grpc.pb.h"

namespace dflow {

class WorkerChannels {
 public:
  explicit WorkerChannels(ClusterSpec cluster);

  // The stub of the task named "/job:J/replica:0/task:N" (a device name's
  // prefix); NotFound naming the cluster's tasks if it has no such task.
  absl::StatusOr<WorkerService::Stub*> StubFor(const std::string& task_name);
  // A generic stub on the same connection, for calls that (de)serialize
  // their messages themselves (RecvTensor: distributed/tensor_wire.h).
  absl::StatusOr<grpc::GenericStub*> GenericStubFor(
      const std::string& task_name);

  const ClusterSpec& cluster() const { return cluster_; }

 private:
  const ClusterSpec cluster_;
  std::mutex mu_;
  // The task's channel and stubs, made together on first use.
  struct Task {
    std::shared_ptr<grpc::Channel> channel;
    std::unique_ptr<WorkerService::Stub> stub;
    std::unique_ptr<grpc::GenericStub> generic;
  };
  absl::StatusOr<Task*> TaskFor(const std::string& task_name);  // mu_ held
  std::map<std::string, Task> tasks_;                           // mu_
};

// Gives gRPC calls carrying tensors room for big ones: gRPC's default
// receive limit is 4 MB, a layer's weights are often more. This many bytes
// (2 GB, protobuf's own limit for one message).
inline constexpr int kMaxMessageBytes = 2047 * 1024 * 1024;

}  // namespace dflow

#endif  // DFLOW_DISTRIBUTED_WORKER_CHANNELS_H_
