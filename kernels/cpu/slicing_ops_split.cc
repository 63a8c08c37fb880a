// CPU kernels that split a tensor into pieces along one axis: Split (equal
// pieces), SplitV (given sizes) and Unpack (pieces of size 1, axis removed).
//
// When every dimension before the axis has size 1 (axis 0 included), each
// piece is one contiguous run of the input, and the outputs are views that
// share the input's buffer: towers split a batch without copying it.
// Otherwise each output is copied row by row (slicing::SplitRows).
#include <cstdint>
#include <string>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/tensor.h"
#include "graph/types.h"
#include "kernels/cpu/kernel_util_array.h"
#include "kernels/cpu/slicing_ops_util.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

using array_kernels::DimProduct;
using array_kernels::IndexVec;

// Output j is `sizes[j]` entries of dimension `axis` of `input`, starting
// after the previous outputs' entries.
void EmitPieces(OpKernelContext* ctx, const Tensor& input, int axis,
                absl::Span<const int64_t> sizes, bool drop_axis) {
  const TensorShape& shape = input.shape();
  const int rank = shape.rank();
  const int64_t prefix = DimProduct(shape, 0, axis);
  const int64_t suffix = DimProduct(shape, axis + 1, rank);
  const int n = static_cast<int>(sizes.size());
  absl::InlinedVector<TensorShape, 8> piece_shapes;
  for (int j = 0; j < n; ++j) {
    TensorShape piece = shape;
    if (drop_axis) {
      piece.RemoveDim(axis);
    } else {
      piece.set_dim(axis, sizes[j]);
    }
    piece_shapes.push_back(std::move(piece));
  }
  if (prefix == 1) {
    int64_t offset = 0;
    for (int j = 0; j < n; ++j) {
      absl::StatusOr<Tensor> view =
          slicing::SharedRange(input, offset, piece_shapes[j]);
      OP_REQUIRES_OK(ctx, view.status());
      ctx->set_output(j, *std::move(view));
      offset += sizes[j] * suffix;
    }
    return;
  }
  absl::InlinedVector<Tensor*, 8> outs(n, nullptr);
  IndexVec chunks(n);
  for (int j = 0; j < n; ++j) {
    OP_REQUIRES_OK(ctx, ctx->allocate_output(j, piece_shapes[j], &outs[j]));
    chunks[j] = sizes[j] * suffix;
  }
  if (input.NumElements() == 0) return;
  slicing::SplitRows(input, prefix, chunks, outs, ctx->thread_pool());
}

class SplitOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(1);
    const int n = ctx->num_outputs();
    int64_t axis_value = 0;
    OP_REQUIRES_OK(ctx, array_kernels::ReadIndexScalar(
                            ctx->input(0), "split_dim", &axis_value));
    int axis = 0;
    OP_REQUIRES_OK(
        ctx, array_kernels::CanonicalAxis(axis_value, input.shape().rank(),
                                          input.shape(), "split_dim", &axis));
    const int64_t dim = input.shape().dim(axis);
    OP_REQUIRES(ctx, dim % n == 0,
                absl::InvalidArgumentError(absl::StrCat(
                    "num_split ", n, " does not divide dimension ", axis,
                    " of shape ", input.shape().ToString(), " (size ", dim,
                    "); Split needs equal pieces (SplitV takes sizes)")));
    if (n == 1) {
      ctx->set_output(0, input);
      return;
    }
    IndexVec sizes(n, dim / n);
    EmitPieces(ctx, input, axis, sizes, /*drop_axis=*/false);
  }
};

class SplitVOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const int n = ctx->num_outputs();
    int64_t axis_value = 0;
    OP_REQUIRES_OK(ctx, array_kernels::ReadIndexScalar(
                            ctx->input(2), "split_dim", &axis_value));
    int axis = 0;
    OP_REQUIRES_OK(
        ctx, array_kernels::CanonicalAxis(axis_value, input.shape().rank(),
                                          input.shape(), "split_dim", &axis));
    const Tensor& sizes_t = ctx->input(1);
    OP_REQUIRES(ctx, sizes_t.shape().rank() == 1,
                absl::InvalidArgumentError(
                    absl::StrCat("size_splits must be a vector, but has shape ",
                                 sizes_t.shape().ToString())));
    IndexVec sizes;
    OP_REQUIRES_OK(
        ctx, array_kernels::ReadIndexVector(sizes_t, "size_splits", &sizes));
    const int64_t dim = input.shape().dim(axis);
    const auto describe = [&] {
      return absl::StrCat("size_splits [", absl::StrJoin(sizes, ","),
                          "] for dimension ", axis, " of shape ",
                          input.shape().ToString(), " (size ", dim, ")");
    };
    OP_REQUIRES(ctx, static_cast<int>(sizes.size()) == n,
                absl::InvalidArgumentError(absl::StrCat(
                    describe(), ": there must be num_split = ", n, " sizes")));
    int unknown = -1;
    int64_t known_sum = 0;
    for (int j = 0; j < n; ++j) {
      if (sizes[j] == -1) {
        OP_REQUIRES(ctx, unknown == -1,
                    absl::InvalidArgumentError(
                        absl::StrCat(describe(), ": only one size may be -1")));
        unknown = j;
        continue;
      }
      OP_REQUIRES(ctx, sizes[j] >= 0,
                  absl::InvalidArgumentError(
                      absl::StrCat(describe(), ": sizes must be >= 0 or -1")));
      OP_REQUIRES(ctx,
                  !__builtin_add_overflow(known_sum, sizes[j], &known_sum) &&
                      known_sum <= dim,
                  absl::InvalidArgumentError(absl::StrCat(
                      describe(), ": the sizes add up to more than ", dim)));
    }
    if (unknown >= 0) {
      sizes[unknown] = dim - known_sum;
    } else {
      OP_REQUIRES(
          ctx, known_sum == dim,
          absl::InvalidArgumentError(absl::StrCat(
              describe(), ": the sizes add up to ", known_sum, ", not ", dim)));
    }
    if (n == 1) {
      ctx->set_output(0, input);
      return;
    }
    EmitPieces(ctx, input, axis, sizes, /*drop_axis=*/false);
  }
};

class UnpackOp : public OpKernel {
 public:
  explicit UnpackOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    absl::Status s = ctx->GetAttr("axis", &axis_);
    if (!s.ok()) ctx->SetStatus(s);
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const int n = ctx->num_outputs();
    int axis = 0;
    OP_REQUIRES_OK(ctx,
                   array_kernels::CanonicalAxis(axis_, input.shape().rank(),
                                                input.shape(), "axis", &axis));
    OP_REQUIRES(ctx, input.shape().dim(axis) == n,
                absl::InvalidArgumentError(absl::StrCat(
                    "cannot unpack ", n, " tensors from dimension ", axis,
                    " of shape ", input.shape().ToString(), " (size ",
                    input.shape().dim(axis), "); attr num must equal it")));
    IndexVec sizes(n, 1);
    EmitPieces(ctx, input, axis, sizes, /*drop_axis=*/true);
  }

 private:
  int64_t axis_ = 0;
};

DFLOW_REGISTER_KERNEL(KernelDefBuilder("Split")
                          .Device(kDeviceCpu)
                          .TypeConstraint("T", array_kernels::AllTensorTypes()),
                      SplitOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("SplitV")
                          .Device(kDeviceCpu)
                          .TypeConstraint("T", array_kernels::AllTensorTypes())
                          .TypeConstraint("Tlen",
                                          {DT_INT8, DT_INT32, DT_INT64}),
                      SplitVOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("Unpack")
                          .Device(kDeviceCpu)
                          .TypeConstraint("T", array_kernels::AllTensorTypes()),
                      UnpackOp);

}  // namespace
}  // namespace dflow
