// SelfAdjointEigV2 on the CPU: the eigenvalues (ascending) and, with
// compute_v, the eigenvectors (columns) of each self-adjoint matrix
// [..., N, N], by Eigen's SelfAdjointEigenSolver on the row-major matrix
// (it reads the lower triangle), as TensorFlow's kernel computes them, so
// the eigenvectors have the signs that solver gives TensorFlow. Without
// compute_v, v is an empty vector, as in TensorFlow.
#include <cstdint>

#include "Eigen/Eigenvalues"
#include "absl/strings/str_cat.h"
#include "kernels/cpu/linalg_ops_common.h"
#include "runtime/kernel_registry.h"

namespace dflow {
namespace {

using linalg::ConstMatrixMap;
using linalg::Matrix;
using linalg::MatrixMap;

template <typename T>
class SelfAdjointEigV2Op : public OpKernel {
 public:
  explicit SelfAdjointEigV2Op(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("compute_v", &compute_v_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    int64_t n = 0, cols = 0;
    OP_REQUIRES_OK(ctx, linalg::CheckMatrices(input, "input", true, &n, &cols));
    const TensorShape batch = linalg::BatchShape(input.shape());
    Tensor *e = nullptr, *v = nullptr;
    OP_REQUIRES_OK(ctx,
                   ctx->allocate_output(0, linalg::WithDims(batch, {n}), &e));
    OP_REQUIRES_OK(
        ctx,
        ctx->allocate_output(
            1, compute_v_ ? linalg::WithDims(batch, {n, n}) : TensorShape({0}),
            &v));
    if (n == 0) return;
    const T* in = input.data<T>();
    T* eo = e->data<T>();
    T* vo = compute_v_ ? v->data<T>() : nullptr;
    const int64_t failed = linalg::ForEachMatrix(
        ctx, batch.num_elements(), 4 * linalg::CubicCost(n), [&](int64_t b) {
          Eigen::SelfAdjointEigenSolver<Matrix<T>> eig(
              ConstMatrixMap<T>(in + b * n * n, n, n),
              compute_v_ ? Eigen::ComputeEigenvectors : Eigen::EigenvaluesOnly);
          if (eig.info() != Eigen::Success) return false;
          Eigen::Map<Eigen::Matrix<T, Eigen::Dynamic, 1>>(eo + b * n, n) =
              eig.eigenvalues();
          if (compute_v_) {
            MatrixMap<T>(vo + b * n * n, n, n) = eig.eigenvectors();
          }
          return true;
        });
    OP_REQUIRES(ctx, failed < 0,
                absl::InvalidArgumentError(absl::StrCat(
                    "Self-adjoint eigen decomposition was not successful: "
                    "matrix ",
                    failed,
                    " of the batch did not converge. The input might not be "
                    "valid (NaN or infinite entries).")));
  }

 private:
  bool compute_v_ = true;
};

DFLOW_REGISTER_KERNEL(KernelDefBuilder("SelfAdjointEigV2")
                          .Device(kDeviceCpu)
                          .TypeConstraint<float>("T"),
                      SelfAdjointEigV2Op<float>);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("SelfAdjointEigV2")
                          .Device(kDeviceCpu)
                          .TypeConstraint<double>("T"),
                      SelfAdjointEigV2Op<double>);

}  // namespace
}  // namespace dflow
