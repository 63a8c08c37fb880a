#include "graph/ops/control_flow_builders.h"

#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/ops/array_ops.h"
#include "graph/ops/math_ops.h"
#include "graph/types.h"

namespace dflow {
namespace ops {
namespace {

constexpr char kRecordsKey[] = "dflow.control_flow_records";

using OutputKey = std::pair<int, int>;  // node id, output index

// The nodes built while a branch, a condition or a body function ran:
// ids [first, end) (AddSymbolicGradients may have removed some since).
struct Built {
  int first = 0;
  int end = 0;
};

// Rewires the nodes in `built` into a branch or a frame: a data input from
// a node built before `outside_end` (outside the construct) reads
// `route(outer)` instead, and a node with no input at all gets a control
// input from `pivot`. `route` builds each routed tensor once (it caches).
// In a loop (`in_loop`), so does a node all of whose inputs come from
// outside: it reads only loop constants (is_constant Enters), which are
// there in every iteration, so without the pivot nothing would stop it
// from running, and starting the next iteration, after the condition
// turned false (TensorFlow's while_loop adds the same edge).
absl::Status Adopt(Graph* graph, const Built& built, int outside_end,
                   Node* pivot, bool in_loop,
                   const std::function<Output(const Output&)>& route) {
  for (int id = built.first; id < built.end; ++id) {
    Node* node = graph->node(id);
    if (node == nullptr) continue;
    if (node->in_edges().empty()) {
      graph->AddControlEdge(pivot, node);
      continue;
    }
    std::vector<std::pair<int, Output>> rewires;  // input -> outer tensor
    bool reads_inside = false;
    for (const Edge* e : node->in_edges()) {
      if (!e->IsControl() && e->src->id() < outside_end) {
        rewires.push_back({e->dst_input, Output(e->src, e->src_output)});
      } else if (e->src->id() >= outside_end) {
        reads_inside = true;
      }
    }
    if (in_loop && !reads_inside) graph->AddControlEdge(pivot, node);
    for (const auto& [input, outer] : rewires) {
      const Output routed = route(outer);
      if (!routed.valid()) {
        return absl::InternalError(
            absl::StrCat("control-flow builder: could not route '",
                         outer.name(), "' into '", node->name(), "'"));
      }
      if (absl::Status s =
              graph->UpdateEdge(routed.node(), routed.index(), node, input);
          !s.ok()) {
        return s;
      }
    }
  }
  return absl::OkStatus();
}

// Runs `fn` and notes which nodes it built.
template <typename Fn>
auto Build(Graph* graph, Built* built, const Fn& fn) {
  built->first = graph->num_node_ids();
  auto result = fn();
  built->end = graph->num_node_ids();
  return result;
}

absl::Status CheckOutputs(const std::vector<Output>& outputs,
                          const std::string& what) {
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (!outputs[i].valid()) {
      return absl::InvalidArgumentError(absl::StrCat(
          what, " output ", i, " is invalid (an earlier build step failed)"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

ControlFlowRecords& RecordsOf(const Scope& scope) {
  std::shared_ptr<void>& slot = scope.Attachment(kRecordsKey);
  if (slot == nullptr) slot = std::make_shared<ControlFlowRecords>();
  return *static_cast<ControlFlowRecords*>(slot.get());
}

BranchResult Cond(const Scope& scope, const Output& pred,
                  const BranchFn& then_fn, const BranchFn& else_fn) {
  if (!scope.ok()) return scope.status();
  if (!pred.valid()) {
    return absl::InvalidArgumentError(
        "Cond: the predicate is invalid (an earlier build step failed)");
  }
  if (BaseType(pred.dtype()) != DT_BOOL) {
    return absl::InvalidArgumentError(
        absl::StrCat("Cond: the predicate '", pred.name(), "' is ",
                     DataTypeName(pred.dtype()), "; it must be a bool scalar"));
  }
  Graph* graph = scope.graph();
  const Scope cond = scope.NewSubScope("cond");
  const int outside_end = graph->num_node_ids();
  // The pivots: live only in their branch.
  const Operation switch_pred =
      OpBuilder(cond, "Switch").Input(pred).Input(pred).Finalize();
  const Output pivot_false =
      ops::Identity(cond.WithOpName("switch_f"), switch_pred.output(0));
  const Output pivot_true =
      ops::Identity(cond.WithOpName("switch_t"), switch_pred.output(1));
  if (!scope.ok()) return scope.status();

  const Scope inner = cond.WithNoControlDependencies();
  Built built_true, built_false;
  BranchResult then_out = Build(
      graph, &built_true, [&] { return then_fn(inner.NewSubScope("then")); });
  if (!then_out.ok()) return then_out.status();
  BranchResult else_out = Build(
      graph, &built_false, [&] { return else_fn(inner.NewSubScope("else")); });
  if (!else_out.ok()) return else_out.status();
  if (!scope.ok()) return scope.status();
  if (absl::Status s = CheckOutputs(*then_out, "Cond: then branch's");
      !s.ok()) {
    return s;
  }
  if (absl::Status s = CheckOutputs(*else_out, "Cond: else branch's");
      !s.ok()) {
    return s;
  }
  if (then_out->size() != else_out->size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("Cond: the then branch returns ", then_out->size(),
                     " outputs but the else branch ", else_out->size()));
  }
  for (size_t i = 0; i < then_out->size(); ++i) {
    if ((*then_out)[i].dtype() != (*else_out)[i].dtype()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Cond: output ", i, " is ", DataTypeName((*then_out)[i].dtype()),
          " in the then branch but ", DataTypeName((*else_out)[i].dtype()),
          " in the else branch"));
    }
  }

  // Outside tensors a branch reads (or returns) go through one Switch each.
  absl::flat_hash_map<OutputKey, Operation> switches;
  auto switched = [&](const Output& outer, int side) {
    Operation& sw = switches[{outer.node()->id(), outer.index()}];
    if (!sw.valid()) {
      sw = OpBuilder(inner, "Switch").Input(outer).Input(pred).Finalize();
    }
    return sw.valid() ? sw.output(side) : Output();
  };
  for (auto [built, pivot, side] : {std::tuple{built_true, pivot_true, 1},
                                    std::tuple{built_false, pivot_false, 0}}) {
    if (absl::Status s = Adopt(
            graph, built, outside_end, pivot.node(), /*in_loop=*/false,
            [&, side = side](const Output& o) { return switched(o, side); });
        !s.ok()) {
      return s;
    }
  }
  auto inside = [&](const Output& o, int side) {
    return o.node()->id() < outside_end ? switched(o, side) : o;
  };
  std::vector<Output> outputs;
  ControlFlowRecords& records = RecordsOf(scope);
  for (size_t i = 0; i < then_out->size(); ++i) {
    // Merge's inputs in TensorFlow's order: the false branch's first.
    const Operation merge =
        OpBuilder(inner, "Merge")
            .InputList({inside((*else_out)[i], 0), inside((*then_out)[i], 1)})
            .Finalize();
    if (!merge.valid()) break;
    records.merge_predicates[merge.node()->id()] = pred;
    outputs.push_back(merge.output(0));
  }
  if (!scope.ok()) return scope.status();
  return outputs;
}

BranchResult WhileLoop(const Scope& scope, absl::Span<const Output> inputs,
                       const LoopCondFn& cond, const LoopBodyFn& body,
                       const WhileLoopOptions& options) {
  if (!scope.ok()) return scope.status();
  if (inputs.empty()) {
    return absl::InvalidArgumentError(
        "WhileLoop: give at least one loop variable");
  }
  if (absl::Status s =
          CheckOutputs(std::vector<Output>(inputs.begin(), inputs.end()),
                       "WhileLoop: input");
      !s.ok()) {
    return s;
  }
  if (!options.shape_invariants.empty() &&
      options.shape_invariants.size() != inputs.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "WhileLoop: ", options.shape_invariants.size(),
        " shape invariants for ", inputs.size(), " loop variables"));
  }
  if (options.parallel_iterations < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("WhileLoop: parallel_iterations is ",
                     options.parallel_iterations, "; it must be >= 1"));
  }
  Graph* graph = scope.graph();
  const Scope loop = scope.NewSubScope(options.name);
  // The frame is named after the loop's (unique) name scope.
  const std::string frame = loop.name_scope();
  // A hidden variable counts the iterations (the gradient loop runs as many).
  const Output counter_init = ops::Const(loop.WithOpName("iterations_init"), 0);
  const int outside_end = graph->num_node_ids();
  std::vector<Output> vars(inputs.begin(), inputs.end());
  vars.push_back(counter_init);
  const int n = static_cast<int>(vars.size());

  WhileLoopRecord record;
  record.frame = frame;
  record.parallel_iterations = options.parallel_iterations;
  record.inputs.assign(inputs.begin(), inputs.end());
  record.cond = cond;
  record.body = body;
  auto enter = [&](const Scope& s, const Output& value, bool is_constant) {
    return OpBuilder(s, "Enter")
        .Input(value)
        .Attr("frame_name", frame)
        .Attr("is_constant", is_constant)
        .Attr("parallel_iterations",
              static_cast<int64_t>(options.parallel_iterations))
        .Finalize();
  };
  // The scope's control dependencies hold for the Enters (the loop starts
  // after them), not for every op inside.
  const Scope inner = loop.WithNoControlDependencies();
  std::vector<Operation> merges;
  for (int i = 0; i < n; ++i) {
    const Operation e = enter(loop, vars[i], false);
    const Operation merge = OpBuilder(inner, "Merge")
                                .InputList({e.output(0), e.output(0)})
                                .Finalize();
    if (!merge.valid()) return scope.status();
    if (i < static_cast<int>(options.shape_invariants.size())) {
      const TensorShape& invariant = options.shape_invariants[i];
      if (!invariant.IsCompatibleWith(vars[i].shape())) {
        return absl::InvalidArgumentError(
            absl::StrCat("WhileLoop: loop variable ", i, " '", vars[i].name(),
                         "' has shape ", vars[i].shape().ToString(),
                         ", not compatible with its shape invariant ",
                         invariant.ToString()));
      }
      merge.node()->set_output_shapes({invariant, TensorShape({})});
    }
    record.enters.push_back(e.node());
    merges.push_back(merge);
  }
  std::vector<Output> merged;
  for (int i = 0; i + 1 < n; ++i) merged.push_back(merges[i].output(0));

  // Captures enter the frame as constants, once each.
  absl::flat_hash_map<OutputKey, Operation> entered;
  auto capture = [&](const Output& outer) {
    Operation& e = entered[{outer.node()->id(), outer.index()}];
    if (!e.valid()) {
      e = enter(inner, outer, true);
      if (e.valid()) record.captures.push_back({outer, e.node()});
    }
    return e.valid() ? e.output(0) : Output();
  };

  Built built_cond;
  CondResult pred = Build(graph, &built_cond, [&] {
    return cond(inner.NewSubScope("cond"), merged);
  });
  if (!pred.ok()) return pred.status();
  if (!scope.ok()) return scope.status();
  if (!pred->valid() || BaseType(pred->dtype()) != DT_BOOL) {
    return absl::InvalidArgumentError(absl::StrCat(
        "WhileLoop: the condition must return a bool scalar, got ",
        pred->valid() ? DataTypeName(pred->dtype()) : "an invalid output"));
  }
  if (absl::Status s = Adopt(graph, built_cond, outside_end, merges[0].node(),
                             /*in_loop=*/true, capture);
      !s.ok()) {
    return s;
  }
  const Output loop_cond = OpBuilder(inner, "LoopCond").Input(*pred).Finalize();
  std::vector<Output> body_vars;
  for (int i = 0; i < n; ++i) {
    const Operation sw = OpBuilder(inner, "Switch")
                             .Input(merges[i].output(0))
                             .Input(loop_cond)
                             .Finalize();
    const Operation exit =
        OpBuilder(inner, "Exit").Input(sw.output(0)).Finalize();
    const Output var = ops::Identity(inner, sw.output(1));
    if (!scope.ok()) return scope.status();
    record.exits.push_back(exit.output(0));
    body_vars.push_back(var);
  }
  record.counter_exit = record.exits.back().node();
  record.exits.pop_back();
  record.body_vars.assign(body_vars.begin(), body_vars.end() - 1);

  Built built_body;
  BranchResult next = Build(graph, &built_body, [&]() -> BranchResult {
    BranchResult values = body(inner.NewSubScope("body"), record.body_vars);
    if (!values.ok()) return values;
    values->push_back(ops::Add(inner, body_vars.back(), 1));
    return values;
  });
  if (!next.ok()) return next.status();
  if (!scope.ok()) return scope.status();
  if (static_cast<int>(next->size()) != n) {
    return absl::InvalidArgumentError(
        absl::StrCat("WhileLoop: the body returns ", next->size() - 1,
                     " values for ", n - 1, " loop variables"));
  }
  if (absl::Status s = CheckOutputs(*next, "WhileLoop: the body's"); !s.ok()) {
    return s;
  }
  for (int i = 0; i + 1 < n; ++i) {
    const Output& value = (*next)[i];
    if (value.dtype() != vars[i].dtype()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "WhileLoop: loop variable ", i, " '", vars[i].name(), "' is ",
          DataTypeName(vars[i].dtype()), " but the body returns ",
          DataTypeName(value.dtype()), " for it"));
    }
    const TensorShape& allowed = merges[i].node()->output_shape(0);
    if (!value.shape().IsCompatibleWith(allowed)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "WhileLoop: loop variable ", i, " '", vars[i].name(),
          "' enters the loop with shape ", allowed.ToString(),
          " but the body gives it shape ", value.shape().ToString(),
          "; to let its shape vary across iterations, give "
          "WhileLoopOptions::shape_invariants (unknown dimensions where "
          "it changes)"));
    }
  }
  if (absl::Status s =
          Adopt(graph, built_body, outside_end, body_vars[0].node(),
                /*in_loop=*/true, capture);
      !s.ok()) {
    return s;
  }
  // A body that returns a variable unchanged, or a tensor from outside,
  // still needs a value in the frame for NextIteration.
  for (int i = 0; i < n; ++i) {
    Output value = (*next)[i];
    if (value.node()->id() < outside_end) value = capture(value);
    const Operation next_iteration =
        OpBuilder(inner, "NextIteration").Input(value).Finalize();
    if (!next_iteration.valid()) return scope.status();
    if (absl::Status s =
            graph->UpdateEdge(next_iteration.node(), 0, merges[i].node(), 1);
        !s.ok()) {
      return s;
    }
    record.next_iterations.push_back(next_iteration.node());
  }
  if (!scope.ok()) return scope.status();
  std::vector<Output> outputs = record.exits;
  RecordsOf(scope).loops.push_back(std::move(record));
  return outputs;
}

}  // namespace ops
}  // namespace dflow
