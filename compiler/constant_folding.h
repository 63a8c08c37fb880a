// Constant folding: computes at compile time what every step would compute
// the same way, and puts the result into the graph as Const nodes.
//
// A node is folded when all its data inputs are constants (Const nodes or
// nodes folded already), in topological order, by asking the injected
// ConstantEvaluator (the runtime's CPU kernels; the compiler links none).
// Shape, Size, Rank and ShapeN also fold when their input is not constant
// but its static shape (rank, for Rank) is known after shape inference:
// declared shapes are safe because every feed must fit them (_Arg's
// `shape`; never the `_feed_shape` hint of one call).
//
// Never folded: stateful ops (variables, random ops, _Arg, _Retval,
// collectives, transfers), Placeholders, nodes with reference or resource
// inputs or outputs, the caller's protected nodes (a run's targets), Consts,
// nodes without outputs or consumers, nodes whose evaluation fails (the
// error belongs to the step, which may never run that node), and, given a
// KernelQuery, nodes that may run on a device type without a Const kernel
// for their dtypes (the Const must stay placeable there). An output
// larger than ConstantFoldingOptions::max_constant_bytes stays computed at
// run time, and so does everything computed from it, so that folding never
// bloats the graph nor compile-time memory (an output whose static shape is
// already over the limit is not even evaluated).
//
// Each folded output that still has a consumer becomes a Const on the
// original's requested device with its `_class` colocation: named as the
// node for a single-output node (names in dumps and errors stay
// meaningful), `<name>/folded_<k>` for output k otherwise. Ordering is kept:
// the Const waits for every non-folded node the folded computation waited
// for (control inputs of the folded nodes and of the Consts they read, and
// the non-constant input of a folded Shape), and control out-edges of a
// folded node move to its Const. Folded nodes, and Consts only folded nodes
// read, are removed.
#ifndef DFLOW_COMPILER_CONSTANT_FOLDING_H_
#define DFLOW_COMPILER_CONSTANT_FOLDING_H_

#include "absl/status/statusor.h"
#include "compiler/graph_pass.h"
#include "graph/graph.h"

namespace dflow {

// The pass (compiler/graph_pass.h). Without ctx.options->evaluator it does
// nothing ("no evaluator"). Fails only on a broken graph (an unconnected
// input, a cycle), naming the node and op.
absl::StatusOr<PassResult> FoldConstants(const PassContext& ctx, Graph* graph);

}  // namespace dflow

#endif  // DFLOW_COMPILER_CONSTANT_FOLDING_H_
