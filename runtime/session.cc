#include "runtime/session.h"

#include <iostream>
#include <mutex>
#include <shared_mutex>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compiler/fuse_matmul_update.h"
#include "compiler/placement_log.h"
#include "compiler/placer.h"
#include "graph/attr_value_util.h"
#include "graph/graph_def_import.h"
#include "graph/node_def_util.h"
#include "runtime/call_frame.h"
#include "runtime/executor.h"
#include "runtime/placement_bridge.h"

namespace dflow {

namespace {

// A compiled run signature.
struct Plan {
  std::shared_ptr<Executor> executor;  // shared: see Executor
  std::vector<std::string> feed_names;
  std::vector<DataType> feed_types;
  std::vector<TensorShape> feed_shapes;  // what the graph declares
};

struct TensorId {
  std::string node;
  int index = 0;
};

absl::Status ParseTensorName(absl::string_view what, absl::string_view name,
                             TensorId* out) {
  size_t colon = name.rfind(':');
  out->node = std::string(name.substr(0, colon));
  out->index = 0;
  if (colon != absl::string_view::npos &&
      (!absl::SimpleAtoi(name.substr(colon + 1), &out->index) ||
       out->index < 0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, " '", name, "' is not a tensor name; use 'node' or 'node:k'"));
  }
  if (out->node.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(what, " name is empty"));
  }
  return absl::OkStatus();
}

absl::StatusOr<const Node*> FindOutput(const Graph& g, absl::string_view what,
                                       absl::string_view name, TensorId* id) {
  if (auto s = ParseTensorName(what, name, id); !s.ok()) return s;
  const Node* n = g.FindNode(id->node);
  if (n == nullptr) {
    return absl::NotFoundError(absl::StrCat(what, " '", name,
                                            "' refers to no node named '",
                                            id->node, "' in the graph"));
  }
  if (id->index >= n->num_outputs()) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, " '", name, "': ", NodeLabel(n->def()), " has ", n->num_outputs(),
        " output(s)",
        n->num_outputs() == 0 ? "; run it as a target instead" : ""));
  }
  return n;
}

std::string OutputName(const std::string& node, int index) {
  return index == 0 ? node : absl::StrCat(node, ":", index);
}

}  // namespace

struct Session::Impl {
  SessionOptions options;
  std::unique_ptr<DeviceSet> devices;
  // Shared with running steps (see Executor::Args::keep_alive).
  std::shared_ptr<VariableStore> variables = std::make_shared<VariableStore>();
  // std mutexes, not absl's: see runtime/variables.h.
  mutable std::shared_mutex graph_mu;
  Graph graph;  // graph_mu
  mutable std::mutex cache_mu;
  absl::flat_hash_map<std::string, std::shared_ptr<const Plan>>
      plans;  // cache_mu
  std::atomic<int64_t> next_step{1};
  // One kernel per stateful user node, shared by every plan.
  std::mutex kernels_mu;
  absl::flat_hash_map<std::string, std::shared_ptr<OpKernel>> stateful_kernels;

  absl::StatusOr<std::shared_ptr<OpKernel>> KernelFor(const Node& node,
                                                      Device* device);
  // Assigns every node of a plan's graph a device (and logs it when asked).
  absl::StatusOr<PlacementRecord> Place(Graph* graph);
  absl::StatusOr<std::shared_ptr<const Plan>> GetPlan(
      const FeedList& feeds, const std::vector<std::string>& fetches,
      const std::vector<std::string>& targets);
  absl::StatusOr<std::shared_ptr<const Plan>> Compile(
      const FeedList& feeds, const std::vector<std::string>& fetches,
      const std::vector<std::string>& targets);
};

absl::StatusOr<std::shared_ptr<const Plan>> Session::Impl::GetPlan(
    const FeedList& feeds, const std::vector<std::string>& fetches,
    const std::vector<std::string>& targets) {
  std::string key;
  for (const auto& [name, tensor] : feeds) absl::StrAppend(&key, name, ",");
  absl::StrAppend(&key, "|", absl::StrJoin(fetches, ","), "|",
                  absl::StrJoin(targets, ","));
  {
    std::lock_guard<std::mutex> lock(cache_mu);
    auto it = plans.find(key);
    if (it != plans.end()) return it->second;
  }
  absl::StatusOr<std::shared_ptr<const Plan>> plan =
      Compile(feeds, fetches, targets);
  if (!plan.ok()) return plan.status();
  std::lock_guard<std::mutex> lock(cache_mu);
  // Another thread may have compiled the same signature meanwhile; either
  // plan is fine, keep the first.
  auto [it, inserted] = plans.emplace(key, *plan);
  return it->second;
}

absl::StatusOr<std::shared_ptr<const Plan>> Session::Impl::Compile(
    const FeedList& feeds, const std::vector<std::string>& fetches,
    const std::vector<std::string>& targets) {
  auto plan = std::make_shared<Plan>();
  GraphDef def;
  {
    std::shared_lock<std::shared_mutex> lock(graph_mu);
    // Feeds: each becomes an _Arg node replacing the fed tensor.
    absl::flat_hash_map<std::string, int> fed;  // "node:k" -> feed index
    for (size_t i = 0; i < feeds.size(); ++i) {
      TensorId id;
      absl::StatusOr<const Node*> n =
          FindOutput(graph, "feed", feeds[i].first, &id);
      if (!n.ok()) return n.status();
      const std::string canonical = OutputName(id.node, id.index);
      if (!fed.emplace(canonical, static_cast<int>(i)).second) {
        return absl::InvalidArgumentError(
            absl::StrCat("'", canonical, "' is fed twice"));
      }
      plan->feed_names.push_back(canonical);
      plan->feed_types.push_back(BaseType((*n)->output_type(id.index)));
      plan->feed_shapes.push_back((*n)->output_shape(id.index));
    }
    auto arg_name = [](int i) { return absl::StrCat("_arg_", i); };
    auto feed_of = [&](const std::string& node, int index) {
      auto it = fed.find(OutputName(node, index));
      return it == fed.end() ? -1 : it->second;
    };

    // Prune: walk back from fetches and targets, not past fed tensors.
    std::vector<const Node*> stack;
    std::vector<TensorId> fetch_ids(fetches.size());
    for (size_t i = 0; i < fetches.size(); ++i) {
      absl::StatusOr<const Node*> n =
          FindOutput(graph, "fetch", fetches[i], &fetch_ids[i]);
      if (!n.ok()) return n.status();
      if (feed_of(fetch_ids[i].node, fetch_ids[i].index) < 0)
        stack.push_back(*n);
    }
    for (const std::string& t : targets) {
      const Node* n = graph.FindNode(t);
      if (n == nullptr) {
        return absl::NotFoundError(
            absl::StrCat("target '", t, "' refers to no node in the graph"));
      }
      stack.push_back(n);
    }
    std::vector<bool> keep(graph.num_node_ids(), false);
    while (!stack.empty()) {
      const Node* n = stack.back();
      stack.pop_back();
      if (keep[n->id()]) continue;
      keep[n->id()] = true;
      for (const Edge* e : n->in_edges()) {
        if (!e->IsControl() && feed_of(e->src->name(), e->src_output) >= 0) {
          continue;
        }
        if (!keep[e->src->id()]) stack.push_back(e->src);
      }
    }

    // The pruned graph with _Arg/_Retval nodes, as a GraphDef.
    for (size_t i = 0; i < feeds.size(); ++i) {
      NodeDef* arg = def.add_node();
      arg->set_name(arg_name(static_cast<int>(i)));
      arg->set_op(kArgOp);
      // Feeds and fetches are host tensors: their ends sit on the CPU.
      arg->set_device(devices->cpu()->name());
      (*arg->mutable_attr())["T"] = MakeAttr(plan->feed_types[i]);
      (*arg->mutable_attr())["index"] = MakeAttr(static_cast<int64_t>(i));
    }
    for (const Node* n : graph.nodes()) {
      if (!keep[n->id()]) continue;
      NodeDef* nd = def.add_node();
      *nd = n->def();
      std::vector<const Edge*> data(n->num_inputs(), nullptr);
      for (const Edge* e : n->in_edges()) {
        if (!e->IsControl()) data[e->dst_input] = e;
      }
      for (int k = 0; k < n->num_inputs(); ++k) {
        const Edge* e = data[k];
        if (e == nullptr) {
          return absl::FailedPreconditionError(absl::StrCat(
              NodeLabel(n->def()), ": input ", k, " is not connected"));
        }
        const int f = feed_of(e->src->name(), e->src_output);
        nd->add_input(f >= 0 ? arg_name(f)
                             : OutputName(e->src->name(), e->src_output));
      }
      for (const Edge* e : n->in_edges()) {
        if (e->IsControl()) nd->add_input(absl::StrCat("^", e->src->name()));
      }
    }
    for (size_t i = 0; i < fetches.size(); ++i) {
      const TensorId& id = fetch_ids[i];
      const Node* n = graph.FindNode(id.node);
      NodeDef* ret = def.add_node();
      ret->set_name(absl::StrCat("_retval_", i));
      ret->set_op(kRetvalOp);
      ret->set_device(devices->cpu()->name());
      const int f = feed_of(id.node, id.index);
      ret->add_input(f >= 0 ? arg_name(f) : OutputName(id.node, id.index));
      (*ret->mutable_attr())["T"] =
          MakeAttr(BaseType(n->output_type(id.index)));
      (*ret->mutable_attr())["index"] = MakeAttr(static_cast<int64_t>(i));
    }
  }
  Graph pruned;
  ImportOptions options;
  options.infer_shapes = false;  // shapes were checked when the graph was built
  if (absl::Status s = ImportGraphDef(def, options, &pruned); !s.ok()) return s;
  if (this->options.optimize_graph) {
    if (absl::StatusOr<int> fused = FuseMatMulIntoGradientDescent(&pruned);
        !fused.ok()) {
      return fused.status();
    }
  }
  if (absl::StatusOr<PlacementRecord> placement = Place(&pruned);
      !placement.ok()) {
    return placement.status();
  }
  // Every device of a session shares host memory today (CPUs and the GPU
  // stand-ins), so one executor runs all of them; real GPUs come with
  // partitioning: one executor per device, transfers between them.
  absl::StatusOr<std::unique_ptr<Executor>> executor = Executor::Create(
      pruned,
      [this](const Node& node) { return devices->Find(node.assigned_device()); },
      [this](const Node& node, Device* device) {
        return KernelFor(node, device);
      });
  if (!executor.ok()) return executor.status();
  plan->executor = *std::move(executor);
  return std::shared_ptr<const Plan>(std::move(plan));
}

absl::StatusOr<PlacementRecord> Session::Impl::Place(Graph* graph) {
  absl::StatusOr<std::vector<PlacementDevice>> placement_devices =
      PlacementDevicesOf(*devices);
  if (!placement_devices.ok()) return placement_devices.status();
  PlacerOptions placer_options;
  placer_options.allow_soft_placement = options.allow_soft_placement;
  // Each run signature places only what it runs (see Session::Impl::Compile).
  placer_options.pruned_subgraph = true;
  absl::StatusOr<PlacementRecord> record = PlaceGraph(
      graph, *placement_devices, RegistryKernelQuery(), placer_options);
  if (record.ok() && options.log_device_placement) {
    std::cerr << FormatPlacementLog(*record) << std::flush;
  }
  return record;
}

absl::StatusOr<std::shared_ptr<OpKernel>> Session::Impl::KernelFor(
    const Node& node, Device* device) {
  // Internal nodes (_Arg, _Retval) are plan-specific even though stateful.
  const bool shared = node.IsStateful() && node.name()[0] != '_';
  if (shared) {
    std::lock_guard<std::mutex> lock(kernels_mu);
    auto it = stateful_kernels.find(node.name());
    if (it != stateful_kernels.end()) return it->second;
  }
  absl::StatusOr<std::unique_ptr<OpKernel>> kernel =
      KernelRegistry::Global()->CreateKernel(node, device);
  if (!kernel.ok()) return kernel.status();
  std::shared_ptr<OpKernel> result = *std::move(kernel);
  if (shared) {
    std::lock_guard<std::mutex> lock(kernels_mu);
    // A concurrent compile may have made one first: use that one.
    auto [it, inserted] = stateful_kernels.emplace(node.name(), result);
    return it->second;
  }
  return result;
}

absl::StatusOr<std::unique_ptr<DeviceSet>> CreateSessionDevices(
    const SessionOptions& options) {
  DeviceSet::Options set;
  for (const auto& [key, count] : options.device_count) {
    const std::string type = absl::AsciiStrToUpper(key);
    if (type != "CPU" && type != "GPU") {
      return absl::InvalidArgumentError(
          absl::StrCat("SessionOptions.device_count names device type '", key,
                       "'; the types are CPU and GPU"));
    }
    if (count < 0 || (type == "CPU" && count < 1)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "SessionOptions.device_count[\"", key, "\"] = ", count,
          type == "CPU" ? "; a session needs at least one CPU device"
                        : "; a device count cannot be negative"));
    }
    if (type == "CPU") set.num_cpus = count;
    // "GPU" caps real GPUs. The GPU work creates them here from
    // CountCudaDevices() (runtime/cuda_device_count.h); until then there are
    // none, and the count has nothing to cap.
  }
  if (options.fake_gpus < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("SessionOptions.fake_gpus = ", options.fake_gpus,
                     "; a device count cannot be negative"));
  }
  set.num_fake_gpus = options.fake_gpus;
  return DeviceSet::Create(set);
}

Session::Session(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Session::~Session() = default;

absl::StatusOr<std::unique_ptr<Session>> Session::Create(
    const GraphDef& def, const SessionOptions& options) {
  auto impl = std::make_unique<Impl>();
  impl->options = options;
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
    const std::string& name = (*plan)->feed_names[i];
    if (t.dtype() != (*plan)->feed_types[i]) {
      return absl::InvalidArgumentError(
          absl::StrCat("feed '", name, "' is a ", DataTypeName(t.dtype()),
                       " tensor but the graph expects ",
                       DataTypeName((*plan)->feed_types[i])));
    }
    if (!(*plan)->feed_shapes[i].IsCompatibleWith(t.shape())) {
      return absl::InvalidArgumentError(absl::StrCat(
          "feed '", name, "' has shape ", t.shape().ToString(),
          " but the graph declares ", (*plan)->feed_shapes[i].ToString()));
    }
    args.push_back(t);
  }
  // The frame and the variables outlive this call if the step times out
  // while kernels still run.
  auto frame =
      std::make_shared<CallFrame>(std::move(args), static_cast<int>(fetches.size()));
  Executor::Args exec_args;
  exec_args.step_id = impl_->next_step.fetch_add(1);
  exec_args.variables = impl_->variables.get();
  exec_args.call_frame = frame.get();
  exec_args.keep_alive = std::make_shared<
      std::pair<std::shared_ptr<CallFrame>, std::shared_ptr<VariableStore>>>(
      frame, impl_->variables);
  exec_args.cancellation = options.cancellation;
  if (options.timeout_ms > 0) {
    exec_args.deadline = absl::Now() + absl::Milliseconds(options.timeout_ms);
  }
  std::vector<NodeExecStats> stats;
  if (metadata != nullptr && options.collect_step_stats)
    exec_args.stats = &stats;
  if (metadata != nullptr) {
    for (const auto& d : impl_->devices->devices()) d->allocator()->ResetPeak();
  }
  if (absl::Status s = (*plan)->executor->Run(exec_args); !s.ok()) return s;
  if (metadata != nullptr) {
    metadata->step_stats = std::move(stats);
    metadata->peak_bytes.clear();
    for (const auto& d : impl_->devices->devices()) {
      metadata->peak_bytes.emplace_back(d->name(),
                                        d->allocator()->Stats().peak_bytes);
    }
  }
  std::vector<Tensor> results;
  if (absl::Status s = frame->TakeRetvals(&results); !s.ok()) return s;
  if (outputs != nullptr) *outputs = std::move(results);
  return absl::OkStatus();
}

const DeviceSet& Session::devices() const { return *impl_->devices; }

VariableStore* Session::variables() { return impl_->variables.get(); }

int Session::num_cached_plans() const {
  std::lock_guard<std::mutex> lock(impl_->cache_mu);
  return static_cast<int>(impl_->plans.size());
}

}  // namespace dflow
