#include "kernels/cpu/kernel_util_split.h"

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "kernels/cpu/kernel_util_array.h"

namespace dflow {
namespace array_kernels {
namespace {

// Fills the piece shapes from plan->sizes; passes the input through when
// there is one piece of the input's own shape.
void FinishPlan(OpKernelContext* ctx, bool drop_axis, SplitPlan* plan) {
  const TensorShape& shape = plan->input.shape();
  for (int64_t size : plan->sizes) {
    TensorShape piece = shape;
    if (drop_axis) {
      piece.RemoveDim(plan->axis);
    } else {
      piece.set_dim(plan->axis, size);
    }
    plan->piece_shapes.push_back(std::move(piece));
  }
  if (!drop_axis && plan->sizes.size() == 1) {
    ctx->set_output(0, plan->input);
    plan->done = true;
  }
}

absl::Status ReadSplitAxis(const Tensor& split_dim, SplitPlan* plan) {
  int64_t axis_value = 0;
  absl::Status s = ReadIndexScalar(split_dim, "split_dim", &axis_value);
  if (!s.ok()) return s;
  const TensorShape& shape = plan->input.shape();
  return CanonicalAxis(axis_value, shape.rank(), shape, "split_dim",
                       &plan->axis);
}

}  // namespace

absl::Status PrepareSplit(OpKernelContext* ctx, SplitPlan* plan) {
  plan->input = ctx->input(1);
  absl::Status s = ReadSplitAxis(ctx->input(0), plan);
  if (!s.ok()) return s;
  const TensorShape& shape = plan->input.shape();
  const int n = ctx->num_outputs();
  const int64_t dim = shape.dim(plan->axis);
  if (dim % n != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("num_split ", n, " does not divide dimension ", plan->axis,
                     " of shape ", shape.ToString(), " (size ", dim,
                     "); Split needs equal pieces (SplitV takes sizes)"));
  }
  plan->sizes.assign(n, dim / n);
  FinishPlan(ctx, /*drop_axis=*/false, plan);
  return absl::OkStatus();
}

absl::Status PrepareSplitV(OpKernelContext* ctx, SplitPlan* plan) {
  plan->input = ctx->input(0);
  absl::Status s = ReadSplitAxis(ctx->input(2), plan);
  if (!s.ok()) return s;
  const Tensor& sizes_t = ctx->input(1);
  if (sizes_t.shape().rank() != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("size_splits must be a vector, but has shape ",
                     sizes_t.shape().ToString()));
  }
  IndexVec& sizes = plan->sizes;
  s = ReadIndexVector(sizes_t, "size_splits", &sizes);
  if (!s.ok()) return s;
  const TensorShape& shape = plan->input.shape();
  const int n = ctx->num_outputs();
  const int64_t dim = shape.dim(plan->axis);
  const auto error = [&](const std::string& what) {
    return absl::InvalidArgumentError(
        absl::StrCat("size_splits [", absl::StrJoin(sizes, ","),
                     "] for dimension ", plan->axis, " of shape ",
                     shape.ToString(), " (size ", dim, "): ", what));
  };
  if (static_cast<int>(sizes.size()) != n) {
    return error(absl::StrCat("there must be num_split = ", n, " sizes"));
  }
  int unknown = -1;
  int64_t known_sum = 0;
  for (int j = 0; j < n; ++j) {
    if (sizes[j] == -1) {
      if (unknown != -1) return error("only one size may be -1");
      unknown = j;
      continue;
    }
    if (sizes[j] < 0) return error("sizes must be >= 0 or -1");
    if (__builtin_add_overflow(known_sum, sizes[j], &known_sum) ||
        known_sum > dim) {
      return error(absl::StrCat("the sizes add up to more than ", dim));
    }
  }
  if (unknown >= 0) {
    sizes[unknown] = dim - known_sum;
  } else if (known_sum != dim) {
    return error(
        absl::StrCat("the sizes add up to ", known_sum, ", not ", dim));
  }
  FinishPlan(ctx, /*drop_axis=*/false, plan);
  return absl::OkStatus();
}

absl::Status PrepareUnpack(OpKernelContext* ctx, int64_t axis_attr,
                           SplitPlan* plan) {
  plan->input = ctx->input(0);
  const TensorShape& shape = plan->input.shape();
  absl::Status s =
      CanonicalAxis(axis_attr, shape.rank(), shape, "axis", &plan->axis);
  if (!s.ok()) return s;
  const int n = ctx->num_outputs();
  if (shape.dim(plan->axis) != n) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot unpack ", n, " tensors from dimension ",
                     plan->axis, " of shape ", shape.ToString(), " (size ",
                     shape.dim(plan->axis), "); attr num must equal it"));
  }
  plan->sizes.assign(n, 1);
  FinishPlan(ctx, /*drop_axis=*/true, plan);
  return absl::OkStatus();
}

}  // namespace array_kernels
}  // namespace dflow
