// MatrixTriangularSolve on the CPU: X with T X = rhs, T the lower (or
// upper) triangle of each matrix, or its adjoint; the other triangle is
// never read. Batch dimensions broadcast (TensorFlow 2.x). Eigen's
// triangular solver does the work; a zero on the diagonal gives inf/NaN
// results, as in TensorFlow, not an error.
#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/cpu/linalg_ops_common.h"
#include "runtime/kernel_registry.h"

namespace dflow {
namespace {

using linalg::ConstMatrixMap;
using linalg::MatrixMap;

template <typename T>
class MatrixTriangularSolveOp : public OpKernel {
 public:
  explicit MatrixTriangularSolveOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("lower", &lower_));
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
    OP_REQUIRES(ctx, rhs_rows == n,
                absl::InvalidArgumentError(absl::StrCat(
                    "Input matrix and rhs are incompatible: matrix ",
                    matrix.shape().ToString(), " has ", n, " rows, rhs ",
                    rhs.shape().ToString(), " has ", rhs_rows)));
    absl::StatusOr<BCast> batches = BroadcastShapes(
        linalg::BatchShape(matrix.shape()), linalg::BatchShape(rhs.shape()));
    OP_REQUIRES_OK(ctx, batches.status());
    TensorShape out_shape = batches->output_shape;
    out_shape.AddDim(n);
    out_shape.AddDim(k);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out->NumElements() == 0) return;
    const std::vector<std::pair<int64_t, int64_t>> pairs =
        linalg::BatchPairs(*batches);
    const T* m = matrix.data<T>();
    const T* r = rhs.data<T>();
    T* o = out->data<T>();
    linalg::ForEachMatrix(
        ctx, static_cast<int64_t>(pairs.size()), n * n * k, [&](int64_t b) {
          ConstMatrixMap<T> a(m + pairs[b].first * n * n, n, n);
          MatrixMap<T> x(o + b * n * k, n, k);
          x = ConstMatrixMap<T>(r + pairs[b].second * n * k, n, k);
          if (lower_ && !adjoint_) {
            a.template triangularView<Eigen::Lower>().solveInPlace(x);
          } else if (lower_) {
            a.template triangularView<Eigen::Lower>().adjoint().solveInPlace(x);
          } else if (!adjoint_) {
            a.template triangularView<Eigen::Upper>().solveInPlace(x);
          } else {
            a.template triangularView<Eigen::Upper>().adjoint().solveInPlace(x);
          }
          return true;
        });
  }

 private:
  bool lower_ = true;
  bool adjoint_ = false;
};

DFLOW_REGISTER_KERNEL(KernelDefBuilder("MatrixTriangularSolve")
                          .Device(kDeviceCpu)
                          .TypeConstraint<float>("T"),
                      MatrixTriangularSolveOp<float>);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("MatrixTriangularSolve")
                          .Device(kDeviceCpu)
                          .TypeConstraint<double>("T"),
                      MatrixTriangularSolveOp<double>);

}  // namespace
}  // namespace dflow
