// What the kernels of the bias-and-activation fusions share
// (compiler/fuse_bias_activation.h: _FusedMatMul, _FusedConv2D).
#ifndef DFLOW_KERNELS_CPU_KERNEL_UTIL_FUSED_H_
#define DFLOW_KERNELS_CPU_KERNEL_UTIL_FUSED_H_

#include <cstdint>

#include "kernels/cpu/kernel_util.h"
#include "runtime/op_kernel.h"

namespace dflow {

// Reads the "activation" attr of a fused op: "Relu" (true), "" (false), or
// an error naming the op and the pass that makes it.
bool ReadFusedActivation(OpKernelConstruction* ctx);

// Adds `bias` (cols values) to each of the `rows` rows of `data`, then
// applies max(x, 0) when `relu`, in one parallel pass. The same Eigen
// expressions as BiasAdd's and Relu's kernels, so the same rounding (none:
// both are exact) and NaN handling: fused equals unfused bit for bit.
template <typename T>
void AddBiasAndActivate(OpKernelContext* ctx, T* data, int64_t rows,
                        int64_t cols, const T* bias, bool relu) {
  ParallelForShards(
      ctx, rows, cols * (relu ? 2 : 1), [=](int64_t r0, int64_t r1) {
        ConstEigenTensorMap<T, 1> b(bias, cols);
        for (int64_t r = r0; r < r1; ++r) {
          EigenTensorMap<T, 1> row(data + r * cols, cols);
          if (relu) {
            row = (row + b).template cwiseMax<Eigen::PropagateNaN>(T(0));
          } else {
            row = row + b;
          }
        }
      });
}

}  // namespace dflow

#endif  // DFLOW_KERNELS_CPU_KERNEL_UTIL_FUSED_H_
