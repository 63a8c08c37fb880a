// Colocation groups: sets of nodes that must run on the same device.
//
// Nodes join one group (union-find) when
//   - one names the other in its `_class` attr ("loc:@name"): explicit
//     colocation, which is also how gradients stay with their forward ops;
//   - one takes a reference input from the other (a VariableV2 and the
//     Assign/Apply ops updating it in place);
//   - one takes a DT_RESOURCE input from the other (a VarHandleOp and its
//     ReadVariableOp/AssignVariableOp ops): a resource lives on one device;
//   - both carry one loop variable (its Enter, Merge, Switch, NextIteration
//     and Exit, as TensorFlow colocates them): a NextIteration must sit
//     with its Merge for a loop to be cut across devices.
// The placer then places each group as one unit.
#ifndef DFLOW_COMPILER_COLOCATION_GRAPH_H_
#define DFLOW_COMPILER_COLOCATION_GRAPH_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "graph/graph.h"

namespace dflow {

struct ColocationGroup {
  // In node id order; never empty.
  std::vector<Node*> members;
  // Why the members are together, one sentence per link, e.g.
  // "'grad' has _class loc:@fwd", "'assign' takes a reference to 'v'",
  // "'read' uses resource 'v'". Empty for a single node.
  std::vector<std::string> links;
};

// The groups of `graph`, ordered by their smallest node id (so group i is
// deterministic for a given graph). Every live node is in exactly one group.
// A `_class` entry naming a node that does not exist is an InvalidArgument
// naming both nodes, unless `graph` is a pruned subgraph
// (`skip_missing_targets`): then the target was pruned away and the entry
// constrains nothing.
absl::StatusOr<std::vector<ColocationGroup>> BuildColocationGroups(
    const Graph& graph, bool skip_missing_targets = false);

}  // namespace dflow

#endif  // DFLOW_COMPILER_COLOCATION_GRAPH_H_
