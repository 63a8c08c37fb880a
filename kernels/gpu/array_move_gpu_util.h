// What the GPU kernels of the array ops that move elements share
// (array_move_kernels_gpu.cc: Transpose, ConcatV2, Pack, ConcatOffset,
// Slice, Tile; array_split_pad_kernels_gpu.cc: Split, SplitV, Unpack, Pad,
// Fill, OnesLike): a strided copy on the kernel's compute stream (or on the
// host for the int32 definitions that keep every argument there), zeroing
// an output, and registration helpers. Only for builds with CUDA.
#ifndef DFLOW_KERNELS_GPU_ARRAY_MOVE_GPU_UTIL_H_
#define DFLOW_KERNELS_GPU_ARRAY_MOVE_GPU_UTIL_H_

#include "third_party/cuda/cuda_config.h"

#if DFLOW_HAVE_CUDA

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/tensor.h"
#include "graph/types.h"
#include "kernels/cpu/kernel_util_array.h"
#include "kernels/gpu/array_ops_gpu.h"
#include "kernels/gpu/gpu_kernel_util.h"
#include "kernels/gpu/kernel_defs_util.h"
#include "runtime/gpu/cuda_status.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace array_move_gpu {

inline int ElemSize(const Tensor& t) {
  return static_cast<int>(DataTypeSize(t.dtype()));
}

inline std::vector<int64_t> DimsOf(const TensorShape& s) {
  return std::vector<int64_t>(s.dims().begin(), s.dims().end());
}

// Plans and launches one strided copy on the kernel's compute stream.
inline absl::Status StridedCopy(OpKernelContext* ctx, const char* what,
                                const Tensor& src, Tensor* dst,
                                absl::Span<const int64_t> dims,
                                absl::Span<const int64_t> src_strides,
                                absl::Span<const int64_t> dst_strides,
                                int64_t src_offset, int64_t dst_offset,
                                absl::Span<const int64_t> src_mod = {}) {
  absl::StatusOr<GpuStridedCopy> plan = MakeGpuStridedCopy(
      dims, src_strides, dst_strides, src_offset, dst_offset, src_mod, what);
  if (!plan.ok()) return plan.status();
  if (ctx->kernel().output_in_host_memory(0)) {
    // An int32 definition keeping every argument in host memory.
    HostStridedCopy(ElemSize(src), *plan, src.raw_data(), dst->raw_data());
    return absl::OkStatus();
  }
  return LaunchGpuStridedCopy(ElemSize(src), *plan, src.raw_data(),
                              dst->raw_data(), GpuComputeStreamOf(ctx));
}

// Sets every byte of `t` to zero: on the compute stream, or on the host for
// the host-memory definitions.
inline absl::Status ZeroOutput(OpKernelContext* ctx, Tensor* t,
                               const char* what) {
  if (t->TotalBytes() == 0) return absl::OkStatus();
  if (ctx->kernel().output_in_host_memory(0)) {
    std::memset(t->raw_data(), 0, t->TotalBytes());
    return absl::OkStatus();
  }
  return CudaStatus(
      cudaMemsetAsync(t->raw_data(), 0, t->TotalBytes(), GpuStreamOf(ctx)),
      absl::StrCat("clearing ", what, "'s output"));
}

inline KernelDefBuilder Gpu(const char* op) {
  KernelDefBuilder b(op);
  b.Device(kDeviceGpu);
  return b;
}

template <typename K>
KernelFactory Factory() {
  return [](OpKernelConstruction* ctx) -> std::unique_ptr<OpKernel> {
    return std::make_unique<K>(ctx);
  };
}

}  // namespace array_move_gpu
}  // namespace dflow

#endif  // DFLOW_HAVE_CUDA

#endif  // DFLOW_KERNELS_GPU_ARRAY_MOVE_GPU_UTIL_H_
