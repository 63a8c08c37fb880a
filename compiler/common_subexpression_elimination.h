// Common subexpression elimination: nodes that compute the same value from
// the same inputs become one.
//
// Graphs built by hand or by gradient code repeat work: the same Const in
// every layer, Shape(x) once per gradient that needs it, the same
// Transpose of a weight in two towers. Two nodes are the same computation
// when their op, all their attrs (`_class` included), their requested and
// assigned devices, their data inputs (same source and output slot, after
// earlier merges) and their set of control inputs are equal. The node with
// the smallest id is kept (a protected one, when one of them is: a run's
// target keeps its name); the others' data and control consumers move to
// it and they are removed.
//
// On a placed partition (PassContext::device set: the "cse_on_device"
// pass) the requested devices and colocation groups no longer count: every
// node there runs on the partition's device, so towers that asked for
// /gpu:0../gpu:3 and were soft-placed on the CPU merge where they compute
// the same values.
//
// Never merged: stateful nodes (variables, random ops, _Arg/_Retval,
// collectives, transfers, updates), placeholders (each is fed by name),
// nodes with a ref or resource input or output other than ReadVariableOp
// (a ref read happens when its consumer runs), and two protected nodes.
// Two ReadVariableOps of one variable with the same control inputs do
// merge: nothing orders them against each other, so seeing one value is
// one of the outcomes the graph allows.
//
// Linear in the graph: one walk in topological order hashes each node
// with the classes of its inputs.
#ifndef DFLOW_COMPILER_COMMON_SUBEXPRESSION_ELIMINATION_H_
#define DFLOW_COMPILER_COMMON_SUBEXPRESSION_ELIMINATION_H_

#include "absl/status/statusor.h"
#include "compiler/graph_pass.h"
#include "graph/graph.h"

namespace dflow {

// The "cse" and "cse_on_device" passes: changes = nodes removed,
// what = "3 nodes merged".
absl::StatusOr<PassResult> EliminateCommonSubexpressions(const PassContext& ctx,
                                                         Graph* graph);

}  // namespace dflow

#endif  // DFLOW_COMPILER_COMMON_SUBEXPRESSION_ELIMINATION_H_
