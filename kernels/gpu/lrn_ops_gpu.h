// LRN and LRNGrad on a GPU through cuDNN's cross-channel LRN, with the CPU
// kernels' semantics (kernels/cpu/lrn_ops.cc), over the last dimension of
// an NHWC tensor.
//
// The parameters differ. TensorFlow:
//   out[d] = in[d] / (bias + alpha * sum(in[k]^2, |k - d| <=
//   depth_radius))^beta
// cuDNN (cudnnSetLRNDescriptor(n, alpha', beta', k)):
//   out[d] = in[d] / (k + alpha' / n * sum(in[j]^2 over a window of n))^beta'
// with the window centred on d for odd n. So
//   n = 2 * depth_radius + 1,  k = bias,  alpha' = alpha * n,  beta' = beta
// (TensorFlow's alpha is not divided by the window size; cuDNN's is).
// cuDNN takes 1 <= n <= 16 (depth_radius <= 7), k >= 1e-5 and beta >= 0.01;
// other parameters are InvalidArgument here, as in TensorFlow's GPU kernel,
// with a hint to place the op on CPU, which takes any.
#ifndef DFLOW_KERNELS_GPU_LRN_OPS_GPU_H_
#define DFLOW_KERNELS_GPU_LRN_OPS_GPU_H_

#include <array>
#include <cstdint>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "graph/types.h"

namespace dflow {

// The op's attrs, TensorFlow's parameterisation.
struct GpuLrnParams {
  int64_t depth_radius = 5;
  float bias = 1, alpha = 1, beta = 0.5f;
};

// cuDNN's parameterisation.
struct CudnnLrnParams {
  unsigned n = 0;
  double alpha = 0, beta = 0, k = 0;
};

// cuDNN's limits (CUDNN_LRN_MIN_N, ..., checked against cudnn.h where it is
// available).
inline constexpr unsigned kCudnnLrnMinN = 1;
inline constexpr unsigned kCudnnLrnMaxN = 16;
inline constexpr double kCudnnLrnMinK = 1e-5;
inline constexpr double kCudnnLrnMinBeta = 0.01;

// The conversion above; InvalidArgument for parameters cuDNN does not take.
absl::StatusOr<CudnnLrnParams> ToCudnnLrn(const GpuLrnParams& p);

// Each enqueues on `stream` (a cudaStream_t of GPU `ordinal`) and returns
// without waiting. Tensors are packed NHWC device memory of `shape`
// (dtypes float, double, half, bfloat16).
absl::Status LaunchLrn(int ordinal, void* stream, DataType dtype,
                       const std::array<int64_t, 4>& shape,
                       const GpuLrnParams& p, const void* input, void* output);
// input_grad = d loss / d input given `grads` (d loss / d output), the
// forward op's `input` and its `output`.
absl::Status LaunchLrnGrad(int ordinal, void* stream, DataType dtype,
                           const std::array<int64_t, 4>& shape,
                           const GpuLrnParams& p, const void* grads,
                           const void* input, const void* output,
                           void* input_grad);

}  // namespace dflow

#endif  // DFLOW_KERNELS_GPU_LRN_OPS_GPU_H_
