#include "graph/gradients/gradients.h"

#include <deque>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "graph/gradients/grad_registry.h"
#include "graph/gradients/while_loop_grad.h"
#include "graph/ops/array_ops.h"
#include "graph/ops/control_flow_builders.h"
#include "graph/ops/math_ops.h"
#include "graph/ops/state_ops.h"
#include "graph/types.h"

namespace dflow {
namespace {

// Types a gradient can flow along (resources: through the values read).
bool CarriesGradient(DataType type) {
  const DataType base = BaseType(type);
  return IsFloatingType(base) || IsComplexType(base) || base == DT_RESOURCE;
}

using OutputKey = std::pair<int, int>;  // node id, output index

OutputKey KeyOf(const Output& o) { return {o.node()->id(), o.index()}; }

std::string Describe(const Node* node) {
  return absl::StrCat("node '", node->name(), "' (", node->op(), ")");
}

class GradientBuilder {
 public:
  GradientBuilder(const Scope& scope, absl::Span<const Output> ys,
                  absl::Span<const Output> xs, absl::Span<const Output> grad_ys,
                  const GradientOptions& options)
      : scope_(scope),
        graph_(scope.graph()),
        ys_(ys),
        xs_(xs),
        grad_ys_(grad_ys),
        options_(options),
        grad_root_(scope) {}

  absl::StatusOr<std::vector<Output>> Build() {
    if (absl::Status s = CheckArguments(); !s.ok()) return s;
    IndexLoops();
    FindPath();
    if (absl::Status s = ReadVariablesThroughSnapshots(); !s.ok()) return s;
    // Everything built from here on is gradient ops, pruned if unused.
    first_new_id_ = graph_->num_node_ids();
    FindPath();
    grad_root_ = scope_.NewSubScope("gradients");
    if (absl::Status s = SeedYs(); !s.ok()) return s;
    if (absl::Status s = Backpropagate(); !s.ok()) return s;
    std::vector<Output> result;
    for (const Output& x : xs_) {
      auto it = summed_.find(KeyOf(x));
      if (it != summed_.end() && it->second.valid()) {
        result.push_back(it->second);
      } else {
        result.push_back(Unconnected(x));
      }
    }
    if (!scope_.ok()) return scope_.status();
    PruneUnused(result);
    return result;
  }

 private:
  absl::Status CheckArguments() {
    if (!scope_.ok()) return scope_.status();
    auto check = [&](absl::Span<const Output> list, const char* what) {
      for (size_t i = 0; i < list.size(); ++i) {
        if (!list[i].valid()) {
          return absl::InvalidArgumentError(
              absl::StrCat("AddSymbolicGradients: ", what, "[", i,
                           "] is invalid (an earlier build step failed)"));
        }
        if (list[i].node()->graph() != graph_) {
          return absl::InvalidArgumentError(absl::StrCat(
              "AddSymbolicGradients: ", what, "[", i, "] '", list[i].name(),
              "' belongs to another graph than the scope's"));
        }
      }
      return absl::OkStatus();
    };
    if (absl::Status s = check(ys_, "ys"); !s.ok()) return s;
    if (absl::Status s = check(xs_, "xs"); !s.ok()) return s;
    if (absl::Status s = check(grad_ys_, "grad_ys"); !s.ok()) return s;
    if (!grad_ys_.empty() && grad_ys_.size() != ys_.size()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "AddSymbolicGradients: ", grad_ys_.size(), " grad_ys for ",
          ys_.size(), " ys; give one per y or none (ones)"));
    }
    for (size_t i = 0; i < ys_.size(); ++i) {
      const DataType type = BaseType(ys_[i].dtype());
      if (!CarriesGradient(type) || type == DT_RESOURCE) {
        return absl::InvalidArgumentError(
            absl::StrCat("AddSymbolicGradients: ys[", i, "] '", ys_[i].name(),
                         "' is ", DataTypeName(type),
                         "; only floating-point outputs have gradients"));
      }
      if (!grad_ys_.empty() && BaseType(grad_ys_[i].dtype()) != type) {
        return absl::InvalidArgumentError(absl::StrCat(
            "AddSymbolicGradients: grad_ys[", i, "] '", grad_ys_[i].name(),
            "' is ", DataTypeName(grad_ys_[i].dtype()), " but ys[", i, "] '",
            ys_[i].name(), "' is ", DataTypeName(type)));
      }
    }
    return absl::OkStatus();
  }

  // The loops ops::WhileLoop built (graph/ops/control_flow_builders.h) are
  // differentiated as wholes: a loop's results depend on its initial values
  // and captures, and none of its inner nodes is on the path.
  void IndexLoops() {
    ops::ControlFlowRecords& records = ops::RecordsOf(scope_);
    for (int l = 0; l < static_cast<int>(records.loops.size()); ++l) {
      const ops::WhileLoopRecord& loop = records.loops[l];
      for (int i = 0; i < static_cast<int>(loop.exits.size()); ++i) {
        loop_of_exit_[loop.exits[i].node()->id()] = {l, i};
      }
      loop_of_exit_[loop.counter_exit->id()] = {l, -1};
      for (Node* enter : loop.enters) loop_of_enter_[enter->id()] = l;
      for (const auto& capture : loop.captures) {
        loop_of_enter_[capture.second->id()] = l;
      }
    }
  }

  // What a loop's results are computed from, outside it.
  std::vector<Output> LoopSources(int l) const {
    const ops::WhileLoopRecord& loop = ops::RecordsOf(scope_).loops[l];
    std::vector<Output> sources = loop.inputs;
    for (const auto& capture : loop.captures) {
      sources.push_back(capture.first);
    }
    return sources;
  }
  std::vector<Node*> LoopExits(int l) const {
    std::vector<Node*> exits;
    for (const Output& exit : ops::RecordsOf(scope_).loops[l].exits) {
      exits.push_back(exit.node());
    }
    return exits;
  }

  // A node is on the path if some y depends on it and it depends on some x
  // (data edges only: control edges carry no values).
  void FindPath() {
    const int n = graph_->num_node_ids();
    std::vector<bool> from_ys(n, false), from_xs(n, false);
    std::vector<Node*> stack;
    for (const Output& y : ys_) stack.push_back(y.node());
    while (!stack.empty()) {
      Node* node = stack.back();
      stack.pop_back();
      if (from_ys[node->id()]) continue;
      from_ys[node->id()] = true;
      if (auto it = loop_of_exit_.find(node->id()); it != loop_of_exit_.end()) {
        for (const Output& source : LoopSources(it->second.first)) {
          stack.push_back(source.node());
        }
        continue;
      }
      for (const Edge* e : node->in_edges()) {
        if (!e->IsControl()) stack.push_back(e->src);
      }
    }
    for (const Output& x : xs_) stack.push_back(x.node());
    while (!stack.empty()) {
      Node* node = stack.back();
      stack.pop_back();
      if (from_xs[node->id()]) continue;
      from_xs[node->id()] = true;
      if (auto it = loop_of_enter_.find(node->id());
          it != loop_of_enter_.end()) {
        for (Node* exit : LoopExits(it->second)) stack.push_back(exit);
        continue;
      }
      for (const Edge* e : node->out_edges()) {
        if (!e->IsControl()) stack.push_back(e->dst);
      }
    }
    on_path_.assign(n, false);
    pending_.assign(n, 0);
    for (int id = 0; id < n; ++id) on_path_[id] = from_ys[id] && from_xs[id];
    for (int id = 0; id < n; ++id) {
      if (!on_path_[id]) continue;
      for (const Edge* e : graph_->node(id)->out_edges()) {
        if (!e->IsControl() && on_path_[e->dst->id()]) ++pending_[id];
      }
    }
    // A loop with a result on the path is one more consumer of each of its
    // sources on the path; it runs when all those results have gradients.
    loop_pending_.clear();
    for (const auto& [exit_id, where] : loop_of_exit_) {
      if (exit_id < n && on_path_[exit_id] && where.second >= 0) {
        ++loop_pending_[where.first];
      }
    }
    for (const auto& [l, count] : loop_pending_) {
      for (const Output& source : LoopSources(l)) {
        if (on_path_[source.node()->id()]) ++pending_[source.node()->id()];
      }
    }
  }

  // An op on the path that reads a variable directly (a reference output
  // feeding a value input) reads it again whenever a new edge from the
  // variable runs -- so a gradient op could see the value after this step's
  // update, while the forward op saw the one before. Such edges are rewired
  // through one Identity per variable ("<var>/read", colocated with it, as
  // TensorFlow's tf.Variable reads): the forward op and its gradient then
  // share one snapshot of the value, which an in-place update cannot change
  // (updates copy a buffer a reader still holds).
  absl::Status ReadVariablesThroughSnapshots() {
    struct Rewire {
      Node* dst;
      int input;
      Node* var;
      int output;
    };
    std::vector<Rewire> rewires;
    for (int id = 0; id < static_cast<int>(on_path_.size()); ++id) {
      if (!on_path_[id]) continue;
      Node* node = graph_->node(id);
      for (const Edge* e : node->in_edges()) {
        if (e->IsControl() || !IsRefType(e->src->output_type(e->src_output)) ||
            IsRefType(node->input_type(e->dst_input))) {
          continue;
        }
        rewires.push_back({node, e->dst_input, e->src, e->src_output});
      }
    }
    absl::flat_hash_map<OutputKey, Output> reads;
    for (const Rewire& r : rewires) {
      Output& read = reads[{r.var->id(), r.output}];
      if (!read.valid()) {
        const Scope at_var = scope_.WithRootNameScope()
                                 .WithNoControlDependencies()
                                 .WithNameScopePath(r.var->name())
                                 .WithExactDevice(r.var->requested_device())
                                 .ColocateWith(Operation(r.var));
        read = OpBuilder(at_var, "Identity", "read")
                   .Input(Output(r.var, r.output))
                   .Finalize();
        if (!scope_.ok()) return scope_.status();
      }
      if (absl::Status s = graph_->UpdateEdge(read.node(), 0, r.dst, r.input);
          !s.ok()) {
        return s;
      }
    }
    return absl::OkStatus();
  }

  // Where the gradient ops of forward node `node` go.
  Scope GradScopeFor(Node* node) const {
    Scope s = grad_root_.WithNameScopePath(absl::StrCat(node->name(), "_grad"));
    if (options_.colocate_gradients_with_ops) {
      s = s.WithExactDevice(node->requested_device())
              .ColocateWith(Operation(node));
    }
    return s;
  }

  absl::Status SeedYs() {
    for (size_t i = 0; i < ys_.size(); ++i) {
      Output seed;
      if (!grad_ys_.empty()) {
        seed = grad_ys_[i];
      } else {
        Scope s = grad_root_;
        if (options_.colocate_gradients_with_ops) {
          s = s.WithExactDevice(ys_[i].node()->requested_device())
                  .ColocateWith(ys_[i].op());
        }
        seed = ops::OnesLike(s, ys_[i]);
      }
      grads_[KeyOf(ys_[i])].push_back(seed);
    }
    return scope_.status();
  }

  absl::Status Backpropagate() {
    int remaining = 0;
    for (int id = 0; id < static_cast<int>(on_path_.size()); ++id) {
      if (!on_path_[id]) continue;
      ++remaining;
      if (pending_[id] == 0) ready_.push_back(graph_->node(id));
    }
    while (!ready_.empty()) {
      Node* node = ready_.front();
      ready_.pop_front();
      --remaining;
      if (absl::Status s = Differentiate(node); !s.ok()) return s;
      if (loop_of_exit_.contains(node->id())) continue;  // see LoopExitDone
      for (const Edge* e : node->in_edges()) {
        if (e->IsControl() || !on_path_[e->src->id()]) continue;
        Consumed(e->src);
      }
    }
    if (remaining != 0) {
      return absl::FailedPreconditionError(
          "AddSymbolicGradients: the graph between the xs and the ys has a "
          "cycle; gradients need an acyclic graph");
    }
    return absl::OkStatus();
  }

  // One consumer of on-path `node` has been differentiated.
  void Consumed(Node* node) {
    if (--pending_[node->id()] == 0) ready_.push_back(node);
  }

  // Exit `node` (result `index` of loop `l`) got its gradient `grad`
  // (invalid: none); after the loop's last result on the path, builds the
  // loop's gradient and hands it to the loop's sources.
  absl::Status LoopExitDone(int l, int index, const Output& grad) {
    if (index < 0) return absl::OkStatus();  // the hidden counter
    std::vector<Output>& grads = loop_grads_[l];
    ops::WhileLoopRecord& loop = ops::RecordsOf(scope_).loops[l];
    grads.resize(loop.exits.size());
    grads[index] = grad;
    if (--loop_pending_[l] > 0) return absl::OkStatus();
    Node* first_exit = loop.exits[0].node();
    absl::StatusOr<WhileLoopGradients> g =
        BuildWhileLoopGradient(GradScopeFor(first_exit), loop, grads, options_);
    if (!g.ok()) {
      return absl::Status(
          g.status().code(),
          absl::StrCat("AddSymbolicGradients: the gradient of loop '",
                       loop.frame, "': ", g.status().message()));
    }
    std::vector<Output> sources = LoopSources(l);
    std::vector<Output> source_grads = g->inputs;
    source_grads.insert(source_grads.end(), g->captures.begin(),
                        g->captures.end());
    for (size_t k = 0; k < sources.size(); ++k) {
      Node* source = sources[k].node();
      if (!on_path_[source->id()]) continue;
      if (source_grads[k].valid()) {
        grads_[KeyOf(sources[k])].push_back(source_grads[k]);
      }
      Consumed(source);
    }
    return absl::OkStatus();
  }

  // Sums the gradients that reached `node`'s outputs and, if one of its
  // inputs is on the path, runs its gradient function.
  absl::Status Differentiate(Node* node) {
    const Scope scope = GradScopeFor(node);
    std::vector<Output> grad_outputs(node->num_outputs());
    bool any = false;
    for (int k = 0; k < node->num_outputs(); ++k) {
      auto it = grads_.find({node->id(), k});
      if (it == grads_.end() || it->second.empty()) continue;
      std::vector<Output>& parts = it->second;
      grad_outputs[k] = parts.size() == 1 ? parts[0] : ops::AddN(scope, parts);
      summed_[{node->id(), k}] = grad_outputs[k];
      grads_.erase(it);
      any = true;
    }
    if (!scope.ok()) return scope.status();
    if (auto it = loop_of_exit_.find(node->id()); it != loop_of_exit_.end()) {
      return LoopExitDone(it->second.first, it->second.second, grad_outputs[0]);
    }
    bool has_path_input = false;
    for (const Edge* e : node->in_edges()) {
      if (!e->IsControl() && on_path_[e->src->id()]) has_path_input = true;
    }
    if (!any || !has_path_input) return absl::OkStatus();

    const GradFunc* fn = nullptr;
    switch (GradRegistry::Global()->Lookup(node->op(), &fn)) {
      case GradRegistry::Kind::kNoGradient:
        return absl::OkStatus();
      case GradRegistry::Kind::kUnknown:
        return absl::UnimplementedError(absl::StrCat(
            "AddSymbolicGradients: ", Describe(node),
            " lies between the xs and the ys but op '", node->op(),
            "' has no gradient function; register one with "
            "DFLOW_REGISTER_GRADIENT (graph/gradients/), or cut the path "
            "with StopGradient"));
      case GradRegistry::Kind::kGradient:
        break;
    }
    for (int k = 0; k < node->num_outputs(); ++k) {
      if (!grad_outputs[k].valid() && CarriesGradient(node->output_type(k)) &&
          BaseType(node->output_type(k)) != DT_RESOURCE) {
        grad_outputs[k] = ops::ZerosLike(scope, Output(node, k));
      }
    }
    std::vector<Output> grad_inputs;
    absl::Status s = (*fn)(scope, Operation(node), grad_outputs, &grad_inputs);
    if (s.ok()) s = scope.status();
    if (!s.ok()) {
      return absl::Status(s.code(),
                          absl::StrCat("AddSymbolicGradients: the gradient of ",
                                       Describe(node), ": ", s.message()));
    }
    if (static_cast<int>(grad_inputs.size()) != node->num_inputs()) {
      return absl::InternalError(absl::StrCat(
          "AddSymbolicGradients: the gradient function of op '", node->op(),
          "' returned ", grad_inputs.size(), " gradients for ", Describe(node),
          ", which has ", node->num_inputs(), " inputs"));
    }
    for (int i = 0; i < node->num_inputs(); ++i) {
      const Edge* e = node->input_edge(i);
      if (e == nullptr || !on_path_[e->src->id()] || !grad_inputs[i].valid()) {
        continue;
      }
      const DataType want = BaseType(e->src->output_type(e->src_output));
      if (want != DT_RESOURCE && grad_inputs[i].dtype() != want) {
        return absl::InternalError(
            absl::StrCat("AddSymbolicGradients: the gradient function of op '",
                         node->op(), "' gave input ", i, " of ", Describe(node),
                         " a ", DataTypeName(grad_inputs[i].dtype()),
                         " gradient; the input is ", DataTypeName(want)));
      }
    }
    if (options_.gate_gradients == GradientOptions::Gate::kOp) {
      GateGradients(scope, node, &grad_inputs);
    }
    for (int i = 0; i < node->num_inputs(); ++i) {
      const Edge* e = node->input_edge(i);
      if (e == nullptr || !on_path_[e->src->id()] || !grad_inputs[i].valid()) {
        continue;
      }
      grads_[{e->src->id(), e->src_output}].push_back(grad_inputs[i]);
    }
    return scope.status();
  }

  // TensorFlow's GATE_OP (control_flow_ops.tuple): when `node` passes
  // gradients to two or more inputs on the path, each becomes an Identity
  // that waits for a NoOp run after all of them. Inputs off the path are
  // not gated: their gradients are never computed (TensorFlow computes
  // them for the gate).
  void GateGradients(const Scope& scope, Node* node,
                     std::vector<Output>* grad_inputs) {
    std::vector<int> gated;
    std::vector<Operation> ops;
    for (int i = 0; i < node->num_inputs(); ++i) {
      const Edge* e = node->input_edge(i);
      if (e == nullptr || !on_path_[e->src->id()] ||
          !(*grad_inputs)[i].valid()) {
        continue;
      }
      gated.push_back(i);
      ops.push_back((*grad_inputs)[i].op());
    }
    if (gated.size() < 2) return;
    const Scope tuple = scope.NewSubScope("tuple");
    const Operation gate =
        OpBuilder(tuple.WithControlDependencies(absl::MakeConstSpan(ops)),
                  "NoOp", "group_deps")
            .Finalize();
    for (int i : gated) {
      Output& grad = (*grad_inputs)[i];
      grad = OpBuilder(tuple.ColocateWith(grad.op())
                           .WithControlDependencies({gate}),
                       "Identity", "control_dependency")
                 .Input(grad)
                 .Finalize()
                 .output(0);
    }
  }

  Output Unconnected(const Output& x) {
    if (options_.unconnected == GradientOptions::Unconnected::kNone) {
      return Output();
    }
    Scope s = grad_root_;
    if (options_.colocate_gradients_with_ops) {
      s = s.WithExactDevice(x.node()->requested_device()).ColocateWith(x.op());
    }
    if (x.dtype() == DT_RESOURCE) {
      DataType dtype = DT_INVALID;
      if (!x.node()->GetAttr("dtype", &dtype).ok()) {
        scope_.UpdateStatus(absl::InvalidArgumentError(absl::StrCat(
            "AddSymbolicGradients: x '", x.name(),
            "' is a resource without a dtype attr; pass its VarHandleOp")));
        return Output();
      }
      return ops::ZerosLike(s, ops::ReadVariableOp(s, x, dtype));
    }
    return ops::ZerosLike(s, x);
  }

  // Removes the ops this call built that no returned gradient (and no
  // forward op) needs: the gradients of inputs no x depends on, zeros nobody
  // used, seeds of ys no x reaches.
  void PruneUnused(const std::vector<Output>& result) {
    const int n = graph_->num_node_ids();
    std::vector<bool> keep(n, false);
    std::vector<Node*> stack;
    for (const Output& o : result) {
      if (o.valid()) stack.push_back(o.node());
    }
    // What this call added to the forward graph stays: the pushes a loop's
    // gradient added to the loop (its NextIterations wait for them).
    for (int id = first_new_id_; id < n; ++id) {
      Node* node = graph_->node(id);
      if (node == nullptr) continue;
      for (const Edge* e : node->out_edges()) {
        if (e->dst->id() < first_new_id_) stack.push_back(node);
      }
    }
    while (!stack.empty()) {
      Node* node = stack.back();
      stack.pop_back();
      if (node->id() < first_new_id_ || keep[node->id()]) continue;
      keep[node->id()] = true;
      for (const Edge* e : node->in_edges()) stack.push_back(e->src);
    }
    for (int id = first_new_id_; id < n; ++id) {
      Node* node = graph_->node(id);
      if (node != nullptr && !keep[id]) graph_->RemoveNode(node);
    }
  }

  const Scope& scope_;
  Graph* const graph_;
  absl::Span<const Output> ys_, xs_, grad_ys_;
  const GradientOptions options_;
  Scope grad_root_;  // "gradients" below scope_, set by Build()
  int first_new_id_ = 0;
  std::vector<bool> on_path_;
  std::vector<int> pending_;
  std::deque<Node*> ready_;  // on-path nodes whose consumers are all done
  // Loops by their Exits (result index; -1: the hidden counter) and Enters.
  absl::flat_hash_map<int, std::pair<int, int>> loop_of_exit_;
  absl::flat_hash_map<int, int> loop_of_enter_;
  // Results on the path whose gradient is not built yet, per loop.
  absl::flat_hash_map<int, int> loop_pending_;
  absl::flat_hash_map<int, std::vector<Output>> loop_grads_;
  // Gradients reaching each output, not yet summed.
  absl::flat_hash_map<OutputKey, std::vector<Output>> grads_;
  // The summed gradient of each output that got one.
  absl::flat_hash_map<OutputKey, Output> summed_;
};

}  // namespace

absl::StatusOr<std::vector<Output>> AddSymbolicGradients(
    const Scope& scope, absl::Span<const Output> ys,
    absl::Span<const Output> xs, absl::Span<const Output> grad_ys,
    const GradientOptions& options) {
  return GradientBuilder(scope, ys, xs, grad_ys, options).Build();
}

}  // namespace dflow
