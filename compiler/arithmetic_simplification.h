// Arithmetic simplification: rewrites that drop work whose result is
// already at hand.
//
// Gradient code and layer libraries leave behind x*1, x+0, x-0 (and 1*x,
// 0+x), x-x on integers, Transpose of a Transpose, Reshape of a Reshape,
// chains of Identity, AddN of one input and Cast to the type it already
// has. Each is replaced by its input (or a composed Transpose, one Reshape,
// a Const of zeros) only when that has the same dtype and static shape as
// the output it replaces: x*ones([4,4]) with x of shape [4] broadcasts and
// stays. "1" and "0" are Consts whose every element is 1 or 0. Float x-x
// stays (NaN - NaN and Inf - Inf are NaN, not 0).
//
// One rewrite does less work rather than none: the multi-tower programs'
// gradient average, Mean(ConcatV2([ExpandDims(g_i, 0)...], 0), 0), becomes
// RealDiv(AddN(g_i...), N) (the sum, then the division, as Mean computes
// it) when the g_i are float or double of one fully known shape: no
// [N, ...] stack is built and read again.
//
// An Identity is bypassed only when it is no ref or resource read, asks
// for the device its input asks for (an Identity that moves a tensor to
// another device is a transfer) and is not a run's target.
//
// When a node is bypassed, its consumers still run after its control
// inputs (they get them as control inputs), and its control consumers
// still run after its input's producer; a bypassed node with no consumers
// left is removed, unless it is protected. Rewrites repeat until none
// applies (Identity of Identity of Identity).
#ifndef DFLOW_COMPILER_ARITHMETIC_SIMPLIFICATION_H_
#define DFLOW_COMPILER_ARITHMETIC_SIMPLIFICATION_H_

#include "absl/status/statusor.h"
#include "compiler/graph_pass.h"
#include "graph/graph.h"

namespace dflow {

// The "arithmetic_simplification" pass: changes = rewrites made, what =
// "5 rewrites (2 Identity, 1 Cast, ...)".
absl::StatusOr<PassResult> SimplifyArithmetic(const PassContext& ctx,
                                              Graph* graph);

}  // namespace dflow

#endif  // DFLOW_COMPILER_ARITHMETIC_SIMPLIFICATION_H_
