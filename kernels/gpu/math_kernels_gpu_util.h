// Shared by the OpKernel classes over the element-wise, reduction, softmax,
// optimizer and random launchers (kernels/gpu/*_kernels_gpu.cc, CUDA builds
// only): making the kernel's GPU current, its stream, element types, shapes
// as vectors, and device scratch memory.
#ifndef DFLOW_KERNELS_GPU_MATH_KERNELS_GPU_UTIL_H_
#define DFLOW_KERNELS_GPU_MATH_KERNELS_GPU_UTIL_H_

#include "third_party/cuda/cuda_config.h"

#if DFLOW_HAVE_CUDA

#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "graph/tensor.h"
#include "graph/tensor_shape.h"
#include "graph/types.h"
#include "kernels/gpu/gpu_kernel_util.h"
#include "kernels/gpu/gpu_launch_util.h"
#include "kernels/gpu/gpu_type_of.h"
#include "runtime/gpu/cuda_status.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace gpu_kernels {

// The compute stream of the kernel's GPU, made current on this thread
// (executor threads serve every device, and a launch must happen on the
// device that owns its stream).
inline absl::StatusOr<cudaStream_t> LaunchStream(OpKernelContext* ctx) {
  GpuDevice* gpu = GpuDeviceOf(ctx);
  if (gpu == nullptr) return NotOnGpuError(ctx->kernel(), ctx->device());
  DFLOW_CUDA_RETURN_IF_ERROR(
      cudaSetDevice(gpu->physical_ordinal()),
      absl::StrCat("cudaSetDevice(", gpu->physical_ordinal(), ") for ",
                   ctx->kernel().type_string()));
  return GpuStreamOf(ctx);
}

// The launchers' tag for `dtype` (registration only attaches supported
// types, so a failure here is a bug).
inline absl::StatusOr<GpuType> LauncherType(const OpKernel& kernel,
                                            DataType dtype) {
  std::optional<GpuType> t = GpuTypeOf(dtype);
  if (!t.has_value()) {
    return absl::InternalError(absl::StrCat("the GPU kernel of ",
                                            kernel.type_string(), " got ",
                                            DataTypeName(dtype)));
  }
  return *t;
}

inline std::vector<int64_t> DimsOf(const TensorShape& s) {
  return std::vector<int64_t>(s.dims().begin(), s.dims().end());
}

// Device scratch of at least `bytes` (freed with the tensor: safe while a
// queued launch still reads it, since the next owner of that memory is
// ordered after it on the same compute stream).
inline absl::Status Workspace(OpKernelContext* ctx, int64_t bytes,
                              Tensor* out) {
  return ctx->allocate_temp(DT_UINT8, TensorShape({bytes > 0 ? bytes : 1}),
                            out);
}

// Every element of a host int32/int64 vector or scalar (axes, shapes).
inline std::vector<int64_t> HostInts(const Tensor& t) {
  std::vector<int64_t> out;
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    out.push_back(t.dtype() == DT_INT32 ? int64_t{t.data<int32_t>()[i]}
                                        : t.data<int64_t>()[i]);
  }
  return out;
}

}  // namespace gpu_kernels
}  // namespace dflow

// OP_REQUIRES_OK for a StatusOr, binding its value.
#define DFLOW_GPU_ASSIGN_OR_RETURN(ctx, lhs, expr) \
  auto lhs##_or = (expr);                          \
  OP_REQUIRES_OK((ctx), lhs##_or.status());        \
  auto lhs = *lhs##_or

#endif  // DFLOW_HAVE_CUDA

#endif  // DFLOW_KERNELS_GPU_MATH_KERNELS_GPU_UTIL_H_
