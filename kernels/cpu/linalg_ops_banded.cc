// BandedTriangularSolve on the CPU (tf.linalg.banded_triangular_solve): X
// with T X = rhs (or T^T X = rhs with adjoint), T an M x M triangular
// matrix given by its K diagonals as the rows of `matrix` [..., K, M]:
//   lower: row 0 is the diagonal, row d the d-th subdiagonal, entry
//          (d, j) being T[j][j - d] (its first d entries unused);
//   upper: row K - 1 is the diagonal, row K - 1 - d the d-th
//          superdiagonal, entry (K - 1 - d, i) being T[i][i + d] (its last
//          d entries unused).
// Batch dimensions broadcast. Substitution runs row by row over at most
// K - 1 earlier unknowns, as in TensorFlow's kernel.
//
// A zero on the diagonal fails the step ("Input matrix is not
// invertible.", TensorFlow's words). TensorFlow checks only the first
// matrix of the batch and divides by zero in the others; dflow checks all.
#include <cstdint>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/cpu/linalg_ops_common.h"
#include "runtime/kernel_registry.h"

namespace dflow {
namespace {

// x (m x k, row-major) solving the banded system `band` (bands x m).
template <typename T>
void SolveBanded(const T* band, int64_t bands, int64_t m, const T* rhs,
                 int64_t k, bool lower, bool adjoint, T* x) {
  auto at = [&](int64_t row, int64_t col) { return band[row * m + col]; };
  auto x_row = [&](int64_t i) { return x + i * k; };
  std::vector<T> acc(k);
  // Unknowns solved first to last (forward) or last to first; (i, j) the
  // coefficient of unknown j in equation i, j already solved.
  const bool forward = lower != adjoint;
  for (int64_t step = 0; step < m; ++step) {
    const int64_t i = forward ? step : m - 1 - step;
    const T* b = rhs + i * k;
    for (int64_t c = 0; c < k; ++c) acc[c] = b[c];
    for (int64_t d = 1; d < bands; ++d) {
      const int64_t j = forward ? i - d : i + d;
      if (j < 0 || j >= m) break;
      T coef;
      if (lower) {
        // T[i][i-d] = at(d, i); adjoint: T^T[i][i+d] = T[i+d][i] = at(d, j).
        coef = adjoint ? at(d, j) : at(d, i);
      } else {
        // T[i][i+d] = at(K-1-d, i); adjoint: T^T[i][i-d] = at(K-1-d, j).
        coef = adjoint ? at(bands - 1 - d, j) : at(bands - 1 - d, i);
      }
      const T* xj = x_row(j);
      for (int64_t c = 0; c < k; ++c) acc[c] -= coef * xj[c];
    }
    const T diag = lower ? at(0, i) : at(bands - 1, i);
    T* xi = x_row(i);
    for (int64_t c = 0; c < k; ++c) xi[c] = acc[c] / diag;
  }
}

template <typename T>
class BandedTriangularSolveOp : public OpKernel {
 public:
  explicit BandedTriangularSolveOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("lower", &lower_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("adjoint", &adjoint_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& matrix = ctx->input(0);
    const Tensor& rhs = ctx->input(1);
    int64_t bands = 0, m = 0, rhs_rows = 0, k = 0;
    OP_REQUIRES_OK(ctx,
                   linalg::CheckMatrices(matrix, "matrix", false, &bands, &m));
    OP_REQUIRES_OK(ctx,
                   linalg::CheckMatrices(rhs, "rhs", false, &rhs_rows, &k));
    OP_REQUIRES(ctx, matrix.NumElements() > 0 && rhs.NumElements() > 0,
                absl::InvalidArgumentError(absl::StrCat(
                    "matrix ", matrix.shape().ToString(), " and rhs ",
                    rhs.shape().ToString(), " must not be empty")));
    OP_REQUIRES(ctx, bands <= m,
                absl::InvalidArgumentError(
                    absl::StrCat("Number of bands ", bands,
                                 " cannot exceed the size of the matrix ", m)));
    OP_REQUIRES(
        ctx, rhs_rows == m,
        absl::InvalidArgumentError(absl::StrCat(
            "matrix ", matrix.shape().ToString(), " is ", m, " x ", m,
            " but rhs ", rhs.shape().ToString(), " has ", rhs_rows, " rows")));
    absl::StatusOr<BCast> batches = BroadcastShapes(
        linalg::BatchShape(matrix.shape()), linalg::BatchShape(rhs.shape()));
    OP_REQUIRES_OK(ctx, batches.status());
    const T* mat = matrix.data<T>();
    const int64_t matrices = matrix.NumElements() / (bands * m);
    const int64_t diag_row = lower_ ? 0 : bands - 1;
    for (int64_t b = 0; b < matrices; ++b) {
      for (int64_t i = 0; i < m; ++i) {
        OP_REQUIRES(ctx, mat[(b * bands + diag_row) * m + i] != T(0),
                    absl::InvalidArgumentError(absl::StrCat(
                        "Input matrix is not invertible: matrix ", b,
                        " of the batch has 0 at diagonal entry ", i)));
      }
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(
        ctx, ctx->allocate_output(
                 0, linalg::WithDims(batches->output_shape, {m, k}), &out));
    const std::vector<std::pair<int64_t, int64_t>> pairs =
        linalg::BatchPairs(*batches);
    const T* r = rhs.data<T>();
    T* o = out->data<T>();
    linalg::ForEachMatrix(ctx, static_cast<int64_t>(pairs.size()),
                          bands * m * k, [&](int64_t b) {
                            SolveBanded(mat + pairs[b].first * bands * m, bands,
                                        m, r + pairs[b].second * m * k, k,
                                        lower_, adjoint_, o + b * m * k);
                            return true;
                          });
  }

 private:
  bool lower_ = true;
  bool adjoint_ = false;
};

DFLOW_REGISTER_KERNEL(KernelDefBuilder("BandedTriangularSolve")
                          .Device(kDeviceCpu)
                          .TypeConstraint<float>("T"),
                      BandedTriangularSolveOp<float>);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("BandedTriangularSolve")
                          .Device(kDeviceCpu)
                          .TypeConstraint<double>("T"),
                      BandedTriangularSolveOp<double>);

}  // namespace
}  // namespace dflow
