// MatrixDiagV3 and MatrixDiagPartV3 (graph/ops/array_ops_matrix_diag.cc) on
// the CPU, for one diagonal k (tf.eye, tf.linalg.diag, tf.linalg.diag_part):
// element n of the diagonal is matrix element (n, n + k) for k >= 0 and
// (n - k, n) below. A band of diagonals (k a pair lo < hi) is refused with
// an error; the `align` attr only matters for bands, or for a diagonal
// longer than its matrix allows (then it says which end is padding).
#include <algorithm>
#include <cstdint>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

// The one diagonal `k` input names, or an error for a band.
absl::StatusOr<int64_t> OneDiagonal(const Tensor& k) {
  if (k.NumElements() == 1) return *k.data<int32_t>();
  if (k.NumElements() == 2 && k.data<int32_t>()[0] == k.data<int32_t>()[1]) {
    return k.data<int32_t>()[0];
  }
  return absl::UnimplementedError(absl::StrCat(
      "k must name one diagonal (a scalar, or a pair lo == hi); a band of ",
      k.NumElements(), " values is not supported yet"));
}

// Whether a diagonal shorter than max_len sits at the end of its row of
// `diagonal` (right-aligned) under `align`.
bool RightAligned(const std::string& align, int64_t k) {
  return k >= 0 ? absl::StartsWith(align, "RIGHT")
                : absl::EndsWith(align, "RIGHT");
}

template <typename T>
class MatrixDiagOp : public OpKernel {
 public:
  explicit MatrixDiagOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("align", &align_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& diagonal = ctx->input(0);
    absl::StatusOr<int64_t> k = OneDiagonal(ctx->input(1));
    OP_REQUIRES_OK(ctx, k.status());
    OP_REQUIRES(ctx, diagonal.shape().rank() >= 1,
                absl::InvalidArgumentError("diagonal must be at least 1-D"));
    const int64_t len = diagonal.shape().dim(diagonal.shape().rank() - 1);
    const int64_t min_rows = len + std::max<int64_t>(0, -*k);
    const int64_t min_cols = len + std::max<int64_t>(0, *k);
    int64_t rows = *ctx->input(2).data<int32_t>();
    int64_t cols = *ctx->input(3).data<int32_t>();
    // Neither given: square, as TensorFlow makes them; one given: the
    // other at its smallest.
    if (rows < 0 && cols < 0) {
      rows = cols = std::max(min_rows, min_cols);
    } else if (rows < 0) {
      rows = min_rows;
    } else if (cols < 0) {
      cols = min_cols;
    }
    OP_REQUIRES(ctx, rows >= min_rows || cols >= min_cols,
                absl::InvalidArgumentError(absl::StrCat(
                    "num_rows ", rows, " and num_cols ", cols,
                    " are too small for a diagonal of ", len,
                    " elements at k = ", *k)));
    const T padding = *ctx->input(4).data<T>();
    TensorShape shape;
    for (int d = 0; d + 1 < diagonal.shape().rank(); ++d) {
      shape.AddDim(diagonal.shape().dim(d));
    }
    shape.AddDim(rows);
    shape.AddDim(cols);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    const int64_t batches = len == 0 ? 0 : diagonal.NumElements() / len;
    const int64_t diag_len = std::max<int64_t>(
        0, std::min(rows + std::min<int64_t>(0, *k),
                    cols - std::max<int64_t>(0, *k)));
    const int64_t offset = RightAligned(align_, *k) ? len - diag_len : 0;
    const T* in = diagonal.data<T>();
    T* o = out->data<T>();
    std::fill(o, o + out->NumElements(), padding);
    for (int64_t b = 0; b < batches; ++b) {
      for (int64_t n = 0; n < diag_len && n + offset < len; ++n) {
        const int64_t i = *k >= 0 ? n : n - *k;
        const int64_t j = *k >= 0 ? n + *k : n;
        o[(b * rows + i) * cols + j] = in[b * len + n + offset];
      }
    }
  }

 private:
  std::string align_;
};

template <typename T>
class MatrixDiagPartOp : public OpKernel {
 public:
  explicit MatrixDiagPartOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("align", &align_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    absl::StatusOr<int64_t> k = OneDiagonal(ctx->input(1));
    OP_REQUIRES_OK(ctx, k.status());
    const TensorShape& s = input.shape();
    OP_REQUIRES(ctx, s.rank() >= 2,
                absl::InvalidArgumentError(absl::StrCat(
                    "input must be at least 2-D (matrices), got shape ",
                    s.ToString())));
    const int64_t rows = s.dim(s.rank() - 2), cols = s.dim(s.rank() - 1);
    OP_REQUIRES(ctx, *k > -rows && *k < cols,
                absl::InvalidArgumentError(absl::StrCat(
                    "k = ", *k, " is outside the ", rows, "x", cols,
                    " matrices' diagonals (-", rows, ", ", cols, ")")));
    const int64_t len = std::min(rows + std::min<int64_t>(0, *k),
                                 cols - std::max<int64_t>(0, *k));
    TensorShape shape;
    for (int d = 0; d + 2 < s.rank(); ++d) shape.AddDim(s.dim(d));
    shape.AddDim(len);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    const int64_t batches = rows * cols == 0 ? 0 : input.NumElements() /
                                                       (rows * cols);
    const T* in = input.data<T>();
    T* o = out->data<T>();
    for (int64_t b = 0; b < batches; ++b) {
      for (int64_t n = 0; n < len; ++n) {
        const int64_t i = *k >= 0 ? n : n - *k;
        const int64_t j = *k >= 0 ? n + *k : n;
        o[b * len + n] = in[(b * rows + i) * cols + j];
      }
    }
  }

 private:
  std::string align_;
};

#define DFLOW_REGISTER_MATRIX_DIAG(T)                                        \
  DFLOW_REGISTER_KERNEL(                                                     \
      KernelDefBuilder("MatrixDiagV3").Device(kDeviceCpu).TypeConstraint<T>( \
          "T"),                                                              \
      MatrixDiagOp<T>);                                                      \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("MatrixDiagPartV3")                 \
                            .Device(kDeviceCpu)                              \
                            .TypeConstraint<T>("T"),                         \
                        MatrixDiagPartOp<T>)

DFLOW_REGISTER_MATRIX_DIAG(float);
DFLOW_REGISTER_MATRIX_DIAG(double);
DFLOW_REGISTER_MATRIX_DIAG(int32_t);
DFLOW_REGISTER_MATRIX_DIAG(int64_t);
DFLOW_REGISTER_MATRIX_DIAG(bool);

#undef DFLOW_REGISTER_MATRIX_DIAG

}  // namespace
}  // namespace dflow
