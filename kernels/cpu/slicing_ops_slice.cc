// CPU kernels that take a box out of a tensor: Slice (begin and size per
// dimension) and StridedSlice (NumPy's input[begin:end:stride, ...] with
// TensorFlow's begin/end/ellipsis/new-axis/shrink-axis masks), and
// StridedSliceGrad, which writes a box back into zeros (the gradient of
// StridedSlice, with the same spec).
//
// A slice that takes everything forwards the input; one that is a single
// contiguous run of the input (rows of dimension 0, say) is a view sharing
// the input's buffer; anything else is gathered into a new tensor.
#include <cstdint>
#include <string>
#include <tuple>
#include <utility>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/tensor.h"
#include "graph/types.h"
#include "kernels/cpu/kernel_util_array.h"
#include "kernels/cpu/kernel_util_strided_slice.h"
#include "kernels/cpu/slicing_ops_util.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

using strided_slice::ReadMasks;
using strided_slice::ReadStridedBox;
using strided_slice::StridedBox;
using strided_slice::StridedSliceMasks;

using array_kernels::IndexVec;

std::string Ints(absl::Span<const int64_t> v) {
  return absl::StrCat("[", absl::StrJoin(v, ","), "]");
}

// Outputs the box begin/strides/sizes of `input` with `out_shape` (the
// sizes with dims added or removed), sharing or copying as described above.
void EmitBox(OpKernelContext* ctx, const Tensor& input, const IndexVec& begin,
             const IndexVec& strides, const IndexVec& sizes, bool identity,
             const TensorShape& out_shape) {
  if (identity) {
    absl::StatusOr<Tensor> view = input.Reshaped(out_shape);
    OP_REQUIRES_OK(ctx, view.status());
    ctx->set_output(0, *std::move(view));
    return;
  }
  int64_t offset = 0;
  if (out_shape.num_elements() > 0 &&
      slicing::ContiguousBox(input.shape().dims(), begin, strides, sizes,
                             &offset)) {
    absl::StatusOr<Tensor> view =
        slicing::SharedRange(input, offset, out_shape);
    OP_REQUIRES_OK(ctx, view.status());
    ctx->set_output(0, *std::move(view));
    return;
  }
  Tensor* out = nullptr;
  OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
  slicing::StridedGather(input, begin, strides, sizes, out, ctx->thread_pool());
}

// --- Slice ---

class SliceOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
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
    const IndexVec strides(rank, 1);
    EmitBox(ctx, input, begin, strides, sizes, identity, out_shape);
  }
};

// --- StridedSlice ---

class StridedSliceOp : public OpKernel {
 public:
  explicit StridedSliceOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ReadMasks(ctx, &masks_);
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    StridedBox box;
    OP_REQUIRES_OK(ctx, ReadStridedBox(ctx, 1, input.shape(), masks_, &box));
    EmitBox(ctx, input, box.begin, box.strides, box.sizes, box.identity,
            box.out_shape);
  }

 private:
  StridedSliceMasks masks_;
};

// --- StridedSliceGrad ---

// Zeros of `shape` with `dy` written into the box the spec selects: every
// element the forward slice read gets its gradient, the others none.
class StridedSliceGradOp : public OpKernel {
 public:
  explicit StridedSliceGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ReadMasks(ctx, &masks_);
  }

  void Compute(OpKernelContext* ctx) override {
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
    slicing::FillZeros(out, ctx->thread_pool());
    slicing::StridedScatter(dy, box.begin, box.strides, box.sizes, out,
                            ctx->thread_pool());
  }

 private:
  StridedSliceMasks masks_;
};

DFLOW_REGISTER_KERNEL(KernelDefBuilder("Slice")
                          .Device(kDeviceCpu)
                          .TypeConstraint("T", array_kernels::AllTensorTypes())
                          .TypeConstraint("Index", {DT_INT32, DT_INT64}),
                      SliceOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("StridedSlice")
                          .Device(kDeviceCpu)
                          .TypeConstraint("T", array_kernels::AllTensorTypes())
                          .TypeConstraint("Index",
                                          {DT_INT16, DT_INT32, DT_INT64}),
                      StridedSliceOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("StridedSliceGrad")
                          .Device(kDeviceCpu)
                          .TypeConstraint("T", array_kernels::AllTensorTypes())
                          .TypeConstraint("Index", {DT_INT32, DT_INT64}),
                      StridedSliceGradOp);

}  // namespace
}  // namespace dflow
