// The GPU implementations of StridedSlice and StridedSliceGrad: the box a
// slice spec selects is gathered from (or, for the gradient, scattered
// into zeros of) device memory with one strided copy (array_ops_gpu.h);
// begin/end/strides and the gradient's shape are host-memory arguments
// (kernels/gpu/kernel_defs_shape.cc). The int32 definitions keep every
// argument in host memory: the same classes copy on the host there.
//
// The spec's semantics (TensorFlow's masks, ellipsis, new and shrunk axes)
// and error messages must match the CPU kernel exactly: BuildStridedBox and
// its helpers below are a copy of kernels/cpu/slicing_ops_slice.cc's, whose
// anonymous namespace keeps them from being shared (moving them into
// kernels/cpu/slicing_ops_util.h would let both files use one copy).
//
// Only built with CUDA (DFLOW_HAVE_CUDA); in other builds this file
// registers nothing and the definitions stay unimplemented.
#include "third_party/cuda/cuda_config.h"

#if DFLOW_HAVE_CUDA

#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/tensor.h"
#include "graph/types.h"
#include "kernels/cpu/kernel_util_array.h"
#include "kernels/cpu/kernel_util_strided_slice.h"
#include "kernels/gpu/array_ops_gpu.h"
#include "kernels/gpu/gpu_kernel_util.h"
#include "kernels/gpu/kernel_defs_util.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

using array_kernels::IndexVec;
using strided_slice::ReadMasks;
using strided_slice::ReadStridedBox;
using strided_slice::StridedBox;
using strided_slice::StridedSliceMasks;

// --- StridedSlice ---

// The strided copy between the box (per input dimension: begin, step,
// count) of a tensor of `shape` and a dense tensor of the box's elements:
// gather (box -> dense) or scatter (dense -> box).
absl::Status CopyBox(OpKernelContext* ctx, const char* what,
                     const TensorShape& shape, const StridedBox& box,
                     bool gather, const Tensor& src, Tensor* dst) {
  const std::vector<int64_t> dims(shape.dims().begin(), shape.dims().end());
  const std::vector<int64_t> strides = RowMajorStrides(dims);
  std::vector<int64_t> box_strides(dims.size());
  int64_t offset = 0;
  for (size_t d = 0; d < dims.size(); ++d) {
    box_strides[d] = strides[d] * box.strides[d];
    offset += box.begin[d] * strides[d];
  }
  const std::vector<int64_t> dense = RowMajorStrides(box.sizes);
  absl::StatusOr<GpuStridedCopy> plan =
      gather ? MakeGpuStridedCopy(box.sizes, box_strides, dense, offset, 0, {},
                                  what)
             : MakeGpuStridedCopy(box.sizes, dense, box_strides, 0, offset, {},
                                  what);
  if (!plan.ok()) return plan.status();
  if (ctx->kernel().output_in_host_memory(0)) {
    // The int32 definitions: every argument in host memory.
    HostStridedCopy(static_cast<int>(DataTypeSize(src.dtype())), *plan,
                    src.raw_data(), dst->raw_data());
    return absl::OkStatus();
  }
  return LaunchGpuStridedCopy(static_cast<int>(DataTypeSize(src.dtype())),
                              *plan, src.raw_data(), dst->raw_data(),
                              GpuComputeStreamOf(ctx));
}

class StridedSliceGpuOp : public OpKernel {
 public:
  explicit StridedSliceGpuOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ReadMasks(ctx, &masks_);
  }

  void Compute(OpKernelContext* ctx) override {
    DFLOW_GPU_KERNEL_PREAMBLE(ctx, gpu);
    const Tensor& input = ctx->input(0);
    StridedBox box;
    OP_REQUIRES_OK(ctx, ReadStridedBox(ctx, 1, input.shape(), masks_, &box));
    if (box.identity) {
      absl::StatusOr<Tensor> view = input.Reshaped(box.out_shape);
      OP_REQUIRES_OK(ctx, view.status());
      ctx->set_output(0, *std::move(view));
      return;
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, box.out_shape, &out));
    if (out->NumElements() == 0) return;
    OP_REQUIRES_OK(ctx, CopyBox(ctx, "StridedSlice", input.shape(), box,
                                /*gather=*/true, input, out));
  }

 private:
  StridedSliceMasks masks_;
};

// Zeros of `shape` with `dy` written into the box the spec selects.
class StridedSliceGradGpuOp : public OpKernel {
 public:
  explicit StridedSliceGradGpuOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ReadMasks(ctx, &masks_);
  }

  void Compute(OpKernelContext* ctx) override {
    DFLOW_GPU_KERNEL_PREAMBLE(ctx, gpu);
    const Tensor& shape_t = ctx->input(0);
    const Tensor& dy = ctx->input(4);
    OP_REQUIRES(ctx, shape_t.shape().rank() == 1,
                absl::InvalidArgumentError(
                    absl::StrCat("shape must be a vector, but has shape ",
                                 shape_t.shape().ToString())));
    IndexVec dims;
    OP_REQUIRES_OK(ctx,
                   array_kernels::ReadIndexVector(shape_t, "shape", &dims));
    TensorShape shape;
    for (int64_t d : dims) {
      OP_REQUIRES(ctx, d >= 0,
                  absl::InvalidArgumentError(
                      absl::StrCat("shape [", absl::StrJoin(dims, ","),
                                   "] has a negative dimension")));
      shape.AddDim(d);
    }
    StridedBox box;
    OP_REQUIRES_OK(ctx, ReadStridedBox(ctx, 1, shape, masks_, &box));
    OP_REQUIRES(ctx, dy.shape() == box.out_shape,
                absl::InvalidArgumentError(absl::StrCat(
                    "dy has shape ", dy.shape().ToString(),
                    " but the slice of a tensor of shape ", shape.ToString(),
                    " has shape ", box.out_shape.ToString())));
    if (box.identity) {
      absl::StatusOr<Tensor> view = dy.Reshaped(shape);
      OP_REQUIRES_OK(ctx, view.status());
      ctx->set_output(0, *std::move(view));
      return;
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    if (out->TotalBytes() == 0) return;
    if (output_in_host_memory(0)) {
      std::memset(out->raw_data(), 0, out->TotalBytes());
    } else {
      DFLOW_GPU_OP_REQUIRES_CUDA(
          ctx,
          cudaMemsetAsync(out->raw_data(), 0, out->TotalBytes(),
                          GpuStreamOf(ctx)),
          "clearing StridedSliceGrad's output");
    }
    if (dy.NumElements() == 0) return;
    OP_REQUIRES_OK(ctx, CopyBox(ctx, "StridedSliceGrad", shape, box,
                                /*gather=*/false, dy, out));
  }

 private:
  StridedSliceMasks masks_;
};

DFLOW_REGISTER_GPU_KERNEL(KernelDefBuilder("StridedSlice")
                              .Device(kDeviceGpu)
                              .TypeConstraint("T",
                                              gpu_kernel_defs::DeviceMovable())
                              .TypeConstraint("Index", {DT_INT32, DT_INT64})
                              .HostMemory("begin")
                              .HostMemory("end")
                              .HostMemory("strides"),
                          StridedSliceGpuOp);
DFLOW_REGISTER_GPU_KERNEL(KernelDefBuilder("StridedSliceGrad")
                              .Device(kDeviceGpu)
                              .TypeConstraint("T",
                                              gpu_kernel_defs::DeviceMovable())
                              .TypeConstraint("Index", {DT_INT32, DT_INT64})
                              .HostMemory("shape")
                              .HostMemory("begin")
                              .HostMemory("end")
                              .HostMemory("strides"),
                          StridedSliceGradGpuOp);
// The int32 definitions keep every argument in host memory.
DFLOW_REGISTER_GPU_KERNEL(KernelDefBuilder("StridedSlice")
                              .Device(kDeviceGpu)
                              .TypeConstraint("T", {DT_INT32})
                              .TypeConstraint("Index", {DT_INT32, DT_INT64})
                              .HostMemory("input")
                              .HostMemory("begin")
                              .HostMemory("end")
                              .HostMemory("strides")
                              .HostMemory("output"),
                          StridedSliceGpuOp);
DFLOW_REGISTER_GPU_KERNEL(KernelDefBuilder("StridedSliceGrad")
                              .Device(kDeviceGpu)
                              .TypeConstraint("T", {DT_INT32})
                              .TypeConstraint("Index", {DT_INT32, DT_INT64})
                              .HostMemory("shape")
                              .HostMemory("begin")
                              .HostMemory("end")
                              .HostMemory("strides")
                              .HostMemory("dy")
                              .HostMemory("output"),
                          StridedSliceGradGpuOp);

}  // namespace
}  // namespace dflow

#endif  // DFLOW_HAVE_CUDA
