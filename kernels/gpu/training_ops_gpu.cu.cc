// The optimizer updates of training_ops_gpu.h: one grid-stride pass per
// step, each element read and written once per variable, statements in the
// CPU kernel's order.
#include "kernels/gpu/training_ops_gpu.h"

#include "absl/strings/str_cat.h"
#include "kernels/gpu/gpu_device_util.cu.h"

namespace dflow {
namespace gpu {
namespace {

// No __restrict__: a variable passed twice aliases itself, and each
// statement must read what the one before it wrote.
template <typename T>
__global__ void GradientDescentKernel(const T* var_in, T* var_out,
                                      const T* alpha_p, const T* delta,
                                      int64_t n) {
  const T alpha = *alpha_p;
  for (int64_t i = GlobalThreadIndex(); i < n; i += GridStride()) {
    var_out[i] = var_in[i] - delta[i] * alpha;
  }
}

template <typename T>
__global__ void MomentumKernel(const T* var_in, T* var_out, const T* accum_in,
                               T* accum_out, const T* lr_p, const T* grad,
                               const T* momentum_p, bool use_nesterov,
                               int64_t n) {
  const T lr = *lr_p;
  const T momentum = *momentum_p;
  for (int64_t i = GlobalThreadIndex(); i < n; i += GridStride()) {
    const T g = grad[i];
    accum_out[i] = accum_in[i] * momentum + g;
    const T accum = accum_out[i];
    if (use_nesterov) {
      var_out[i] = var_in[i] - (g * lr + accum * momentum * lr);
    } else {
      var_out[i] = var_in[i] - accum * lr;
    }
  }
}

template <typename T>
__global__ void AdamKernel(const T* var_in, T* var_out, const T* m_in, T* m_out,
                           const T* v_in, T* v_out, const T* beta1_power_p,
                           const T* beta2_power_p, const T* lr_p,
                           const T* beta1_p, const T* beta2_p,
                           const T* epsilon_p, const T* grad, bool use_nesterov,
                           int64_t n) {
  const T beta1_power = *beta1_power_p;
  const T beta2_power = *beta2_power_p;
  const T lr = *lr_p;
  const T beta1 = *beta1_p;
  const T beta2 = *beta2_p;
  const T epsilon = *epsilon_p;
  const T alpha = lr * Sqrt(T(1) - beta2_power) / (T(1) - beta1_power);
  for (int64_t i = GlobalThreadIndex(); i < n; i += GridStride()) {
    const T g = grad[i];
    const T m_old = m_in[i];
    m_out[i] = m_old + (g - m_old) * (T(1) - beta1);
    const T v_old = v_in[i];
    v_out[i] = v_old + (g * g - v_old) * (T(1) - beta2);
    const T m = m_out[i];
    const T v = v_out[i];
    const T var = var_in[i];
    if (use_nesterov) {
      var_out[i] = var - ((g * (T(1) - beta1) + m * beta1) * alpha) /
                             (Sqrt(v) + epsilon);
    } else {
      var_out[i] = var - (m * alpha) / (Sqrt(v) + epsilon);
    }
  }
}

template <typename T>
void Run(GpuOptimizer opt, const GpuApplyOperands& o, cudaStream_t stream) {
  auto in = [&](int k) { return static_cast<const T*>(o.in[k]); };
  auto out = [&](int k) { return static_cast<T*>(o.out[k]); };
  auto scalar = [&](int k) { return static_cast<const T*>(o.scalars[k]); };
  const T* grad = static_cast<const T*>(o.grad);
  const unsigned blocks = BlocksFor(o.n);
  switch (opt) {
    case GpuOptimizer::kGradientDescent:
      GradientDescentKernel<T><<<blocks, kThreadsPerBlock, 0, stream>>>(
          in(0), out(0), scalar(0), grad, o.n);
      break;
    case GpuOptimizer::kMomentum:
      MomentumKernel<T><<<blocks, kThreadsPerBlock, 0, stream>>>(
          in(0), out(0), in(1), out(1), scalar(0), grad, scalar(1),
          o.use_nesterov, o.n);
      break;
    case GpuOptimizer::kAdam:
      AdamKernel<T><<<blocks, kThreadsPerBlock, 0, stream>>>(
          in(0), out(0), in(1), out(1), in(2), out(2), scalar(0), scalar(1),
          scalar(2), scalar(3), scalar(4), scalar(5), grad, o.use_nesterov,
          o.n);
      break;
  }
}

}  // namespace
}  // namespace gpu

absl::Status LaunchApply(GpuOptimizer opt, GpuType type,
                         const GpuApplyOperands& o, cudaStream_t stream) {
  const char* name = GpuOptimizerName(opt);
  if (o.n <= 0) return absl::OkStatus();
  if (type == GpuType::kFloat) {
    gpu::Run<float>(opt, o, stream);
  } else if (type == GpuType::kDouble) {
    gpu::Run<double>(opt, o, stream);
  } else {
    return gpu::UnsupportedType(name, type);
  }
  return gpu::LaunchStatus(
      absl::StrCat(name, " (", GpuTypeName(type), ", ", o.n, " elements)"));
}

}  // namespace dflow
