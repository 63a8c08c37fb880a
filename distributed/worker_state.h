// What a task of a cluster holds for its master: its devices, its
// variables, the graphs registered with it and the steps in flight; the
// methods of its WorkerService (distributed/worker_server.h) without the
// gRPC around them.
#ifndef DFLOW_DISTRIBUTED_WORKER_STATE_H_
#define DFLOW_DISTRIBUTED_WORKER_STATE_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "distributed/collective_store.h"
#include "distributed/gloo_collectives.h"
#include "distributed/remote_rendezvous.h"
#include "distributed/worker_channels.h"
#include "proto/graph.pb.h"
#include "runtime/collective_executor.h"
#include "runtime/device.h"
#include "runtime/executor.h"
#include "runtime/shared_kernels.h"
#include "runtime/variables.h"

namespace dflow {

class WorkerState {
 public:
  WorkerState(std::string task_name, ClusterSpec cluster,
              std::unique_ptr<DeviceSet> devices);
  ~WorkerState();

  const DeviceSet& devices() const { return *devices_; }

  struct Registered {
    std::string handle;
    std::vector<std::string> pass_summaries;  // PassSummaryLine, in order
  };
  // Builds an executor for each partition (every node of one on the device
  // its nodes name, which must be this task's), after the device's passes
  // when `optimize` (keeping `protected_nodes`). InvalidArgument naming the
  // partition's device or its node otherwise.
  absl::StatusOr<Registered> RegisterGraph(
      const std::vector<GraphDef>& partitions, bool optimize = false,
      const std::vector<std::string>& protected_nodes = {});

  // Runs graph `handle`'s partitions for step `step_id` with `feeds` for
  // their _Arg nodes, returning the values of their `num_fetches` _Retval
  // nodes. `cancelled` is polled: when it turns true the step is aborted
  // here. Errors name the node. `*relayed` is set when the error came from
  // another task (a value that task was to send failed). With `stats`,
  // every node's NodeExecStats is appended there, its times counting from
  // `*started` (when the step started here).
  absl::StatusOr<std::vector<Tensor>> RunGraph(
      const std::string& handle, int64_t step_id, std::vector<Tensor> feeds,
      int num_fetches, absl::Time deadline,
      const std::function<bool()>& cancelled, bool* relayed,
      std::vector<NodeExecStats>* stats = nullptr,
      absl::Time* started = nullptr);

  // Waits for the value this task's step `step_id` sent under `key` (the
  // step may not have started here yet), until `deadline` or `cancelled`.
  void RecvTensor(int64_t step_id, const std::string& key,
                  Rendezvous::DeadAwareCallback done);

  // The steps every task finished: no transfer of theirs is pending.
  void ForgetSteps(const std::vector<int64_t>& step_ids);

  absl::Status CleanupGraph(const std::string& handle);

  // The store of the cross-process collective groups this task leads
  // (WorkerService StoreSet/StoreGet; distributed/gloo_collectives.h).
  CollectiveStore* collective_store() { return &collective_store_; }

 private:
  struct Graph;
  std::shared_ptr<RemoteRendezvous> StepRendezvous(int64_t step_id);

  const std::string task_name_;
  WorkerChannels channels_;
  std::unique_ptr<DeviceSet> devices_;
  std::shared_ptr<VariableStore> variables_ = std::make_shared<VariableStore>();
  // Stateful kernels shared by every graph registered here, as a session
  // shares them across its plans.
  SharedKernels kernels_;
  // Where the collective members of this task's steps meet; groups with
  // members on other tasks run through gloo_.
  std::shared_ptr<CollectiveExecutor> collectives_;
  std::shared_ptr<GlooCollectives> gloo_;
  CollectiveStore collective_store_;

  std::mutex mu_;
  std::map<std::string, std::shared_ptr<Graph>> graphs_;        // mu_
  std::map<int64_t, std::shared_ptr<RemoteRendezvous>> steps_;  // mu_
  int64_t next_handle_ = 0;                                     // mu_
};

}  // namespace dflow

#endif  // DFLOW_DISTRIBUTED_WORKER_STATE_H_
