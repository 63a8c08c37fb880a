// Fusion of a weight gradient into its SGD update.
//
// A training step's largest gradients are MatMuls (dW = X^T dY) consumed
// only by ApplyGradientDescent. Computing dW, then reading it and W again
// to update W, costs a tensor the size of W and a second pass over both;
// one GEMM into W itself (alpha = -learning rate, beta = 1) does the same
// arithmetic with neither. The pass rewrites
//
//   ApplyGradientDescent(var, alpha, MatMul(a, b))   [MatMul feeds nothing
//   else]
//
// also when the product reaches the update through the Identity of a
// gradient gate (GATE_OP: `.../tuple/control_dependency`, which waits for a
// NoOp run after every gradient of the forward op, as TensorFlow's
// optimizers and dflow's write them): the fused node takes the Identity's
// control inputs, so it still starts only after the other gradients (which
// read the variable's old value) are computed, and the gate no longer
// waits for the product, which is now computed inside the update.
//
// into one _FusedMatMulApplyGradientDescent(var, alpha, a, b) node with the
// MatMul's transposes, keeping the update's name, device request,
// colocation and edges (so targets naming the update still work). It fuses
// only when both nodes ask for the same device, so a tower's gradient is
// never moved to its variable's device.
#ifndef DFLOW_COMPILER_FUSE_MATMUL_UPDATE_H_
#define DFLOW_COMPILER_FUSE_MATMUL_UPDATE_H_

#include "absl/status/statusor.h"
#include "graph/graph.h"

namespace dflow {

inline constexpr char kFusedMatMulApplyGradientDescentOp[] =
    "_FusedMatMulApplyGradientDescent";

// Rewrites every fusable pair in `graph`; returns how many.
absl::StatusOr<int> FuseMatMulIntoGradientDescent(Graph* graph);

}  // namespace dflow

#endif  // DFLOW_COMPILER_FUSE_MATMUL_UPDATE_H_
