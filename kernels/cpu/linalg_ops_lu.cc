// The CPU kernels built on an LU decomposition with partial pivoting
// (Eigen's PartialPivLU, as TensorFlow's): MatrixInverse, MatrixSolve,
// MatrixDeterminant and LogMatrixDeterminant, on batches of square
// matrices.
//
// A zero pivot means the matrix is singular: MatrixInverse and MatrixSolve
// fail the step then, with TensorFlow's words and the batch index; the
// determinants are 0 (sign 0, log|det| -inf). The determinant is computed
// from log|det| and the sign, as TensorFlow does, so large matrices do not
// overflow on the way.
#include <cmath>
#include <cstdint>
#include <limits>

#include "absl/strings/str_cat.h"
#include "kernels/cpu/linalg_ops_common.h"
#include "runtime/kernel_registry.h"

namespace dflow {
namespace {

using linalg::ConstMatrixMap;
using linalg::Matrix;
using linalg::MatrixMap;

// LU of `a` (of its adjoint with `adjoint`); false when a pivot is zero.
template <typename T>
bool Factor(const ConstMatrixMap<T>& a, bool adjoint,
            Eigen::PartialPivLU<Matrix<T>>* lu) {
  if (adjoint) {
    lu->compute(a.adjoint());
  } else {
    lu->compute(a);
  }
  return a.rows() == 0 ||
         lu->matrixLU().diagonal().cwiseAbs().minCoeff() > T(0);
}

template <typename T>
class MatrixInverseOp : public OpKernel {
 public:
  explicit MatrixInverseOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("adjoint", &adjoint_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    int64_t n = 0, cols = 0;
    OP_REQUIRES_OK(ctx, linalg::CheckMatrices(input, "input", true, &n, &cols));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &out));
    if (input.NumElements() == 0) return;
    const T* in = input.data<T>();
    T* o = out->data<T>();
    const int64_t failed = linalg::ForEachMatrix(
        ctx, input.NumElements() / (n * n), linalg::CubicCost(n),
        [&](int64_t b) {
          Eigen::PartialPivLU<Matrix<T>> lu(n);
          if (!Factor(ConstMatrixMap<T>(in + b * n * n, n, n), adjoint_, &lu)) {
            return false;
          }
          MatrixMap<T>(o + b * n * n, n, n) = lu.inverse();
          return true;
        });
    OP_REQUIRES(ctx, failed < 0,
                absl::InvalidArgumentError(
                    absl::StrCat("Input is not invertible: matrix ", failed,
                                 " of the batch is singular (a zero pivot)")));
  }

 private:
  bool adjoint_ = false;
};

template <typename T>
class MatrixSolveOp : public OpKernel {
 public:
  explicit MatrixSolveOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("adjoint", &adjoint_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& matrix = ctx->input(0);
    const Tensor& rhs = ctx->input(1);
    int64_t n = 0, cols = 0, rhs_rows = 0, k = 0;
    OP_REQUIRES_OK(ctx,
                   linalg::CheckMatrices(matrix, "matrix", true, &n, &cols));
    OP_REQUIRES_OK(ctx,
                   linalg::CheckMatrices(rhs, "rhs", false, &rhs_rows, &k));
    OP_REQUIRES(
        ctx,
        rhs_rows == n && linalg::BatchShape(matrix.shape()) ==
                             linalg::BatchShape(rhs.shape()),
        absl::InvalidArgumentError(absl::StrCat(
            "Input matrix and rhs are incompatible: matrix ",
            matrix.shape().ToString(), " and rhs ", rhs.shape().ToString(),
            " need one batch shape and rhs as many rows as matrix")));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, rhs.shape(), &out));
    if (rhs.NumElements() == 0) return;
    const T* m = matrix.data<T>();
    const T* r = rhs.data<T>();
    T* o = out->data<T>();
    const int64_t failed = linalg::ForEachMatrix(
        ctx, rhs.NumElements() / (n * k), linalg::CubicCost(n) + n * n * k,
        [&](int64_t b) {
          Eigen::PartialPivLU<Matrix<T>> lu(n);
          if (!Factor(ConstMatrixMap<T>(m + b * n * n, n, n), adjoint_, &lu)) {
            return false;
          }
          MatrixMap<T>(o + b * n * k, n, k) =
              lu.solve(ConstMatrixMap<T>(r + b * n * k, n, k));
          return true;
        });
    OP_REQUIRES(ctx, failed < 0,
                absl::InvalidArgumentError(absl::StrCat(
                    "Input matrix is not invertible: matrix ", failed,
                    " of the batch is singular (a zero pivot)")));
  }

 private:
  bool adjoint_ = false;
};

// sign and log|det| of `a` from its LU: det = sign(P) * prod(diag(U)).
template <typename T>
void SignAndLogAbsDet(const ConstMatrixMap<T>& a, T* sign, T* log_abs_det) {
  *sign = 1;
  *log_abs_det = 0;
  if (a.rows() > 0) {
    Eigen::PartialPivLU<Matrix<T>> lu(a);
    *sign = static_cast<T>(lu.permutationP().determinant());
    for (int64_t i = 0; i < a.rows(); ++i) {
      const T u = lu.matrixLU()(i, i);
      *log_abs_det += std::log(std::abs(u));
      *sign *= u > 0 ? T(1) : u < 0 ? T(-1) : T(0);
    }
  }
  if (!std::isfinite(*log_abs_det)) {
    // A zero pivot (or an overflow): det 0 and log|det| -inf, or +inf.
    *sign = 0;
    *log_abs_det = *log_abs_det > 0 ? std::numeric_limits<T>::infinity()
                                    : -std::numeric_limits<T>::infinity();
  }
}

// MatrixDeterminant (kLog false): det; LogMatrixDeterminant: sign and
// log|det|.
template <typename T, bool kLog>
class DeterminantOp : public OpKernel {
 public:
  explicit DeterminantOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    int64_t n = 0, cols = 0;
    OP_REQUIRES_OK(ctx, linalg::CheckMatrices(input, "input", true, &n, &cols));
    const TensorShape batch = linalg::BatchShape(input.shape());
    Tensor *first = nullptr, *second = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, batch, &first));
    if (kLog) OP_REQUIRES_OK(ctx, ctx->allocate_output(1, batch, &second));
    const T* in = input.data<T>();
    T* o0 = first->data<T>();
    T* o1 = kLog ? second->data<T>() : nullptr;
    linalg::ForEachMatrix(
        ctx, batch.num_elements(), linalg::CubicCost(n) / 3, [&](int64_t b) {
          T sign = 0, log_abs_det = 0;
          SignAndLogAbsDet<T>(ConstMatrixMap<T>(in + b * n * n, n, n), &sign,
                              &log_abs_det);
          if (kLog) {
            o0[b] = sign;
            o1[b] = log_abs_det;
          } else {
            o0[b] = sign * std::exp(log_abs_det);
          }
          return true;
        });
  }
};

#define DFLOW_REGISTER_LU_OPS(T)                                 \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("MatrixInverse")        \
                            .Device(kDeviceCpu)                  \
                            .TypeConstraint<T>("T"),             \
                        MatrixInverseOp<T>);                     \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("MatrixSolve")          \
                            .Device(kDeviceCpu)                  \
                            .TypeConstraint<T>("T"),             \
                        MatrixSolveOp<T>);                       \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("MatrixDeterminant")    \
                            .Device(kDeviceCpu)                  \
                            .TypeConstraint<T>("T"),             \
                        DeterminantOp<T, false>);                \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("LogMatrixDeterminant") \
                            .Device(kDeviceCpu)                  \
                            .TypeConstraint<T>("T"),             \
                        DeterminantOp<T, true>)

DFLOW_REGISTER_LU_OPS(float);
DFLOW_REGISTER_LU_OPS(double);

#undef DFLOW_REGISTER_LU_OPS

}  // namespace
}  // namespace dflow
