// MatrixDiagV3 and MatrixDiagPartV3 (graph/ops/array_ops_matrix_diag.cc) on
// the CPU (tf.eye, tf.linalg.diag, tf.linalg.diag_part), for one diagonal
// k or a band of them k = [lo, hi]; slicing_ops_matrix_diag.h says how a
// band is laid out and what `align` does.
#include "kernels/cpu/slicing_ops_matrix_diag.h"

#include <algorithm>
#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

using matrix_diag::AlignOffset;
using matrix_diag::Band;
using matrix_diag::DiagonalLength;

template <typename T>
class MatrixDiagOp : public OpKernel {
 public:
  explicit MatrixDiagOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    matrix_diag::ReadAlign(ctx, &align_);
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& diagonal = ctx->input(0);
    // MatrixDiag (V1): the main diagonal of square matrices, padded with 0.
    const bool v1 = num_inputs() == 1;
    absl::StatusOr<Band> band =
        v1 ? Band{} : matrix_diag::ReadBand(ctx->input(1));
    OP_REQUIRES_OK(ctx, band.status());
    const Band b = *band;
    const TensorShape& ds = diagonal.shape();
    // A band's diagonals are the second-to-last dimension of `diagonal`.
    const int band_rank = b.num_diags() > 1 ? 2 : 1;
    OP_REQUIRES(
        ctx, ds.rank() >= band_rank,
        absl::InvalidArgumentError(absl::StrCat(
            "diagonal must be at least ", band_rank, "-D for diag_index [",
            b.lo, ", ", b.hi, "], got shape ", ds.ToString())));
    OP_REQUIRES(ctx, band_rank == 1 || ds.dim(ds.rank() - 2) == b.num_diags(),
                absl::InvalidArgumentError(absl::StrCat(
                    "diagonal's second-to-last dimension must be the ",
                    b.num_diags(), " diagonals of diag_index [", b.lo, ", ",
                    b.hi, "], got shape ", ds.ToString())));
    const int64_t max_len = ds.dim(ds.rank() - 1);
    const int64_t min_rows = max_len - std::min<int64_t>(b.hi, 0);
    const int64_t min_cols = max_len + std::max<int64_t>(b.lo, 0);
    for (int i : {2, 3, 4}) {
      if (v1) break;
      OP_REQUIRES(ctx, ctx->input(i).NumElements() == 1,
                  absl::InvalidArgumentError(
                      absl::StrCat(i == 2   ? "num_rows"
                                   : i == 3 ? "num_cols"
                                            : "padding_value",
                                   " must be a scalar, got shape ",
                                   ctx->input(i).shape().ToString())));
    }
    int64_t rows = v1 ? -1 : *ctx->input(2).data<int32_t>();
    int64_t cols = v1 ? -1 : *ctx->input(3).data<int32_t>();
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
                    " are too small for diagonals of ", max_len,
                    " elements at diag_index [", b.lo, ", ", b.hi, "]")));
    const T padding = v1 ? T() : *ctx->input(4).data<T>();
    TensorShape shape;
    for (int d = 0; d + band_rank < ds.rank(); ++d) shape.AddDim(ds.dim(d));
    shape.AddDim(rows);
    shape.AddDim(cols);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    const int64_t per_batch = b.num_diags() * max_len;
    const int64_t batches =
        per_batch == 0 ? 0 : diagonal.NumElements() / per_batch;
    const T* in = diagonal.data<T>();
    T* o = out->data<T>();
    std::fill(o, o + out->NumElements(), padding);
    for (int64_t bi = 0; bi < batches; ++bi) {
      for (int64_t d = b.lo; d <= b.hi; ++d) {
        const int64_t len = DiagonalLength(rows, cols, d);
        const int64_t offset = AlignOffset(align_, d, len, max_len);
        const T* src = in + bi * per_batch + (b.hi - d) * max_len + offset;
        for (int64_t n = 0; n < len && n + offset < max_len; ++n) {
          const int64_t i = d >= 0 ? n : n - d;
          const int64_t j = d >= 0 ? n + d : n;
          o[(bi * rows + i) * cols + j] = src[n];
        }
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
    matrix_diag::ReadAlign(ctx, &align_);
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    // MatrixDiagPart (V1): the main diagonal.
    const bool v1 = num_inputs() == 1;
    absl::StatusOr<Band> band =
        v1 ? Band{} : matrix_diag::ReadBand(ctx->input(1));
    OP_REQUIRES_OK(ctx, band.status());
    const Band b = *band;
    const TensorShape& s = input.shape();
    OP_REQUIRES(ctx, s.rank() >= 2,
                absl::InvalidArgumentError(absl::StrCat(
                    "input must be at least 2-D (matrices), got shape ",
                    s.ToString())));
    const int64_t rows = s.dim(s.rank() - 2), cols = s.dim(s.rank() - 1);
    OP_REQUIRES_OK(ctx, matrix_diag::CheckBandInMatrix(b, rows, cols));
    const int64_t max_len = matrix_diag::MaxDiagonalLength(rows, cols, b);
    TensorShape shape;
    for (int d = 0; d + 2 < s.rank(); ++d) shape.AddDim(s.dim(d));
    if (b.num_diags() > 1) shape.AddDim(b.num_diags());
    shape.AddDim(max_len);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    OP_REQUIRES(ctx, v1 || ctx->input(2).NumElements() == 1,
                absl::InvalidArgumentError(
                    absl::StrCat("padding_value must be a scalar, got shape ",
                                 ctx->input(2).shape().ToString())));
    const T padding = v1 ? T() : *ctx->input(2).data<T>();
    const int64_t batches =
        rows * cols == 0 ? 0 : input.NumElements() / (rows * cols);
    const T* in = input.data<T>();
    T* o = out->data<T>();
    std::fill(o, o + out->NumElements(), padding);
    for (int64_t bi = 0; bi < batches; ++bi) {
      const T* m = in + bi * rows * cols;
      for (int64_t d = b.lo; d <= b.hi; ++d) {
        const int64_t len = DiagonalLength(rows, cols, d);
        T* dst = o + (bi * b.num_diags() + (b.hi - d)) * max_len +
                 AlignOffset(align_, d, len, max_len);
        for (int64_t n = 0; n < len; ++n) {
          const int64_t i = d >= 0 ? n : n - d;
          const int64_t j = d >= 0 ? n + d : n;
          dst[n] = m[i * cols + j];
        }
      }
    }
  }

 private:
  std::string align_;
};

// The V1 and V2 ops (older graphs) share the V3 kernels.
#define DFLOW_REGISTER_MATRIX_DIAG_AS(op, part_op, T)        \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder(op)                 \
                            .Device(kDeviceCpu)              \
                            .TypeConstraint<T>("T"),         \
                        MatrixDiagOp<T>);                    \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder(part_op)            \
                            .Device(kDeviceCpu)              \
                            .TypeConstraint<T>("T"),         \
                        MatrixDiagPartOp<T>)
#define DFLOW_REGISTER_MATRIX_DIAG(T)                                   \
  DFLOW_REGISTER_MATRIX_DIAG_AS("MatrixDiagV3", "MatrixDiagPartV3", T); \
  DFLOW_REGISTER_MATRIX_DIAG_AS("MatrixDiagV2", "MatrixDiagPartV2", T); \
  DFLOW_REGISTER_MATRIX_DIAG_AS("MatrixDiag", "MatrixDiagPart", T)

DFLOW_REGISTER_MATRIX_DIAG(float);
DFLOW_REGISTER_MATRIX_DIAG(double);
DFLOW_REGISTER_MATRIX_DIAG(int32_t);
DFLOW_REGISTER_MATRIX_DIAG(int64_t);
DFLOW_REGISTER_MATRIX_DIAG(bool);
DFLOW_REGISTER_MATRIX_DIAG(complex64);
DFLOW_REGISTER_MATRIX_DIAG(complex128);

#undef DFLOW_REGISTER_MATRIX_DIAG

}  // namespace
}  // namespace dflow
