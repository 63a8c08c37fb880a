// MatrixSetDiagV3 on the CPU (tf.linalg.set_diag, and the gradients of
// tf.linalg.diag_part): a copy of `input` whose diagonal k, or band of
// diagonals k = [lo, hi], is replaced by `diagonal`
// (slicing_ops_matrix_diag.h says how a band is laid out).
#include <algorithm>
#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
#include "graph/types.h"
#include "kernels/cpu/slicing_ops_matrix_diag.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

using matrix_diag::Band;

template <typename T>
class MatrixSetDiagOp : public OpKernel {
 public:
  explicit MatrixSetDiagOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    matrix_diag::ReadAlign(ctx, &align_);
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& diagonal = ctx->input(1);
    // MatrixSetDiag (V1): the main diagonal.
    absl::StatusOr<Band> band = num_inputs() == 2
                                    ? Band{}
                                    : matrix_diag::ReadBand(ctx->input(2));
    OP_REQUIRES_OK(ctx, band.status());
    const Band b = *band;
    const TensorShape& s = input.shape();
    const TensorShape& ds = diagonal.shape();
    OP_REQUIRES(ctx, s.rank() >= 2,
                absl::InvalidArgumentError(absl::StrCat(
                    "input must be at least 2-D (matrices), got shape ",
                    s.ToString())));
    const int64_t rows = s.dim(s.rank() - 2), cols = s.dim(s.rank() - 1);
    OP_REQUIRES_OK(ctx, matrix_diag::CheckBandInMatrix(b, rows, cols));
    const int64_t max_len = matrix_diag::MaxDiagonalLength(rows, cols, b);
    // The shape `diagonal` must have: input's batch dimensions, then
    // [num_diags,] max_len.
    TensorShape want;
    for (int d = 0; d + 2 < s.rank(); ++d) want.AddDim(s.dim(d));
    if (b.num_diags() > 1) want.AddDim(b.num_diags());
    want.AddDim(max_len);
    OP_REQUIRES(ctx, ds == want,
                absl::InvalidArgumentError(absl::StrCat(
                    "diagonal must have shape ", want.ToString(),
                    " (input's batch dimensions, then the diagonals of "
                    "diag_index [",
                    b.lo, ", ", b.hi, "] in ", rows, "x", cols,
                    " matrices), got ", ds.ToString())));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, s, &out));
    const int64_t n_all = input.NumElements();
    if (n_all == 0) return;
    const T* in = input.data<T>();
    const T* dg = diagonal.data<T>();
    T* o = out->data<T>();
    std::copy(in, in + n_all, o);
    const int64_t batches = n_all / (rows * cols);
    for (int64_t bi = 0; bi < batches; ++bi) {
      T* m = o + bi * rows * cols;
      for (int64_t d = b.lo; d <= b.hi; ++d) {
        const int64_t len = matrix_diag::DiagonalLength(rows, cols, d);
        const T* src = dg + (bi * b.num_diags() + (b.hi - d)) * max_len +
                       matrix_diag::AlignOffset(align_, d, len, max_len);
        for (int64_t n = 0; n < len; ++n) {
          const int64_t i = d >= 0 ? n : n - d;
          const int64_t j = d >= 0 ? n + d : n;
          m[i * cols + j] = src[n];
        }
      }
    }
  }

 private:
  std::string align_;
};

// The V1 and V2 ops (older graphs) share the V3 kernel.
#define DFLOW_REGISTER_MATRIX_SET_DIAG_AS(op, T)            \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder(op)                \
                            .Device(kDeviceCpu)             \
                            .TypeConstraint<T>("T"),        \
                        MatrixSetDiagOp<T>)
#define DFLOW_REGISTER_MATRIX_SET_DIAG(T)                    \
  DFLOW_REGISTER_MATRIX_SET_DIAG_AS("MatrixSetDiagV3", T);   \
  DFLOW_REGISTER_MATRIX_SET_DIAG_AS("MatrixSetDiagV2", T);   \
  DFLOW_REGISTER_MATRIX_SET_DIAG_AS("MatrixSetDiag", T)

DFLOW_REGISTER_MATRIX_SET_DIAG(float);
DFLOW_REGISTER_MATRIX_SET_DIAG(double);
DFLOW_REGISTER_MATRIX_SET_DIAG(int32_t);
DFLOW_REGISTER_MATRIX_SET_DIAG(int64_t);
DFLOW_REGISTER_MATRIX_SET_DIAG(bool);
DFLOW_REGISTER_MATRIX_SET_DIAG(complex64);
DFLOW_REGISTER_MATRIX_SET_DIAG(complex128);

#undef DFLOW_REGISTER_MATRIX_SET_DIAG

}  // namespace
}  // namespace dflow
