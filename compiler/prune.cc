#include "compiler/prune.h"

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/attr_value_util.h"
#include "graph/node_def_util.h"
#include "graph/op_registry.h"
#include "graph/shape_inference.h"

namespace dflow {

// Session-internal ops that only pruning makes; their kernels move values
// in and out of the step (runtime/call_frame.cc).
// `shape` is what the graph declares for the fed tensor (a placeholder's
// [?, 784]): every feed must fit it, so passes may rely on it. Pruning may
// add `_feed_shape`, the shape fed when the signature was compiled: a hint
// for memory planning's figures only, since later feeds may differ.
DFLOW_REGISTER_OP("_Arg")
    .Output("output: T")
    .Attr("T: type")
    .Attr("index: int >= 0")
    .Attr("shape: shape = { unknown_rank: true }")
    .SetIsStateful()
    .SetShapeFn(shape_fns::ShapeFromAttr)
    .Doc("A fed value of the step (session-internal).");

DFLOW_REGISTER_OP("_Retval")
    .Input("input: T")
    .Attr("T: type")
    .Attr("index: int >= 0")
    .SetIsStateful()
    .SetShapeFn(shape_fns::Unknown)
    .Doc("A fetched value of the step (session-internal).");

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

// The error of a run that reaches stand-ins: the first one's reason, then
// how many nodes of which ops the run would need.
absl::Status UnsupportedReached(const Node& first,
                                const std::map<std::string, int>& count_by_op) {
  std::vector<std::string> counts;
  for (const auto& [op, count] : count_by_op) {
    counts.push_back(absl::StrCat(op, " x", count));
  }
  return absl::UnimplementedError(absl::StrCat(
      first.unsupported().message(),
      ". This run reaches nodes dflow cannot run (",
      absl::StrJoin(counts, ", "),
      "); feed their outputs or leave them out of the run's fetches and "
      "targets (`dflow inspect` lists every unsupported op of a graph)"));
}

}  // namespace

std::string TensorName(const std::string& node, int index) {
  return index == 0 ? node : absl::StrCat(node, ":", index);
}

absl::StatusOr<PrunedGraph> PruneGraph(const Graph& graph,
                                       const PruneRequest& request) {
  PrunedGraph out;
  // Feeds: each becomes an _Arg node replacing the fed tensor.
  // (node id, output) -> feed index
  absl::flat_hash_map<std::pair<int, int>, int> fed;
  for (size_t i = 0; i < request.feeds.size(); ++i) {
    TensorId id;
    absl::StatusOr<const Node*> n =
        FindOutput(graph, "feed", request.feeds[i], &id);
    if (!n.ok()) return n.status();
    const std::string canonical = TensorName(id.node, id.index);
    if (!fed.emplace(std::make_pair((*n)->id(), id.index), static_cast<int>(i))
             .second) {
      return absl::InvalidArgumentError(
          absl::StrCat("'", canonical, "' is fed twice"));
    }
    out.feed_names.push_back(canonical);
    out.feed_types.push_back(BaseType((*n)->output_type(id.index)));
    out.feed_shapes.push_back((*n)->output_shape(id.index));
  }
  auto feed_of = [&](const Node* node, int index) {
    auto it = fed.find(std::make_pair(node->id(), index));
    return it == fed.end() ? -1 : it->second;
  };
  // A control edge from a fed Placeholder waits for the feed instead, as in
  // TensorFlow: the Placeholder itself would fail for want of a value
  // (tf.compat.v1.metrics hang `^value` edges on their inputs). Other fed
  // nodes still run for their control edges.
  auto control_feed_of = [&](const Node* node) {
    const std::string& op = node->op();
    return op == "Placeholder" || op == "PlaceholderV2" ? feed_of(node, 0)
                                                        : -1;
  };

  // Walk back from fetches and targets, not past fed tensors.
  std::vector<const Node*> stack;
  std::vector<TensorId> fetch_ids(request.fetches.size());
  for (size_t i = 0; i < request.fetches.size(); ++i) {
    absl::StatusOr<const Node*> n =
        FindOutput(graph, "fetch", request.fetches[i], &fetch_ids[i]);
    if (!n.ok()) {
      // A stand-in knows only the outputs its neighbours read: fetching
      // another one fails for the stand-in's reason, not for the index.
      const std::string& fetch = request.fetches[i];
      const Node* named = graph.FindNode(fetch.substr(0, fetch.rfind(':')));
      if (named != nullptr && named->IsUnsupported()) {
        return UnsupportedReached(*named, {{named->op(), 1}});
      }
      return n.status();
    }
    if (feed_of(*n, fetch_ids[i].index) < 0) {
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
  // Stand-ins for ops or attrs dflow lacks (graph/graph_def_import.h) that
  // the run reaches: the run fails with the first one's reason (by id, so
  // the message does not depend on the walk) and their count per op.
  const Node* first_unsupported = nullptr;
  std::map<std::string, int> unsupported_by_op;
  while (!stack.empty()) {
    const Node* n = stack.back();
    stack.pop_back();
    if (keep[n->id()]) continue;
    keep[n->id()] = true;
    ++out.nodes_kept;
    if (n->IsUnsupported()) {
      if (first_unsupported == nullptr || n->id() < first_unsupported->id()) {
        first_unsupported = n;
      }
      ++unsupported_by_op[n->op()];
    }
    for (const Edge* e : n->in_edges()) {
      if (e->IsControl() ? control_feed_of(e->src) >= 0
                         : feed_of(e->src, e->src_output) >= 0) {
        continue;
      }
      if (!keep[e->src->id()]) stack.push_back(e->src);
    }
  }
  out.nodes_total = graph.num_nodes();
  if (first_unsupported != nullptr) {
    return UnsupportedReached(*first_unsupported, unsupported_by_op);
  }

  out.graph = std::make_unique<Graph>(graph.registry());
  Graph& pruned = *out.graph;
  // Functional ops (If) call functions of the library: lowering needs them.
  if (graph.library().function_size() > 0) {
    *pruned.mutable_library() = graph.library();
  }
  std::vector<Node*> args;
  for (size_t i = 0; i < request.feeds.size(); ++i) {
    NodeDef arg;
    arg.set_name(ArgName(static_cast<int>(i)));
    arg.set_op(kArgOp);
    arg.set_device(request.host_device);
    (*arg.mutable_attr())["T"] = MakeAttr(out.feed_types[i]);
    (*arg.mutable_attr())["index"] = MakeAttr(static_cast<int64_t>(i));
    (*arg.mutable_attr())["shape"] = MakeAttr(out.feed_shapes[i]);
    if (i < request.feed_shape_hints.size()) {
      (*arg.mutable_attr())[kFeedShapeHintAttr] =
          MakeAttr(request.feed_shape_hints[i]);
    }
    absl::StatusOr<Node*> added = pruned.AddNode(std::move(arg));
    if (!added.ok()) return added.status();
    // What the graph declares for the fed tensor; AddNode knows no shapes.
    (*added)->set_output_shapes({out.feed_shapes[i]});
    args.push_back(*added);
  }
  // The copy of each kept node, by the source node's id.
  std::vector<Node*> copy_of(graph.num_node_ids(), nullptr);
  for (const Node* n : graph.nodes()) {
    if (!keep[n->id()]) continue;
    absl::StatusOr<Node*> added = pruned.AddNodeCopy(*n);
    if (!added.ok()) return added.status();
    copy_of[n->id()] = *added;
  }
  // The producer a kept reader of `src:k` reads: the feed's _Arg or the copy.
  auto source_of = [&](const Node* src, int k) -> std::pair<Node*, int> {
    const int f = feed_of(src, k);
    return f >= 0 ? std::make_pair(args[f], 0)
                  : std::make_pair(copy_of[src->id()], k);
  };
  for (const Node* n : graph.nodes()) {
    Node* copy = copy_of[n->id()];
    if (copy == nullptr) continue;
    for (int k = 0; k < n->num_inputs(); ++k) {
      const Edge* e = n->input_edge(k);
      if (e == nullptr) {
        return absl::FailedPreconditionError(absl::StrCat(
            NodeLabel(n->def()), ": input ", k,
            " is not connected; connect it or leave the node out of the "
            "run's fetches and targets"));
      }
      auto [src, output] = source_of(e->src, e->src_output);
      if (absl::StatusOr<const Edge*> added =
              pruned.AddEdge(src, output, copy, k);
          !added.ok()) {
        return added.status();
      }
    }
    for (const Edge* e : n->in_edges()) {
      if (!e->IsControl()) continue;
      const int f = control_feed_of(e->src);
      pruned.AddControlEdge(f >= 0 ? args[f] : copy_of[e->src->id()], copy);
    }
  }
  for (size_t i = 0; i < request.fetches.size(); ++i) {
    const TensorId& id = fetch_ids[i];
    const Node* n = graph.FindNode(id.node);
    NodeDef ret;
    ret.set_name(absl::StrCat("_retval_", i));
    ret.set_op(kRetvalOp);
    ret.set_device(request.host_device);
    (*ret.mutable_attr())["T"] = MakeAttr(BaseType(n->output_type(id.index)));
    (*ret.mutable_attr())["index"] = MakeAttr(static_cast<int64_t>(i));
    absl::StatusOr<Node*> added = pruned.AddNode(std::move(ret));
    if (!added.ok()) return added.status();
    auto [src, output] = source_of(n, id.index);
    if (absl::StatusOr<const Edge*> edge =
            pruned.AddEdge(src, output, *added, 0);
        !edge.ok()) {
      return edge.status();
    }
  }
  return out;
}

}  // namespace dflow
