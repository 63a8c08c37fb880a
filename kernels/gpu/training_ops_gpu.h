// Optimizer updates on the GPU: the math of ApplyGradientDescent,
// ApplyMomentum (with Nesterov) and ApplyAdam, shared by their
// ResourceApply* twins (the kernel classes resolve variables, locks and
// copy-on-write; this launcher only computes).
//
// The formulas and their order of operations are the CPU kernels'
// (kernels/cpu/training_ops.cc), compiled without fused multiply-adds, and
// square root and division round correctly on both devices: float and
// double results equal the CPU's bit for bit.
//   GradientDescent  var -= alpha * delta
//   Momentum         accum = accum * momentum + grad
//                    var -= accum * lr              (nesterov:
//                    var -= grad * lr + accum * momentum * lr)
//   Adam             alpha = lr * sqrt(1 - beta2^t) / (1 - beta1^t)
//                    m += (grad - m) * (1 - beta1)
//                    v += (grad^2 - v) * (1 - beta2)
//                    var -= m * alpha / (sqrt(v) + epsilon)   (nesterov:
//                    (grad * (1 - beta1) + m * beta1) * alpha / ...)
// The scalars are device pointers (one element each, the op's inputs), read
// by the kernel, so a learning rate computed on the GPU needs no copy.
//
// Types: float and double (the CPU kernel's). Others answer Unimplemented;
// CPU-only builds answer Unavailable (training_ops_gpu_host.cc).
#ifndef DFLOW_KERNELS_GPU_TRAINING_OPS_GPU_H_
#define DFLOW_KERNELS_GPU_TRAINING_OPS_GPU_H_

#include <cstdint>

#include "absl/status/status.h"
#include "kernels/gpu/gpu_launch_util.h"

namespace dflow {

enum class GpuOptimizer : int { kGradientDescent, kMomentum, kAdam };
const char* GpuOptimizerName(GpuOptimizer opt);

struct GpuApplyOperands {
  // Per variable (var; accum for Momentum; m and v for Adam): the buffer
  // read and the buffer written, the same one to update in place. The same
  // variable passed twice (var and accum one variable) is legal: every
  // element is read and written in statement order, as on the CPU.
  const void* in[3] = {nullptr, nullptr, nullptr};
  void* out[3] = {nullptr, nullptr, nullptr};
  // Device scalars in the op's input order: GradientDescent {alpha};
  // Momentum {lr, momentum}; Adam {beta1_power, beta2_power, lr, beta1,
  // beta2, epsilon}.
  const void* scalars[6] = {};
  const void* grad = nullptr;
  int64_t n = 0;
  bool use_nesterov = false;
};

absl::Status LaunchApply(GpuOptimizer opt, GpuType type,
                         const GpuApplyOperands& operands, cudaStream_t stream);

}  // namespace dflow

#endif  // DFLOW_KERNELS_GPU_TRAINING_OPS_GPU_H_
