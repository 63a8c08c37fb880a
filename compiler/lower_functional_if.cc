#include "compiler/lower_functional_if.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "graph/attr_value_util.h"
#include "graph/node_def_util.h"
#include "graph/ops/control_flow_ops.h"

namespace dflow {
namespace {

using FunctionMap = absl::flat_hash_map<std::string, const FunctionDef*>;

// The function names a node calls through its func attrs.
std::vector<std::string> CalledFunctions(const NodeDef& node) {
  std::vector<std::string> names;
  for (const auto& [key, value] : node.attr()) {
    if (value.value_case() == AttrValue::kFunc) {
      names.push_back(value.func().name());
    } else if (value.value_case() == AttrValue::kList) {
      for (const NameAttrList& f : value.list().func()) {
        names.push_back(f.name());
      }
    }
  }
  return names;
}

// Fails when `name` is missing or reaches itself through the functions its
// body calls. `path` is the chain of calls from the graph's node.
absl::Status CheckCallable(const std::string& label, const std::string& name,
                           const FunctionMap& functions,
                           std::vector<std::string>* path,
                           absl::flat_hash_set<std::string>* checked) {
  for (const std::string& on_path : *path) {
    if (on_path == name) {
      path->push_back(name);
      return absl::InvalidArgumentError(absl::StrCat(
          label, ": function '", name, "' calls itself (",
          absl::StrJoin(*path, " -> "),
          "); a recursive function cannot be lowered into the graph"));
    }
  }
  if (checked->contains(name)) return absl::OkStatus();
  auto it = functions.find(name);
  if (it == functions.end()) {
    return absl::NotFoundError(absl::StrCat(
        label, " calls function '", name,
        "', which is not in the graph's function library",
        path->empty() ? ""
                      : absl::StrCat(" (through ", absl::StrJoin(*path, " -> "),
                                     ")"),
        "; export the graph with its library"));
  }
  path->push_back(name);
  for (const NodeDef& body : it->second->node_def()) {
    for (const std::string& callee : CalledFunctions(body)) {
      if (absl::Status s = CheckCallable(label, callee, functions, path, checked);
          !s.ok()) {
        return s;
      }
    }
  }
  path->pop_back();
  checked->insert(name);
  return absl::OkStatus();
}

// Replaces `$T`-style placeholders by the call's function attrs.
absl::Status SubstitutePlaceholders(
    const google::protobuf::Map<std::string, AttrValue>& call_attrs,
    NodeDef* node) {
  for (auto& [key, value] : *node->mutable_attr()) {
    if (value.value_case() != AttrValue::kPlaceholder) continue;
    auto it = call_attrs.find(value.placeholder());
    if (it == call_attrs.end()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "attr '", key, "' of body node '", node->name(),
          "' refers to function attr '", value.placeholder(),
          "', which the call does not set"));
    }
    value = it->second;
  }
  return absl::OkStatus();
}

// The flat index of output `index` of output arg `arg` of `node`.
absl::StatusOr<int> OutputIndex(const Node& node, absl::string_view arg,
                                int index) {
  int base = 0;
  for (const OpDef::ArgDef& out : node.op_def().output_arg()) {
    int size = 1;
    if (!out.number_attr().empty()) {
      int64_t n = 0;
      if (absl::Status s = node.GetAttr(out.number_attr(), &n); !s.ok()) {
        return s;
      }
      size = static_cast<int>(n);
    } else if (!out.type_list_attr().empty()) {
      const AttrValue* list = node.FindAttr(out.type_list_attr());
      size = list == nullptr ? 0 : list->list().type_size();
    }
    if (out.name() == arg) {
      if (index < 0 || index >= size) break;
      return base + index;
    }
    base += size;
  }
  return absl::InvalidArgumentError(
      absl::StrCat(NodeLabel(node.def()), " has no output '", arg, ":", index,
                   "'"));
}

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
      std::vector<std::string> path;
      absl::flat_hash_set<std::string> checked;
      if (absl::Status s =
              CheckCallable(label_, f->func().name(), functions_, &path,
                            &checked);
          !s.ok()) {
        return s;
      }
    }
    // What the call reads and who reads it, before it goes.
    std::vector<std::pair<Node*, int>> inputs;
    for (int i = 0; i < call_->num_inputs(); ++i) {
      const Edge* e = call_->input_edge(i);
      if (e == nullptr) {
        return absl::FailedPreconditionError(
            absl::StrCat(label_, ": input ", i, " is not connected"));
      }
      inputs.emplace_back(e->src, e->src_output);
    }
    std::vector<Node*> control_inputs;
    for (const Edge* e : call_->in_edges()) {
      if (e->IsControl()) control_inputs.push_back(e->src);
    }
    struct Out {
      Node* dst;
      int dst_input;
      int src_output;
    };
    std::vector<Out> outs;
    for (const Edge* e : call_->out_edges()) {
      outs.push_back(Out{e->dst, e->IsControl() ? kControlSlot : e->dst_input,
                         e->src_output});
    }
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
    const std::pair<Node*, int> pred = pred_;
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

    std::vector<std::pair<Node*, int>> then_outs, else_outs;
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
          label_, " has ", out_types.size(), " outputs (Tout) but its branches '",
          then_attr->func().name(), "' and '", else_attr->func().name(),
          "' return ", then_outs.size(), " and ", else_outs.size()));
    }
    std::vector<std::pair<Node*, int>> merges;
    for (size_t j = 0; j < out_types.size(); ++j) {
      NodeDef merge = NewNode(absl::StrCat("output_", j), "Merge");
      (*merge.mutable_attr())["T"] = MakeAttr(out_types[j]);
      (*merge.mutable_attr())["N"] = MakeAttr(int64_t{2});
      absl::StatusOr<Node*> m = Add(std::move(merge), {else_outs[j], then_outs[j]});
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
    graph_->RemoveNode(call_);
    NodeDef result;
    result.set_name(name_);
    result.set_device(device_);
    if (out_types.empty()) {
      result.set_op("NoOp");
    } else {
      result.set_op("IdentityN");
      AttrValue types;
      for (DataType t : out_types) types.mutable_list()->add_type(t);
      (*result.mutable_attr())["T"] = types;
    }
    absl::StatusOr<Node*> out = AddNamed(std::move(result), merges);
    if (!out.ok()) return out.status();
    graph_->AddControlEdge(*branch_executed, *out);
    for (const Out& o : outs) {
      if (o.dst_input == kControlSlot) {
        graph_->AddControlEdge(*out, o.dst);
      } else if (absl::StatusOr<const Edge*> e =
                     graph_->AddEdge(*out, o.src_output, o.dst, o.dst_input);
                 !e.ok()) {
        return e.status();
      }
    }
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
  absl::StatusOr<Node*> Add(NodeDef def,
                            const std::vector<std::pair<Node*, int>>& inputs) {
    const std::string base = def.name();
    for (int k = 1; graph_->FindNode(def.name()) != nullptr; ++k) {
      def.set_name(absl::StrCat(base, "_", k));
    }
    return AddNamed(std::move(def), inputs);
  }

  absl::StatusOr<Node*> AddNamed(
      NodeDef def, const std::vector<std::pair<Node*, int>>& inputs) {
    absl::StatusOr<Node*> n = graph_->AddNode(std::move(def));
    if (!n.ok()) {
      return absl::Status(n.status().code(),
                          absl::StrCat("lowering ", label_, ": ",
                                       n.status().message()));
    }
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (absl::StatusOr<const Edge*> e = graph_->AddEdge(
              inputs[i].first, inputs[i].second, *n, static_cast<int>(i));
          !e.ok()) {
        return absl::Status(e.status().code(),
                            absl::StrCat("lowering ", label_, ": ",
                                         e.status().message()));
      }
    }
    return *n;
  }

  absl::StatusOr<Node*> AddSwitch(absl::string_view suffix,
                                  std::pair<Node*, int> data, DataType type) {
    NodeDef def = NewNode(suffix, "Switch");
    (*def.mutable_attr())["T"] = MakeAttr(type);
    return Add(std::move(def), {data, pred_});
  }

  absl::StatusOr<Node*> AddIdentity(absl::string_view suffix,
                                    std::pair<Node*, int> input) {
    NodeDef def = NewNode(suffix, "Identity");
    (*def.mutable_attr())["T"] = MakeAttr(input.first->output_type(input.second));
    return Add(std::move(def), {input});
  }

  // Copies the body of `func` under <name>/<branch>/, its arguments read
  // from output `port` of the input Switches (switches[1..]); nodes without
  // inputs wait for `pivot`. Returns the body's outputs (in the signature's
  // order) and a marker that waits for every node of the body.
  absl::Status Instantiate(absl::string_view branch, const NameAttrList& func,
                           const std::vector<Node*>& switches, int port,
                           Node* pivot,
                           std::vector<std::pair<Node*, int>>* outputs,
                           Node** marker) {
    const FunctionDef& fdef = *functions_.at(func.name());
    const std::string where = absl::StrCat(label_, ", function '",
                                           func.name(), "'");
    const OpDef& sig = fdef.signature();
    if (sig.input_arg_size() + 1 != static_cast<int>(switches.size())) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, ": the function takes ", sig.input_arg_size(),
          " arguments but the call passes ", switches.size() - 1));
    }
    absl::flat_hash_map<std::string, std::pair<Node*, int>> args;
    for (int i = 0; i < sig.input_arg_size(); ++i) {
      args[sig.input_arg(i).name()] = {switches[i + 1], port};
    }
    // First every node, then the edges (bodies are in no particular order).
    absl::flat_hash_map<std::string, Node*> body;
    std::vector<Node*> added;
    for (const NodeDef& node : fdef.node_def()) {
      NodeDef def = node;
      def.clear_input();
      def.set_name(absl::StrCat(name_, "/", branch, "/", node.name()));
      if (def.device().empty()) def.set_device(device_);
      if (absl::Status s = SubstitutePlaceholders(func.attr(), &def); !s.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat(where, ": ", s.message()));
      }
      absl::StatusOr<Node*> n = Add(std::move(def), {});
      if (!n.ok()) {
        return absl::Status(n.status().code(),
                            absl::StrCat(where, ": ", n.status().message()));
      }
      body[node.name()] = *n;
      added.push_back(*n);
    }
    // "arg", "node:out_arg:k" (or "node:out_arg", "node"), "^node".
    auto resolve = [&](const std::string& ref)
        -> absl::StatusOr<std::pair<Node*, int>> {
      if (auto it = args.find(ref); it != args.end()) return it->second;
      std::vector<std::string> parts = absl::StrSplit(ref, ':');
      auto it = body.find(parts[0]);
      if (it == body.end() || parts.size() > 3) {
        return absl::InvalidArgumentError(absl::StrCat(
            where, ": '", ref, "' names no argument or node of the body"));
      }
      if (parts.size() == 1) return std::make_pair(it->second, 0);
      int k = 0;
      if (parts.size() == 3 && !absl::SimpleAtoi(parts[2], &k)) {
        return absl::InvalidArgumentError(
            absl::StrCat(where, ": bad output index in '", ref, "'"));
      }
      absl::StatusOr<int> index = OutputIndex(*it->second, parts[1], k);
      if (!index.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat(where, ": ", index.status().message()));
      }
      return std::make_pair(it->second, *index);
    };
    for (const NodeDef& node : fdef.node_def()) {
      Node* n = body.at(node.name());
      int data = 0;
      bool has_inputs = false;
      for (const std::string& in : node.input()) {
        has_inputs = true;
        if (!in.empty() && in[0] == '^') {
          auto it = body.find(in.substr(1));
          if (it == body.end()) {
            return absl::InvalidArgumentError(absl::StrCat(
                where, ": control input '", in, "' names no node of the body"));
          }
          graph_->AddControlEdge(it->second, n);
          continue;
        }
        absl::StatusOr<std::pair<Node*, int>> src = resolve(in);
        if (!src.ok()) return src.status();
        if (absl::StatusOr<const Edge*> e =
                graph_->AddEdge(src->first, src->second, n, data++);
            !e.ok()) {
          return absl::Status(e.status().code(),
                              absl::StrCat(where, ": ", e.status().message()));
        }
      }
      // Consts and other input-free nodes belong to the branch too.
      if (!has_inputs) graph_->AddControlEdge(pivot, n);
    }
    for (const OpDef::ArgDef& out : sig.output_arg()) {
      auto ret = fdef.ret().find(out.name());
      if (ret == fdef.ret().end()) {
        return absl::InvalidArgumentError(absl::StrCat(
            where, ": output '", out.name(), "' has no entry in `ret`"));
      }
      absl::StatusOr<std::pair<Node*, int>> src = resolve(ret->second);
      if (!src.ok()) return src.status();
      outputs->push_back(*src);
    }
    // The marker: live exactly when the branch ran, after all of it.
    absl::StatusOr<Node*> m =
        AddIdentity(absl::StrCat(branch, "_executed"), {pivot, 0});
    if (!m.ok()) return m.status();
    for (Node* n : added) graph_->AddControlEdge(n, *m);
    *marker = *m;
    return absl::OkStatus();
  }

  Graph* graph_;
  Node* call_;
  const FunctionMap& functions_;
  const std::string name_;
  const std::string device_;
  const std::string label_;
  std::pair<Node*, int> pred_{nullptr, 0};  // the bool scalar predicate
};

}  // namespace

absl::StatusOr<PassResult> LowerFunctionalIf(const PassContext& ctx,
                                             Graph* graph) {
  (void)ctx;
  PassResult result;
  FunctionMap functions;
  for (const FunctionDef& f : graph->library().function()) {
    functions[f.signature().name()] = &f;
  }
  // Bodies may call If again: lower until none is left. Recursion is
  // refused by CheckCallable, so this ends.
  while (true) {
    std::vector<Node*> calls;
    for (Node* n : graph->nodes()) {
      if (IsFunctionalIfOp(n->op())) calls.push_back(n);
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
  result.what = absl::StrCat(result.changes, " If lowered to Switch/Merge");
  return result;
}

}  // namespace dflow
