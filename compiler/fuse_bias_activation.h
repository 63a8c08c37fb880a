// Fusion of a layer's product (a dense layer's MatMul, a convolution's
// Conv2D), bias add and optional Relu on the CPU.
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
// the Relu in one pass over the product, and the same chain over a float
// NHWC Conv2D into one _FusedConv2D(input, filter, bias) (Conv2D's attrs
// and activation; schema in graph/ops/conv_ops.cc) whose kernel
// (kernels/cpu/conv_ops_fused.cc) has oneDNN add the bias and apply the
// Relu inside the convolution. An Add/AddV2 of the product and a rank-1
// tensor whose static shape is [n] (n: the product's last dimension; the
// seed MLP's `x W + b`) is the same bias add and fuses too; a BiasAdd of
// an image fuses only when its data_format is NHWC.
//
// An intermediate (the product, the bias add before a Relu) fuses only when
// its one out-edge is the data edge into the next node: a second consumer,
// a _Retval (a fetch), a control edge out, or its name among the run's
// protected nodes keeps it. MatMuls must be float or double, convolutions
// float; all nodes must run on one device (fused_node.h's RunOnOneDevice:
// the same assigned device, or unplaced, the same request). The fused node
// takes the
// last node's name, device request, assigned device and _class, the control
// inputs of all of them and the last node's out-edges. Only partitions of
// device type "CPU" are rewritten (the only device with the kernels).
#ifndef DFLOW_COMPILER_FUSE_BIAS_ACTIVATION_H_
#define DFLOW_COMPILER_FUSE_BIAS_ACTIVATION_H_

#include "absl/status/statusor.h"
#include "compiler/graph_pass.h"
#include "graph/graph.h"

namespace dflow {

inline constexpr char kFusedMatMulOp[] = "_FusedMatMul";
inline constexpr char kFusedConv2DOp[] = "_FusedConv2D";

// The pass "fuse_bias_activation": rewrites every fusable chain in `graph`
// when ctx.device_type is "CPU"; what says e.g. "2 MatMul+BiasAdd+Relu,
// 1 MatMul+BiasAdd, 2 Conv2D+BiasAdd+Relu fused".
absl::StatusOr<PassResult> FuseBiasActivation(const PassContext& ctx,
                                              Graph* graph);

}  // namespace dflow

#endif  // DFLOW_COMPILER_FUSE_BIAS_ACTIVATION_H_
