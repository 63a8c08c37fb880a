#include "kernels/cpu/kernel_util_concat.h"

#include <cstdint>
#include <limits>
#include <utility>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "kernels/cpu/kernel_util_array.h"

namespace dflow {
namespace array_kernels {

bool SameExceptAxis(const TensorShape& a, const TensorShape& b, int axis) {
  if (a.rank() != b.rank()) return false;
  for (int d = 0; d < a.rank(); ++d) {
    if (d != axis && a.dim(d) != b.dim(d)) return false;
  }
  return true;
}

absl::Status PrepareConcatV2(OpKernelContext* ctx, JoinPlan* plan) {
  const int n = ctx->num_inputs() - 1;
  auto& values = plan->values;
  for (int i = 0; i < n; ++i) values.push_back(ctx->input(i));
  const TensorShape& first = values[0].shape();
  const int rank = first.rank();
  if (rank == 0) {
    return absl::InvalidArgumentError(
        "cannot concatenate scalars (input 0 has shape []); use Pack to stack "
        "them into a vector");
  }
  int64_t axis_value = 0;
  absl::Status s = ReadIndexScalar(ctx->input(n), "axis", &axis_value);
  if (!s.ok()) return s;
  int axis = 0;
  s = CanonicalAxis(axis_value, rank, first, "axis", &axis);
  if (!s.ok()) return s;
  TensorShape out_shape = first;
  int64_t axis_size = 0;
  int nonempty = 0, last_nonempty = 0;
  for (int i = 0; i < n; ++i) {
    const TensorShape& shape = values[i].shape();
    if (!SameExceptAxis(first, shape, axis)) {
      return absl::InvalidArgumentError(
          absl::StrCat("input ", i, " has shape ", shape.ToString(),
                       " but input 0 has shape ", first.ToString(),
                       "; ConcatV2 inputs must match in every dimension but ",
                       axis, " (the concat axis)"));
    }
    axis_size += shape.dim(axis);
    if (values[i].NumElements() > 0) {
      ++nonempty;
      last_nonempty = i;
    }
  }
  out_shape.set_dim(axis, axis_size);
  if (nonempty == 1 && values[last_nonempty].shape() == out_shape) {
    // Every other input is empty: the result is that input, uncopied.
    ctx->set_output(0, values[last_nonempty]);
    return absl::OkStatus();
  }
  Tensor* out = nullptr;
  s = ctx->allocate_output(0, out_shape, &out);
  if (!s.ok() || out->NumElements() == 0) return s;
  plan->rows = DimProduct(first, 0, axis);
  for (int i = 0; i < n; ++i) {
    plan->chunks.push_back(DimProduct(values[i].shape(), axis, rank));
  }
  plan->out = out;
  return absl::OkStatus();
}

absl::Status PreparePack(OpKernelContext* ctx, int64_t axis_attr,
                         JoinPlan* plan) {
  const int n = ctx->num_inputs();
  auto& values = plan->values;
  for (int i = 0; i < n; ++i) values.push_back(ctx->input(i));
  const TensorShape& first = values[0].shape();
  const int rank = first.rank();
  if (axis_attr < -(rank + 1) || axis_attr > rank) {
    return absl::InvalidArgumentError(absl::StrCat(
        "axis ", axis_attr, " is out of range for stacking tensors of shape ",
        first.ToString(), ": it must be in [", -(rank + 1), ", ", rank, "]"));
  }
  const int axis =
      static_cast<int>(axis_attr < 0 ? axis_attr + rank + 1 : axis_attr);
  for (int i = 1; i < n; ++i) {
    if (values[i].shape() != first) {
      return absl::InvalidArgumentError(
          absl::StrCat("input ", i, " has shape ", values[i].shape().ToString(),
                       " but input 0 has shape ", first.ToString(),
                       "; Pack inputs must all have the same shape"));
    }
  }
  TensorShape out_shape = first;
  out_shape.InsertDim(axis, n);
  if (n == 1) {
    absl::StatusOr<Tensor> view = values[0].Reshaped(out_shape);
    if (!view.ok()) return view.status();
    ctx->set_output(0, *std::move(view));
    return absl::OkStatus();
  }
  Tensor* out = nullptr;
  absl::Status s = ctx->allocate_output(0, out_shape, &out);
  if (!s.ok() || out->NumElements() == 0) return s;
  plan->rows = DimProduct(first, 0, axis);
  plan->chunks.assign(n, DimProduct(first, axis, rank));
  plan->out = out;
  return absl::OkStatus();
}

void ConcatOffsetKernel::Compute(OpKernelContext* ctx) {
  const int n = ctx->num_inputs() - 1;
  int64_t axis_value = 0;
  OP_REQUIRES_OK(ctx,
                 ReadIndexScalar(ctx->input(0), "concat_dim", &axis_value));
  absl::InlinedVector<IndexVec, 8> shapes(n);
  for (int i = 0; i < n; ++i) {
    const Tensor& t = ctx->input(i + 1);
    OP_REQUIRES(ctx, t.shape().rank() == 1,
                absl::InvalidArgumentError(absl::StrCat(
                    "shape[", i, "] must be a vector, but has shape ",
                    t.shape().ToString())));
    OP_REQUIRES_OK(
        ctx, ReadIndexVector(t, absl::StrCat("shape[", i, "]"), &shapes[i]));
  }
  const IndexVec& first = shapes[0];
  const int rank = static_cast<int>(first.size());
  const TensorShape first_shape(absl::MakeConstSpan(first));
  int axis = 0;
  OP_REQUIRES_OK(
      ctx, CanonicalAxis(axis_value, rank, first_shape, "concat_dim", &axis));
  int64_t offset = 0;
  for (int i = 0; i < n; ++i) {
    const IndexVec& s = shapes[i];
    OP_REQUIRES(
        ctx,
        SameExceptAxis(first_shape, TensorShape(absl::MakeConstSpan(s)), axis),
        absl::InvalidArgumentError(absl::StrCat(
            "shape[", i, "] = [", absl::StrJoin(s, ","), "] and shape[0] = [",
            absl::StrJoin(first, ","), "] must match in every dimension but ",
            axis, " (the concat axis)")));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(i, TensorShape({rank}), &out));
    for (int d = 0; d < rank; ++d) {
      const int64_t v = d == axis ? offset : 0;
      if (out->dtype() == DT_INT64) {
        out->data<int64_t>()[d] = v;
      } else {
        OP_REQUIRES(
            ctx, v <= std::numeric_limits<int32_t>::max(),
            absl::InvalidArgumentError(absl::StrCat(
                "offset ", v, " does not fit in int32; use int64 shapes")));
        out->data<int32_t>()[d] = static_cast<int32_t>(v);
      }
    }
    offset += s[axis];
  }
}

}  // namespace array_kernels
}  // namespace dflow
