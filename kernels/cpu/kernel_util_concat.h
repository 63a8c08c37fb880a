// Shared by the Concat kernels of both devices: the shape check, and
// ConcatOffset (ConcatV2's gradient helper), whose arguments are all in
// host memory on every device, so one kernel class serves CPU and GPU.
#ifndef DFLOW_KERNELS_CPU_KERNEL_UTIL_CONCAT_H_
#define DFLOW_KERNELS_CPU_KERNEL_UTIL_CONCAT_H_

#include "graph/tensor_shape.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace array_kernels {

// Shapes of equal rank that match in every dimension but `axis`.
bool SameExceptAxis(const TensorShape& a, const TensorShape& b, int axis);

// ConcatOffset(concat_dim, shape[0..N-1]) -> offset[0..N-1]: where each
// input starts along the concat axis.
class ConcatOffsetKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override;
  bool IsExpensive() const override { return false; }
};

}  // namespace array_kernels
}  // namespace dflow

#endif  // DFLOW_KERNELS_CPU_KERNEL_UTIL_CONCAT_H_
