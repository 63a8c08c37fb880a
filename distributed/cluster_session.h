// A session whose devices are a running cluster's (TensorFlow's
// `tf.compat.v1.Session("grpc://...")` with a ClusterSpec): this process is
// the master. Per run signature it prunes the graph, runs the
// device-independent passes, places it over every task's devices (found
// with GetStatus), partitions it per device with _Send/_Recv on every
// cross-device edge, and registers each task's partitions with it
// (RegisterGraph; the task runs its devices' passes on them). Each step then
// runs every task's partitions at once (RunGraph, one step id for all), tensors
// crossing tasks are pulled by their receivers (RecvTensor), feeds go to and
// fetches come from the target task (where the _Arg and _Retval nodes sit, on
// its CPU:0). The first error of any task ends the step on every other (their
// RunGraph calls are cancelled) and is returned as the task reported it: naming
// the node, its op and the task.
//
// Variables live in the tasks that hold them: a variable initialized in
// one step keeps its value for the next, and for other sessions of the
// same cluster, as in TensorFlow. A stateful node (a variable, a queue)
// stays on the device its first signature placed it on in every later
// signature (TensorFlow's rule too), so every step finds the same state.
//
// Checkpoints: a ClusterSession is a Saver's VariableHost
// (runtime/saver.h). The master adds a read and an assign beside each
// variable (distributed/checkpoint_nodes.h); Save fetches every value in
// one step and writes the checkpoint in this process, Restore feeds them
// back (creating variables a restarted task lost). After a task restarts
// (its graphs and variables gone), make a new ClusterSession and restore
// the latest checkpoint, as tf.train.MonitoredTrainingSession does:
//
//   auto saver = Saver::Create(def);
//   saver->Save(session.get(), "/ckpt/model", step);   // every N steps
//   ...                                                // task 1 restarted
//   session = *ClusterSession::Create(def, options);
//   saver->Restore(session.get(), *Saver::LatestCheckpoint("/ckpt"));
#ifndef DFLOW_DISTRIBUTED_CLUSTER_SESSION_H_
#define DFLOW_DISTRIBUTED_CLUSTER_SESSION_H_

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "distributed/cluster_spec.h"
#include "graph/tensor.h"
#include "proto/graph.pb.h"
#include "runtime/saver.h"

namespace dflow {

struct ClusterSessionOptions {
  ClusterSpec cluster;
  // The master's task, "grpc://host:port" or "host:port": where feeds and
  // fetches live and where nodes asking for no device go. Default: the
  // cluster's first task.
  std::string target;
  bool allow_soft_placement = false;
  // Prints the cluster's devices when the session is created, then each
  // compiled signature's placement (to stderr).
  bool log_device_placement = false;
  // The compiler's optional passes: the device-independent ones here,
  // before placement; the device-specific ones (CSE on the device, fusions,
  // memory planning) by each task on its partitions, as one process runs
  // them on its own.
  bool optimize_graph = true;
  // How long discovery may wait for each task.
  absl::Duration connect_timeout = absl::Seconds(10);
  // Every step fails with DeadlineExceeded after this long (0: no limit).
  int64_t step_timeout_ms = 0;
};

class ClusterSession : public VariableHost {
 public:
  using FeedList = std::vector<std::pair<std::string, Tensor>>;

  // Discovers the cluster's devices. Errors name an unreachable task.
  static absl::StatusOr<std::unique_ptr<ClusterSession>> Create(
      const GraphDef& def, const ClusterSessionOptions& options);
  // Releases the graphs registered with the tasks (CleanupGraph).
  ~ClusterSession() override;

  // As Session::Run: feeds "node[:k]", fetches tensor names, targets node
  // names.
  absl::Status Run(const FeedList& feeds,
                   const std::vector<std::string>& fetches,
                   const std::vector<std::string>& targets,
                   std::vector<Tensor>* outputs);
  // With RunOptions: a step timeout of its own (timeout_ms), cancellation
  // (the flag is polled while the tasks run; a set flag cancels their calls
  // and the step fails with Cancelled), and with collect_step_stats or
  // trace every task's NodeExecStats in `metadata`, on the master's clock
  // (0 = when the master started the step; tools/timeline.h draws them,
  // RunMetadataToProto gives TensorBoard's run metadata). The tasks'
  // allocator peaks are not collected (peak_bytes stays empty).
  absl::Status Run(const RunOptions& options, const FeedList& feeds,
                   const std::vector<std::string>& fetches,
                   const std::vector<std::string>& targets,
                   std::vector<Tensor>* outputs, RunMetadata* metadata);

  // Every device of the cluster, task by task.
  const std::vector<std::string>& device_names() const;

  // What the tasks' device-specific passes did to the signature compiled
  // last, one line per pass and partition: "<task>: fuse_bias_activation
  // on CPU:0: 1 MatMul+BiasAdd fused (0.05 ms, 9 -> 8 nodes)".
  std::vector<std::string> LastPassSummaries() const;

  // VariableHost, for Saver: one step each.
  absl::StatusOr<std::vector<Tensor>> ReadVariables(
      const std::vector<CheckpointVariable>& variables) override;
  absl::Status AssignVariables(const std::vector<CheckpointVariable>& variables,
                               std::vector<Tensor> values) override;

 private:
  struct Impl;
  explicit ClusterSession(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace dflow

#endif  // DFLOW_DISTRIBUTED_CLUSTER_SESSION_H_
