// Fusion of element-wise op trees into one loop on the CPU.
//
// y = Relu(x * 2 + b) - z runs three kernels that each stream all of their
// operands through memory and write a full-size temporary; fused, one
// kernel walks the data once, block by block, keeping the per-block
// temporaries in cache. The pass finds maximal trees of element-wise ops
//
//   unary:  Neg Square Sqrt Rsqrt Exp Log Relu Sigmoid Tanh
//   binary: Add AddV2 Sub Mul RealDiv Maximum Minimum SquaredDifference
//   n-ary:  AddN of 2 to 8 inputs (as the Adds its kernel computes, in its
//           order: the same bits)
//
// of one float type (float or double), where every intermediate result
// is read only by nodes of the tree (one may read it twice, Mul(e, e);
// two may read it, and it is computed once: the towers' gradients that
// both add one weight-decay term before they are averaged), is not
// protected and has no control edge out, all nodes run on one device
// (fused_node.h's RunOnOneDevice: the same assigned device, or unplaced,
// the same request), and every operand and result has the tree's static
// output shape S or is a one-element tensor of rank <= rank(S) (a
// "scalar", which repeats). Shapes must be fully known: a broadcast of
// anything but a scalar, or an unknown dimension, ends the tree there. A
// tree of at least two ops (at most kMaxFusedOps in its program) becomes
// one
//
//   _FusedElementwise(inputs: N * T) -> y: T
//     ops:      list(string)  the ops in evaluation order
//     operands: list(int)     1 per unary op, 2 per binary op, in order;
//                             k < N is inputs[k], k >= N the result of
//                             ops[k - N] (an earlier one)
//
// whose result is the last op's. The kernel (kernels/cpu/
// fused_elementwise.cc) checks the program: every input is read, every
// result but the last is read by a later op. The node keeps the tree
// root's name, device request, assigned device, _class and out-edges, and
// the control inputs of every op in the tree. Only partitions of device
// type "CPU" are rewritten.
#ifndef DFLOW_COMPILER_FUSE_ELEMENTWISE_H_
#define DFLOW_COMPILER_FUSE_ELEMENTWISE_H_

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "compiler/graph_pass.h"
#include "graph/graph.h"

namespace dflow {

inline constexpr char kFusedElementwiseOp[] = "_FusedElementwise";

// The most ops one fused node computes; a larger tree is cut into several
// (each block's temporaries must stay in cache).
inline constexpr int kMaxFusedOps = 32;

// 1 or 2 for an op the pass fuses (and the kernel computes), else 0.
int FusableElementwiseArity(absl::string_view op);

// The pass "fuse_elementwise": rewrites every fusable tree in `graph`
// when ctx.device_type is "CPU"; what says "3 chains of 7 ops fused".
absl::StatusOr<PassResult> FuseElementwise(const PassContext& ctx,
                                           Graph* graph);

}  // namespace dflow

#endif  // DFLOW_COMPILER_FUSE_ELEMENTWISE_H_
