// Fusion of a dense layer's MatMul, bias add and optional Relu on the CPU.
//
// MatMul -> BiasAdd -> Relu runs three kernels, writes the [m, n] product
// three times and reads it twice more; the bias add and the Relu are a
// few cycles per element against the memory traffic. The pass rewrites
//
//   Relu(BiasAdd(MatMul(a, b), bias))   or   BiasAdd(MatMul(a, b), bias)
//
// into one _FusedMatMul(a, b, bias) node (attrs T, transpose_a,
// transpose_b, activation "" or "Relu") whose kernel (kernels/cpu/
// fused_matmul.cc) runs the same GEMM and then adds the bias and applies
// the Relu in one pass over the product. An Add/AddV2 of the product and a
// rank-1 tensor whose static shape is [n] (the seed MLP's `x W + b`) is
// the same bias add and fuses too.
//
// An intermediate (the MatMul, the bias add before a Relu) fuses only when
// its one out-edge is the data edge into the next node: a second consumer,
// a _Retval (a fetch), a control edge out, or its name among the run's
// protected nodes keeps it. All nodes must be float or double and ask for
// the same device. The fused node takes the last node's name, device
// request, assigned device and _class, the control inputs of all of them
// and the last node's out-edges. Only partitions of device type "CPU" are
// rewritten (the only device with the kernel).
#ifndef DFLOW_COMPILER_FUSE_MATMUL_BIAS_H_
#define DFLOW_COMPILER_FUSE_MATMUL_BIAS_H_

#include "absl/status/statusor.h"
#include "compiler/graph_pass.h"
#include "graph/graph.h"

namespace dflow {

inline constexpr char kFusedMatMulOp[] = "_FusedMatMul";

// The pass "fuse_matmul_bias": rewrites every fusable chain in `graph`
// when ctx.device_type is "CPU"; what says "2 MatMul+BiasAdd+Relu fused,
// 1 MatMul+BiasAdd fused".
absl::StatusOr<PassResult> FuseMatMulBias(const PassContext& ctx, Graph* graph);

}  // namespace dflow

#endif  // DFLOW_COMPILER_FUSE_MATMUL_BIAS_H_
