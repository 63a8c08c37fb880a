#include "kernels/cpu/kernel_util_shape.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/tensor.h"
#include "graph/types.h"
#include "kernels/cpu/kernel_util_array.h"

namespace dflow {
namespace shape_kernels {

using array_kernels::IndexVec;

// Sets output 0 to `input` viewed with `shape` (same element count).
void SetReshaped(OpKernelContext* ctx, const Tensor& input,
                 const TensorShape& shape) {
  absl::StatusOr<Tensor> view = input.Reshaped(shape);
  OP_REQUIRES_OK(ctx, view.status());
  ctx->set_output(0, *std::move(view));
}

// Writes `values` into a new int32 or int64 output, failing when a value
// does not fit in int32.
void OutputIndexVector(OpKernelContext* ctx, int i,
                       absl::Span<const int64_t> values,
                       const TensorShape& shape, absl::string_view what) {
  Tensor* out = nullptr;
  OP_REQUIRES_OK(ctx, ctx->allocate_output(i, shape, &out));
  if (out->dtype() == DT_INT64) {
    std::copy(values.begin(), values.end(), out->data<int64_t>());
    return;
  }
  int32_t* data = out->data<int32_t>();
  for (size_t j = 0; j < values.size(); ++j) {
    OP_REQUIRES(ctx, values[j] <= std::numeric_limits<int32_t>::max(),
                absl::InvalidArgumentError(absl::StrCat(
                    what, " ", values[j],
                    " does not fit in int32; set out_type to int64")));
    data[j] = static_cast<int32_t>(values[j]);
  }
}

// --- Reshape ---

void ReshapeOp::Compute(OpKernelContext* ctx) {
  const Tensor& input = ctx->input(0);
  absl::StatusOr<TensorShape> shape =
      array_kernels::ReshapeTarget(input.shape(), ctx->input(1));
  OP_REQUIRES_OK(ctx, shape.status());
  SetReshaped(ctx, input, *shape);
}

// --- Shape, Size, Rank ---

void ShapeOp::Compute(OpKernelContext* ctx) {
  const Tensor& input = ctx->input(0);
  const int rank = input.shape().rank();
  OutputIndexVector(ctx, 0, input.shape().dims(), TensorShape({rank}),
                    "a dimension of size");
}

void SizeOp::Compute(OpKernelContext* ctx) {
  const int64_t n = ctx->input(0).NumElements();
  OutputIndexVector(ctx, 0, absl::MakeConstSpan(&n, 1), TensorShape(),
                    "the element count");
}

void RankOp::Compute(OpKernelContext* ctx) {
  Tensor* out = nullptr;
  OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(), &out));
  out->data<int32_t>()[0] = ctx->input(0).shape().rank();
}

// --- ExpandDims, Squeeze ---

void ExpandDimsOp::Compute(OpKernelContext* ctx) {
  const Tensor& input = ctx->input(0);
  const Tensor& dim_t = ctx->input(1);
  int64_t dim = 0;
  OP_REQUIRES_OK(ctx, array_kernels::ReadIndexScalar(dim_t, "dim", &dim));
  const int rank = input.shape().rank();
  OP_REQUIRES(ctx, dim >= -1 - rank && dim <= rank,
              absl::InvalidArgumentError(absl::StrCat(
                  "dim ", dim, " is out of range for a tensor of shape ",
                  input.shape().ToString(), ": it must be in [", -1 - rank,
                  ", ", rank, "]")));
  if (dim < 0) dim += rank + 1;
  TensorShape shape = input.shape();
  shape.InsertDim(static_cast<int>(dim), 1);
  SetReshaped(ctx, input, shape);
}

SqueezeOp::SqueezeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
  std::vector<int64_t> dims;
  absl::Status s = ctx->GetAttr("squeeze_dims", &dims);
  if (!s.ok()) {
    ctx->SetStatus(s);
    return;
  }
  squeeze_dims_.assign(dims.begin(), dims.end());
}

void SqueezeOp::Compute(OpKernelContext* ctx) {
  const Tensor& input = ctx->input(0);
  const TensorShape& in = input.shape();
  const int rank = in.rank();
  absl::InlinedVector<bool, 8> squeeze(rank, false);
  for (int64_t dim : squeeze_dims_) {
    OP_REQUIRES(ctx, dim >= -rank && dim < rank,
                absl::InvalidArgumentError(absl::StrCat(
                    "squeeze_dims entry ", dim,
                    " is out of range for a tensor of shape ", in.ToString(),
                    ": it must be in [", -rank, ", ", rank, ")")));
    squeeze[dim < 0 ? dim + rank : dim] = true;
  }
  TensorShape shape;
  for (int i = 0; i < rank; ++i) {
    const int64_t size = in.dim(i);
    if (squeeze_dims_.empty()) {
      if (size != 1) shape.AddDim(size);
    } else if (squeeze[i]) {
      OP_REQUIRES(ctx, size == 1,
                  absl::InvalidArgumentError(absl::StrCat(
                      "cannot squeeze dimension ", i, " of shape ",
                      in.ToString(), ": its size is ", size, ", not 1")));
    } else {
      shape.AddDim(size);
    }
  }
  SetReshaped(ctx, input, shape);
}

// --- BroadcastGradientArgs ---

void BroadcastGradientArgsOp::Compute(OpKernelContext* ctx) {
  const Tensor& s0_t = ctx->input(0);
  const Tensor& s1_t = ctx->input(1);
  OP_REQUIRES(ctx, s0_t.shape().rank() == 1 && s1_t.shape().rank() == 1,
              absl::InvalidArgumentError(absl::StrCat(
                  "s0 and s1 must be vectors, but have shapes ",
                  s0_t.shape().ToString(), " and ", s1_t.shape().ToString())));
  IndexVec s0, s1;
  OP_REQUIRES_OK(ctx, array_kernels::ReadIndexVector(s0_t, "s0", &s0));
  OP_REQUIRES_OK(ctx, array_kernels::ReadIndexVector(s1_t, "s1", &s1));
  const auto bad = [&](absl::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat(
        "incompatible shapes for broadcasting: [", absl::StrJoin(s0, ","),
        "] and [", absl::StrJoin(s1, ","), "]", why));
  };
  const size_t n = std::max(s0.size(), s1.size());
  IndexVec r0, r1;
  // From the outermost axis of the broadcast shape, so both lists come
  // out ascending.
  for (size_t axis = 0; axis < n; ++axis) {
    const size_t from_end = n - axis;  // 1 for the innermost axis
    const int64_t x = from_end <= s0.size() ? s0[s0.size() - from_end] : 1;
    const int64_t y = from_end <= s1.size() ? s1[s1.size() - from_end] : 1;
    OP_REQUIRES(ctx, x >= 0 && y >= 0, bad(" (negative dimension)"));
    if (x == y) {
      if (x == 1) {
        r0.push_back(static_cast<int64_t>(axis));
        r1.push_back(static_cast<int64_t>(axis));
      }
    } else if (x == 1) {
      r0.push_back(static_cast<int64_t>(axis));
    } else if (y == 1) {
      r1.push_back(static_cast<int64_t>(axis));
    } else {
      OP_REQUIRES(ctx, false, bad(""));
    }
  }
  OutputIndexVector(ctx, 0, r0, TensorShape({static_cast<int64_t>(r0.size())}),
                    "axis");
  OutputIndexVector(ctx, 1, r1, TensorShape({static_cast<int64_t>(r1.size())}),
                    "axis");
}

}  // namespace shape_kernels
}  // namespace dflow
