// MatrixBandPart on the CPU (tf.linalg.band_part): each innermost matrix
// keeps the elements within num_lower diagonals below and num_upper above
// the main one (a negative count keeps that whole triangle) and zeroes the
// rest. Each row keeps one contiguous run of columns, so a row is a fill,
// a copy and a fill.
#include <algorithm>
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "graph/types.h"
#include "kernels/cpu/kernel_util.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

// The scalar count `name` (int32 or int64), checked against `limit`.
absl::StatusOr<int64_t> ReadCount(const Tensor& t, const char* name,
                                  const char* what, int64_t limit) {
  if (t.shape().rank() != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        name, " must be scalar, got shape ", t.shape().ToString()));
  }
  const int64_t v =
      t.dtype() == DT_INT32 ? *t.data<int32_t>() : *t.data<int64_t>();
  if (v > limit) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, " must be negative or less or equal to number of ",
                     what, " (", limit, ") got: ", v));
  }
  return v;
}

template <typename T>
class MatrixBandPartOp : public OpKernel {
 public:
  explicit MatrixBandPartOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const TensorShape& s = input.shape();
    OP_REQUIRES(
        ctx, s.rank() >= 2,
        absl::InvalidArgumentError(absl::StrCat(
            "input must be at least 2-dim, received shape: ", s.ToString())));
    const int64_t rows = s.dim(s.rank() - 2), cols = s.dim(s.rank() - 1);
    absl::StatusOr<int64_t> lower =
        ReadCount(ctx->input(1), "num_lower", "rows", rows);
    OP_REQUIRES_OK(ctx, lower.status());
    absl::StatusOr<int64_t> upper =
        ReadCount(ctx->input(2), "num_upper", "columns", cols);
    OP_REQUIRES_OK(ctx, upper.status());
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, s, &out));
    if (input.NumElements() == 0) return;
    const int64_t num_lower = *lower < 0 ? rows : *lower;
    const int64_t num_upper = *upper < 0 ? cols : *upper;
    const T* in = input.data<T>();
    T* o = out->data<T>();
    const int64_t total_rows = input.NumElements() / cols;
    ParallelForShards(ctx, total_rows, cols, [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        const int64_t i = r % rows;
        const int64_t begin = std::clamp<int64_t>(i - num_lower, 0, cols);
        const int64_t end = std::clamp<int64_t>(i + num_upper + 1, 0, cols);
        const T* src = in + r * cols;
        T* dst = o + r * cols;
        std::fill(dst, dst + begin, T());
        std::copy(src + begin, src + std::max(begin, end), dst + begin);
        std::fill(dst + std::max(begin, end), dst + cols, T());
      }
    });
  }
};

#define DFLOW_REGISTER_MATRIX_BAND_PART(T)                 \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("MatrixBandPart") \
                            .Device(kDeviceCpu)            \
                            .TypeConstraint<T>("T"),       \
                        MatrixBandPartOp<T>)

DFLOW_REGISTER_MATRIX_BAND_PART(float);
DFLOW_REGISTER_MATRIX_BAND_PART(double);
DFLOW_REGISTER_MATRIX_BAND_PART(float16);
DFLOW_REGISTER_MATRIX_BAND_PART(bfloat16);
DFLOW_REGISTER_MATRIX_BAND_PART(int32_t);
DFLOW_REGISTER_MATRIX_BAND_PART(int64_t);
DFLOW_REGISTER_MATRIX_BAND_PART(bool);
DFLOW_REGISTER_MATRIX_BAND_PART(complex64);
DFLOW_REGISTER_MATRIX_BAND_PART(complex128);

#undef DFLOW_REGISTER_MATRIX_BAND_PART

}  // namespace
}  // namespace dflow
