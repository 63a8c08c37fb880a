// MatrixSolveLs on the CPU (tf.linalg.lstsq): X minimizing
// ||A X - B||^2 + l2 ||X||^2 for each A [..., M, N] and B [..., M, K],
// computed as TensorFlow's kernel does with Eigen:
//   fast, M >= N: the normal equations (A^T A + l2 I) X = A^T B by a
//     Cholesky factorization (LLT) of the Gramian's lower triangle;
//   fast, M < N: the minimum-norm solution X = A^T Z with
//     (A A^T + l2 I) Z = B;
//   not fast: Eigen's complete orthogonal decomposition (minimum norm
//     also for rank-deficient A; l2 is not used, as in TensorFlow).
// A Gramian that is not positive definite (A rank deficient, no l2) fails
// the step with TensorFlow's advice.
#include <algorithm>
#include <cstdint>

#include "Eigen/Cholesky"
#include "Eigen/QR"
#include "absl/strings/str_cat.h"
#include "kernels/cpu/linalg_ops_common.h"
#include "runtime/kernel_registry.h"

namespace dflow {
namespace {

using linalg::ConstMatrixMap;
using linalg::Matrix;
using linalg::MatrixMap;

template <typename T>
class MatrixSolveLsOp : public OpKernel {
 public:
  explicit MatrixSolveLsOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("fast", &fast_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& matrix = ctx->input(0);
    const Tensor& rhs = ctx->input(1);
    const Tensor& l2_t = ctx->input(2);
    int64_t m = 0, n = 0, rhs_rows = 0, k = 0;
    OP_REQUIRES_OK(ctx, linalg::CheckMatrices(matrix, "matrix", false, &m, &n));
    OP_REQUIRES_OK(ctx,
                   linalg::CheckMatrices(rhs, "rhs", false, &rhs_rows, &k));
    const TensorShape batch = linalg::BatchShape(matrix.shape());
    OP_REQUIRES(
        ctx, rhs_rows == m && batch == linalg::BatchShape(rhs.shape()),
        absl::InvalidArgumentError(absl::StrCat(
            "Input matrix and rhs are incompatible: matrix ",
            matrix.shape().ToString(), " and rhs ", rhs.shape().ToString(),
            " need one batch shape and rhs as many rows as matrix")));
    OP_REQUIRES(ctx, l2_t.shape().rank() == 0,
                absl::InvalidArgumentError(
                    absl::StrCat("l2_regularizer must be scalar, got shape ",
                                 l2_t.shape().ToString())));
    const double l2 = *l2_t.data<double>();
    OP_REQUIRES(ctx, l2 >= 0,
                absl::InvalidArgumentError(
                    absl::StrCat("l2_regularizer must be >= 0, got ", l2)));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(
        ctx, ctx->allocate_output(0, linalg::WithDims(batch, {n, k}), &out));
    if (out->NumElements() == 0) return;
    T* o = out->data<T>();
    if (m == 0) {
      // No equations: the minimum-norm solution is 0.
      MatrixMap<T>(o, out->NumElements(), 1).setZero();
      return;
    }
    const T* a_data = matrix.data<T>();
    const T* b_data = rhs.data<T>();
    const int64_t small = std::min(m, n);
    const int64_t failed = linalg::ForEachMatrix(
        ctx, batch.num_elements(), std::max(m, n) * small * (small + k) + 1,
        [&](int64_t b) {
          ConstMatrixMap<T> a(a_data + b * m * n, m, n);
          ConstMatrixMap<T> rhs_b(b_data + b * m * k, m, k);
          MatrixMap<T> x(o + b * n * k, n, k);
          if (!fast_) {
            x = a.completeOrthogonalDecomposition().solve(rhs_b);
            return true;
          }
          // Only the Gramian's lower triangle is formed and read.
          const int64_t side = m >= n ? n : m;
          Matrix<T> gramian(side, side);
          if (m >= n) {
            gramian.template triangularView<Eigen::Lower>() = a.adjoint() * a;
          } else {
            gramian.template triangularView<Eigen::Lower>() = a * a.adjoint();
          }
          if (l2 > 0) gramian.diagonal().array() += static_cast<T>(l2);
          const Eigen::LLT<Eigen::Ref<Matrix<T>>, Eigen::Lower> llt(gramian);
          if (llt.info() != Eigen::Success) return false;
          if (m >= n) {
            x.noalias() = a.adjoint() * rhs_b;
            llt.solveInPlace(x);
          } else {
            x.noalias() = a.adjoint() * llt.solve(rhs_b);
          }
          return true;
        });
    OP_REQUIRES(ctx, failed < 0,
                absl::InvalidArgumentError(absl::StrCat(
                    "Input matrix was rank deficient or ill-conditioned "
                    "(matrix ",
                    failed,
                    " of the batch). Try setting fast=False or provide a "
                    "larger l2_regularizer > 0.")));
  }

 private:
  bool fast_ = true;
};

DFLOW_REGISTER_KERNEL(KernelDefBuilder("MatrixSolveLs")
                          .Device(kDeviceCpu)
                          .TypeConstraint<float>("T"),
                      MatrixSolveLsOp<float>);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("MatrixSolveLs")
                          .Device(kDeviceCpu)
                          .TypeConstraint<double>("T"),
                      MatrixSolveLsOp<double>);

}  // namespace
}  // namespace dflow
