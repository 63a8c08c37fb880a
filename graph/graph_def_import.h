// Turning a GraphDef (from a file, TensorFlow or dflow) into a Graph.
//
// Nodes may appear in any order (TensorFlow insists on topological order;
// dflow does not). A node whose op dflow does not have, or whose attrs
// dflow's schema for the op refuses, is not an error of the GraphDef: it
// is kept as a stand-in (Node::IsUnsupported, with the reason), so that
// any graph TensorFlow writes loads and every run signature that does not
// reach such a node runs (compiler/prune.h reports the ones that do).
// Every problem of the GraphDef itself is reported with the node it
// concerns: malformed input, missing or dangling input, dtype mismatch,
// duplicate name, bad device, cycle, shape error. ImportGraphDef stops at
// the first problem; ValidateGraphDef collects all of them (what
// `dflow inspect` prints).
#ifndef DFLOW_GRAPH_GRAPH_DEF_IMPORT_H_
#define DFLOW_GRAPH_GRAPH_DEF_IMPORT_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "graph/graph.h"
#include "proto/graph.pb.h"

namespace dflow {

struct ImportOptions {
  // Prepended as "prefix/" to every node name (and to the names that inputs
  // and `_class` colocation attrs refer to), so one GraphDef can be imported
  // several times into one graph.
  std::string prefix;
  // Run shape inference on the imported nodes.
  bool infer_shapes = true;
};

// Imports `def` into `graph`, which must be empty unless a prefix keeps the
// names apart. On error `graph` may hold part of the nodes.
absl::Status ImportGraphDef(const GraphDef& def, const ImportOptions& options,
                            Graph* graph);

// Imports as much of `def` as is valid into `graph` and returns one error
// per problem found (empty when the GraphDef is valid). Nodes downstream of
// an invalid node are imported without the broken edge and not blamed.
std::vector<absl::Status> ValidateGraphDef(const GraphDef& def,
                                           const ImportOptions& options,
                                           Graph* graph);

}  // namespace dflow

#endif  // DFLOW_GRAPH_GRAPH_DEF_IMPORT_H_
