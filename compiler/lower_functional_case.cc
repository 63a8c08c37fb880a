#include "compiler/lower_functional_case.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/function_inlining.h"
#include "graph/attr_value_util.h"
#include "graph/node_def_util.h"
#include "graph/ops/control_flow_ops.h"

namespace dflow {
namespace {

class CaseLowering {
 public:
  CaseLowering(Graph* graph, Node* call, const FunctionMap& functions)
      : graph_(graph),
        call_(call),
        functions_(functions),
        name_(call->name()),
        device_(call->requested_device()),
        label_(NodeLabel(call->def())),
        where_(absl::StrCat("lowering ", label_)) {}

  absl::Status Lower() {
    const AttrValue* branches = call_->FindAttr("branches");
    if (branches == nullptr || branches->list().func_size() == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(label_, " has no branches"));
    }
    const int n = branches->list().func_size();
    for (const NameAttrList& f : branches->list().func()) {
      if (absl::Status s = CheckCallable(label_, f.name(), functions_);
          !s.ok()) {
        return s;
      }
    }
    absl::StatusOr<CallEdges> edges = EdgesOfCall(call_, label_);
    if (!edges.ok()) return edges.status();
    const std::vector<DataType> in_types = call_->input_types();
    const std::vector<DataType> out_types = call_->output_types();
    index_ = edges->inputs[0];

    absl::StatusOr<Node*> switch_index =
        AddSwitchN("switch_index", index_, DT_INT32, n);
    if (!switch_index.ok()) return switch_index.status();
    std::vector<Node*> switches{*switch_index};
    for (size_t i = 1; i < edges->inputs.size(); ++i) {
      absl::StatusOr<Node*> s =
          AddSwitchN(absl::StrCat("input_", i - 1), edges->inputs[i],
                     BaseType(in_types[i]), n);
      if (!s.ok()) return s.status();
      switches.push_back(*s);
    }
    // The call's control inputs gate every branch through the switches.
    for (Node* c : edges->control_inputs) {
      for (Node* s : switches) graph_->AddControlEdge(c, s);
    }

    std::vector<std::vector<OutputRef>> outs(n);
    std::vector<OutputRef> markers;
    for (int k = 0; k < n; ++k) {
      const NameAttrList& f = branches->list().func(k);
      absl::StatusOr<Node*> pivot =
          AddIdentity(absl::StrCat("pivot_", k), {*switch_index, k});
      if (!pivot.ok()) return pivot.status();
      std::vector<OutputRef> args;
      for (size_t i = 1; i < switches.size(); ++i) {
        args.emplace_back(switches[i], k);
      }
      absl::StatusOr<InstantiatedFunction> body = InstantiateFunction(
          graph_, functions_, f, args, *pivot,
          absl::StrCat(name_, "/branch_", k), device_, label_);
      if (!body.ok()) return body.status();
      if (body->outputs.size() != out_types.size()) {
        return absl::InvalidArgumentError(absl::StrCat(
            label_, " has ", out_types.size(), " outputs (Tout) but branch ", k,
            " ('", f.name(), "') returns ", body->outputs.size()));
      }
      outs[k] = std::move(body->outputs);
      // Live exactly when branch k ran, after all of it.
      absl::StatusOr<Node*> marker =
          AddIdentity(absl::StrCat("branch_", k, "_executed"), {*pivot, 0});
      if (!marker.ok()) return marker.status();
      for (Node* node : body->nodes) graph_->AddControlEdge(node, *marker);
      markers.emplace_back(*marker, 0);
    }

    std::vector<OutputRef> merges;
    for (size_t j = 0; j < out_types.size(); ++j) {
      std::vector<OutputRef> inputs;
      for (int k = 0; k < n; ++k) inputs.push_back(outs[k][j]);
      absl::StatusOr<Node*> m =
          AddMerge(absl::StrCat("output_", j), out_types[j], inputs);
      if (!m.ok()) return m.status();
      merges.emplace_back(*m, 0);
    }
    absl::StatusOr<Node*> executed =
        AddMerge("branch_executed", DT_INT32, markers);
    if (!executed.ok()) return executed.status();
    return ReplaceCall(graph_, call_, *edges, merges, {*executed}, where_)
        .status();
  }

 private:
  NodeDef NewNode(absl::string_view suffix, absl::string_view op,
                  DataType type) {
    NodeDef def;
    def.set_name(absl::StrCat(name_, "/", suffix));
    def.set_op(std::string(op));
    def.set_device(device_);
    (*def.mutable_attr())["T"] = MakeAttr(type);
    return def;
  }

  absl::StatusOr<Node*> AddSwitchN(absl::string_view suffix, OutputRef data,
                                   DataType type, int n) {
    NodeDef def = NewNode(suffix, "_SwitchN", type);
    (*def.mutable_attr())["num_outs"] = MakeAttr(int64_t{n});
    return AddNodeWithUniqueName(graph_, std::move(def), {data, index_},
                                 where_);
  }

  absl::StatusOr<Node*> AddIdentity(absl::string_view suffix, OutputRef input) {
    return AddNodeWithUniqueName(
        graph_,
        NewNode(suffix, "Identity", input.first->output_type(input.second)),
        {input}, where_);
  }

  absl::StatusOr<Node*> AddMerge(absl::string_view suffix, DataType type,
                                 const std::vector<OutputRef>& inputs) {
    NodeDef def = NewNode(suffix, "Merge", type);
    (*def.mutable_attr())["N"] = MakeAttr(static_cast<int64_t>(inputs.size()));
    return AddNodeWithUniqueName(graph_, std::move(def), inputs, where_);
  }

  Graph* graph_;
  Node* call_;
  const FunctionMap& functions_;
  const std::string name_;
  const std::string device_;
  const std::string label_;
  const std::string where_;
  OutputRef index_{nullptr, 0};  // the branch index
};

}  // namespace

absl::StatusOr<PassResult> LowerFunctionalCase(const PassContext& ctx,
                                               Graph* graph) {
  (void)ctx;
  PassResult result;
  const FunctionMap functions = LibraryFunctions(graph->library());
  // Branches may hold another Case: lower until none is left (recursion is
  // refused by CheckCallable, so this ends).
  while (true) {
    std::vector<Node*> cases;
    for (Node* n : graph->nodes()) {
      if (IsFunctionalCaseOp(n->op())) cases.push_back(n);
    }
    if (cases.empty()) break;
    for (Node* call : cases) {
      CaseLowering lowering(graph, call, functions);
      if (absl::Status s = lowering.Lower(); !s.ok()) return s;
      ++result.changes;
    }
  }
  if (result.changes > 0) {
    if (absl::Status s = graph->InferShapes(); !s.ok()) return s;
  }
  result.what = absl::StrCat(result.changes, " Case lowered to _SwitchN/Merge");
  return result;
}

}  // namespace dflow
