#include "graph/graph_def_import.h"

#include <algorithm>
#include <functional>
#include <optional>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "graph/attr_value_util.h"
#include "graph/node_def_util.h"

namespace dflow {
namespace {

// Parsed form of one NodeDef input string.
struct InputRef {
  std::string node;
  int index = 0;
  bool control = false;
};

absl::Status ParseInput(const NodeDef& node, int position,
                        absl::string_view text, InputRef* out) {
  absl::string_view s = text;
  out->control = absl::ConsumePrefix(&s, "^");
  out->index = 0;
  size_t colon = s.rfind(':');
  if (!out->control && colon != absl::string_view::npos) {
    if (!absl::SimpleAtoi(s.substr(colon + 1), &out->index) || out->index < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(NodeLabel(node), ": input ", position, " '", text,
                       "' is malformed; expected 'node', 'node:k' or '^node'"));
    }
    s = s.substr(0, colon);
  }
  if (s.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(NodeLabel(node), ": input ", position, " is empty"));
  }
  out->node = std::string(s);
  return absl::OkStatus();
}

std::string Prefixed(const ImportOptions& o, absl::string_view name) {
  return o.prefix.empty() ? std::string(name)
                          : absl::StrCat(o.prefix, "/", name);
}

// Why `nd` cannot be a regular node although TensorFlow may run it (its op
// is not registered, or dflow's schema of the op lacks an attr it sets,
// wants one it does not set, or allows fewer values), or OK otherwise. An
// attr value of the wrong kind (an int where the op declares a type) is
// malformed for TensorFlow too: OK here, so that AddNode's error stands.
absl::Status SupportProblem(const NodeDef& nd, const OpRegistry& registry) {
  absl::StatusOr<const OpRegistration*> reg = registry.LookUp(nd.op());
  if (!reg.ok()) {
    return absl::UnimplementedError(
        absl::StrCat(NodeLabel(nd), ": ", reg.status().message()));
  }
  for (const OpDef::AttrDef& attr : (*reg)->op_def.attr()) {
    auto it = nd.attr().find(attr.name());
    if (it != nd.attr().end() &&
        !AttrValueHasType(it->second, attr.type()).ok()) {
      return absl::OkStatus();
    }
  }
  if (absl::Status s = ValidateAttrs(nd, (*reg)->op_def); !s.ok()) {
    return absl::UnimplementedError(s.message());
  }
  std::vector<DataType> inputs, outputs;
  if (absl::Status s = InOutTypesForNode(nd, (*reg)->op_def, &inputs, &outputs);
      !s.ok()) {
    return absl::UnimplementedError(s.message());
  }
  return absl::OkStatus();
}

// A node the importer keeps as a stand-in (Graph::AddUnsupportedNode).
struct Unsupported {
  int index;  // in the GraphDef
  NodeDef def;
  absl::Status why;
};

// Adds the stand-ins once every regular node exists, with dtypes taken from
// their neighbours: an output has the dtype its regular consumers expect,
// an input the dtype its source produces (DT_INVALID where no neighbour
// says, i.e. between two stand-ins). Outputs run up to the highest index
// any node reads. Returns the first error (each is also reported).
absl::Status AddStandIns(
    const GraphDef& def, const ImportOptions& options,
    std::vector<Unsupported>& unsupported, Graph* graph,
    std::vector<Node*>& nodes,
    const std::function<void(const absl::Status&)>& report) {
  absl::flat_hash_map<std::string, int> by_name;  // -> index in unsupported
  for (int u = 0; u < static_cast<int>(unsupported.size()); ++u) {
    by_name.emplace(unsupported[u].def.name(), u);
  }
  absl::Status first_error;
  std::vector<std::vector<DataType>> out_types(unsupported.size());
  for (int i = 0; i < def.node_size(); ++i) {
    const NodeDef& consumer = def.node(i);
    int position = 0;  // data input position
    for (int k = 0; k < consumer.input_size(); ++k) {
      InputRef ref;
      if (!ParseInput(consumer, k, consumer.input(k), &ref).ok()) continue;
      if (ref.control) continue;
      const int p = position++;
      auto it = by_name.find(Prefixed(options, ref.node));
      if (it == by_name.end()) continue;
      std::vector<DataType>& types = out_types[it->second];
      if (static_cast<int>(types.size()) <= ref.index) {
        types.resize(ref.index + 1, DT_INVALID);
      }
      const Node* regular = nodes[i];
      if (types[ref.index] == DT_INVALID && regular != nullptr &&
          !regular->IsUnsupported() && p < regular->num_inputs()) {
        types[ref.index] = regular->input_type(p);
      }
    }
  }
  // An op dflow has, refused for its attrs: its schema still says what it
  // takes and gives (when the attrs that decide the dtypes are fine).
  std::vector<std::optional<std::vector<DataType>>> schema_inputs(
      unsupported.size());
  for (int u = 0; u < static_cast<int>(unsupported.size()); ++u) {
    absl::StatusOr<const OpRegistration*> reg =
        graph->registry()->LookUp(unsupported[u].def.op());
    std::vector<DataType> inputs, outputs;
    if (reg.ok() &&
        InOutTypesForNode(unsupported[u].def, (*reg)->op_def, &inputs, &outputs)
            .ok() &&
        outputs.size() >= out_types[u].size()) {
      schema_inputs[u] = std::move(inputs);
      out_types[u] = std::move(outputs);
    }
  }
  for (int u = 0; u < static_cast<int>(unsupported.size()); ++u) {
    Unsupported& node = unsupported[u];
    const NodeDef& original = def.node(node.index);
    if (schema_inputs[u].has_value()) {
      absl::StatusOr<Node*> n = graph->AddUnsupportedNode(
          node.def, *schema_inputs[u], out_types[u], node.why);
      if (!n.ok()) {
        report(n.status());
        if (first_error.ok()) first_error = n.status();
        continue;
      }
      nodes[node.index] = *n;
      continue;
    }
    std::vector<DataType> in_types;
    for (int k = 0; k < original.input_size(); ++k) {
      InputRef ref;
      if (!ParseInput(original, k, original.input(k), &ref).ok()) {
        if (!absl::StartsWith(original.input(k), "^")) {
          in_types.push_back(DT_INVALID);
        }
        continue;
      }
      if (ref.control) continue;
      DataType t = DT_INVALID;
      const std::string src = Prefixed(options, ref.node);
      if (auto it = by_name.find(src); it != by_name.end()) {
        const std::vector<DataType>& types = out_types[it->second];
        if (ref.index < static_cast<int>(types.size())) t = types[ref.index];
      } else if (const Node* s = graph->FindNode(src);
                 s != nullptr && ref.index < s->num_outputs()) {
        t = s->output_type(ref.index);
      }
      in_types.push_back(t);
    }
    absl::StatusOr<Node*> n = graph->AddUnsupportedNode(
        node.def, std::move(in_types), out_types[u], node.why);
    if (!n.ok()) {
      report(n.status());
      if (first_error.ok()) first_error = n.status();
      continue;
    }
    nodes[node.index] = *n;
  }
  return first_error;
}

// The shared body of ImportGraphDef (errors == null: stop at first) and
// ValidateGraphDef (collect all).
absl::Status Import(const GraphDef& def, const ImportOptions& options,
                    Graph* graph, std::vector<absl::Status>* errors) {
  auto report = [&](const absl::Status& s) {
    if (errors != nullptr) errors->push_back(s);
  };
  // Pass 1: nodes.
  std::vector<Node*> nodes(def.node_size(), nullptr);
  absl::flat_hash_set<std::string> failed;  // names of nodes that failed
  std::vector<Unsupported> unsupported;
  for (int i = 0; i < def.node_size(); ++i) {
    NodeDef nd = def.node(i);
    nd.set_name(Prefixed(options, nd.name()));
    if (!options.prefix.empty()) {
      auto it = nd.mutable_attr()->find("_class");
      if (it != nd.mutable_attr()->end() && it->second.has_list()) {
        for (std::string& g : *it->second.mutable_list()->mutable_s()) {
          if (absl::StartsWith(g, "loc:@")) {
            g = absl::StrCat("loc:@", Prefixed(options, g.substr(5)));
          }
        }
      }
    }
    absl::StatusOr<Node*> n = graph->AddNode(nd);
    if (!n.ok()) {
      // An op or attr dflow lacks is not the GraphDef's fault: keep the
      // node as a stand-in (added below, once its neighbours' dtypes are
      // known). Only a run that reaches it fails.
      if (absl::Status why = SupportProblem(nd, *graph->registry());
          !why.ok() && !absl::IsAlreadyExists(n.status()) &&
          !graph->FindNode(nd.name())) {
        unsupported.push_back({i, std::move(nd), std::move(why)});
        continue;
      }
      report(n.status());
      if (errors == nullptr) return n.status();
      // A duplicate name keeps the first node valid: do not mark it failed.
      if (!absl::IsAlreadyExists(n.status())) failed.insert(nd.name());
      continue;
    }
    nodes[i] = *n;
  }
  if (!unsupported.empty()) {
    absl::Status s =
        AddStandIns(def, options, unsupported, graph, nodes, report);
    if (!s.ok() && errors == nullptr) return s;
  }
  // Pass 2: edges.
  for (int i = 0; i < def.node_size(); ++i) {
    Node* dst = nodes[i];
    if (dst == nullptr) continue;
    const NodeDef& nd = def.node(i);
    int data_inputs = 0;
    bool seen_control = false;
    bool broken = false;
    for (int k = 0; k < nd.input_size(); ++k) {
      InputRef ref;
      absl::Status s = ParseInput(dst->def(), k, nd.input(k), &ref);
      if (s.ok() && !ref.control && seen_control) {
        s = absl::InvalidArgumentError(absl::StrCat(
            NodeLabel(dst->def()), ": data input '", nd.input(k),
            "' comes after a control input; list data inputs first"));
      }
      if (!s.ok()) {
        report(s);
        if (errors == nullptr) return s;
        broken = true;
        // Still a data input (the string is just unusable): count it so the
        // arity check below does not report the same problem again.
        if (!absl::StartsWith(nd.input(k), "^")) ++data_inputs;
        continue;
      }
      const std::string src_name = Prefixed(options, ref.node);
      Node* src = graph->FindNode(src_name);
      if (src == nullptr) {
        if (failed.contains(src_name)) {
          broken = true;  // blamed on the source node already
          if (!ref.control) ++data_inputs;
          continue;
        }
        s = absl::InvalidArgumentError(absl::StrCat(
            NodeLabel(dst->def()), ": input ", k, " '", nd.input(k),
            "' refers to node '", src_name,
            "', which is not in the graph; add it or fix the input name"));
        report(s);
        if (errors == nullptr) return s;
        broken = true;
        if (!ref.control) ++data_inputs;
        continue;
      }
      if (ref.control) {
        seen_control = true;
        graph->AddControlEdge(src, dst);
        continue;
      }
      if (data_inputs >= dst->num_inputs()) {
        ++data_inputs;
        continue;  // counted and reported below
      }
      absl::StatusOr<const Edge*> e =
          graph->AddEdge(src, ref.index, dst, data_inputs);
      ++data_inputs;
      if (!e.ok()) {
        report(e.status());
        if (errors == nullptr) return e.status();
        broken = true;
      }
    }
    if (data_inputs != dst->num_inputs()) {
      absl::Status s = absl::InvalidArgumentError(
          absl::StrCat(NodeLabel(dst->def()), " takes ", dst->num_inputs(),
                       " data input(s) but the GraphDef lists ", data_inputs));
      report(s);
      if (errors == nullptr) return s;
      broken = true;
    }
    if (broken) failed.insert(dst->name());
  }
  if (graph->num_nodes() ==
      static_cast<int>(std::count_if(nodes.begin(), nodes.end(),
                                     [](Node* n) { return n != nullptr; }))) {
    // The graph was empty: it takes this GraphDef's metadata as is.
    graph->SetVersionsFrom(def);
    *graph->mutable_library() = def.library();
    *graph->mutable_debug_info() = def.debug_info();
  } else {
    // Importing into a non-empty graph (with a prefix): keep what is there
    // and add this GraphDef's functions.
    graph->mutable_library()->MergeFrom(def.library());
  }

  absl::StatusOr<std::vector<Node*>> order = graph->TopologicalOrder();
  if (!order.ok()) {
    report(order.status());
    return order.status();
  }
  if (!options.infer_shapes) return absl::OkStatus();
  for (Node* n : *order) {
    // Nodes with missing inputs cannot be inferred meaningfully.
    bool complete = true;
    for (int k = 0; k < n->num_inputs(); ++k) {
      complete &= n->input_edge(k) != nullptr;
    }
    if (!complete) continue;
    absl::Status s = graph->InferShapesForNode(n);
    if (!s.ok()) {
      report(s);
      if (errors == nullptr) return s;
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ImportGraphDef(const GraphDef& def, const ImportOptions& options,
                            Graph* graph) {
  return Import(def, options, graph, nullptr);
}

std::vector<absl::Status> ValidateGraphDef(const GraphDef& def,
                                           const ImportOptions& options,
                                           Graph* graph) {
  std::vector<absl::Status> errors;
  Import(def, options, graph, &errors).IgnoreError();
  return errors;
}

}  // namespace dflow
