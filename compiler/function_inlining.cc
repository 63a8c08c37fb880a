#include "compiler/function_inlining.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "graph/node_def_util.h"
#include "graph/ops/control_flow_ops.h"

namespace dflow {
namespace {

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

// CheckCallable's walk. `path` is the chain of calls from the graph's node.
absl::Status CheckCallableFrom(absl::string_view label, const std::string& name,
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
        path->empty()
            ? ""
            : absl::StrCat(" (through ", absl::StrJoin(*path, " -> "), ")"),
        "; export the graph with its library"));
  }
  path->push_back(name);
  for (const NodeDef& body : it->second->node_def()) {
    std::vector<std::string> callees = CalledFunctions(body);
    // A direct call: the op is the function's name.
    if (functions.contains(body.op())) callees.push_back(body.op());
    for (const std::string& callee : callees) {
      if (absl::Status s =
              CheckCallableFrom(label, callee, functions, path, checked);
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
      return absl::InvalidArgumentError(
          absl::StrCat("attr '", key, "' of body node '", node->name(),
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
  return absl::InvalidArgumentError(absl::StrCat(
      NodeLabel(node.def()), " has no output '", arg, ":", index, "'"));
}

absl::Status Prefixed(absl::string_view where, const absl::Status& s) {
  return absl::Status(s.code(), absl::StrCat(where, ": ", s.message()));
}

// The type of a signature argument of `callee` called with `attrs`.
absl::StatusOr<DataType> ArgType(
    const OpDef::ArgDef& arg,
    const google::protobuf::Map<std::string, AttrValue>& attrs) {
  if (!arg.number_attr().empty() || !arg.type_list_attr().empty()) {
    return absl::UnimplementedError(absl::StrCat(
        "argument '", arg.name(),
        "' is a list; direct calls of functions with list arguments are "
        "not supported (call it through PartitionedCall)"));
  }
  if (arg.type_attr().empty()) return arg.type();
  auto it = attrs.find(arg.type_attr());
  if (it == attrs.end() || it->second.value_case() != AttrValue::kType) {
    return absl::InvalidArgumentError(absl::StrCat(
        "argument '", arg.name(), "' takes its type from attr '",
        arg.type_attr(), "', which the call does not set"));
  }
  return it->second.type();
}

// A body node whose op is a function of the library (TensorFlow's direct
// call: while_v2 wraps loop bodies so, "<body>_Wrapper" calling "<body>")
// becomes the PartitionedCall of that function, which is inlined as every
// other call. References to its outputs use the callee's output argument
// names ("body:add_3:0"), resolved against `callee` (kept for that).
absl::Status DirectCallAsPartitionedCall(const FunctionDef& callee,
                                         NodeDef* def) {
  NameAttrList f;
  f.set_name(def->op());
  AttrValue tin, tout;
  for (const auto& [key, value] : def->attr()) {
    if (!key.empty() && key[0] == '_') continue;  // the node's own
    (*f.mutable_attr())[key] = value;
  }
  for (const OpDef::ArgDef& in : callee.signature().input_arg()) {
    absl::StatusOr<DataType> t = ArgType(in, def->attr());
    if (!t.ok()) return t.status();
    tin.mutable_list()->add_type(*t);
  }
  for (const OpDef::ArgDef& out : callee.signature().output_arg()) {
    absl::StatusOr<DataType> t = ArgType(out, def->attr());
    if (!t.ok()) return t.status();
    tout.mutable_list()->add_type(*t);
  }
  google::protobuf::Map<std::string, AttrValue> kept;
  for (const auto& [key, value] : def->attr()) {
    if (!key.empty() && key[0] == '_') kept[key] = value;
  }
  *def->mutable_attr() = std::move(kept);
  (*def->mutable_attr())["Tin"] = std::move(tin);
  (*def->mutable_attr())["Tout"] = std::move(tout);
  *(*def->mutable_attr())["f"].mutable_func() = std::move(f);
  def->set_op("PartitionedCall");
  return absl::OkStatus();
}

// The flat output index of output arg `arg` (element `index`) of a direct
// call of `callee` (plain arguments only: DirectCallAsPartitionedCall
// refused the others).
absl::StatusOr<int> DirectCallOutputIndex(const FunctionDef& callee,
                                          absl::string_view call,
                                          absl::string_view arg, int index) {
  const auto& outs = callee.signature().output_arg();
  for (int i = 0; i < outs.size(); ++i) {
    if (outs[i].name() == arg && index == 0) return i;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("the call '", call, "' of function '",
                   callee.signature().name(), "' has no output '", arg, ":",
                   index, "'"));
}

}  // namespace

FunctionMap LibraryFunctions(const FunctionDefLibrary& library) {
  FunctionMap functions;
  for (const FunctionDef& f : library.function()) {
    functions[f.signature().name()] = &f;
  }
  return functions;
}

absl::Status CheckCallable(absl::string_view label, const std::string& name,
                           const FunctionMap& functions) {
  std::vector<std::string> path;
  absl::flat_hash_set<std::string> checked;
  return CheckCallableFrom(label, name, functions, &path, &checked);
}

absl::StatusOr<Node*> AddNodeWithUniqueName(
    Graph* graph, NodeDef def, const std::vector<OutputRef>& inputs,
    absl::string_view where) {
  const std::string base = def.name();
  for (int k = 1; graph->FindNode(def.name()) != nullptr; ++k) {
    def.set_name(absl::StrCat(base, "_", k));
  }
  absl::StatusOr<Node*> n = graph->AddNode(std::move(def));
  if (!n.ok()) return Prefixed(where, n.status());
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (absl::StatusOr<const Edge*> e = graph->AddEdge(
            inputs[i].first, inputs[i].second, *n, static_cast<int>(i));
        !e.ok()) {
      return Prefixed(where, e.status());
    }
  }
  return *n;
}

absl::StatusOr<InstantiatedFunction> InstantiateFunction(
    Graph* graph, const FunctionMap& functions, const NameAttrList& func,
    const std::vector<OutputRef>& args, Node* pivot, absl::string_view prefix,
    absl::string_view device, absl::string_view label) {
  const std::string where =
      absl::StrCat(label, ", function '", func.name(), "'");
  auto found = functions.find(func.name());
  if (found == functions.end()) {
    return absl::NotFoundError(
        absl::StrCat(where,
                     ": not in the graph's function library; export the graph "
                     "with its library"));
  }
  const FunctionDef& fdef = *found->second;
  const OpDef& sig = fdef.signature();
  if (sig.input_arg_size() != static_cast<int>(args.size())) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": the function takes ", sig.input_arg_size(),
                     " arguments but the call passes ", args.size()));
  }
  absl::flat_hash_map<std::string, OutputRef> arg_sources;
  for (int i = 0; i < sig.input_arg_size(); ++i) {
    arg_sources[sig.input_arg(i).name()] = args[i];
  }
  InstantiatedFunction result;
  // First every node, then the edges (bodies are in no particular order).
  absl::flat_hash_map<std::string, Node*> body;
  // Body nodes that call a library function directly: the callee.
  absl::flat_hash_map<std::string, const FunctionDef*> direct_calls;
  for (const NodeDef& node : fdef.node_def()) {
    NodeDef def = node;
    def.clear_input();
    def.set_name(absl::StrCat(prefix, "/", node.name()));
    if (def.device().empty()) def.set_device(std::string(device));
    if (absl::Status s = SubstitutePlaceholders(func.attr(), &def); !s.ok()) {
      return Prefixed(where, s);
    }
    if (auto callee = functions.find(def.op()); callee != functions.end()) {
      if (absl::Status s = DirectCallAsPartitionedCall(*callee->second, &def);
          !s.ok()) {
        return Prefixed(absl::StrCat(where, ", node '", node.name(), "'"), s);
      }
      direct_calls[node.name()] = callee->second;
    }
    absl::StatusOr<Node*> n =
        AddNodeWithUniqueName(graph, std::move(def), {}, where);
    if (!n.ok()) return n.status();
    body[node.name()] = *n;
    result.nodes.push_back(*n);
  }
  // "arg", "node:out_arg:k" (or "node:out_arg", "node"), "^node".
  auto resolve = [&](const std::string& ref) -> absl::StatusOr<OutputRef> {
    if (auto it = arg_sources.find(ref); it != arg_sources.end()) {
      return it->second;
    }
    std::vector<std::string> parts = absl::StrSplit(ref, ':');
    auto it = body.find(parts[0]);
    if (it == body.end() || parts.size() > 3) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, ": '", ref, "' names no argument or node of the body"));
    }
    if (parts.size() == 1) return OutputRef(it->second, 0);
    int k = 0;
    if (parts.size() == 3 && !absl::SimpleAtoi(parts[2], &k)) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": bad output index in '", ref, "'"));
    }
    auto direct = direct_calls.find(parts[0]);
    absl::StatusOr<int> index =
        direct != direct_calls.end()
            ? DirectCallOutputIndex(*direct->second, parts[0], parts[1], k)
            : OutputIndex(*it->second, parts[1], k);
    if (!index.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": ", index.status().message()));
    }
    return OutputRef(it->second, *index);
  };
  for (const NodeDef& node : fdef.node_def()) {
    Node* n = body.at(node.name());
    int data = 0;
    for (const std::string& in : node.input()) {
      if (!in.empty() && in[0] == '^') {
        auto it = body.find(in.substr(1));
        if (it == body.end()) {
          return absl::InvalidArgumentError(absl::StrCat(
              where, ": control input '", in, "' names no node of the body"));
        }
        graph->AddControlEdge(it->second, n);
        continue;
      }
      absl::StatusOr<OutputRef> src = resolve(in);
      if (!src.ok()) return src.status();
      if (absl::StatusOr<const Edge*> e =
              graph->AddEdge(src->first, src->second, n, data++);
          !e.ok()) {
        return Prefixed(where, e.status());
      }
    }
    // Consts and other input-free nodes belong to the call's branch or
    // frame too.
    if (node.input().empty() && pivot != nullptr) {
      graph->AddControlEdge(pivot, n);
    }
  }
  for (const OpDef::ArgDef& out : sig.output_arg()) {
    auto ret = fdef.ret().find(out.name());
    if (ret == fdef.ret().end()) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, ": output '", out.name(), "' has no entry in `ret`"));
    }
    absl::StatusOr<OutputRef> src = resolve(ret->second);
    if (!src.ok()) return src.status();
    result.outputs.push_back(*src);
  }
  // Calls in the body: their bodies replace them (recursively: what
  // InlineFunctionCall copies is instantiated here too).
  const size_t copied = result.nodes.size();
  for (size_t i = 0; i < copied; ++i) {
    Node* call = result.nodes[i];
    if (!IsFunctionCallOp(call->op())) continue;
    absl::StatusOr<InlinedCall> inlined =
        InlineFunctionCall(graph, functions, call);
    if (!inlined.ok()) return Prefixed(where, inlined.status());
    for (OutputRef& out : result.outputs) {
      if (out.first == call) out.first = inlined->result;
    }
    result.nodes[i] = inlined->result;
    for (Node* n : inlined->nodes) {
      if (n != inlined->result) result.nodes.push_back(n);
    }
  }
  return result;
}

absl::StatusOr<InlinedCall> InlineFunctionCall(Graph* graph,
                                               const FunctionMap& functions,
                                               Node* call) {
  const std::string label = NodeLabel(call->def());
  const AttrValue* f = call->FindAttr("f");
  if (f == nullptr || !f->has_func()) {
    return absl::InvalidArgumentError(
        absl::StrCat(label, " has no function attr 'f' to call"));
  }
  if (absl::Status s = CheckCallable(label, f->func().name(), functions);
      !s.ok()) {
    return s;
  }
  absl::StatusOr<CallEdges> edges = EdgesOfCall(call, label);
  if (!edges.ok()) return edges.status();
  const std::string name = call->name();
  const std::string device = call->requested_device();
  const std::vector<DataType> out_types = call->output_types();
  const std::string where = absl::StrCat("inlining ", label);

  InlinedCall inlined;
  NodeDef input_control;
  input_control.set_name(absl::StrCat(name, "/input_control_node"));
  input_control.set_op("NoOp");
  input_control.set_device(device);
  absl::StatusOr<Node*> pivot =
      AddNodeWithUniqueName(graph, std::move(input_control), {}, where);
  if (!pivot.ok()) return pivot.status();
  for (const OutputRef& in : edges->inputs) {
    graph->AddControlEdge(in.first, *pivot);
  }
  for (Node* c : edges->control_inputs) graph->AddControlEdge(c, *pivot);
  inlined.nodes.push_back(*pivot);

  absl::StatusOr<InstantiatedFunction> body = InstantiateFunction(
      graph, functions, f->func(), edges->inputs, *pivot, name, device, label);
  if (!body.ok()) return body.status();
  if (body->outputs.size() != out_types.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        label, " has ", out_types.size(), " outputs (Tout) but its function '",
        f->func().name(), "' returns ", body->outputs.size()));
  }
  inlined.nodes.insert(inlined.nodes.end(), body->nodes.begin(),
                       body->nodes.end());

  // The call's name now names what the body returns.
  std::vector<Node*> wait_for = body->nodes;
  wait_for.push_back(*pivot);
  absl::StatusOr<Node*> out =
      ReplaceCall(graph, call, *edges, body->outputs, wait_for, where);
  if (!out.ok()) return out.status();
  inlined.nodes.push_back(*out);
  inlined.result = *out;
  return inlined;
}

absl::StatusOr<Node*> ReplaceCall(Graph* graph, Node* call,
                                  const CallEdges& edges,
                                  const std::vector<OutputRef>& outputs,
                                  const std::vector<Node*>& wait_for,
                                  absl::string_view where) {
  const std::string name = call->name();
  const std::string device = call->requested_device();
  const std::vector<DataType> out_types = call->output_types();
  graph->RemoveNode(call);
  NodeDef result;
  result.set_name(name);
  result.set_device(device);
  if (out_types.empty()) {
    result.set_op("NoOp");
  } else {
    result.set_op("IdentityN");
    AttrValue types;
    for (DataType t : out_types) types.mutable_list()->add_type(t);
    (*result.mutable_attr())["T"] = types;
  }
  absl::StatusOr<Node*> out =
      AddNodeWithUniqueName(graph, std::move(result), outputs, where);
  if (!out.ok()) return out.status();
  for (Node* n : wait_for) graph->AddControlEdge(n, *out);
  for (const CallEdges::Out& o : edges.outs) {
    if (o.dst_input == kControlSlot) {
      graph->AddControlEdge(*out, o.dst);
    } else if (absl::StatusOr<const Edge*> e =
                   graph->AddEdge(*out, o.src_output, o.dst, o.dst_input);
               !e.ok()) {
      return Prefixed(where, e.status());
    }
  }
  return *out;
}

absl::StatusOr<CallEdges> EdgesOfCall(const Node* call,
                                      absl::string_view label) {
  CallEdges edges;
  for (int i = 0; i < call->num_inputs(); ++i) {
    const Edge* e = call->input_edge(i);
    if (e == nullptr) {
      return absl::FailedPreconditionError(
          absl::StrCat(label, ": input ", i, " is not connected"));
    }
    edges.inputs.emplace_back(e->src, e->src_output);
  }
  for (const Edge* e : call->in_edges()) {
    if (e->IsControl()) edges.control_inputs.push_back(e->src);
  }
  for (const Edge* e : call->out_edges()) {
    edges.outs.push_back(CallEdges::Out{
        e->dst, e->IsControl() ? kControlSlot : e->dst_input, e->src_output});
  }
  return edges;
}

}  // namespace dflow
