#include "distributed/cluster_session.h"

#include <condition_variable>
#include <iostream>
#include <map>
#include <mutex>
#include <random>
#include <set>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compiler/optimization_stages.h"
#include "compiler/partition.h"
#include "compiler/placement_device.h"
#include "compiler/placement_log.h"
#include "compiler/placer.h"
#include "compiler/prune.h"
#include "distributed/checkpoint_nodes.h"
#include "distributed/collective_groups.h"
#include "distributed/grpc_logging.h"
#include "distributed/grpc_status.h"
#include "distributed/remote_devices.h"
#include "distributed/step_stats_wire.h"
#include "distributed/worker_channels.h"
#include "graph/graph.h"
#include "graph/graph_def_import.h"
#include "grpcpp/grpcpp.h"
#include "proto/worker_service.grpc.pb.h"
#include "runtime/device.h"
#include "runtime/kernel_constant_evaluator.h"
#include "runtime/placement_bridge.h"
#include "runtime/plan_cache.h"
#include "runtime/session.h"

namespace dflow {
namespace {

// One task's share of a compiled signature.
struct TaskGraph {
  std::string task;    // "/job:worker/replica:0/task:1"
  std::string handle;  // RegisterGraph's
};

struct Plan {
  std::vector<std::string> feed_names;
  std::vector<DataType> feed_types;
  std::vector<TensorShape> feed_shapes;
  int num_fetches = 0;
  std::vector<TaskGraph> tasks;
};

// How long an error relayed from another task waits for that task's own
// (the root cause) before the step is cancelled everywhere.
constexpr auto kRelayGrace = std::chrono::seconds(2);
// How long after the step's timeout the master waits for the tasks to
// report their own DeadlineExceeded (naming the node) before it ends the
// step itself.
constexpr auto kTaskReportMargin = std::chrono::milliseconds(500);

// When a step's first error `s`, arriving `now`, cancels the other tasks'
// calls. An error a task only relayed leaves the originating task time to
// report its own (the root cause); a timeout leaves the other tasks until
// the master's deadline to report theirs (the ones that cannot are then
// named as silent); any other error cancels at once.
std::chrono::steady_clock::time_point CancelAt(
    const grpc::Status& s, std::chrono::steady_clock::time_point now,
    bool bounded, std::chrono::steady_clock::time_point master_deadline) {
  if (s.error_details() == kRelayedError) return now + kRelayGrace;
  if (bounded && s.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED) {
    return std::max(now, master_deadline);
  }
  return now;
}

}  // namespace

struct ClusterSession::Impl {
  ClusterSessionOptions options;
  std::unique_ptr<WorkerChannels> channels;
  std::vector<PlacementDevice> devices;
  std::vector<std::string> device_names;
  std::string target_task;  // "/job:worker/replica:0/task:0"
  std::string host_device;  // its CPU:0: the feeds and fetches
  // Names this session's collective groups across tasks
  // (distributed/collective_groups.h): a new session connects them anew.
  std::string session_id;
  // Evaluates constant subgraphs for constant folding in this process.
  std::unique_ptr<Device> local_cpu;
  Graph graph;
  // By VariableKey: the nodes Saver's steps read and assign through.
  std::map<std::string, VariableCheckpointNodes> checkpoint_nodes;
  // Stateful nodes' devices, from the first signature that placed each:
  // later signatures ask for the same (Compile).
  std::mutex placement_mu;
  std::map<std::string, std::string> stateful_devices;  // placement_mu

  std::mutex mu;
  PlanCache<Plan> plans;
  int64_t next_step = 0;  // mu
  // Steps finished on every task, not yet told to each task.
  std::map<std::string, std::vector<int64_t>> finished;  // mu
  std::vector<std::string> last_pass_summaries;          // mu

  absl::StatusOr<std::shared_ptr<const Plan>> GetPlan(
      const FeedList& feeds, const std::vector<std::string>& fetches,
      const std::vector<std::string>& targets);
  absl::StatusOr<std::shared_ptr<const Plan>> Compile(
      const FeedList& feeds, const std::vector<std::string>& fetches,
      const std::vector<std::string>& targets);
};

absl::StatusOr<std::unique_ptr<ClusterSession>> ClusterSession::Create(
    const GraphDef& def, const ClusterSessionOptions& options) {
  QuietGrpcLogsUnlessAsked();
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  absl::StatusOr<ClusterTask> target =
      TargetTask(options.cluster, options.target);
  if (!target.ok()) return target.status();
  impl->target_task = target->Name();
  absl::StatusOr<std::vector<DeviceAttributesProto>> found =
      DiscoverClusterDevices(options.cluster, options.connect_timeout);
  if (!found.ok()) return found.status();
  absl::StatusOr<std::vector<PlacementDevice>> devices =
      ClusterPlacementDevices(*found, *target);
  if (!devices.ok()) return devices.status();
  impl->devices = *std::move(devices);
  for (const PlacementDevice& d : impl->devices) {
    impl->device_names.push_back(d.name);
  }
  impl->host_device = absl::StrCat(impl->target_task, "/device:CPU:0");
  if (std::find(impl->device_names.begin(), impl->device_names.end(),
                impl->host_device) == impl->device_names.end()) {
    return absl::FailedPreconditionError(
        absl::StrCat("the target task ", impl->target_task,
                     " has no CPU:0 for the feeds and fetches"));
  }
  if (options.log_device_placement) {
    std::cerr << "Cluster devices:\n    "
              << absl::StrJoin(impl->device_names, "\n    ") << "\n"
              << std::flush;
  }
  impl->channels = std::make_unique<WorkerChannels>(options.cluster);
  impl->local_cpu = NewCpuDevice(0);
  impl->next_step = static_cast<int64_t>(std::random_device()() >> 1) << 31;
  std::random_device random;
  impl->session_id = absl::StrCat(absl::Hex(random()), absl::Hex(random()));
  GraphDef with_checkpoints = def;
  absl::StatusOr<std::map<std::string, VariableCheckpointNodes>> nodes =
      AddCheckpointNodes(&with_checkpoints);
  if (!nodes.ok()) return nodes.status();
  impl->checkpoint_nodes = *std::move(nodes);
  if (absl::Status s =
          ImportGraphDef(with_checkpoints, ImportOptions(), &impl->graph);
      !s.ok()) {
    return s;
  }
  return std::unique_ptr<ClusterSession>(new ClusterSession(std::move(impl)));
}

ClusterSession::ClusterSession(std::unique_ptr<Impl> impl)
    : impl_(std::move(impl)) {}

ClusterSession::~ClusterSession() {
  for (const std::shared_ptr<const Plan>& plan : impl_->plans.All()) {
    for (const TaskGraph& t : plan->tasks) {
      absl::StatusOr<WorkerService::Stub*> stub =
          impl_->channels->StubFor(t.task);
      if (!stub.ok()) continue;
      grpc::ClientContext context;
      context.set_deadline(std::chrono::system_clock::now() +
                           std::chrono::seconds(1));
      CleanupGraphRequest request;
      request.set_graph_handle(t.handle);
      CleanupGraphResponse response;
      (void)(*stub)->CleanupGraph(&context, request, &response);
    }
  }
}

std::vector<std::string> ClusterSession::LastPassSummaries() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->last_pass_summaries;
}

const std::vector<std::string>& ClusterSession::device_names() const {
  return impl_->device_names;
}

absl::StatusOr<std::shared_ptr<const Plan>> ClusterSession::Impl::GetPlan(
    const FeedList& feeds, const std::vector<std::string>& fetches,
    const std::vector<std::string>& targets) {
  return plans.Get(RunSignatureKey(feeds, fetches, targets),
                   [&] { return Compile(feeds, fetches, targets); });
}

absl::StatusOr<std::shared_ptr<const Plan>> ClusterSession::Impl::Compile(
    const FeedList& feeds, const std::vector<std::string>& fetches,
    const std::vector<std::string>& targets) {
  auto plan = std::make_shared<Plan>();
  PruneRequest request;
  for (const auto& [name, tensor] : feeds) {
    request.feeds.push_back(name);
    request.feed_shape_hints.push_back(tensor.shape());
  }
  request.fetches = fetches;
  request.targets = targets;
  request.host_device = host_device;
  absl::StatusOr<PrunedGraph> pruned = PruneGraph(graph, request);
  if (!pruned.ok()) return pruned.status();
  plan->feed_names = std::move(pruned->feed_names);
  plan->feed_types = std::move(pruned->feed_types);
  plan->feed_shapes = std::move(pruned->feed_shapes);
  plan->num_fetches = static_cast<int>(fetches.size());
  Graph& g = *pruned->graph;

  const KernelConstantEvaluator evaluator(local_cpu.get());
  const RegistryKernelQuery kernels;
  OptimizationOptions optimization;
  optimization.enabled = options.optimize_graph;
  optimization.evaluator = &evaluator;
  optimization.kernels = &kernels;
  const absl::flat_hash_set<std::string> protected_nodes(targets.begin(),
                                                         targets.end());
  std::vector<PassSummary> passes;
  if (absl::Status s = RunDeviceIndependentPasses(optimization, protected_nodes,
                                                  &g, &passes);
      !s.ok()) {
    return s;
  }
  if (absl::Status s = CheckTransfersMatch(g); !s.ok()) return s;
  PlacerOptions placer;
  placer.allow_soft_placement = options.allow_soft_placement;
  placer.pruned_subgraph = true;
  // One placement at a time, so that the first to place a stateful node
  // decides its device for every other.
  std::lock_guard<std::mutex> placement_lock(placement_mu);
  for (Node* n : g.nodes()) {
    auto pinned = stateful_devices.find(n->name());
    if (pinned != stateful_devices.end()) {
      n->set_requested_device(pinned->second);
    }
  }
  absl::StatusOr<PlacementRecord> record =
      PlaceGraph(&g, devices, kernels, placer);
  if (!record.ok()) return record.status();
  for (Node* n : g.nodes()) {
    if (n->IsStateful())
      stateful_devices.emplace(n->name(), n->assigned_device());
  }
  if (options.log_device_placement) {
    std::cerr << FormatPlacementLog(*record) << std::flush;
  }
  if (absl::Status s = AnnotateCollectiveGroups(&g, session_id); !s.ok()) {
    return s;
  }
  PartitionOptions partition_options;
  partition_options.kernels = &kernels;
  absl::StatusOr<std::vector<DevicePartition>> partitions =
      PartitionIntoGraphs(g, partition_options);
  if (!partitions.ok()) return partitions.status();
  std::map<std::string, RegisterGraphRequest> by_task;
  for (const DevicePartition& partition : *partitions) {
    partition.graph->ToGraphDef(
        by_task[TaskOfDevice(partition.device)].add_partitions());
  }
  // The tasks' device-specific passes, "<task>: <PassSummaryLine>".
  std::vector<std::string> pass_summaries;
  for (auto& [task, register_request] : by_task) {
    register_request.set_optimize(options.optimize_graph);
    for (const std::string& target : targets) {
      register_request.add_protected_nodes(target);
    }
    absl::StatusOr<WorkerService::Stub*> stub = channels->StubFor(task);
    if (!stub.ok()) return stub.status();
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() +
                         absl::ToChronoMicroseconds(options.connect_timeout));
    RegisterGraphResponse response;
    grpc::Status s =
        (*stub)->RegisterGraph(&context, register_request, &response);
    if (!s.ok()) {
      return FromGrpcStatus(
          s, absl::StrCat("registering the graph with task ", task, ": "));
    }
    plan->tasks.push_back({task, response.graph_handle()});
    for (const std::string& line : response.pass_summaries()) {
      pass_summaries.push_back(absl::StrCat(task, ": ", line));
    }
  }
  {
    std::lock_guard<std::mutex> lock(mu);
    last_pass_summaries = std::move(pass_summaries);
  }
  return std::shared_ptr<const Plan>(std::move(plan));
}

absl::Status ClusterSession::Run(const FeedList& feeds,
                                 const std::vector<std::string>& fetches,
                                 const std::vector<std::string>& targets,
                                 std::vector<Tensor>* outputs) {
  return Run(RunOptions(), feeds, fetches, targets, outputs, nullptr);
}

absl::Status ClusterSession::Run(const RunOptions& run_options,
                                 const FeedList& feeds,
                                 const std::vector<std::string>& fetches,
                                 const std::vector<std::string>& targets,
                                 std::vector<Tensor>* outputs,
                                 RunMetadata* metadata) {
  const int64_t step_timeout_ms = run_options.timeout_ms > 0
                                      ? run_options.timeout_ms
                                      : impl_->options.step_timeout_ms;
  const bool collect_stats =
      metadata != nullptr && run_options.records_step_stats();
  absl::StatusOr<std::shared_ptr<const Plan>> plan =
      impl_->GetPlan(feeds, fetches, targets);
  if (!plan.ok()) return plan.status();
  for (size_t i = 0; i < feeds.size(); ++i) {
    if (absl::Status s =
            CheckFeedValue((*plan)->feed_names[i], feeds[i].second,
                           (*plan)->feed_types[i], (*plan)->feed_shapes[i]);
        !s.ok()) {
      return s;
    }
  }
  // One call per task, all at once; the first error cancels the others.
  struct Call {
    std::string task;
    grpc::ClientContext context;
    RunGraphRequest request;
    RunGraphResponse response;
    grpc::Status status;
    bool answered = false;  // Step::mu
  };
  struct Step {
    std::mutex mu;
    std::condition_variable cv;
    int running = 0;
    bool failed = false;
    std::chrono::steady_clock::time_point cancel_at;
  };
  const std::vector<TaskGraph>& tasks = (*plan)->tasks;
  std::vector<std::unique_ptr<Call>> calls;
  int64_t step_id;
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    step_id = impl_->next_step++;
    for (const TaskGraph& t : tasks) {
      auto call = std::make_unique<Call>();
      call->task = t.task;
      call->request.set_graph_handle(t.handle);
      call->request.set_step_id(step_id);
      call->request.set_timeout_ms(step_timeout_ms);
      call->request.set_collect_step_stats(collect_stats);
      std::vector<int64_t>& done = impl_->finished[t.task];
      for (int64_t id : done) call->request.add_finished_step_ids(id);
      done.clear();
      if (t.task == impl_->target_task) {
        for (const auto& [name, tensor] : feeds) {
          tensor.ToProto(call->request.add_feeds());
        }
        call->request.set_num_fetches((*plan)->num_fetches);
      }
      calls.push_back(std::move(call));
    }
  }
  auto step = std::make_shared<Step>();
  step->running = static_cast<int>(calls.size());
  // Every stub first: once a call is started, this function must wait for
  // it.
  std::vector<WorkerService::Stub*> stubs;
  for (auto& call : calls) {
    absl::StatusOr<WorkerService::Stub*> stub =
        impl_->channels->StubFor(call->task);
    if (!stub.ok()) return stub.status();
    stubs.push_back(*stub);
  }
  // The master's own bound on the step: the tasks end it at the timeout
  // themselves and say where; a task that stopped answering (hung, its
  // machine gone) cannot, so shortly after, the master ends it.
  const bool bounded = step_timeout_ms > 0;
  const auto master_deadline = std::chrono::steady_clock::now() +
                               std::chrono::milliseconds(step_timeout_ms) +
                               kTaskReportMargin;
  // The clock every task's stats are put on.
  const int64_t step_start_us = absl::ToUnixMicros(absl::Now());
  for (size_t i = 0; i < calls.size(); ++i) {
    Call* raw = calls[i].get();
    if (step_timeout_ms > 0) {
      // The task ends the step at the timeout itself; this bounds a task
      // that stopped answering altogether.
      raw->context.set_deadline(
          std::chrono::system_clock::now() +
          std::chrono::milliseconds(step_timeout_ms + 5000));
    }
    stubs[i]->async()->RunGraph(
        &raw->context, &raw->request, &raw->response,
        [raw, step, bounded, master_deadline](grpc::Status s) {
          raw->status = s;
          std::lock_guard<std::mutex> lock(step->mu);
          raw->answered = true;
          if (!s.ok() && !step->failed) {
            step->failed = true;
            step->cancel_at = CancelAt(s, std::chrono::steady_clock::now(),
                                       bounded, master_deadline);
          }
          --step->running;
          step->cv.notify_all();
        });
  }
  std::vector<std::string> silent;  // tasks with no answer at that point
  {
    std::unique_lock<std::mutex> lock(step->mu);
    bool cancelled = false;
    while (step->running > 0) {
      const auto now = std::chrono::steady_clock::now();
      if (run_options.cancellation != nullptr &&
          run_options.cancellation->cancelled() && !step->failed) {
        step->failed = true;
        step->cancel_at = now;
      }
      if (bounded && !cancelled && now >= master_deadline) {
        for (auto& call : calls) {
          if (!call->answered) silent.push_back(call->task);
        }
        step->failed = true;
        step->cancel_at = now;
      }
      if (step->failed && !cancelled && now >= step->cancel_at) {
        // The first error ends the step on every task: cancel the calls
        // still running (outside the lock: a callback may run inline).
        cancelled = true;
        lock.unlock();
        for (auto& call : calls) call->context.TryCancel();
        lock.lock();
        continue;
      }
      step->cv.wait_for(lock, std::chrono::milliseconds(20));
    }
  }
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    for (const TaskGraph& t : tasks) impl_->finished[t.task].push_back(step_id);
  }
  // The root cause: an error that started on its task, before one relayed
  // from another task, before a cancellation this master made.
  auto rank = [](const grpc::Status& s) {
    if (s.error_code() == grpc::StatusCode::CANCELLED) return 0;
    return s.error_details() == kRelayedError ? 1 : 2;
  };
  const Call* failed = nullptr;
  for (const auto& call : calls) {
    if (call->status.ok()) continue;
    if (failed == nullptr || rank(call->status) > rank(failed->status)) {
      failed = call.get();
    }
  }
  if (failed != nullptr && run_options.cancellation != nullptr &&
      run_options.cancellation->cancelled()) {
    return absl::CancelledError(
        "the step was cancelled (RunOptions::cancellation) on every task");
  }
  if (!silent.empty() &&
      (failed == nullptr || rank(failed->status) < 2 ||
       failed->status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED)) {
    // The tasks that answered only timed out (waiting for the silent ones,
    // most likely): the silent ones are the cause.
    return absl::DeadlineExceededError(absl::StrCat(
        "the step did not finish within its timeout of ", step_timeout_ms,
        " ms: task", silent.size() > 1 ? "s " : " ",
        absl::StrJoin(silent, ", "),
        " did not answer (stopped, hung or unreachable?)",
        failed != nullptr &&
                failed->status.error_code() != grpc::StatusCode::CANCELLED
            ? absl::StrCat("; task ", failed->task,
                           " reported: ", failed->status.error_message())
            : ""));
  }
  if (failed != nullptr) {
    if (failed->status.error_code() == grpc::StatusCode::UNAVAILABLE) {
      return absl::UnavailableError(
          absl::StrCat("task ", failed->task, " failed during the step (",
                       failed->status.error_message(), ")"));
    }
    return FromGrpcStatus(failed->status,
                          absl::StrCat("task ", failed->task, ": "));
  }
  std::vector<Tensor> results;
  for (const auto& call : calls) {
    if (call->task != impl_->target_task) continue;
    for (const TensorProto& proto : call->response.fetches()) {
      absl::StatusOr<Tensor> t = Tensor::FromProto(proto);
      if (!t.ok()) return t.status();
      results.push_back(*std::move(t));
    }
  }
  if (static_cast<int>(results.size()) != (*plan)->num_fetches) {
    return absl::InternalError(absl::StrCat("the target task returned ",
                                            results.size(), " fetches for ",
                                            (*plan)->num_fetches));
  }
  if (metadata != nullptr) {
    metadata->step_stats.clear();
    metadata->peak_bytes.clear();
    metadata->planned_peak_bytes.clear();
    for (const auto& call : calls) {
      const int64_t shift = call->response.step_start_unix_us() - step_start_us;
      for (const NodeStats& proto : call->response.step_stats()) {
        absl::StatusOr<NodeExecStats> node = NodeStatsFromProto(proto, shift);
        if (!node.ok()) return node.status();
        metadata->step_stats.push_back(*std::move(node));
      }
    }
  }
  if (outputs != nullptr) *outputs = std::move(results);
  return absl::OkStatus();
}

namespace {

// The checkpoint nodes of each of `variables`, in order; InvalidArgument
// naming a variable the session's graph does not have.
absl::StatusOr<std::vector<const VariableCheckpointNodes*>> NodesOf(
    const std::map<std::string, VariableCheckpointNodes>& nodes,
    const std::vector<CheckpointVariable>& variables) {
  std::vector<const VariableCheckpointNodes*> found;
  for (const CheckpointVariable& v : variables) {
    auto it = nodes.find(v.name);
    if (it == nodes.end()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "variable '", v.name, "' (", v.op, " node '", v.node,
          "') is not in this session's graph; create the Saver from the "
          "session's graph"));
    }
    found.push_back(&it->second);
  }
  return found;
}

}  // namespace

absl::StatusOr<std::vector<Tensor>> ClusterSession::ReadVariables(
    const std::vector<CheckpointVariable>& variables) {
  absl::StatusOr<std::vector<const VariableCheckpointNodes*>> nodes =
      NodesOf(impl_->checkpoint_nodes, variables);
  if (!nodes.ok()) return nodes.status();
  std::vector<std::string> fetches;
  for (const VariableCheckpointNodes* n : *nodes) fetches.push_back(n->read);
  std::vector<Tensor> values;
  if (absl::Status s = Run({}, fetches, {}, &values); !s.ok()) {
    return absl::Status(
        s.code(),
        absl::StrCat("reading the variables for a checkpoint: ", s.message(),
                     absl::IsFailedPrecondition(s)
                         ? " (run the initializer first, or "
                           "restore a checkpoint)"
                         : ""));
  }
  return values;
}

absl::Status ClusterSession::AssignVariables(
    const std::vector<CheckpointVariable>& variables,
    std::vector<Tensor> values) {
  absl::StatusOr<std::vector<const VariableCheckpointNodes*>> nodes =
      NodesOf(impl_->checkpoint_nodes, variables);
  if (!nodes.ok()) return nodes.status();
  FeedList feeds;
  std::vector<std::string> targets;
  for (size_t i = 0; i < nodes->size(); ++i) {
    feeds.emplace_back((*nodes)[i]->value, std::move(values[i]));
    targets.push_back((*nodes)[i]->assign);
  }
  if (absl::Status s = Run(feeds, {}, targets, nullptr); !s.ok()) {
    return absl::Status(s.code(),
                        absl::StrCat("restoring the variables: ", s.message()));
  }
  return absl::OkStatus();
}

}  // namespace dflow
