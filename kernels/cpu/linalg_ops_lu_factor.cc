// Lu on the CPU: the LU decomposition with partial pivoting of each square
// matrix [..., N, N], by Eigen's PartialPivLU on a column-major copy, as
// TensorFlow's kernel computes it (its blocked elimination then pivots and
// rounds as TensorFlow's). lu packs L (unit diagonal, below it) and U; p
// is the row permutation: input[p[i], :] = (L U)[i, :].
//
// A zero pivot fails the step with TensorFlow's words, naming the batch
// index.
#include <cstdint>

#include "Eigen/LU"
#include "absl/strings/str_cat.h"
#include "kernels/cpu/linalg_ops_common.h"
#include "runtime/kernel_registry.h"

namespace dflow {
namespace {

using linalg::ConstMatrixMap;
using linalg::MatrixMap;

template <typename T, typename Index>
class LuOp : public OpKernel {
 public:
  explicit LuOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    int64_t n = 0, cols = 0;
    OP_REQUIRES_OK(ctx, linalg::CheckMatrices(input, "input", true, &n, &cols));
    const TensorShape batch = linalg::BatchShape(input.shape());
    Tensor *lu = nullptr, *perm = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &lu));
    OP_REQUIRES_OK(
        ctx, ctx->allocate_output(1, linalg::WithDims(batch, {n}), &perm));
    if (n == 0) return;
    const T* in = input.data<T>();
    T* lo = lu->data<T>();
    Index* po = perm->data<Index>();
    const int64_t failed = linalg::ForEachMatrix(
        ctx, batch.num_elements(), 2 * linalg::CubicCost(n) / 3,
        [&](int64_t b) {
          // TensorFlow factors a column-major matrix.
          Eigen::PartialPivLU<Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>>
              decomposition(ConstMatrixMap<T>(in + b * n * n, n, n));
          MatrixMap<T> packed(lo + b * n * n, n, n);
          packed = decomposition.matrixLU();
          // permutationP() maps input rows to LU rows; its inverse lists,
          // for each LU row, the input row it came from.
          const Eigen::PermutationMatrix<Eigen::Dynamic, Eigen::Dynamic>
              to_input = decomposition.permutationP().transpose();
          for (int64_t i = 0; i < n; ++i) {
            po[b * n + i] = static_cast<Index>(to_input.indices()(i));
          }
          return packed.diagonal().cwiseAbs().minCoeff() > T(0);
        });
    OP_REQUIRES(ctx, failed < 0,
                absl::InvalidArgumentError(
                    absl::StrCat("Input is not invertible: matrix ", failed,
                                 " of the batch is singular (a zero pivot)")));
  }
};

#define DFLOW_REGISTER_LU(T, Index)                                    \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("Lu")                         \
                            .Device(kDeviceCpu)                        \
                            .TypeConstraint<T>("T")                    \
                            .TypeConstraint<Index>("output_idx_type"), \
                        LuOp<T, Index>)

DFLOW_REGISTER_LU(float, int32_t);
DFLOW_REGISTER_LU(double, int32_t);
DFLOW_REGISTER_LU(float, int64_t);
DFLOW_REGISTER_LU(double, int64_t);

#undef DFLOW_REGISTER_LU

}  // namespace
}  // namespace dflow
