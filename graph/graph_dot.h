// A Graphviz (DOT) picture of a GraphDef, for `dflow dot` and the
// compiler's per-pass dumps.
//
// One cluster per name scope (nested scopes are nested clusters), one box
// per node labelled with its short name and op, data edges solid and
// control edges dashed. Nodes are filled by the device they request (white
// for none), or with a placement record by the device they were assigned:
// soft-placement fallbacks get a bold red border, nodes inside a loop a
// double border, and each node's tooltip gives its request, device, the
// placer's reason and the loop frame. A legend lists device
// -> color. Deterministic: the same graph gives the same bytes.
#ifndef DFLOW_GRAPH_GRAPH_DOT_H_
#define DFLOW_GRAPH_GRAPH_DOT_H_

#include <string>

#include "proto/graph.pb.h"
#include "proto/placement.pb.h"

namespace dflow {

// The DOT text for `def`. With `placement` (a record of `def`'s nodes),
// nodes are filled by assigned device; without, by requested device.
std::string GraphToDot(const GraphDef& def,
                       const PlacementRecord* placement = nullptr);

}  // namespace dflow

#endif  // DFLOW_GRAPH_GRAPH_DOT_H_
