// The GPU implementations of the array ops that move elements, part one:
// Transpose, ConcatV2, Pack, ConcatOffset, Slice, Tile (strided copies,
// array_ops_gpu.h; part two is array_split_pad_kernels_gpu.cc). Their
// int32 definitions keep every argument in host memory: the same classes
// copy on the host there (HostStridedCopy). Argument checks, shapes and
// error messages are those of the CPU kernels (kernels/cpu/transpose_op.cc,
// slicing_ops_*.cc); results are the same elements, moved by width.
// Shapes, permutations and begin/size vectors are host-memory arguments
// (kernels/gpu/kernel_defs_shape.cc); the data lives in device memory and
// every copy is enqueued on the compute stream.
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
#include "kernels/cpu/kernel_util_concat.h"
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

// --- Transpose ---

class TransposeGpuOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    DFLOW_GPU_KERNEL_PREAMBLE(ctx, gpu);
    const Tensor& input = ctx->input(0);
    const Tensor& perm_t = ctx->input(1);
    const TensorShape& in_shape = input.shape();
    const int rank = in_shape.rank();
    OP_REQUIRES(ctx, perm_t.shape().rank() == 1,
                absl::InvalidArgumentError(
                    absl::StrCat("perm must be a vector, but has shape ",
                                 perm_t.shape().ToString())));
    IndexVec perm;
    OP_REQUIRES_OK(ctx, array_kernels::ReadIndexVector(perm_t, "perm", &perm));
    OP_REQUIRES(ctx, static_cast<int>(perm.size()) == rank,
                absl::InvalidArgumentError(absl::StrCat(
                    "perm [", absl::StrJoin(perm, ","), "] has ", perm.size(),
                    " entries but x has shape ", in_shape.ToString(),
                    "; it needs one entry per dimension")));
    absl::InlinedVector<bool, 8> seen(rank, false);
    for (int64_t p : perm) {
      OP_REQUIRES(ctx, p >= 0 && p < rank && !seen[p],
                  absl::InvalidArgumentError(
                      absl::StrCat("perm [", absl::StrJoin(perm, ","),
                                   "] is not a permutation of [0, ", rank,
                                   ") for x of shape ", in_shape.ToString())));
      seen[p] = true;
    }
    TensorShape out_shape;
    for (int64_t p : perm) out_shape.AddDim(in_shape.dim(static_cast<int>(p)));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out->NumElements() == 0) return;
    // Iterate over the output: output dim j steps input dim perm[j].
    const std::vector<int64_t> in_strides = RowMajorStrides(DimsOf(in_shape));
    const std::vector<int64_t> out_dims = DimsOf(out_shape);
    std::vector<int64_t> src_strides(rank);
    for (int j = 0; j < rank; ++j) src_strides[j] = in_strides[perm[j]];
    OP_REQUIRES_OK(
        ctx, StridedCopy(ctx, "Transpose", input, out, out_dims, src_strides,
                         RowMajorStrides(out_dims), 0, 0));
  }
};

// --- ConcatV2, Pack: each input a block of rows of the output ---

// Copies inputs[i], viewed as [rows, chunks[i]], into columns
// [sum(chunks[:i]), ...) of `out` viewed as [rows, sum(chunks)].
absl::Status ConcatRowsGpu(OpKernelContext* ctx, const char* what,
                           absl::Span<const Tensor> inputs,
                           absl::Span<const int64_t> chunks, int64_t rows,
                           Tensor* out) {
  int64_t total = 0;
  for (int64_t c : chunks) total += c;
  int64_t col = 0;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (chunks[i] > 0 && rows > 0) {
      const int64_t dims[] = {rows, chunks[i]};
      const int64_t src_strides[] = {chunks[i], 1};
      const int64_t dst_strides[] = {total, 1};
      absl::Status s = StridedCopy(ctx, what, inputs[i], out, dims, src_strides,
                                   dst_strides, 0, col);
      if (!s.ok()) return s;
    }
    col += chunks[i];
  }
  return absl::OkStatus();
}

// ConcatV2 and Pack on a GPU: the CPU kernels' checks and shapes
// (kernel_util_concat.h), then strided copies.
class ConcatV2GpuOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    DFLOW_GPU_KERNEL_PREAMBLE(ctx, gpu);
    array_kernels::JoinPlan plan;
    OP_REQUIRES_OK(ctx, array_kernels::PrepareConcatV2(ctx, &plan));
    if (plan.out == nullptr) return;
    OP_REQUIRES_OK(ctx, ConcatRowsGpu(ctx, "ConcatV2", plan.values, plan.chunks,
                                      plan.rows, plan.out));
  }
};

class PackGpuOp : public OpKernel {
 public:
  explicit PackGpuOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    absl::Status s = ctx->GetAttr("axis", &axis_);
    if (!s.ok()) ctx->SetStatus(s);
  }
  void Compute(OpKernelContext* ctx) override {
    DFLOW_GPU_KERNEL_PREAMBLE(ctx, gpu);
    array_kernels::JoinPlan plan;
    OP_REQUIRES_OK(ctx, array_kernels::PreparePack(ctx, axis_, &plan));
    if (plan.out == nullptr) return;
    OP_REQUIRES_OK(ctx, ConcatRowsGpu(ctx, "Pack", plan.values, plan.chunks,
                                      plan.rows, plan.out));
  }

 private:
  int64_t axis_ = 0;
};

// --- Slice ---

std::string Ints(absl::Span<const int64_t> v) {
  return absl::StrCat("[", absl::StrJoin(v, ","), "]");
}

class SliceGpuOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    DFLOW_GPU_KERNEL_PREAMBLE(ctx, gpu);
    const Tensor& input = ctx->input(0);
    const Tensor& begin_t = ctx->input(1);
    const Tensor& size_tensor = ctx->input(2);
    const TensorShape& shape = input.shape();
    const int rank = shape.rank();
    OP_REQUIRES(
        ctx,
        begin_t.shape().rank() == 1 && size_tensor.shape().rank() == 1 &&
            begin_t.NumElements() == rank && size_tensor.NumElements() == rank,
        absl::InvalidArgumentError(
            absl::StrCat("begin and size must be vectors of ", rank,
                         " entries for an input of shape ", shape.ToString(),
                         ", but have shapes ", begin_t.shape().ToString(),
                         " and ", size_tensor.shape().ToString())));
    IndexVec begin, sizes;
    OP_REQUIRES_OK(ctx,
                   array_kernels::ReadIndexVector(begin_t, "begin", &begin));
    OP_REQUIRES_OK(ctx,
                   array_kernels::ReadIndexVector(size_tensor, "size", &sizes));
    bool identity = true;
    TensorShape out_shape;
    for (int i = 0; i < rank; ++i) {
      const int64_t dim = shape.dim(i);
      const int64_t b = begin[i];
      OP_REQUIRES(ctx, b >= 0 && b <= dim,
                  absl::InvalidArgumentError(absl::StrCat(
                      "begin[", i, "] = ", b, " is out of range for dimension ",
                      i, " of shape ", shape.ToString(), " (begin = ",
                      Ints(begin), ", size = ", Ints(sizes), ")")));
      if (sizes[i] == -1) sizes[i] = dim - b;
      OP_REQUIRES(ctx, sizes[i] >= 0 && sizes[i] <= dim - b,
                  absl::InvalidArgumentError(absl::StrCat(
                      "size[", i, "] = ", sizes[i], " is out of range for ",
                      "dimension ", i, " of shape ", shape.ToString(),
                      " from begin[", i, "] = ", b, ": it must be in [0, ",
                      dim - b, "] or -1 (begin = ", Ints(begin), ")")));
      identity = identity && b == 0 && sizes[i] == dim;
      out_shape.AddDim(sizes[i]);
    }
    if (identity) {
      ctx->set_output(0, input);
      return;
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out->NumElements() == 0) return;
    const std::vector<int64_t> in_strides = RowMajorStrides(DimsOf(shape));
    int64_t offset = 0;
    for (int i = 0; i < rank; ++i) offset += begin[i] * in_strides[i];
    const std::vector<int64_t> out_dims = DimsOf(out_shape);
    OP_REQUIRES_OK(ctx,
                   StridedCopy(ctx, "Slice", input, out, out_dims, in_strides,
                               RowMajorStrides(out_dims), offset, 0));
  }
};

// --- Tile ---

class TileGpuOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    DFLOW_GPU_KERNEL_PREAMBLE(ctx, gpu);
    const Tensor& input = ctx->input(0);
    const Tensor& multiples_t = ctx->input(1);
    const TensorShape& shape = input.shape();
    const int rank = shape.rank();
    OP_REQUIRES(
        ctx,
        multiples_t.shape().rank() == 1 && multiples_t.NumElements() == rank,
        absl::InvalidArgumentError(
            absl::StrCat("multiples must be a vector of ", rank,
                         " entries for an input of shape ", shape.ToString(),
                         ", but has shape ", multiples_t.shape().ToString())));
    IndexVec multiples;
    OP_REQUIRES_OK(ctx, array_kernels::ReadIndexVector(multiples_t, "multiples",
                                                       &multiples));
    TensorShape out_shape;
    bool identity = true;
    for (int i = 0; i < rank; ++i) {
      int64_t size = 0;
      OP_REQUIRES(
          ctx,
          multiples[i] >= 0 &&
              !__builtin_mul_overflow(shape.dim(i), multiples[i], &size),
          absl::InvalidArgumentError(absl::StrCat(
              "multiples [", absl::StrJoin(multiples, ","),
              "] for an input of shape ", shape.ToString(), ": entry ", i,
              " is negative or makes the dimension "
              "too large")));
      out_shape.AddDim(size);
      identity = identity && multiples[i] == 1;
    }
    if (identity) {
      ctx->set_output(0, input);
      return;
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out->NumElements() == 0) return;
    const std::vector<int64_t> out_dims = DimsOf(out_shape);
    std::vector<int64_t> mod(rank, 0);
    for (int i = 0; i < rank; ++i) {
      if (multiples[i] != 1) mod[i] = shape.dim(i);
    }
    OP_REQUIRES_OK(ctx, StridedCopy(ctx, "Tile", input, out, out_dims,
                                    RowMajorStrides(DimsOf(shape)),
                                    RowMajorStrides(out_dims), 0, 0, mod));
  }
};

const bool kRegistered = [] {
  KernelRegistry* r = KernelRegistry::Global();
  const std::vector<DataType> idx = {DT_INT32, DT_INT64};
  // Types this file moves on the device (Transpose and Tile include int32
  // in their device definitions).
  const std::vector<DataType> movable = DeviceMovable();
  r->RegisterImplementation(
      Gpu("Transpose")
          .TypeConstraint("T", Concat({movable, {DT_INT32}}))
          .TypeConstraint("Tperm", idx)
          .HostMemory("perm")
          .def(),
      Factory<TransposeGpuOp>());
  r->RegisterImplementation(
      Gpu("Tile")
          .TypeConstraint("T", Concat({movable, {DT_INT32}}))
          .TypeConstraint("Tmultiples", idx)
          .HostMemory("multiples")
          .def(),
      Factory<TileGpuOp>());
  r->RegisterImplementation(Gpu("ConcatV2")
                                .TypeConstraint("T", movable)
                                .TypeConstraint("Tidx", idx)
                                .HostMemory("axis")
                                .def(),
                            Factory<ConcatV2GpuOp>());
  r->RegisterImplementation(Gpu("Pack").TypeConstraint("T", movable).def(),
                            Factory<PackGpuOp>());
  r->RegisterImplementation(Gpu("Slice")
                                .TypeConstraint("T", movable)
                                .TypeConstraint("Index", idx)
                                .HostMemory("begin")
                                .HostMemory("size")
                                .def(),
                            Factory<SliceGpuOp>());
  // The int32 definitions keeping every argument in host memory (the
  // kernels copy on the host: output_in_host_memory).
  r->RegisterImplementation(Gpu("ConcatV2")
                                .TypeConstraint("T", {DT_INT32})
                                .TypeConstraint("Tidx", idx)
                                .HostMemory("values")
                                .HostMemory("axis")
                                .HostMemory("output")
                                .def(),
                            Factory<ConcatV2GpuOp>());
  r->RegisterImplementation(Gpu("Pack")
                                .TypeConstraint("T", {DT_INT32})
                                .HostMemory("values")
                                .HostMemory("output")
                                .def(),
                            Factory<PackGpuOp>());
  r->RegisterImplementation(Gpu("Slice")
                                .TypeConstraint("T", {DT_INT32})
                                .TypeConstraint("Index", idx)
                                .HostMemory("input")
                                .HostMemory("begin")
                                .HostMemory("size")
                                .HostMemory("output")
                                .def(),
                            Factory<SliceGpuOp>());
  r->RegisterImplementation(Gpu("ConcatOffset")
                                .TypeConstraint("shape_type", idx)
                                .HostMemory("concat_dim")
                                .HostMemory("shape")
                                .HostMemory("offset")
                                .def(),
                            // Every argument in host memory: the CPU's kernel.
                            Factory<array_kernels::ConcatOffsetKernel>());
  return true;
}();

}  // namespace
}  // namespace dflow

#endif  // DFLOW_HAVE_CUDA
