// The GPU implementations of the array ops that move elements, part two:
// Split, SplitV, Unpack, Pad (strided copies, array_ops_gpu.h), Fill and
// OnesLike (fills); part one is array_move_kernels_gpu.cc. Their int32
// definitions keep every argument in host memory: the same classes work on
// the host there. Argument checks, shapes and error messages are those of
// the CPU kernels (kernels/cpu/slicing_ops_*.cc, constant_ops.cc).
//
// Only built with CUDA (DFLOW_HAVE_CUDA); in other builds this file
// registers nothing and the definitions stay unimplemented.
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
#include "kernels/cpu/kernel_util_split.h"
#include "kernels/gpu/array_move_gpu_util.h"
#include "kernels/gpu/array_ops_gpu.h"
#include "kernels/gpu/gpu_kernel_util.h"
#include "kernels/gpu/kernel_defs_util.h"
#include "runtime/gpu/cuda_status.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

using array_kernels::IndexVec;
using array_move_gpu::DimsOf;
using array_move_gpu::ElemSize;
using array_move_gpu::Factory;
using array_move_gpu::Gpu;
using array_move_gpu::StridedCopy;
using array_move_gpu::ZeroOutput;
using gpu_kernel_defs::Complex;
using gpu_kernel_defs::Concat;
using gpu_kernel_defs::DeviceMovable;
using gpu_kernel_defs::GpuFloat;

// --- Split, SplitV: each output a block of columns of the input ---

// Output j takes, of the input viewed as [rows, dim * inner], the columns
// [sum(sizes[:j]) * inner, ...).
void EmitPiecesGpu(OpKernelContext* ctx, const char* what,
                   const array_kernels::SplitPlan& plan) {
  const TensorShape& shape = plan.input.shape();
  const int rank = shape.rank();
  const int64_t rows = array_kernels::DimProduct(shape, 0, plan.axis);
  const int64_t inner = array_kernels::DimProduct(shape, plan.axis + 1, rank);
  const int64_t total = shape.dim(plan.axis) * inner;
  int64_t col = 0;
  for (size_t j = 0; j < plan.sizes.size(); ++j) {
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(static_cast<int>(j),
                                             plan.piece_shapes[j], &out));
    const int64_t chunk = plan.sizes[j] * inner;
    if (chunk > 0 && rows > 0) {
      const int64_t dims[] = {rows, chunk};
      const int64_t src_strides[] = {total, 1};
      const int64_t dst_strides[] = {chunk, 1};
      OP_REQUIRES_OK(ctx, StridedCopy(ctx, what, plan.input, out, dims,
                                      src_strides, dst_strides, col, 0));
    }
    col += chunk;
  }
}

// Split, SplitV and Unpack on a GPU: the CPU kernels' checks and shapes
// (kernel_util_split.h), then strided copies.
class SplitGpuOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    DFLOW_GPU_KERNEL_PREAMBLE(ctx, gpu);
    array_kernels::SplitPlan plan;
    OP_REQUIRES_OK(ctx, array_kernels::PrepareSplit(ctx, &plan));
    if (!plan.done) EmitPiecesGpu(ctx, "Split", plan);
  }
};

class SplitVGpuOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    DFLOW_GPU_KERNEL_PREAMBLE(ctx, gpu);
    array_kernels::SplitPlan plan;
    OP_REQUIRES_OK(ctx, array_kernels::PrepareSplitV(ctx, &plan));
    if (!plan.done) EmitPiecesGpu(ctx, "SplitV", plan);
  }
};

class UnpackGpuOp : public OpKernel {
 public:
  explicit UnpackGpuOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    absl::Status s = ctx->GetAttr("axis", &axis_);
    if (!s.ok()) ctx->SetStatus(s);
  }
  void Compute(OpKernelContext* ctx) override {
    DFLOW_GPU_KERNEL_PREAMBLE(ctx, gpu);
    array_kernels::SplitPlan plan;
    OP_REQUIRES_OK(ctx, array_kernels::PrepareUnpack(ctx, axis_, &plan));
    EmitPiecesGpu(ctx, "Unpack", plan);
  }

 private:
  int64_t axis_ = 0;
};

// --- Pad: zeros, then the input copied into the interior ---

class PadGpuOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    DFLOW_GPU_KERNEL_PREAMBLE(ctx, gpu);
    const Tensor& input = ctx->input(0);
    const Tensor& paddings_t = ctx->input(1);
    const TensorShape& in_shape = input.shape();
    const int rank = in_shape.rank();
    OP_REQUIRES(ctx,
                paddings_t.shape().rank() == 2 &&
                    paddings_t.shape().dim(0) == rank &&
                    paddings_t.shape().dim(1) == 2,
                absl::InvalidArgumentError(absl::StrCat(
                    "paddings must be a matrix of shape [", rank,
                    ", 2] (before and after for each dimension of the input ",
                    in_shape.ToString(), "), but has shape ",
                    paddings_t.shape().ToString())));
    IndexVec paddings;
    {
      absl::StatusOr<Tensor> flat =
          paddings_t.Reshaped(TensorShape({paddings_t.NumElements()}));
      OP_REQUIRES_OK(ctx, flat.status());
      OP_REQUIRES_OK(
          ctx, array_kernels::ReadIndexVector(*flat, "paddings", &paddings));
    }
    TensorShape out_shape;
    bool none = true;
    for (int i = 0; i < rank; ++i) {
      const int64_t before = paddings[2 * i], after = paddings[2 * i + 1];
      OP_REQUIRES(
          ctx, before >= 0 && after >= 0,
          absl::InvalidArgumentError(absl::StrCat(
              "paddings [", absl::StrJoin(paddings, ","),
              "] must be non-negative (input ", in_shape.ToString(), ")")));
      int64_t size;
      OP_REQUIRES(ctx,
                  !__builtin_add_overflow(in_shape.dim(i), before, &size) &&
                      !__builtin_add_overflow(size, after, &size),
                  absl::InvalidArgumentError(
                      absl::StrCat("paddings [", absl::StrJoin(paddings, ","),
                                   "] overflow dimension ", i, " of the input ",
                                   in_shape.ToString())));
      out_shape.AddDim(size);
      none = none && before == 0 && after == 0;
    }
    if (none) {
      ctx->set_output(0, input);
      return;
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out->TotalBytes() == 0) return;
    OP_REQUIRES_OK(ctx, ZeroOutput(ctx, out, "Pad"));
    if (input.NumElements() == 0) return;
    const std::vector<int64_t> in_dims = DimsOf(in_shape);
    const std::vector<int64_t> out_strides = RowMajorStrides(DimsOf(out_shape));
    int64_t offset = 0;
    for (int i = 0; i < rank; ++i) offset += paddings[2 * i] * out_strides[i];
    OP_REQUIRES_OK(
        ctx, StridedCopy(ctx, "Pad", input, out, in_dims,
                         RowMajorStrides(in_dims), out_strides, 0, offset));
  }
};

// --- Fill, OnesLike ---

// Fill: `dims` is read on the host. The device definition's `value` is a
// device scalar, broadcast on the device; the int32 definition keeps
// `value` and the output on the host, filled here.
class FillGpuOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    DFLOW_GPU_KERNEL_PREAMBLE(ctx, gpu);
    const Tensor& dims = ctx->input(0);
    const Tensor& value = ctx->input(1);
    OP_REQUIRES(
        ctx, dims.shape().rank() == 1,
        absl::InvalidArgumentError(absl::StrCat(
            "dims must be a vector, got shape ", dims.shape().ToString())));
    OP_REQUIRES(
        ctx, value.shape().rank() == 0,
        absl::InvalidArgumentError(absl::StrCat(
            "value must be a scalar, got shape ", value.shape().ToString())));
    OP_REQUIRES(
        ctx, dims.dtype() == DT_INT32 || dims.dtype() == DT_INT64,
        absl::InvalidArgumentError(absl::StrCat(
            "dims must be int32 or int64, got ", DataTypeName(dims.dtype()))));
    TensorShape shape;
    for (int64_t i = 0; i < dims.NumElements(); ++i) {
      const int64_t d = dims.dtype() == DT_INT32 ? dims.data<int32_t>()[i]
                                                 : dims.data<int64_t>()[i];
      OP_REQUIRES(ctx, d >= 0,
                  absl::InvalidArgumentError(absl::StrCat(
                      "dims[", i, "] = ", d,
                      " is negative; Fill needs sizes >= 0 (dims: ",
                      dims.DebugString(), ")")));
      shape.AddDim(d);
    }
    OP_REQUIRES(ctx, shape.num_elements() >= 0,
                absl::InvalidArgumentError(
                    absl::StrCat("Fill shape ", shape.ToString(),
                                 " has more elements than an int64 counts")));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    if (out->NumElements() == 0) return;
    if (value.dtype() == DT_INT32) {
      // The int32 definition: value and output in host memory.
      const int32_t v = value.data<int32_t>()[0];
      int32_t* o = out->data<int32_t>();
      std::fill(o, o + out->NumElements(), v);
      return;
    }
    OP_REQUIRES_OK(ctx, LaunchGpuFillFromDevice(
                            ElemSize(value), value.raw_data(), out->raw_data(),
                            out->NumElements(), GpuComputeStreamOf(ctx)));
  }
};

// The bytes of one in `dtype` (the OnesLike definition's types).
bool OneBytes(DataType dtype, unsigned char bytes[16]) {
  std::memset(bytes, 0, 16);
  switch (dtype) {
    case DT_HALF: {
      const uint16_t one = 0x3C00;
      std::memcpy(bytes, &one, 2);
      return true;
    }
    case DT_BFLOAT16: {
      const uint16_t one = 0x3F80;
      std::memcpy(bytes, &one, 2);
      return true;
    }
    case DT_FLOAT:
    case DT_COMPLEX64: {
      const float one = 1.0f;
      std::memcpy(bytes, &one, 4);  // complex: real part 1, imaginary 0
      return true;
    }
    case DT_DOUBLE:
    case DT_COMPLEX128: {
      const double one = 1.0;
      std::memcpy(bytes, &one, 8);
      return true;
    }
    case DT_INT32: {
      const int32_t one = 1;
      std::memcpy(bytes, &one, 4);
      return true;
    }
    case DT_INT64: {
      const int64_t one = 1;
      std::memcpy(bytes, &one, 8);
      return true;
    }
    case DT_BOOL:
      bytes[0] = 1;
      return true;
    default:
      return false;
  }
}

class OnesLikeGpuOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    DFLOW_GPU_KERNEL_PREAMBLE(ctx, gpu);
    const Tensor& x = ctx->input(0);
    unsigned char one[16];
    OP_REQUIRES(
        ctx, OneBytes(x.dtype(), one),
        absl::UnimplementedError(absl::StrCat(
            "OnesLike on a GPU does not support ", DataTypeName(x.dtype()))));
    Tensor* y = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &y));
    if (output_in_host_memory(0)) {  // the int32 definition
      int32_t* o = y->data<int32_t>();
      std::fill(o, o + y->NumElements(), 1);
      return;
    }
    OP_REQUIRES_OK(
        ctx, LaunchGpuFillValue(ElemSize(x), one, y->raw_data(),
                                y->NumElements(), GpuComputeStreamOf(ctx)));
  }
};

const bool kRegistered = [] {
  KernelRegistry* r = KernelRegistry::Global();
  const std::vector<DataType> idx = {DT_INT32, DT_INT64};
  // Types this file moves on the device (Transpose and Tile include int32
  // in their device definitions).
  const std::vector<DataType> movable = DeviceMovable();
  r->RegisterImplementation(Gpu("Unpack").TypeConstraint("T", movable).def(),
                            Factory<UnpackGpuOp>());
  r->RegisterImplementation(Gpu("Unpack")
                                .TypeConstraint("T", {DT_INT32})
                                .HostMemory("value")
                                .HostMemory("output")
                                .def(),
                            Factory<UnpackGpuOp>());
  r->RegisterImplementation(Gpu("Pad")
                                .TypeConstraint("T", {DT_INT32})
                                .TypeConstraint("Tpaddings", idx)
                                .HostMemory("input")
                                .HostMemory("paddings")
                                .HostMemory("output")
                                .def(),
                            Factory<PadGpuOp>());
  r->RegisterImplementation(
      Gpu("Split").TypeConstraint("T", movable).HostMemory("split_dim").def(),
      Factory<SplitGpuOp>());
  r->RegisterImplementation(
      Gpu("SplitV")
          .TypeConstraint("T", movable)
          .TypeConstraint("Tlen", {DT_INT8, DT_INT32, DT_INT64})
          .HostMemory("size_splits")
          .HostMemory("split_dim")
          .def(),
      Factory<SplitVGpuOp>());
  // Pad's device definition: the GPU types and int8/uint8 (zero is
  // all-zero bytes for each).
  r->RegisterImplementation(
      Gpu("Pad")
          .TypeConstraint(
              "T", Concat({gpu_kernel_defs::GpuAll(), {DT_INT8, DT_UINT8}}))
          .TypeConstraint("Tpaddings", idx)
          .HostMemory("paddings")
          .def(),
      Factory<PadGpuOp>());
  r->RegisterImplementation(Gpu("Fill")
                                .TypeConstraint("T", movable)
                                .TypeConstraint("index_type", idx)
                                .HostMemory("dims")
                                .def(),
                            Factory<FillGpuOp>());
  r->RegisterImplementation(Gpu("Fill")
                                .TypeConstraint("T", {DT_INT32})
                                .TypeConstraint("index_type", idx)
                                .HostMemory("dims")
                                .HostMemory("value")
                                .HostMemory("output")
                                .def(),
                            Factory<FillGpuOp>());
  r->RegisterImplementation(
      Gpu("OnesLike")
          .TypeConstraint("T",
                          Concat({GpuFloat(), Complex(), {DT_BOOL, DT_INT64}}))
          .def(),
      Factory<OnesLikeGpuOp>());
  r->RegisterImplementation(
      Gpu("OnesLike").TypeConstraint("T", {DT_INT32}).HostMemory("y").def(),
      Factory<OnesLikeGpuOp>());
  return true;
}();

}  // namespace
}  // namespace dflow

#endif  // DFLOW_HAVE_CUDA
