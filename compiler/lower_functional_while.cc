#include "compiler/lower_functional_while.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "compiler/function_inlining.h"
#include "compiler/lower_functional_if.h"
#include "graph/attr_value_util.h"
#include "graph/node_def_util.h"
#include "graph/ops/control_flow_ops.h"

namespace dflow {
namespace {

// One lowering: the nodes it adds, named under the call's name.
class WhileLowering {
 public:
  WhileLowering(Graph* graph, Node* call, const FunctionMap& functions)
      : graph_(graph),
        call_(call),
        functions_(functions),
        name_(call->name()),
        device_(call->requested_device()),
        label_(NodeLabel(call->def())) {}

  absl::Status Lower() {
    const AttrValue* cond_attr = call_->FindAttr("cond");
    const AttrValue* body_attr = call_->FindAttr("body");
    if (cond_attr == nullptr || body_attr == nullptr ||
        cond_attr->value_case() != AttrValue::kFunc ||
        body_attr->value_case() != AttrValue::kFunc) {
      return absl::InvalidArgumentError(absl::StrCat(
          label_, " has no cond or body function attr; a While names both"));
    }
    const NameAttrList& cond = cond_attr->func();
    const NameAttrList& body = body_attr->func();
    const std::vector<DataType> types = call_->input_types();
    if (types.empty()) {
      return absl::UnimplementedError(absl::StrCat(
          label_,
          " has no loop variables; a loop without variables cannot "
          "end (its cond sees nothing that changes), give it a "
          "counter"));
    }
    for (const NameAttrList* f : {&cond, &body}) {
      if (absl::Status s = CheckCallable(label_, f->name(), functions_);
          !s.ok()) {
        return s;
      }
    }
    if (absl::Status s = CheckSignature(cond, types, /*is_cond=*/true);
        !s.ok()) {
      return s;
    }
    if (absl::Status s = CheckSignature(body, types, /*is_cond=*/false);
        !s.ok()) {
      return s;
    }

    // What the call reads and who reads it, before it goes.
    absl::StatusOr<CallEdges> edges = EdgesOfCall(call_, label_);
    if (!edges.ok()) return edges.status();
    const std::vector<OutputRef>& inputs = edges->inputs;
    const std::vector<Node*>& control_inputs = edges->control_inputs;
    const std::vector<CallEdges::Out>& outs = edges->outs;
    int64_t parallel_iterations = 10;
    if (call_->FindAttr("parallel_iterations") != nullptr) {
      if (absl::Status s =
              call_->GetAttr("parallel_iterations", &parallel_iterations);
          !s.ok()) {
        return s;
      }
    }
    if (parallel_iterations < 1) {
      return absl::InvalidArgumentError(
          absl::StrCat(label_, " has parallel_iterations ", parallel_iterations,
                       "; it must be at least 1"));
    }

    // Loop variables the body returns unchanged enter once, as constants
    // (see the header); the others go round the back edge. The first
    // changing variable is the pivot the functions' input-less nodes wait
    // for. A loop that changes nothing keeps every variable on the back
    // edge (its pivot must still be per-iteration).
    const size_t n = types.size();
    std::vector<bool> invariant = InvariantVariables(body);
    int pivot = -1;
    for (size_t i = 0; i < n && pivot < 0; ++i) {
      if (!invariant[i]) pivot = static_cast<int>(i);
    }
    if (pivot < 0) {
      invariant.assign(n, false);
      pivot = 0;
    }
    // Variants (TensorLists) are values and flow through frames like any
    // tensor. A resource handle enters once, as a constant, when the body
    // passes it through unchanged (a variable the loop reads or updates,
    // as TensorFlow 2 captures one); one the body replaces would need its
    // variable carried round the back edge.
    for (size_t i = 0; i < n; ++i) {
      if (BaseType(types[i]) == DT_RESOURCE && !invariant[i]) {
        return absl::UnimplementedError(absl::StrCat(
            label_, ": loop variable ", i,
            " is a resource (DT_RESOURCE) that the body replaces; only "
            "handles the body passes through unchanged are supported: build "
            "the loop in the TF1 style "
            "(tf.compat.v1.disable_control_flow_v2()) or pass the values "
            "instead of handles"));
      }
    }

    // Into the frame, and the loop variables' value in each iteration:
    // what cond reads (and body, for an invariant).
    std::vector<Node*> merges(n, nullptr);
    std::vector<OutputRef> loop_values;
    for (size_t i = 0; i < n; ++i) {
      NodeDef enter = NewNode(absl::StrCat("enter_", i), "Enter", types[i]);
      (*enter.mutable_attr())["frame_name"] = MakeAttr(name_);
      (*enter.mutable_attr())["is_constant"] = MakeAttr(bool{invariant[i]});
      (*enter.mutable_attr())["parallel_iterations"] =
          MakeAttr(parallel_iterations);
      absl::StatusOr<Node*> e = Add(std::move(enter), {inputs[i]});
      if (!e.ok()) return e.status();
      for (Node* c : control_inputs) graph_->AddControlEdge(c, *e);
      if (invariant[i]) {
        loop_values.emplace_back(*e, 0);
        continue;
      }
      // Input 1 (the back edge) is connected once the body exists.
      NodeDef merge = NewNode(absl::StrCat("merge_", i), "Merge", types[i]);
      (*merge.mutable_attr())["N"] = MakeAttr(int64_t{2});
      absl::StatusOr<Node*> m = Add(std::move(merge), {{*e, 0}});
      if (!m.ok()) return m.status();
      merges[i] = *m;
      loop_values.emplace_back(*m, 0);
    }

    // The predicate, computed in every iteration.
    absl::StatusOr<InstantiatedFunction> cond_body = InstantiateFunction(
        graph_, functions_, cond, loop_values, merges[pivot],
        absl::StrCat(name_, "/cond"), device_, label_);
    if (!cond_body.ok()) return cond_body.status();
    OutputRef pred = cond_body->outputs[0];
    if (BaseType(pred.first->output_type(pred.second)) != DT_BOOL) {
      // TensorFlow's While takes the truth value of a non-bool predicate.
      NodeDef to_bool = NewNode("cond_to_bool", kToBoolOp,
                                BaseType(pred.first->output_type(pred.second)));
      absl::StatusOr<Node*> b = Add(std::move(to_bool), {pred});
      if (!b.ok()) return b.status();
      pred = {*b, 0};
    }
    NodeDef loop_cond_def = NewNode("loop_cond", "LoopCond", DT_INVALID);
    absl::StatusOr<Node*> loop_cond = Add(std::move(loop_cond_def), {pred});
    if (!loop_cond.ok()) return loop_cond.status();

    // Out of the loop (output 0) or into the body (output 1).
    std::vector<Node*> exits;
    std::vector<OutputRef> body_args;
    for (size_t i = 0; i < n; ++i) {
      if (invariant[i]) {
        body_args.push_back(loop_values[i]);
        continue;
      }
      absl::StatusOr<Node*> s =
          Add(NewNode(absl::StrCat("switch_", i), "Switch", types[i]),
              {{merges[i], 0}, {*loop_cond, 0}});
      if (!s.ok()) return s.status();
      absl::StatusOr<Node*> exit =
          Add(NewNode(absl::StrCat("exit_", i), "Exit", types[i]), {{*s, 0}});
      if (!exit.ok()) return exit.status();
      exits.push_back(*exit);
      absl::StatusOr<Node*> identity =
          Add(NewNode(absl::StrCat("identity_", i), "Identity", types[i]),
              {{*s, 1}});
      if (!identity.ok()) return identity.status();
      body_args.emplace_back(*identity, 0);
    }

    // One iteration, and its values back to the merges.
    absl::StatusOr<InstantiatedFunction> loop_body = InstantiateFunction(
        graph_, functions_, body, body_args, body_args[pivot].first,
        absl::StrCat(name_, "/body"), device_, label_);
    if (!loop_body.ok()) return loop_body.status();
    for (size_t i = 0; i < n; ++i) {
      if (invariant[i]) continue;
      absl::StatusOr<Node*> next =
          Add(NewNode(absl::StrCat("next_iteration_", i), "NextIteration",
                      types[i]),
              {loop_body->outputs[i]});
      if (!next.ok()) return next.status();
      if (absl::StatusOr<const Edge*> e =
              graph_->AddEdge(*next, 0, merges[i], 1);
          !e.ok()) {
        return absl::Status(
            e.status().code(),
            absl::StrCat("lowering ", label_, ": ", e.status().message()));
      }
    }

    // The call's name now names the loop's end: a NoOp after every Exit
    // for its control outputs and targets; its readers read the Exits.
    graph_->RemoveNode(call_);
    call_ = nullptr;
    NodeDef done;
    done.set_name(name_);
    done.set_op("NoOp");
    done.set_device(device_);
    absl::StatusOr<Node*> end = Add(std::move(done), {});
    if (!end.ok()) return end.status();
    for (Node* exit : exits) graph_->AddControlEdge(exit, *end);
    // The loop's result i: its Exit, or for an invariant variable the
    // value that went in, read after the loop ends (as TensorFlow's
    // readers of the While wait for it).
    std::vector<OutputRef> results;
    for (size_t i = 0, next_exit = 0; i < n; ++i) {
      if (!invariant[i]) {
        results.emplace_back(exits[next_exit++], 0);
        continue;
      }
      absl::StatusOr<Node*> out =
          Add(NewNode(absl::StrCat("output_", i), "Identity", types[i]),
              {inputs[i]});
      if (!out.ok()) return out.status();
      graph_->AddControlEdge(*end, *out);
      results.emplace_back(*out, 0);
    }
    for (const CallEdges::Out& o : outs) {
      if (o.dst_input == kControlSlot) {
        graph_->AddControlEdge(*end, o.dst);
      } else if (absl::StatusOr<const Edge*> e = graph_->AddEdge(
                     results[o.src_output].first, results[o.src_output].second,
                     o.dst, o.dst_input);
                 !e.ok()) {
        return e.status();
      }
    }
    return absl::OkStatus();
  }

 private:
  // The function must take the loop variables and return a bool (cond) or
  // the loop variables again (body): TensorFlow wrote them as a pair with
  // the call, so a mismatch means a library edited by hand or a graph
  // whose loop and functions come from different exports.
  absl::Status CheckSignature(const NameAttrList& func,
                              const std::vector<DataType>& types,
                              bool is_cond) const {
    const OpDef& sig = functions_.at(func.name())->signature();
    const std::string where =
        absl::StrCat(label_, ": ", is_cond ? "cond" : "body", " function '",
                     func.name(), "'");
    const std::string fix =
        "; the cond and body of a While take its loop variables (T) and "
        "the body returns them, export the graph with the functions "
        "TensorFlow made for this loop";
    if (sig.input_arg_size() != static_cast<int>(types.size())) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, " takes ", sig.input_arg_size(),
                       " arguments but the loop has ", types.size(),
                       " loop variables (T)", fix));
    }
    for (int i = 0; i < sig.input_arg_size(); ++i) {
      const DataType t = sig.input_arg(i).type();
      if (t != DT_INVALID && t != BaseType(types[i])) {
        return absl::InvalidArgumentError(absl::StrCat(
            where, " takes argument ", i, " ('", sig.input_arg(i).name(),
            "') as ", DataTypeName(t), " but loop variable ", i, " is ",
            DataTypeName(BaseType(types[i])), fix));
      }
    }
    if (is_cond) {
      if (sig.output_arg_size() != 1) {
        return absl::InvalidArgumentError(absl::StrCat(
            where, " returns ", sig.output_arg_size(),
            " values; a loop's cond returns one, whether to go on"));
      }
      return absl::OkStatus();
    }
    if (sig.output_arg_size() != static_cast<int>(types.size())) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, " returns ", sig.output_arg_size(),
                       " values but the loop has ", types.size(),
                       " loop variables (T)", fix));
    }
    for (int i = 0; i < sig.output_arg_size(); ++i) {
      const DataType t = sig.output_arg(i).type();
      if (t != DT_INVALID && t != BaseType(types[i])) {
        return absl::InvalidArgumentError(absl::StrCat(
            where, " returns value ", i, " ('", sig.output_arg(i).name(),
            "') as ", DataTypeName(t), " but loop variable ", i, " is ",
            DataTypeName(BaseType(types[i])), fix));
      }
    }
    return absl::OkStatus();
  }

  // Per loop variable: whether the body returns its argument unchanged
  // (its output i is its input i itself or an Identity chain of it without
  // control inputs, as TensorFlow's bodies return the captured weights,
  // bounds and input lists of a dynamic_rnn and its gradient). Such a
  // variable is the same in every iteration: an is_constant Enter gives it
  // to each, with no Merge, Switch, Identity, NextIteration or Exit per
  // iteration (8 of the 50 loop variables of a dynamic_rnn's training
  // step).
  std::vector<bool> InvariantVariables(const NameAttrList& body) const {
    const FunctionDef& f = *functions_.at(body.name());
    const OpDef& sig = f.signature();
    absl::flat_hash_map<absl::string_view, const NodeDef*> identities;
    for (const NodeDef& node : f.node_def()) {
      if (node.op() == "Identity" && node.input_size() == 1) {
        identities[node.name()] = &node;
      }
    }
    std::vector<bool> invariant(sig.output_arg_size(), false);
    for (int i = 0; i < sig.output_arg_size() && i < sig.input_arg_size();
         ++i) {
      auto ret = f.ret().find(sig.output_arg(i).name());
      if (ret == f.ret().end()) continue;
      // A body value is "node:output:k" or an argument's bare name.
      absl::string_view value = ret->second;
      for (size_t hops = 0; hops <= identities.size(); ++hops) {
        auto identity = identities.find(value.substr(0, value.find(':')));
        if (identity == identities.end() ||
            (value.find(':') != absl::string_view::npos &&
             value != absl::StrCat(identity->first, ":output:0"))) {
          break;
        }
        value = identity->second->input(0);
      }
      invariant[i] = value == sig.input_arg(i).name();
    }
    return invariant;
  }

  // A node named <call>/<suffix> on the call's device; `type` sets its T
  // attr unless DT_INVALID.
  NodeDef NewNode(absl::string_view suffix, absl::string_view op,
                  DataType type) const {
    NodeDef def;
    def.set_name(absl::StrCat(name_, "/", suffix));
    def.set_op(std::string(op));
    def.set_device(device_);
    if (type != DT_INVALID)
      (*def.mutable_attr())["T"] = MakeAttr(BaseType(type));
    return def;
  }

  absl::StatusOr<Node*> Add(NodeDef def, const std::vector<OutputRef>& inputs) {
    return AddNodeWithUniqueName(graph_, std::move(def), inputs,
                                 absl::StrCat("lowering ", label_));
  }

  Graph* graph_;
  Node* call_;
  const FunctionMap& functions_;
  const std::string name_;
  const std::string device_;
  const std::string label_;
};

}  // namespace

absl::StatusOr<PassResult> LowerFunctionalWhile(const PassContext& ctx,
                                                Graph* graph) {
  PassResult result;
  const FunctionMap functions = LibraryFunctions(graph->library());
  int loops = 0;
  int conditionals = 0;
  // Loop bodies may hold While and If, If branches While again: lower both
  // until neither is left. Recursion is refused by CheckCallable, so this
  // ends.
  while (true) {
    std::vector<Node*> calls;
    bool has_if = false;
    for (Node* n : graph->nodes()) {
      if (IsFunctionalWhileOp(n->op())) calls.push_back(n);
      if (IsFunctionalIfOp(n->op())) has_if = true;
    }
    if (calls.empty() && !has_if) break;
    for (Node* call : calls) {
      WhileLowering lowering(graph, call, functions);
      if (absl::Status s = lowering.Lower(); !s.ok()) return s;
      ++loops;
    }
    absl::StatusOr<PassResult> ifs = LowerFunctionalIf(ctx, graph);
    if (!ifs.ok()) return ifs.status();
    conditionals += ifs->changes;
  }
  result.changes = loops + conditionals;
  if (result.changes > 0) {
    if (absl::Status s = graph->InferShapes(); !s.ok()) return s;
  }
  result.what = absl::StrCat(
      loops, " While lowered to Enter/Merge/Switch/Exit/NextIteration",
      conditionals > 0 ? absl::StrCat(", ", conditionals,
                                      " If in their bodies to Switch/Merge")
                       : "");
  return result;
}

}  // namespace dflow
