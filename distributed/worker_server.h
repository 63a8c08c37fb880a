// The server of one task of a cluster (`dflow worker`): a gRPC
// WorkerService (proto/worker_service.proto) on the task's address from the
// cluster spec, with the task's own devices named under its
// /job:J/replica:0/task:N prefix.
//
// GetStatus gives the task's devices (a master learns the cluster's devices
// from them: distributed/remote_devices.h). RegisterGraph takes a master's
// partitions for this task's devices and builds an executor for each;
// RunGraph runs them for one step with a RemoteRendezvous (transfers from
// other tasks are pulled with RecvTensor), returning the fetches; a master
// cancelling the call aborts the step here. RecvTensor hands another task
// a value this task's partitions sent. Variables live in the task, one
// store for all its graphs (as a TensorFlow worker's resource manager), so
// a variable initialized in one step keeps its value for the next.
#ifndef DFLOW_DISTRIBUTED_WORKER_SERVER_H_
#define DFLOW_DISTRIBUTED_WORKER_SERVER_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "distributed/cluster_spec.h"
#include "proto/device_attributes.pb.h"

namespace grpc {
class Server;
}  // namespace grpc

namespace dflow {

class WorkerState;

struct WorkerServerOptions {
  ClusterSpec cluster;
  std::string job;
  int task = 0;
  // The host to listen on; the port is the task's, from the cluster.
  // 127.0.0.1 by default: a worker runs graphs it is sent, so it listens
  // beyond the machine only when asked (--bind 0.0.0.0).
  std::string bind_host = "127.0.0.1";
  // The task's devices, as `dflow run --devices` ("CPU:2", "CPU:1,GPU:2"
  // with host-memory stand-in GPUs).
  std::string devices = "CPU:1";
};

class WorkerServer {
 public:
  // Creates the task's devices and starts serving. InvalidArgument for a
  // task the cluster lacks or a bad device list; Unavailable when the
  // address cannot be listened on (the port is taken, or the host is not
  // this machine's), naming the task and the address.
  static absl::StatusOr<std::unique_ptr<WorkerServer>> Start(
      const WorkerServerOptions& options);
  ~WorkerServer();

  // "/job:worker/replica:0/task:1".
  const std::string& task_name() const { return task_name_; }
  // "127.0.0.1:2222".
  const std::string& address() const { return address_; }
  // The task's devices as GetStatus reports them.
  const std::vector<DeviceAttributesProto>& devices() const {
    return attributes_;
  }

  // Blocks until Shutdown (from another thread or a signal handler's
  // thread).
  void Wait();
  // Stops accepting calls and ends those in flight; Wait returns.
  void Shutdown();

 private:
  class Service;
  WorkerServer() = default;

  std::string task_name_;
  std::string address_;
  std::vector<DeviceAttributesProto> attributes_;
  std::unique_ptr<WorkerState> state_;  // devices, variables, graphs, steps
  std::unique_ptr<Service> service_;
  std::unique_ptr<grpc::Server> server_;
};

}  // namespace dflow

#endif  // DFLOW_DISTRIBUTED_WORKER_SERVER_H_
