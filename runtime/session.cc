#include "runtime/session.h"

#include <algorithm>
#include <condition_variable>
#include <iostream>
#include <map>
#include <mutex>
#include <set>
#include <shared_mutex>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compiler/memory_planning.h"
#include "compiler/optimization_stages.h"
#include "compiler/partition.h"
#include "compiler/placement_log.h"
#include "compiler/placer.h"
#include "compiler/prune.h"
#include "graph/attr_value_util.h"
#include "graph/graph_def_import.h"
#include "graph/node_def_util.h"
#include "runtime/call_frame.h"
#include "runtime/collective_backend.h"
#include "runtime/collective_context.h"
#include "runtime/collective_executor.h"
#include "runtime/collective_registry.h"
#include "runtime/executor.h"
#include "runtime/kernel_constant_evaluator.h"
#include "runtime/placement_bridge.h"
#include "runtime/plan_cache.h"
#include "runtime/rendezvous.h"
#include "runtime/shared_kernels.h"
#include "runtime/stateful_placement.h"

namespace dflow {

namespace {

// A compiled run signature.
struct Plan {
  // A signature whose graph sits on one device: one executor, no transfers
  // (the fast path: nothing per step beyond the executor's own work).
  std::shared_ptr<Executor> executor;  // shared: see Executor
  // Otherwise one executor per device, run concurrently in each step and
  // meeting at the step's Rendezvous (executor is then null).
  std::vector<std::shared_ptr<Executor>> partitions;
  // Whether the graph has collective ops: their steps get a
  // CollectiveContext, aborted with the step's first error.
  bool has_collectives = false;
  std::vector<std::string> feed_names;
  std::vector<DataType> feed_types;
  std::vector<TensorShape> feed_shapes;  // what the graph declares
  // Memory planning's figure per device (RunMetadata::planned_peak_bytes),
  // computed for the shapes fed when the signature was compiled: valid for
  // steps fed the same shapes.
  std::vector<std::pair<std::string, int64_t>> planned_peak_bytes;
  std::vector<TensorShape> planned_feed_shapes;
};

// What the partitions of one step share. Held by every partition's
// callback and keep_alive, so partitions still finishing their kernels
// after the caller returned (an error, cancellation or timeout ended the
// step) find it alive.
struct PartitionedStep {
  std::mutex mu;
  std::condition_variable cv;
  int running = 0;       // mu: partitions not yet done
  bool aborted = false;  // mu: the rendezvous was aborted
  // Aborted with the first error of any partition (the executor does it),
  // or by the caller's cancellation or timeout: its status is the step's.
  // Declared after mu and cv, which its abort callback uses.
  Rendezvous rendezvous{[this](const absl::Status& status) {
    // Collective members waiting for peers of a failed step fail now.
    if (collectives != nullptr) collectives->Abort(status);
    std::lock_guard<std::mutex> lock(mu);
    aborted = true;
    cv.notify_all();
  }};
  CollectiveContext* collectives = nullptr;  // set before the step starts
  // One per partition (merged into the caller's when all succeeded).
  std::vector<std::vector<NodeExecStats>> stats;
};

// What a step holds on to until its last kernel returned, which may be
// after Session::Run returned (a timeout, an error in another partition),
// or even after the session is gone.
struct StepResources {
  std::shared_ptr<CallFrame> frame;
  std::shared_ptr<VariableStore> variables;
  std::shared_ptr<const DeviceSet> devices;  // kernels' Device pointers
  // Ends the step in the collective executor once no kernel can run.
  std::shared_ptr<CollectiveContext> collectives;
};

}  // namespace

struct Session::Impl {
  SessionOptions options;
  // Shared with running steps, like the variables.
  std::shared_ptr<const DeviceSet> devices;
  // Shared with running steps (see Executor::Args::keep_alive).
  std::shared_ptr<VariableStore> variables = std::make_shared<VariableStore>();
  // std mutexes, not absl's: see runtime/variables.h.
  mutable std::shared_mutex graph_mu;
  Graph graph;               // graph_mu
  int64_t graph_version = 0;  // graph_mu: counts Extend calls
  // Where the stateful nodes live, learned from the whole graph once per
  // graph version (runtime/stateful_placement.h).
  std::mutex stateful_mu;
  StatefulPlacement stateful_placement;  // stateful_mu
  int64_t learned_version = -1;          // stateful_mu
  PlanCache<Plan> plans;
  std::atomic<int64_t> next_step{1};
  // Numbers the run signatures dumped under dump_passes_dir.
  std::atomic<int> next_dump_signature{0};
  // One kernel per stateful user node, shared by every plan.
  // Stateful kernels (variables, queues) shared by every plan.
  SharedKernels shared_kernels;

  // Assigns every node of a plan's graph a device (and logs it when asked),
  // its stateful nodes the devices the whole graph gives them.
  absl::StatusOr<PlacementRecord> Place(Graph* graph);
  // Places the whole graph (once per graph version) to learn where its
  // stateful nodes live (runtime/stateful_placement.h).
  void LearnStatefulDevices(const OptimizationOptions& optimization);
  absl::StatusOr<std::shared_ptr<const Plan>> GetPlan(
      const FeedList& feeds, const std::vector<std::string>& fetches,
      const std::vector<std::string>& targets);
  absl::StatusOr<std::shared_ptr<const Plan>> Compile(
      const FeedList& feeds, const std::vector<std::string>& fetches,
      const std::vector<std::string>& targets);
  // Builds the plan's executors for the placed `graph`: one, or one per
  // device with transfers between them; runs the device-specific passes on
  // each device's graph first.
  absl::Status BuildExecutors(
      const OptimizationOptions& optimization,
      const absl::flat_hash_set<std::string>& protected_nodes, Graph* graph,
      Plan* plan, std::vector<PassSummary>* passes, PassDumper* dumper);
  // For log_device_placement: how each collective group of placed `graph`
  // runs (DescribeCollectiveGroup), when any member is off the CPUs.
  void LogCollectiveGroups(const Graph& graph) const;
  // Runs every partition of `plan` concurrently; returns the first error.
  absl::Status RunPartitioned(const Plan& plan, const Executor::Args& args,
                              std::vector<NodeExecStats>* stats);
};

absl::StatusOr<std::shared_ptr<const Plan>> Session::Impl::GetPlan(
    const FeedList& feeds, const std::vector<std::string>& fetches,
    const std::vector<std::string>& targets) {
  return plans.Get(RunSignatureKey(feeds, fetches, targets),
                   [&] { return Compile(feeds, fetches, targets); });
}

absl::StatusOr<std::shared_ptr<const Plan>> Session::Impl::Compile(
    const FeedList& feeds, const std::vector<std::string>& fetches,
    const std::vector<std::string>& targets) {
  auto plan = std::make_shared<Plan>();
  PruneRequest request;
  for (const auto& [name, tensor] : feeds) {
    request.feeds.push_back(name);
    request.feed_shape_hints.push_back(tensor.shape());
  }
  plan->planned_feed_shapes = request.feed_shape_hints;
  request.fetches = fetches;
  request.targets = targets;
  // Feeds and fetches are host tensors: their ends sit on the CPU.
  request.host_device = devices->cpu()->name();
  const absl::Time prune_start = absl::Now();
  absl::StatusOr<PrunedGraph> prune_result;
  {
    std::shared_lock<std::shared_mutex> lock(graph_mu);
    prune_result = PruneGraph(graph, request);
  }
  if (!prune_result.ok()) return prune_result.status();
  plan->feed_names = std::move(prune_result->feed_names);
  plan->feed_types = std::move(prune_result->feed_types);
  plan->feed_shapes = std::move(prune_result->feed_shapes);
  Graph& pruned = *prune_result->graph;

  const KernelConstantEvaluator evaluator(devices->cpu());
  const RegistryKernelQuery kernels;
  OptimizationOptions optimization = OptimizationOptionsOf(this->options);
  optimization.evaluator = &evaluator;
  optimization.kernels = &kernels;
  PassDumper dumper;
  if (!this->options.dump_passes_dir.empty()) {
    absl::StatusOr<PassDumper> created = PassDumper::Create(absl::StrCat(
        this->options.dump_passes_dir, "/sig_", next_dump_signature++));
    if (!created.ok()) return created.status();
    dumper = *std::move(created);
  }
  std::vector<PassSummary> passes;
  {
    PassSummary prune;
    prune.pass = "prune";
    prune.changes = prune_result->nodes_total - prune_result->nodes_kept;
    prune.what = absl::StrCat(
        prune_result->nodes_kept, " of ", prune_result->nodes_total,
        " nodes kept, ", feeds.size(), " fed, ", fetches.size(), " fetched");
    prune.nodes_before = prune_result->nodes_total;
    prune.nodes_after = pruned.num_nodes();
    prune.time = absl::Now() - prune_start;
    if (absl::Status s = dumper.Dump(prune, pruned); !s.ok()) return s;
    passes.push_back(std::move(prune));
  }
  const absl::flat_hash_set<std::string> protected_nodes(targets.begin(),
                                                         targets.end());
  if (absl::Status s = RunDeviceIndependentPasses(optimization, protected_nodes,
                                                  &pruned, &passes, &dumper);
      !s.ok()) {
    return s;
  }
  LearnStatefulDevices(optimization);
  if (absl::StatusOr<PlacementRecord> placement = Place(&pruned);
      !placement.ok()) {
    return placement.status();
  }
  if (absl::Status s = BuildExecutors(optimization, protected_nodes, &pruned,
                                      plan.get(), &passes, &dumper);
      !s.ok()) {
    return s;
  }
  for (const PassSummary& pass : passes) {
    for (const auto& [name, value] : pass.figures) {
      if (name == "planned_peak_bytes") {
        plan->planned_peak_bytes.emplace_back(pass.device, value);
      }
    }
  }
  if (this->options.log_device_placement) {
    std::string lines;
    for (const PassSummary& pass : passes) {
      if (pass.changes > 0 && pass.pass != "prune")
        absl::StrAppend(&lines, "    ", PassSummaryLine(pass), "\n");
    }
    if (!lines.empty()) std::cerr << "Optimizations:\n" << lines << std::flush;
  }
  return std::shared_ptr<const Plan>(std::move(plan));
}

absl::Status Session::Impl::BuildExecutors(
    const OptimizationOptions& optimization,
    const absl::flat_hash_set<std::string>& protected_nodes, Graph* graph,
    Plan* plan, std::vector<PassSummary>* passes, PassDumper* dumper) {
  // Before partitioning adds its own transfers: a _Recv the graph brought
  // without its _Send would wait forever in a partitioned step.
  if (absl::Status s = CheckTransfersMatch(*graph); !s.ok()) return s;
  auto kernel_for = [this](const Node& node, Device* device) {
    return shared_kernels.KernelFor(node, device);
  };
  std::set<std::string> used;
  for (const Node* n : graph->nodes()) {
    used.insert(n->assigned_device());
    if (absl::StartsWith(n->op(), "Collective") ||
        absl::StartsWith(n->op(), "_FusedCollective")) {
      plan->has_collectives = true;
    }
  }
  Device* only_device = nullptr;
  if (used.size() <= 1) {
    only_device = used.empty() ? devices->cpu() : devices->Find(*used.begin());
    if (only_device == nullptr) {
      return absl::InternalError(
          absl::StrCat("placement chose device '", *used.begin(),
                       "', which this session does not have"));
    }
  }
  // A graph on one host-memory device needs no transfers and no copies: one
  // executor. A graph on one device with memory of its own goes through the
  // partitioner for its host<->device copies.
  if (only_device != nullptr && only_device->type() == "CPU") {
    Device* device = only_device;
    if (absl::Status s = RunDeviceSpecificPasses(
            optimization, device->name(), device->type(), protected_nodes,
            graph, passes, dumper);
        !s.ok()) {
      return s;
    }
    absl::StatusOr<std::unique_ptr<Executor>> executor =
        Executor::Create(*graph, device, kernel_for);
    if (!executor.ok()) return executor.status();
    plan->executor = *std::move(executor);
    return absl::OkStatus();
  }
  // One partition per device; each cross-device edge becomes a _Send/_Recv
  // pair meeting in the step's rendezvous, each edge between host and device
  // memory inside a device a copy. A step has a rendezvous of its own, so
  // keys need no prefix or step id. A loop cut across devices gets a
  // control loop on each device that receives inside it (partition.h).
  const RegistryKernelQuery kernels;
  PartitionOptions partition_options;
  partition_options.kernels = &kernels;
  // What crosses devices under this call's feed shapes, so that a partition
  // receiving a batch-dependent tensor gets a planned peak too.
  const std::vector<std::vector<TensorShape>> hinted_shapes =
      optimization.IsEnabled("memory_planning")
          ? ShapesUnderFeedHints(graph)
          : std::vector<std::vector<TensorShape>>();
  if (!hinted_shapes.empty()) partition_options.hinted_shapes = &hinted_shapes;
  PartitionStats stats;
  absl::StatusOr<std::vector<DevicePartition>> partitions =
      PartitionIntoGraphs(*graph, partition_options, &stats);
  if (!partitions.ok()) return partitions.status();
  std::vector<std::string> summary;
  for (const DevicePartition& partition : *partitions) {
    Device* device = devices->Find(partition.device);
    if (device == nullptr) {
      return absl::InternalError(absl::StrCat(
          "partitioning made a partition for device '", partition.device,
          "', which this session does not have"));
    }
    Graph& part = *partition.graph;
    if (dumper != nullptr && dumper->active()) {
      // Each partition as partitioning made it (transfers, control loops,
      // copies), before its device's passes.
      PassSummary made;
      made.pass = "partition";
      made.device = device->name();
      made.nodes_after = part.num_nodes();
      made.what = absl::StrCat(made.nodes_after, " nodes");
      if (absl::Status s = dumper->Dump(made, part); !s.ok()) return s;
    }
    if (absl::Status s = RunDeviceSpecificPasses(
            optimization, device->name(), device->type(), protected_nodes,
            &part, passes, dumper);
        !s.ok()) {
      return s;
    }
    absl::StatusOr<std::unique_ptr<Executor>> executor =
        Executor::Create(part, device, kernel_for);
    if (!executor.ok()) return executor.status();
    summary.push_back(absl::StrCat("    ", device->name(), ": ",
                                   (*executor)->num_nodes(), " nodes"));
    plan->partitions.push_back(*std::move(executor));
  }
  if (options.log_device_placement) {
    std::cerr << "Partitions: " << partitions->size() << "\n"
              << absl::StrJoin(summary, "\n") << "\n"
              << "Transfers: " << stats.sends << " _Send, " << stats.recvs
              << " _Recv (" << stats.control_transfers << " for control edges)";
    if (stats.control_loops > 0) {
      std::cerr << ", " << stats.control_loops
                << " control loops (loops cut across devices)";
    }
    if (stats.host_to_device + stats.device_to_host > 0) {
      std::cerr << ", " << stats.host_to_device << " host-to-device and "
                << stats.device_to_host << " device-to-host copies";
    }
    std::cerr << "\n" << std::flush;
    LogCollectiveGroups(*graph);
  }
  return absl::OkStatus();
}

void Session::Impl::LogCollectiveGroups(const Graph& graph) const {
  // The "say which path a group used": one line per group of
  // collective members, when any member is on a device other than a CPU
  // (on CPUs only the host ring exists; nothing to say).
  std::map<int64_t, std::set<std::string>> groups;
  std::map<int64_t, std::set<std::string>> ops;
  for (const Node* n : graph.nodes()) {
    if (!absl::StartsWith(n->op(), "Collective") &&
        !absl::StartsWith(n->op(), "_FusedCollective")) {
      continue;
    }
    auto key = n->def().attr().find("group_key");
    if (key == n->def().attr().end()) continue;
    groups[key->second.i()].insert(n->assigned_device());
    ops[key->second.i()].insert(n->op());
  }
  std::string lines;
  bool off_host = false;
  for (const auto& [key, names] : groups) {
    std::vector<std::string> ordered(names.begin(), names.end());
    std::sort(ordered.begin(), ordered.end(), DeviceRankLess);
    std::vector<const Device*> members;
    for (const std::string& name : ordered) {
      const Device* device = devices->Find(name);
      if (device == nullptr) continue;
      if (device->type() != "CPU") off_host = true;
      members.push_back(device);
    }
    absl::StrAppend(&lines, "    group ", key, " (",
                    absl::StrJoin(ops[key], ", "), ", ", members.size(),
                    " devices): ", DescribeCollectiveGroup(members), "\n");
  }
  if (off_host) std::cerr << "Collectives:\n" << lines << std::flush;
}

absl::Status Session::Impl::RunPartitioned(const Plan& plan,
                                           const Executor::Args& args,
                                           std::vector<NodeExecStats>* stats) {
  auto step = std::make_shared<PartitionedStep>();
  const int n = static_cast<int>(plan.partitions.size());
  step->running = n;
  if (stats != nullptr) step->stats.resize(n);
  step->collectives = args.collective_context;
  Executor::Args part_args = args;
  part_args.rendezvous = &step->rendezvous;
  // Partitions may outlive this call (see PartitionedStep).
  part_args.keep_alive = std::make_shared<
      std::pair<std::shared_ptr<const void>, std::shared_ptr<PartitionedStep>>>(
      args.keep_alive, step);
  // One clock for every partition's stats.
  part_args.start_time = absl::Now();
  // This thread starts every partition, the first (CPU:0's, where the
  // feeds are) last, rather than only wait: it runs their cheap roots (a
  // _Recv registering its wait, a Const) and hands their expensive nodes to
  // the pool, so a step of cheap nodes costs no hand-off between threads
  // (about 5 us each on 2 cores) and expensive nodes of every partition
  // start at once.
  for (int i = n - 1; i >= 0; --i) {
    part_args.stats = stats != nullptr ? &step->stats[i] : nullptr;
    plan.partitions[i]->RunAsync(
        part_args,
        [step](absl::Status s) {
          // The executor aborted the rendezvous with its first error
          // already; this covers any other way a partition could fail.
          if (!s.ok()) step->rendezvous.StartAbort(s);
          std::lock_guard<std::mutex> lock(step->mu);
          if (--step->running == 0) step->cv.notify_all();
        },
        i == 0 ? Executor::StartOn::kThisThread
               : Executor::StartOn::kThisThreadCheapOnly);
  }
  // Wait until every partition is done or the step is aborted. An abort
  // returns at once: the partitions stop before their next node, but a
  // kernel that is running (or stuck) must not hold the caller; it
  // finishes on its own, its step kept alive by keep_alive.
  const bool polls = args.cancellation != nullptr;
  const bool timed = args.deadline != absl::InfiniteFuture();
  absl::Status stop;
  {
    std::unique_lock<std::mutex> lock(step->mu);
    auto ended = [&step] { return step->running == 0 || step->aborted; };
    while (!ended()) {
      if (!polls && !timed) {
        step->cv.wait(lock, ended);
        break;
      }
      absl::Time until = args.deadline;
      if (polls) until = std::min(until, absl::Now() + absl::Milliseconds(10));
      if (step->cv.wait_until(lock, absl::ToChronoTime(until), ended)) break;
      if (polls && args.cancellation->cancelled()) {
        stop = absl::CancelledError("the step was cancelled by the caller");
        break;
      }
      if (absl::Now() >= args.deadline) {
        stop = absl::DeadlineExceededError(absl::StrCat(
            "the step did not finish within its timeout of ",
            absl::FormatDuration(args.deadline - part_args.start_time)));
        break;
      }
    }
  }
  if (!stop.ok()) step->rendezvous.StartAbort(stop);
  // The first abort status: an error in a partition (with its node),
  // else the cancellation or timeout.
  if (step->rendezvous.aborted()) return step->rendezvous.status();
  if (stats != nullptr) {
    for (std::vector<NodeExecStats>& part : step->stats) {
      for (NodeExecStats& s : part) stats->push_back(std::move(s));
    }
  }
  return absl::OkStatus();
}

void Session::Impl::LearnStatefulDevices(
    const OptimizationOptions& optimization) {
  // On one device there is nothing to choose (and nothing to pay).
  if (devices->devices().size() < 2) return;
  std::lock_guard<std::mutex> lock(stateful_mu);
  absl::StatusOr<PrunedGraph> whole;
  {
    std::shared_lock<std::shared_mutex> graph_lock(graph_mu);
    if (learned_version == graph_version) return;
    learned_version = graph_version;
    // A graph without state (an inference graph of constants) has nothing
    // to keep in place: no second, whole-graph compile for it.
    const std::vector<Node*> nodes = graph.nodes();
    if (std::none_of(nodes.begin(), nodes.end(), [](const Node* n) {
          return IsSharedStatefulNode(*n);
        })) {
      return;
    }
    whole = PruneToRunnableNodes(graph);
  }
  if (!whole.ok()) return;
  // The passes a signature's graph gets before placement (they lower
  // functional If and Case, which have no kernels), keeping every stateful
  // node.
  absl::flat_hash_set<std::string> keep;
  for (const Node* n : whole->graph->nodes()) {
    if (IsSharedStatefulNode(*n)) keep.insert(n->name());
  }
  std::vector<PassSummary> passes;
  PassDumper no_dump;
  if (!RunDeviceIndependentPasses(optimization, keep, whole->graph.get(),
                                  &passes, &no_dump)
           .ok()) {
    return;
  }
  absl::StatusOr<std::vector<PlacementDevice>> placement_devices =
      PlacementDevicesOf(*devices);
  if (!placement_devices.ok()) return;
  PlacerOptions placer_options;
  placer_options.allow_soft_placement = options.allow_soft_placement;
  stateful_placement.Learn(
      whole->graph.get(), *placement_devices,
      RegistryKernelQuery(KernelRegistry::Global(),
                          TypesRunningTheirOwnKernels(*devices)),
      placer_options);
}

absl::StatusOr<PlacementRecord> Session::Impl::Place(Graph* graph) {
  absl::StatusOr<std::vector<PlacementDevice>> placement_devices =
      PlacementDevicesOf(*devices);
  if (!placement_devices.ok()) return placement_devices.status();
  // On real GPUs only the GPU kernels this binary implements count (fake
  // GPUs run the CPU kernels and place against the definitions).
  const std::vector<std::string> implemented_only =
      TypesRunningTheirOwnKernels(*devices);
  if (!options.allow_soft_placement) {
    // A node asking for such a device whose kernel is only defined: say so
    // (the placer would say the type has no kernel at all).
    if (absl::Status s = CheckRequestedKernelsImplemented(
            *graph, *KernelRegistry::Global(), implemented_only);
        !s.ok()) {
      return s;
    }
  }
  PlacerOptions placer_options;
  placer_options.allow_soft_placement = options.allow_soft_placement;
  // Each run signature places only what it runs (see Session::Impl::Compile),
  // its stateful nodes where the whole graph puts them.
  placer_options.pruned_subgraph = true;
  const RegistryKernelQuery kernels(KernelRegistry::Global(), implemented_only);
  {
    std::lock_guard<std::mutex> lock(stateful_mu);
    stateful_placement.Pin(graph);
  }
  absl::StatusOr<PlacementRecord> record =
      PlaceGraph(graph, *placement_devices, kernels, placer_options);
  if (record.ok() && options.log_device_placement) {
    std::cerr << FormatPlacementLog(*record) << std::flush;
  }
  return record;
}

OptimizationOptions OptimizationOptionsOf(const SessionOptions& options) {
  OptimizationOptions optimization;
  optimization.enabled = options.optimize_graph;
  optimization.disabled_passes.insert(options.disabled_passes.begin(),
                                      options.disabled_passes.end());
  optimization.tensor_fusion.threshold_bytes =
      options.tensor_fusion_threshold_bytes;
  optimization.constant_folding.max_constant_bytes =
      options.constant_folding_max_bytes;
  return optimization;
}

std::string RunSignatureKey(const FeedList& feeds,
                            const std::vector<std::string>& fetches,
                            const std::vector<std::string>& targets) {
  std::string key;
  for (const auto& [name, tensor] : feeds) absl::StrAppend(&key, name, ",");
  absl::StrAppend(&key, "|", absl::StrJoin(fetches, ","), "|",
                  absl::StrJoin(targets, ","));
  return key;
}

absl::Status CheckFeedValue(const std::string& name, const Tensor& value,
                            DataType type, const TensorShape& shape) {
  if (value.dtype() != type) {
    return absl::InvalidArgumentError(
        absl::StrCat("feed '", name, "' is a ", DataTypeName(value.dtype()),
                     " tensor but the graph expects ", DataTypeName(type)));
  }
  if (!shape.IsCompatibleWith(value.shape())) {
    return absl::InvalidArgumentError(
        absl::StrCat("feed '", name, "' has shape ", value.shape().ToString(),
                     " but the graph declares ", shape.ToString()));
  }
  return absl::OkStatus();
}

Session::Session(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Session::~Session() = default;

absl::StatusOr<std::unique_ptr<Session>> Session::Create(
    const GraphDef& def, const SessionOptions& options) {
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  {
    const std::vector<std::pair<std::string, PassStage>> known = PassNames();
    for (const std::string& name : options.disabled_passes) {
      if (std::none_of(known.begin(), known.end(),
                       [&](const auto& p) { return p.first == name; })) {
        std::vector<std::string> names;
        for (const auto& p : known) names.push_back(p.first);
        return absl::InvalidArgumentError(
            absl::StrCat("SessionOptions.disabled_passes names '", name,
                         "', which is no pass; the passes are ",
                         absl::StrJoin(names, ", ")));
      }
    }
  }
  if (options.num_threads < 0 ||
      options.num_threads > ThreadPool::kMaxThreads) {
    return absl::InvalidArgumentError(absl::StrCat(
        "SessionOptions.num_threads = ", options.num_threads,
        " is out of range; use 0 (one per core) to ", ThreadPool::kMaxThreads));
  }
  if (!ThreadPool::ConfigureShared(options.num_threads)) {
    return absl::FailedPreconditionError(absl::StrCat(
        "SessionOptions.num_threads = ", options.num_threads,
        ", but the process-wide pool already runs ",
        ThreadPool::Shared()->num_threads(),
        " threads; set it in the first session (or DFLOW_NUM_THREADS)"));
  }
  absl::StatusOr<std::unique_ptr<DeviceSet>> devices =
      CreateSessionDevices(options);
  if (!devices.ok()) return devices.status();
  impl->devices = *std::move(devices);
  if (options.log_device_placement) {
    std::cerr << DeviceMappingString(*impl->devices) << std::flush;
  }
  {
    std::unique_lock<std::shared_mutex> lock(impl->graph_mu);
    if (absl::Status s = ImportGraphDef(def, ImportOptions(), &impl->graph);
        !s.ok()) {
      return s;
    }
  }
  return std::unique_ptr<Session>(new Session(std::move(impl)));
}

absl::Status Session::Extend(const GraphDef& def) {
  std::unique_lock<std::shared_mutex> lock(impl_->graph_mu);
  // Validate on a copy first so a bad extension leaves the graph unchanged.
  GraphDef current;
  impl_->graph.ToGraphDef(&current);
  Graph scratch;
  if (absl::Status s = ImportGraphDef(current, ImportOptions(), &scratch);
      !s.ok()) {
    return s;
  }
  if (absl::Status s = ImportGraphDef(def, ImportOptions(), &scratch);
      !s.ok()) {
    return s;
  }
  GraphDef extension = def;
  extension.clear_versions();
  extension.clear_library();
  ++impl_->graph_version;
  return ImportGraphDef(extension, ImportOptions(), &impl_->graph);
}

absl::Status Session::Run(const FeedList& feeds,
                          const std::vector<std::string>& fetches,
                          const std::vector<std::string>& targets,
                          std::vector<Tensor>* outputs) {
  return Run(RunOptions(), feeds, fetches, targets, outputs, nullptr);
}

absl::Status Session::Run(const RunOptions& options, const FeedList& feeds,
                          const std::vector<std::string>& fetches,
                          const std::vector<std::string>& targets,
                          std::vector<Tensor>* outputs, RunMetadata* metadata) {
  absl::StatusOr<std::shared_ptr<const Plan>> plan =
      impl_->GetPlan(feeds, fetches, targets);
  if (!plan.ok()) return plan.status();
  std::vector<Tensor> args;
  args.reserve(feeds.size());
  for (size_t i = 0; i < feeds.size(); ++i) {
    const Tensor& t = feeds[i].second;
    if (absl::Status s =
            CheckFeedValue((*plan)->feed_names[i], t, (*plan)->feed_types[i],
                           (*plan)->feed_shapes[i]);
        !s.ok()) {
      return s;
    }
    args.push_back(t);
  }
  // The frame and the variables outlive this call if the step times out
  // while kernels still run.
  auto frame = std::make_shared<CallFrame>(std::move(args),
                                           static_cast<int>(fetches.size()));
  Executor::Args exec_args;
  exec_args.step_id = impl_->next_step.fetch_add(1);
  exec_args.variables = impl_->variables.get();
  exec_args.call_frame = frame.get();
  auto resources = std::make_shared<StepResources>(
      StepResources{frame, impl_->variables, impl_->devices, nullptr});
  if ((*plan)->has_collectives) {
    // Collective kernels still find the executor through the variables
    // (runtime/collective_registry.h); the context lets the step abort its
    // waiting members and forget the step when it is over.
    resources->collectives = std::make_shared<CollectiveContext>(
        CollectiveExecutorForStore(impl_->variables.get(),
                                   impl_->devices->cpu()->thread_pool()),
        exec_args.step_id);
    exec_args.collective_context = resources->collectives.get();
  }
  exec_args.keep_alive = std::move(resources);
  exec_args.cancellation = options.cancellation;
  const int64_t timeout_ms = options.timeout_ms > 0
                                 ? options.timeout_ms
                                 : impl_->options.step_timeout_ms;
  if (timeout_ms > 0) {
    exec_args.deadline = absl::Now() + absl::Milliseconds(timeout_ms);
  }
  std::vector<NodeExecStats> stats;
  if (metadata != nullptr && options.records_step_stats()) {
    exec_args.stats = &stats;
  }
  if (metadata != nullptr) {
    for (const auto& d : impl_->devices->devices()) d->allocator()->ResetPeak();
  }
  const absl::Status status =
      (*plan)->executor != nullptr
          ? (*plan)->executor->Run(exec_args)
          : impl_->RunPartitioned(**plan, exec_args, exec_args.stats);
  if (!status.ok()) return status;
  if (metadata != nullptr) {
    metadata->step_stats = std::move(stats);
    metadata->peak_bytes.clear();
    for (const auto& d : impl_->devices->devices()) {
      metadata->peak_bytes.emplace_back(d->name(),
                                        d->allocator()->Stats().peak_bytes);
    }
    metadata->planned_peak_bytes.clear();
    bool planned_shapes = true;
    for (size_t i = 0; i < feeds.size(); ++i) {
      planned_shapes = planned_shapes && feeds[i].second.shape() ==
                                             (*plan)->planned_feed_shapes[i];
    }
    if (planned_shapes) {
      metadata->planned_peak_bytes = (*plan)->planned_peak_bytes;
    }
  }
  std::vector<Tensor> results;
  if (absl::Status s = frame->TakeRetvals(&results); !s.ok()) return s;
  for (size_t i = 0; i < results.size(); ++i) {
    // A reference variable's own buffer changes under the next step's
    // updates: the caller keeps a copy (TensorFlow's fetched numpy arrays
    // are copies too).
    if (!results[i].IsReferenceVariableValue()) continue;
    Tensor copy = results[i].DeepCopy();
    if (!copy.IsInitialized()) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "cannot allocate ", results[i].TotalBytes(), " bytes to copy fetch '",
          fetches[i], "' (a reference variable's value)"));
    }
    results[i] = std::move(copy);
  }
  if (outputs != nullptr) *outputs = std::move(results);
  return absl::OkStatus();
}

const DeviceSet& Session::devices() const { return *impl_->devices; }

VariableStore* Session::variables() { return impl_->variables.get(); }

int Session::num_cached_plans() const { return impl_->plans.size(); }

}  // namespace dflow
