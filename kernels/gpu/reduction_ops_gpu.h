// Reduction-shaped GPU launchers: Sum, Mean, Prod, Max, Min over any set of
// axes, L2Loss, ArgMax, BiasAdd and BiasAddGrad, Softmax and LogSoftmax,
// and the two softmax cross-entropy losses with their backprop.
//
// Deterministic: no floating-point atomics. Every output element is
// combined by one thread, warp or block in an order fixed by the shapes
// alone (gpu_shape_plans.h: ReduceSchedule), so a run reproduces the last
// bit for bit. Sums accumulate in float for half and bfloat16 (as on the
// CPU) and wrap for integers; Max and Min propagate NaN; reducing zero
// elements gives TensorFlow's identities (0, 1, -inf, +inf; NaN for a
// floating mean, 0 for an integer one). The order of additions differs
// from the CPU kernels', so sums agree with them to rounding, not bit for
// bit.
//
// Types: half, bfloat16, float, double; int64 too for the reductions;
// bool too for ArgMax. Others answer Unimplemented; in CPU-only builds
// everything answers Unavailable (reduction_ops_gpu_host.cc).
#ifndef DFLOW_KERNELS_GPU_REDUCTION_OPS_GPU_H_
#define DFLOW_KERNELS_GPU_REDUCTION_OPS_GPU_H_

#include <cstdint>

#include "absl/status/status.h"
#include "kernels/gpu/gpu_launch_util.h"
#include "kernels/gpu/gpu_shape_plans.h"

namespace dflow {

enum class GpuReduction : int { kSum, kMean, kProd, kMax, kMin };
const char* GpuReductionName(GpuReduction op);

// Device memory LaunchReduce needs beside input and output, in bytes (0
// for single-pass reductions).
int64_t ReduceWorkspaceBytes(const ReducePlan& plan, GpuType type);

// out = op over `plan`'s reduced dimensions of `in` (plan.in_elements
// elements; out has plan.out_elements). `workspace` holds at least
// ReduceWorkspaceBytes(plan, type) bytes (may be null when that is 0).
absl::Status LaunchReduce(GpuReduction op, GpuType type, const ReducePlan& plan,
                          const void* in, void* out, void* workspace,
                          int64_t workspace_bytes, cudaStream_t stream);

// out[0] = sum(in[i]^2) / 2 over n elements (float types only). Uses the
// workspace of a full Sum over n elements.
int64_t L2LossWorkspaceBytes(int64_t n, GpuType type);
absl::Status LaunchL2Loss(GpuType type, const void* in, int64_t n, void* out,
                          void* workspace, int64_t workspace_bytes,
                          cudaStream_t stream);

// out[o, i] = the index r of the largest in[o, r, i] (first on ties, NaN
// skipped, 0 when nothing beats the type's lowest value: the CPU kernel's
// rule). `reduce` must be > 0. out_type is kInt32 or kInt64.
absl::Status LaunchArgMax(GpuType type, GpuType out_type, const void* in,
                          int64_t outer, int64_t reduce, int64_t inner,
                          void* out, cudaStream_t stream);

// out[i] = value[i] + bias[(i / inner) % channels] for i < n: NHWC (and any
// channels-last layout) has inner = 1, NCHW inner = the spatial size.
absl::Status LaunchBiasAdd(GpuType type, const void* value, const void* bias,
                           void* out, int64_t n, int64_t channels,
                           int64_t inner, cudaStream_t stream);

// Softmax (or log-softmax) of each row of a [rows, classes] tensor. out may
// not alias logits.
absl::Status LaunchSoftmax(GpuType type, bool log, const void* logits,
                           void* out, int64_t rows, int64_t classes,
                           cudaStream_t stream);

// loss[r] = sum_c labels (log sum_k exp(s_k) - s_c) with s = logits - max,
// backprop = softmax(logits) - labels, over plan's [rows, classes].
absl::Status LaunchSoftmaxXent(GpuType type, const XentPlan& plan,
                               const void* logits, const void* labels,
                               void* loss, void* backprop, cudaStream_t stream);

// The sparse form: labels (label_type kInt32 or kInt64) hold one class
// index per row. A label outside [0, classes) cannot be reported from the
// device without a copy: its row's loss and backprop become NaN (as in
// TensorFlow's GPU kernel).
absl::Status LaunchSparseSoftmaxXent(GpuType type, GpuType label_type,
                                     const void* logits, const void* labels,
                                     void* loss, void* backprop, int64_t rows,
                                     int64_t classes, cudaStream_t stream);

}  // namespace dflow

#endif  // DFLOW_KERNELS_GPU_REDUCTION_OPS_GPU_H_
