// The Cast launcher (kernels/gpu/cast_kernels_gpu.cc's work): every pair of
// bool and the real numeric types, element by element, with the CPU
// kernel's conversions (kernels/cpu/cwise_ops_cast.cc): to bool x != 0;
// from bool 0/1; integers wrap; float -> integer toward zero, saturating,
// NaN -> 0; float -> float rounding to nearest even through float for
// half/bfloat16, or with `truncate` the mantissa bits the destination
// lacks cleared first (NaN kept).
//
// The launcher is cast_ops_gpu.cu.cc (nvcc), in CUDA builds only: every
// caller is under DFLOW_HAVE_CUDA.
#ifndef DFLOW_KERNELS_GPU_CAST_OPS_GPU_H_
#define DFLOW_KERNELS_GPU_CAST_OPS_GPU_H_

#include <cstdint>

#include "absl/status/status.h"

namespace dflow {

enum class GpuCastType : int {
  kHalf,
  kBfloat16,
  kFloat,
  kDouble,
  kInt8,
  kInt16,
  kInt32,
  kInt64,
  kUint8,
  kUint16,
  kUint32,
  kUint64,
  kBool,
};

// y[i] = Cast(x[i]) for i < n, on `stream` (a cudaStream_t); x and y are
// device memory of the two types.
absl::Status LaunchGpuCast(GpuCastType src, GpuCastType dst, bool truncate,
                           const void* x, void* y, int64_t n, void* stream);

}  // namespace dflow

#endif  // DFLOW_KERNELS_GPU_CAST_OPS_GPU_H_
