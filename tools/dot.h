// `dflow dot`: a Graphviz picture of a graph.
//
// One cluster per name scope (nested scopes are nested clusters), one box
// per node labelled with its short name and op, data edges solid, control
// edges dashed. Nodes are filled by the device they request (white for
// none); with --placed the graph is first placed, with the flags of
// `dflow place`, and nodes are filled by the device they were assigned,
// soft-placement fallbacks get a bold red border, and each node's tooltip
// (shown by SVG viewers) gives its request, device and the placer's reason.
// A legend lists device -> color. Output is deterministic: the same graph
// gives the same bytes.
//
// --out FILE.dot writes the DOT text; --out FILE.svg pipes it through
// Graphviz (`dot -Tsvg`; the binary is $DFLOW_DOT if set). Exit code 0 on
// success, 1 when the graph cannot be read or placed or Graphviz is missing
// or fails, 2 for a usage error.
#ifndef DFLOW_TOOLS_DOT_H_
#define DFLOW_TOOLS_DOT_H_

#include <ostream>
#include <string>
#include <vector>

#include "graph/graph_dot.h"  // GraphToDot

namespace dflow {

// The verb: parses `args` (after "dot") and runs it.
int RunDot(const std::vector<std::string>& args, std::ostream& out,
           std::ostream& err);

}  // namespace dflow

#endif  // DFLOW_TOOLS_DOT_H_
