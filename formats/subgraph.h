// The part of a GraphDef that some nodes need: those nodes and everything
// they reach backwards through data inputs, control inputs and colocation
// (`_class` "loc:@node") attrs.
//
// TensorFlow-written meta graphs and SavedModels carry nodes a given use
// never runs: the saver's SaveV2 and string ops when serving, the variable
// initializers after a restore, summaries. dflow imports a whole GraphDef
// into a Session and needs every op it holds, so loaders keep only what
// they will run (TensorFlow's own session prunes per run call too).
#ifndef DFLOW_FORMATS_SUBGRAPH_H_
#define DFLOW_FORMATS_SUBGRAPH_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "proto/graph.pb.h"

namespace dflow {

// The nodes of `def` that `roots` need, in their original order, with
// `def`'s versions and function library. A root is "node", "node:k" or
// "^node". NotFound names a root missing from the graph and `source`.
absl::StatusOr<GraphDef> SubgraphNeededFor(
    const GraphDef& def, const std::vector<std::string>& roots,
    absl::string_view source);

// The node name of a tensor or control name ("^a/b:1" -> "a/b").
std::string NodeNameOf(absl::string_view tensor_name);

}  // namespace dflow

#endif  // DFLOW_FORMATS_SUBGRAPH_H_
