// The spec of StridedSlice and StridedSliceGrad, shared by their CPU and
// GPU kernels: the five mask attrs and the begin/end/strides inputs turned
// into the box they select (per input dimension: first index, step, count)
// and the output shape, with TensorFlow's semantics and error messages.
#ifndef DFLOW_KERNELS_CPU_KERNEL_UTIL_STRIDED_SLICE_H_
#define DFLOW_KERNELS_CPU_KERNEL_UTIL_STRIDED_SLICE_H_

#include <cstdint>

#include "absl/status/status.h"
#include "graph/tensor.h"
#include "kernels/cpu/kernel_util_array.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace strided_slice {

using array_kernels::IndexVec;

struct StridedSliceMasks {
  int64_t begin = 0, end = 0, ellipsis = 0, new_axis = 0, shrink = 0;
};

// Where each output dimension comes from: a dense (input) dimension, a new
// axis of size 1, or nowhere (a shrunk dimension).
constexpr int64_t kNewAxis = -1;
constexpr int64_t kShrunk = -2;

// The box a strided slice spec selects: per input dimension the first
// index, the step and the count (`sizes`), and the output shape.
struct StridedBox {
  IndexVec begin, strides, sizes;
  TensorShape out_shape;
  bool identity = true;
};

// TensorFlow's semantics: the spec is "sparse" (it may hold one ellipsis,
// standing for as many whole dimensions as needed, and new axes); it is
// first expanded to one entry per input dimension, then each entry's
// begin/end are made canonical (negative from the end, clamped, masks).
absl::Status BuildStridedBox(const TensorShape& shape, const IndexVec& sb,
                             const IndexVec& se, const IndexVec& ss,
                             const StridedSliceMasks& m, StridedBox* box);

// The five mask attrs of StridedSlice and StridedSliceGrad.
void ReadMasks(OpKernelConstruction* ctx, StridedSliceMasks* masks);

// Reads begin/end/strides (inputs first..first+2) and builds the box they
// select in `shape`.
absl::Status ReadStridedBox(OpKernelContext* ctx, int first,
                            const TensorShape& shape,
                            const StridedSliceMasks& masks, StridedBox* box);

}  // namespace strided_slice
}  // namespace dflow

#endif  // DFLOW_KERNELS_CPU_KERNEL_UTIL_STRIDED_SLICE_H_
