// Qr on the CPU: Q and R of each matrix [..., M, N] by Eigen's
// HouseholderQR on the row-major matrix, as TensorFlow's kernel computes
// them, so R's diagonal (and Q's columns) have TensorFlow's signs. With
// full_matrices Q is the whole M x M product of the Householder
// reflections and R is M x N; otherwise Q is its first P = min(M, N)
// columns and R its first P rows.
#include <algorithm>
#include <cstdint>

#include "Eigen/QR"
#include "kernels/cpu/linalg_ops_common.h"
#include "runtime/kernel_registry.h"

namespace dflow {
namespace {

using linalg::ConstMatrixMap;
using linalg::Matrix;
using linalg::MatrixMap;

template <typename T>
class QrOp : public OpKernel {
 public:
  explicit QrOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("full_matrices", &full_matrices_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    int64_t m = 0, n = 0;
    OP_REQUIRES_OK(ctx, linalg::CheckMatrices(input, "input", false, &m, &n));
    const int64_t p = std::min(m, n);
    const int64_t q_cols = full_matrices_ ? m : p;
    const int64_t r_rows = full_matrices_ ? m : p;
    const TensorShape batch = linalg::BatchShape(input.shape());
    Tensor *q = nullptr, *r = nullptr;
    OP_REQUIRES_OK(
        ctx, ctx->allocate_output(0, linalg::WithDims(batch, {m, q_cols}), &q));
    OP_REQUIRES_OK(
        ctx, ctx->allocate_output(1, linalg::WithDims(batch, {r_rows, n}), &r));
    const T* in = input.data<T>();
    T* qo = q->data<T>();
    T* ro = r->data<T>();
    const int64_t cost =
        std::max<int64_t>(1, 2 * std::max(m, n) * p * p + m * m * q_cols);
    linalg::ForEachMatrix(ctx, batch.num_elements(), cost, [&](int64_t b) {
      MatrixMap<T> q_b(qo + b * m * q_cols, m, q_cols);
      MatrixMap<T> r_b(ro + b * r_rows * n, r_rows, n);
      if (m == 0 || n == 0) {
        // No reflections: Q is the identity's columns, R zeros.
        q_b.setIdentity();
        r_b.setZero();
        return true;
      }
      Eigen::HouseholderQR<Matrix<T>> qr(
          ConstMatrixMap<T>(in + b * m * n, m, n));
      if (full_matrices_) {
        q_b = qr.householderQ();
        r_b = qr.matrixQR().template triangularView<Eigen::Upper>();
      } else {
        // Q's first P columns: the reflections applied to those of I.
        q_b = qr.householderQ() * Matrix<T>::Identity(m, p);
        r_b = qr.matrixQR()
                  .block(0, 0, p, n)
                  .template triangularView<Eigen::Upper>();
      }
      return true;
    });
  }

 private:
  bool full_matrices_ = false;
};

DFLOW_REGISTER_KERNEL(
    KernelDefBuilder("Qr").Device(kDeviceCpu).TypeConstraint<float>("T"),
    QrOp<float>);
DFLOW_REGISTER_KERNEL(
    KernelDefBuilder("Qr").Device(kDeviceCpu).TypeConstraint<double>("T"),
    QrOp<double>);

}  // namespace
}  // namespace dflow
