// Cholesky on the CPU: L (lower triangular, zeros above) with L L^T = A for
// each symmetric positive definite matrix A, by Eigen's LLT, which reads
// only A's lower triangle, as TensorFlow's kernel does. A matrix that is
// not positive definite fails the step, naming its batch index (TensorFlow
// 2.21 returns NaNs there without a word).
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "kernels/cpu/linalg_ops_common.h"
#include "runtime/kernel_registry.h"

namespace dflow {
namespace {

template <typename T>
class CholeskyOp : public OpKernel {
 public:
  explicit CholeskyOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    int64_t n = 0, cols = 0;
    OP_REQUIRES_OK(ctx, linalg::CheckMatrices(input, "input", true, &n, &cols));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &out));
    if (input.NumElements() == 0) return;
    const int64_t batches = input.NumElements() / (n * n);
    const T* in = input.data<T>();
    T* o = out->data<T>();
    const int64_t failed = linalg::ForEachMatrix(
        ctx, batches, linalg::CubicCost(n) / 3, [&](int64_t b) {
          linalg::ConstMatrixMap<T> a(in + b * n * n, n, n);
          linalg::MatrixMap<T> l(o + b * n * n, n, n);
          Eigen::LLT<linalg::Matrix<T>, Eigen::Lower> llt(a);
          if (llt.info() != Eigen::Success) return false;
          l = llt.matrixL();
          return true;
        });
    OP_REQUIRES(
        ctx, failed < 0,
        absl::InvalidArgumentError(absl::StrCat(
            "Cholesky decomposition was not successful: matrix ", failed,
            " of the batch is not symmetric positive "
            "definite. The input might not be valid.")));
  }
};

DFLOW_REGISTER_KERNEL(
    KernelDefBuilder("Cholesky").Device(kDeviceCpu).TypeConstraint<float>("T"),
    CholeskyOp<float>);
DFLOW_REGISTER_KERNEL(
    KernelDefBuilder("Cholesky").Device(kDeviceCpu).TypeConstraint<double>("T"),
    CholeskyOp<double>);

}  // namespace
}  // namespace dflow
