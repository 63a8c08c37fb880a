#include "compiler/lower_functional_if.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/function_inlining.h"
#include "compiler/lower_functional_case.h"
#include "graph/attr_value_util.h"
#include "graph/node_def_util.h"
#include "graph/ops/control_flow_ops.h"

namespace dflow {
namespace {

// One lowering: the nodes it adds, named under the call's name.
class IfLowering {
 public:
  IfLowering(Graph* graph, Node* call, const FunctionMap& functions)
      : graph_(graph),
        call_(call),
        functions_(functions),
        name_(call->name()),
        device_(call->requested_device()),
        label_(NodeLabel(call->def())) {}

  absl::Status Lower() {
    const AttrValue* then_attr = call_->FindAttr("then_branch");
    const AttrValue* else_attr = call_->FindAttr("else_branch");
    if (then_attr == nullptr || else_attr == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat(label_, " has no then_branch or else_branch"));
    }
    for (const AttrValue* f : {then_attr, else_attr}) {
      if (absl::Status s = CheckCallable(label_, f->func().name(), functions_);
          !s.ok()) {
        return s;
      }
    }
    // What the call reads and who reads it, before it goes.
    absl::StatusOr<CallEdges> edges = EdgesOfCall(call_, label_);
    if (!edges.ok()) return edges.status();
    const std::vector<OutputRef>& inputs = edges->inputs;
    const std::vector<Node*>& control_inputs = edges->control_inputs;
    const std::vector<DataType> out_types = call_->output_types();
    const std::vector<DataType> in_types = call_->input_types();

    // The predicate as a bool scalar.
    auto [pred_src, pred_out] = inputs[0];
    const TensorShape& cond_shape = pred_src->output_shape(pred_out);
    if (BaseType(in_types[0]) != DT_BOOL || cond_shape.rank() != 0) {
      NodeDef to_bool = NewNode("pred", kToBoolOp);
      (*to_bool.mutable_attr())["T"] = MakeAttr(BaseType(in_types[0]));
      absl::StatusOr<Node*> n = Add(std::move(to_bool), {inputs[0]});
      if (!n.ok()) return n.status();
      pred_src = *n;
      pred_out = 0;
    }
    pred_ = {pred_src, pred_out};
    const OutputRef pred = pred_;
    absl::StatusOr<Node*> switch_pred = AddSwitch("switch_pred", pred, DT_BOOL);
    if (!switch_pred.ok()) return switch_pred.status();
    absl::StatusOr<Node*> pivot_f = AddIdentity("pivot_f", {*switch_pred, 0});
    if (!pivot_f.ok()) return pivot_f.status();
    absl::StatusOr<Node*> pivot_t = AddIdentity("pivot_t", {*switch_pred, 1});
    if (!pivot_t.ok()) return pivot_t.status();
    std::vector<Node*> switches{*switch_pred};
    for (size_t i = 1; i < inputs.size(); ++i) {
      absl::StatusOr<Node*> s = AddSwitch(absl::StrCat("input_", i - 1),
                                          inputs[i], BaseType(in_types[i]));
      if (!s.ok()) return s.status();
      switches.push_back(*s);
    }
    // The call's control inputs gate everything: both pivots and inputs
    // pass through these Switches.
    for (Node* c : control_inputs) {
      for (Node* s : switches) graph_->AddControlEdge(c, s);
    }

    std::vector<OutputRef> then_outs, else_outs;
    Node* then_marker = nullptr;
    Node* else_marker = nullptr;
    if (absl::Status s = Instantiate("then", then_attr->func(), switches, 1,
                                     *pivot_t, &then_outs, &then_marker);
        !s.ok()) {
      return s;
    }
    if (absl::Status s = Instantiate("else", else_attr->func(), switches, 0,
                                     *pivot_f, &else_outs, &else_marker);
        !s.ok()) {
      return s;
    }
    if (then_outs.size() != out_types.size() ||
        else_outs.size() != out_types.size()) {
      return absl::InvalidArgumentError(absl::StrCat(
          label_, " has ", out_types.size(),
          " outputs (Tout) but its branches '", then_attr->func().name(),
          "' and '", else_attr->func().name(), "' return ", then_outs.size(),
          " and ", else_outs.size()));
    }
    std::vector<OutputRef> merges;
    for (size_t j = 0; j < out_types.size(); ++j) {
      NodeDef merge = NewNode(absl::StrCat("output_", j), "Merge");
      (*merge.mutable_attr())["T"] = MakeAttr(out_types[j]);
      (*merge.mutable_attr())["N"] = MakeAttr(int64_t{2});
      absl::StatusOr<Node*> m =
          Add(std::move(merge), {else_outs[j], then_outs[j]});
      if (!m.ok()) return m.status();
      merges.emplace_back(*m, 0);
    }
    NodeDef executed = NewNode("branch_executed", "Merge");
    (*executed.mutable_attr())["T"] = MakeAttr(DT_BOOL);
    (*executed.mutable_attr())["N"] = MakeAttr(int64_t{2});
    absl::StatusOr<Node*> branch_executed =
        Add(std::move(executed), {{else_marker, 0}, {then_marker, 0}});
    if (!branch_executed.ok()) return branch_executed.status();

    // The call's name now names what it returns.
    absl::StatusOr<Node*> out =
        ReplaceCall(graph_, call_, *edges, merges, {*branch_executed},
                    absl::StrCat("lowering ", label_));
    if (!out.ok()) return out.status();
    return absl::OkStatus();
  }

 private:
  NodeDef NewNode(absl::string_view suffix, absl::string_view op) {
    NodeDef def;
    def.set_name(absl::StrCat(name_, "/", suffix));
    def.set_op(std::string(op));
    def.set_device(device_);
    return def;
  }

  // Adds `def` under a name not yet taken, with data inputs `inputs`.
  absl::StatusOr<Node*> Add(NodeDef def, const std::vector<OutputRef>& inputs) {
    return AddNodeWithUniqueName(graph_, std::move(def), inputs,
                                 absl::StrCat("lowering ", label_));
  }

  absl::StatusOr<Node*> AddSwitch(absl::string_view suffix, OutputRef data,
                                  DataType type) {
    NodeDef def = NewNode(suffix, "Switch");
    (*def.mutable_attr())["T"] = MakeAttr(type);
    // A reference variable passed in (TF1's initialized_value: If(
    // IsVariableInitialized(v), v, v.initial_value)) is read only by the
    // branch taken: its Switch stays with the variable, so an uninitialized
    // variable is never sent to another device (as TensorFlow's lowering
    // colocates an input's Switch with the input).
    if (IsRefType(data.first->output_type(data.second))) {
      AttrValue colocation;
      colocation.mutable_list()->add_s(
          absl::StrCat("loc:@", data.first->name()));
      (*def.mutable_attr())["_class"] = colocation;
    }
    return Add(std::move(def), {data, pred_});
  }

  absl::StatusOr<Node*> AddIdentity(absl::string_view suffix, OutputRef input) {
    NodeDef def = NewNode(suffix, "Identity");
    (*def.mutable_attr())["T"] =
        MakeAttr(input.first->output_type(input.second));
    return Add(std::move(def), {input});
  }

  // Copies the body of `func` under <name>/<branch>/, its arguments read
  // from output `port` of the input Switches (switches[1..]); nodes without
  // inputs wait for `pivot`. Returns the body's outputs (in the signature's
  // order) and a marker that waits for every node of the body.
  absl::Status Instantiate(absl::string_view branch, const NameAttrList& func,
                           const std::vector<Node*>& switches, int port,
                           Node* pivot, std::vector<OutputRef>* outputs,
                           Node** marker) {
    std::vector<OutputRef> args;
    for (size_t i = 1; i < switches.size(); ++i) {
      args.emplace_back(switches[i], port);
    }
    absl::StatusOr<InstantiatedFunction> body =
        InstantiateFunction(graph_, functions_, func, args, pivot,
                            absl::StrCat(name_, "/", branch), device_, label_);
    if (!body.ok()) return body.status();
    *outputs = std::move(body->outputs);
    // The marker: live exactly when the branch ran, after all of it.
    absl::StatusOr<Node*> m =
        AddIdentity(absl::StrCat(branch, "_executed"), {pivot, 0});
    if (!m.ok()) return m.status();
    for (Node* n : body->nodes) graph_->AddControlEdge(n, *m);
    *marker = *m;
    return absl::OkStatus();
  }

  Graph* graph_;
  Node* call_;
  const FunctionMap& functions_;
  const std::string name_;
  const std::string device_;
  const std::string label_;
  OutputRef pred_{nullptr, 0};  // the bool scalar predicate
};

}  // namespace

absl::StatusOr<PassResult> LowerFunctionalIf(const PassContext& ctx,
                                             Graph* graph) {
  PassResult result;
  const FunctionMap functions = LibraryFunctions(graph->library());
  // Bodies may call If again: lower until none is left. Recursion is
  // refused by CheckCallable, so this ends.
  while (true) {
    std::vector<Node*> calls;
    bool cases = false;
    for (Node* n : graph->nodes()) {
      if (IsFunctionalIfOp(n->op())) calls.push_back(n);
      cases |= IsFunctionalCaseOp(n->op());
    }
    // A branch may hold a Case too.
    if (cases) {
      absl::StatusOr<PassResult> lowered = LowerFunctionalCase(ctx, graph);
      if (!lowered.ok()) return lowered.status();
      result.changes += lowered->changes;
      continue;
    }
    if (calls.empty()) break;
    if (absl::Status s = graph->InferShapes(); !s.ok()) return s;
    for (Node* call : calls) {
      IfLowering lowering(graph, call, functions);
      if (absl::Status s = lowering.Lower(); !s.ok()) return s;
      ++result.changes;
    }
  }
  if (result.changes > 0) {
    if (absl::Status s = graph->InferShapes(); !s.ok()) return s;
  }
  result.what = absl::StrCat(result.changes,
                             " If (or Case in a branch) lowered to "
                             "Switch/Merge");
  return result;
}

}  // namespace dflow
