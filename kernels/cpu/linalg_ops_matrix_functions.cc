// Functions of square matrices on the CPU, by Eigen's MatrixFunctions
// module on a row-major copy, as TensorFlow's kernels compute them:
// MatrixSquareRoot (real: through the real Schur form, so a matrix with
// negative real eigenvalues has no real root and gives NaNs, as in
// TensorFlow) and MatrixLogarithm (complex only, as TensorFlow registers
// it: a real matrix's logarithm may be complex).
#include <complex>
#include <cstdint>

#include "kernels/cpu/linalg_ops_common.h"
#include "runtime/kernel_registry.h"
#include "unsupported/Eigen/MatrixFunctions"

namespace dflow {
namespace {

using linalg::ConstMatrixMap;
using linalg::Matrix;
using linalg::MatrixMap;

enum class Function { kSquareRoot, kLogarithm };

template <typename T, Function kFunction>
class MatrixFunctionOp : public OpKernel {
 public:
  explicit MatrixFunctionOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    int64_t n = 0, cols = 0;
    OP_REQUIRES_OK(ctx, linalg::CheckMatrices(input, "input", true, &n, &cols));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &out));
    if (n == 0) return;
    const T* in = input.data<T>();
    T* o = out->data<T>();
    linalg::ForEachMatrix(ctx, input.NumElements() / (n * n),
                          10 * linalg::CubicCost(n), [&](int64_t b) {
                            const Matrix<T> a =
                                ConstMatrixMap<T>(in + b * n * n, n, n);
                            MatrixMap<T> result(o + b * n * n, n, n);
                            if constexpr (kFunction == Function::kSquareRoot) {
                              result = a.sqrt();
                            } else {
                              result = a.log();
                            }
                            return true;
                          });
  }
};

DFLOW_REGISTER_KERNEL(KernelDefBuilder("MatrixSquareRoot")
                          .Device(kDeviceCpu)
                          .TypeConstraint<float>("T"),
                      MatrixFunctionOp<float, Function::kSquareRoot>);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("MatrixSquareRoot")
                          .Device(kDeviceCpu)
                          .TypeConstraint<double>("T"),
                      MatrixFunctionOp<double, Function::kSquareRoot>);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("MatrixLogarithm")
                          .Device(kDeviceCpu)
                          .TypeConstraint<complex64>("T"),
                      MatrixFunctionOp<complex64, Function::kLogarithm>);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("MatrixLogarithm")
                          .Device(kDeviceCpu)
                          .TypeConstraint<complex128>("T"),
                      MatrixFunctionOp<complex128, Function::kLogarithm>);

}  // namespace
}  // namespace dflow
