// Pruning: the part of a graph one run signature needs, with its ends.
//
// A Session::Run names feeds (tensors whose values the caller supplies),
// fetches (tensors it wants back) and targets (nodes run for their
// effects). Only what the fetches and targets depend on, walking back
// through data and control edges but not past a fed tensor, is kept. Each
// fed tensor becomes an `_Arg` node (attr `index`: its position in the feed
// list) and each fetch feeds a `_Retval` node (attr `index`: its position
// in the fetch list); the runtime's kernels for those two ops move values
// in and out of the step (runtime/call_frame.h). This is the first step of
// every compile; the optimization passes start from its graph.
#ifndef DFLOW_COMPILER_PRUNE_H_
#define DFLOW_COMPILER_PRUNE_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "graph/graph.h"
#include "graph/tensor_shape.h"
#include "graph/types.h"

namespace dflow {

inline constexpr char kArgOp[] = "_Arg";
inline constexpr char kRetvalOp[] = "_Retval";
// On an _Arg: the shape fed when the signature was compiled (see
// PruneRequest::feed_shape_hints).
inline constexpr char kFeedShapeHintAttr[] = "_feed_shape";

struct PruneRequest {
  std::vector<std::string> feeds;    // "node" or "node:k"
  std::vector<std::string> fetches;  // "node" or "node:k"
  std::vector<std::string> targets;  // node names
  // Where the _Arg and _Retval nodes sit: feeds and fetches are host
  // tensors (the session's CPU:0).
  std::string host_device;
  // Optional, one per feed: the shapes of the values fed in the call that
  // compiles the signature. Written on the _Arg nodes as `_feed_shape` for
  // memory planning's figures; no pass may let what the graph computes
  // depend on them (the next call may feed other shapes). Each _Arg's
  // `shape` attr is the declared one, which every feed must fit.
  std::vector<TensorShape> feed_shape_hints;
};

struct PrunedGraph {
  // The _Arg nodes, the kept nodes (copies, in the graph's id order, with
  // their inferred shapes), then one _Retval per fetch; consumers of a fed
  // tensor read its _Arg. Built node by node from the source graph, with
  // no GraphDef in between (at a million nodes a round trip through a
  // GraphDef cost more than the pruning).
  std::unique_ptr<Graph> graph;
  // Per feed: its canonical name ("x", "y:1"), and the dtype and static
  // shape the graph declares for it.
  std::vector<std::string> feed_names;
  std::vector<DataType> feed_types;
  std::vector<TensorShape> feed_shapes;
  int nodes_kept = 0;  // of the graph's own nodes
  int nodes_total = 0;
};

// NotFound for a feed, fetch or target naming no node; InvalidArgument for
// a malformed tensor name, an output index out of range or a tensor fed
// twice; FailedPrecondition for a kept node with an unconnected input.
absl::StatusOr<PrunedGraph> PruneGraph(const Graph& graph,
                                       const PruneRequest& request);

// "node" for output 0, else "node:k".
std::string TensorName(const std::string& node, int index);

}  // namespace dflow

#endif  // DFLOW_COMPILER_PRUNE_H_
