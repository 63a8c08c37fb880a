#include "kernels/cpu/kernel_util_concat.h"

#include <cstdint>
#include <limits>

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
