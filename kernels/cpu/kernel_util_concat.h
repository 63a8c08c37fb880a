// Shared by the ConcatV2 and Pack kernels of both devices (reading and
// checking the arguments, the output's shape and allocation), and
// ConcatOffset (ConcatV2's gradient helper), whose arguments are all in
// host memory on every device, so one kernel class serves CPU and GPU.
#ifndef DFLOW_KERNELS_CPU_KERNEL_UTIL_CONCAT_H_
#define DFLOW_KERNELS_CPU_KERNEL_UTIL_CONCAT_H_

#include <cstdint>

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "graph/tensor.h"
#include "graph/tensor_shape.h"
#include "kernels/cpu/kernel_util_array.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace array_kernels {

// Shapes of equal rank that match in every dimension but `axis`.
bool SameExceptAxis(const TensorShape& a, const TensorShape& b, int axis);

// What a ConcatV2 or Pack computes: input i, viewed as [rows, chunks[i]],
// becomes a block of columns of the output viewed as [rows, sum(chunks)].
// The kernels differ only in how they copy the blocks.
struct JoinPlan {
  absl::InlinedVector<Tensor, 8> values;
  int64_t rows = 0;
  IndexVec chunks;
  // The allocated output; null when nothing is left to copy (the output was
  // set to one input, uncopied, or has no elements).
  Tensor* out = nullptr;
};

// ConcatV2(values..., axis).
absl::Status PrepareConcatV2(OpKernelContext* ctx, JoinPlan* plan);
// Pack(values...) along the attr `axis`, a new dimension.
absl::Status PreparePack(OpKernelContext* ctx, int64_t axis_attr,
                         JoinPlan* plan);

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
