// Shared by the Split, SplitV and Unpack kernels of both devices: reading
// and checking the arguments and computing each piece's shape. The kernels
// differ only in how they move the elements (views or row copies on the
// CPU, strided copies on a GPU).
#ifndef DFLOW_KERNELS_CPU_KERNEL_UTIL_SPLIT_H_
#define DFLOW_KERNELS_CPU_KERNEL_UTIL_SPLIT_H_

#include <cstdint>

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "graph/tensor.h"
#include "graph/tensor_shape.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace array_kernels {

// What a split computes: output j holds `sizes[j]` entries of dimension
// `axis` of `input`, after the entries of outputs 0..j-1, with the shape
// `piece_shapes[j]` (the axis removed for Unpack).
struct SplitPlan {
  Tensor input;
  int axis = 0;
  absl::InlinedVector<int64_t, 8> sizes;
  absl::InlinedVector<TensorShape, 8> piece_shapes;
  // Set when the kernel's only output is its input, already set by the
  // Prepare function: nothing is left to move.
  bool done = false;
};

// Split(split_dim, value), num_split = ctx->num_outputs() equal pieces.
absl::Status PrepareSplit(OpKernelContext* ctx, SplitPlan* plan);
// SplitV(value, size_splits, split_dim): one size may be -1 (the rest).
absl::Status PrepareSplitV(OpKernelContext* ctx, SplitPlan* plan);
// Unpack(value) along the attr `axis`: pieces of size 1, the axis removed.
absl::Status PrepareUnpack(OpKernelContext* ctx, int64_t axis_attr,
                           SplitPlan* plan);

}  // namespace array_kernels
}  // namespace dflow

#endif  // DFLOW_KERNELS_CPU_KERNEL_UTIL_SPLIT_H_
