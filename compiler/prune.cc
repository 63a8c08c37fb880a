#include "compiler/prune.h"

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "graph/attr_value_util.h"
#include "graph/node_def_util.h"

namespace dflow {
namespace {

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

std::string ArgName(int i) { return absl::StrCat("_arg_", i); }

}  // namespace

std::string TensorName(const std::string& node, int index) {
  return index == 0 ? node : absl::StrCat(node, ":", index);
}

absl::StatusOr<PrunedGraph> PruneGraph(const Graph& graph,
                                       const PruneRequest& request) {
  PrunedGraph out;
  // Feeds: each becomes an _Arg node replacing the fed tensor.
  absl::flat_hash_map<std::string, int> fed;  // "node:k" -> feed index
  for (size_t i = 0; i < request.feeds.size(); ++i) {
    TensorId id;
    absl::StatusOr<const Node*> n =
        FindOutput(graph, "feed", request.feeds[i], &id);
    if (!n.ok()) return n.status();
    const std::string canonical = TensorName(id.node, id.index);
    if (!fed.emplace(canonical, static_cast<int>(i)).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("'", canonical, "' is fed twice"));
    }
    out.feed_names.push_back(canonical);
    out.feed_types.push_back(BaseType((*n)->output_type(id.index)));
    out.feed_shapes.push_back((*n)->output_shape(id.index));
  }
  auto feed_of = [&](const std::string& node, int index) {
    auto it = fed.find(TensorName(node, index));
    return it == fed.end() ? -1 : it->second;
  };

  // Walk back from fetches and targets, not past fed tensors.
  std::vector<const Node*> stack;
  std::vector<TensorId> fetch_ids(request.fetches.size());
  for (size_t i = 0; i < request.fetches.size(); ++i) {
    absl::StatusOr<const Node*> n =
        FindOutput(graph, "fetch", request.fetches[i], &fetch_ids[i]);
    if (!n.ok()) return n.status();
    if (feed_of(fetch_ids[i].node, fetch_ids[i].index) < 0) {
      stack.push_back(*n);
    }
  }
  for (const std::string& t : request.targets) {
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
    ++out.nodes_kept;
    for (const Edge* e : n->in_edges()) {
      if (!e->IsControl() && feed_of(e->src->name(), e->src_output) >= 0) {
        continue;
      }
      if (!keep[e->src->id()]) stack.push_back(e->src);
    }
  }
  out.nodes_total = graph.num_nodes();

  GraphDef& def = out.graph;
  for (size_t i = 0; i < request.feeds.size(); ++i) {
    NodeDef* arg = def.add_node();
    arg->set_name(ArgName(static_cast<int>(i)));
    arg->set_op(kArgOp);
    arg->set_device(request.host_device);
    (*arg->mutable_attr())["T"] = MakeAttr(out.feed_types[i]);
    (*arg->mutable_attr())["index"] = MakeAttr(static_cast<int64_t>(i));
    (*arg->mutable_attr())["shape"] = MakeAttr(out.feed_shapes[i]);
    if (i < request.feed_shape_hints.size()) {
      (*arg->mutable_attr())[kFeedShapeHintAttr] =
          MakeAttr(request.feed_shape_hints[i]);
    }
  }
  for (const Node* n : graph.nodes()) {
    if (!keep[n->id()]) continue;
    NodeDef* nd = def.add_node();
    *nd = n->def();
    for (int k = 0; k < n->num_inputs(); ++k) {
      const Edge* e = n->input_edge(k);
      if (e == nullptr) {
        return absl::FailedPreconditionError(absl::StrCat(
            NodeLabel(n->def()), ": input ", k,
            " is not connected; connect it or leave the node out of the "
            "run's fetches and targets"));
      }
      const int f = feed_of(e->src->name(), e->src_output);
      nd->add_input(f >= 0 ? ArgName(f)
                           : TensorName(e->src->name(), e->src_output));
    }
    for (const Edge* e : n->in_edges()) {
      if (e->IsControl()) nd->add_input(absl::StrCat("^", e->src->name()));
    }
  }
  for (size_t i = 0; i < request.fetches.size(); ++i) {
    const TensorId& id = fetch_ids[i];
    const Node* n = graph.FindNode(id.node);
    NodeDef* ret = def.add_node();
    ret->set_name(absl::StrCat("_retval_", i));
    ret->set_op(kRetvalOp);
    ret->set_device(request.host_device);
    const int f = feed_of(id.node, id.index);
    ret->add_input(f >= 0 ? ArgName(f) : TensorName(id.node, id.index));
    (*ret->mutable_attr())["T"] = MakeAttr(BaseType(n->output_type(id.index)));
    (*ret->mutable_attr())["index"] = MakeAttr(static_cast<int64_t>(i));
  }
  return out;
}

}  // namespace dflow
