// Svd on the CPU: the singular values s (descending) and, with
// compute_uv, the singular vectors u and v of each matrix [..., M, N],
// input = u diag(s) v^T, by Eigen's BDCSVD on the row-major matrix, as
// TensorFlow's kernel computes them (BDCSVD itself hands matrices with
// fewer than 16 columns to JacobiSVD), so the vectors' signs are the ones
// that algorithm gives TensorFlow. Without full_matrices u is [..., M, P]
// and v [..., N, P], P = min(M, N); with it [..., M, M] and [..., N, N].
// Without compute_uv u and v are empty vectors, as in TensorFlow.
//
// A matrix BDCSVD cannot decompose (NaN or infinite entries) gives NaNs,
// as TensorFlow's kernel does.
#include <algorithm>
#include <cstdint>
#include <limits>

#include "Eigen/SVD"
#include "kernels/cpu/linalg_ops_common.h"
#include "runtime/kernel_registry.h"

namespace dflow {
namespace {

using linalg::ConstMatrixMap;
using linalg::Matrix;
using linalg::MatrixMap;

template <typename T>
class SvdOp : public OpKernel {
 public:
  explicit SvdOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("compute_uv", &compute_uv_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("full_matrices", &full_matrices_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    int64_t m = 0, n = 0;
    OP_REQUIRES_OK(ctx, linalg::CheckMatrices(input, "input", false, &m, &n));
    const int64_t p = std::min(m, n);
    const int64_t u_cols = full_matrices_ ? m : p;
    const int64_t v_cols = full_matrices_ ? n : p;
    const TensorShape batch = linalg::BatchShape(input.shape());
    Tensor *s = nullptr, *u = nullptr, *v = nullptr;
    OP_REQUIRES_OK(ctx,
                   ctx->allocate_output(0, linalg::WithDims(batch, {p}), &s));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(
                            1,
                            compute_uv_ ? linalg::WithDims(batch, {m, u_cols})
                                        : TensorShape({0}),
                            &u));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(
                            2,
                            compute_uv_ ? linalg::WithDims(batch, {n, v_cols})
                                        : TensorShape({0}),
                            &v));
    const T* in = input.data<T>();
    T* so = s->data<T>();
    T* uo = compute_uv_ ? u->data<T>() : nullptr;
    T* vo = compute_uv_ ? v->data<T>() : nullptr;
    unsigned int options = 0;
    if (compute_uv_) {
      options = full_matrices_ ? Eigen::ComputeFullU | Eigen::ComputeFullV
                               : Eigen::ComputeThinU | Eigen::ComputeThinV;
    }
    const int64_t cost = std::max<int64_t>(1, 12 * std::max(m, n) * p * p);
    linalg::ForEachMatrix(ctx, batch.num_elements(), cost, [&](int64_t b) {
      if (m == 0 || n == 0) {
        // Nothing to decompose; full u or v is the identity of its side.
        if (compute_uv_) {
          MatrixMap<T>(uo + b * m * u_cols, m, u_cols).setIdentity();
          MatrixMap<T>(vo + b * n * v_cols, n, v_cols).setIdentity();
        }
        return true;
      }
      Eigen::BDCSVD<Matrix<T>> svd(ConstMatrixMap<T>(in + b * m * n, m, n),
                                   options);
      Eigen::Map<Eigen::Matrix<T, Eigen::Dynamic, 1>> s_b(so + b * p, p);
      if (svd.info() != Eigen::Success) {
        constexpr T kNan = std::numeric_limits<T>::quiet_NaN();
        s_b.setConstant(kNan);
        if (compute_uv_) {
          MatrixMap<T>(uo + b * m * u_cols, m, u_cols).setConstant(kNan);
          MatrixMap<T>(vo + b * n * v_cols, n, v_cols).setConstant(kNan);
        }
        return true;
      }
      s_b = svd.singularValues();
      if (compute_uv_) {
        MatrixMap<T>(uo + b * m * u_cols, m, u_cols) = svd.matrixU();
        MatrixMap<T>(vo + b * n * v_cols, n, v_cols) = svd.matrixV();
      }
      return true;
    });
  }

 private:
  bool compute_uv_ = true;
  bool full_matrices_ = false;
};

DFLOW_REGISTER_KERNEL(
    KernelDefBuilder("Svd").Device(kDeviceCpu).TypeConstraint<float>("T"),
    SvdOp<float>);
DFLOW_REGISTER_KERNEL(
    KernelDefBuilder("Svd").Device(kDeviceCpu).TypeConstraint<double>("T"),
    SvdOp<double>);

}  // namespace
}  // namespace dflow
