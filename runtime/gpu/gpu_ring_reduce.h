// The reduction kernels of the GPU collectives (gpu_collective.h): the
// device-memory ring's rank-ordered element-wise reduction, and the scaling
// that turns an NCCL sum into a mean.
//
// The ring's reduction combines the members' inputs in rank order for every
// element, exactly as the CPU ring does (collective_ring.h):
//   out[i] = (((x_0[i] op x_1[i]) op x_2[i]) ... op x_N-1[i])   (/ N for mean)
// in the element type's own precision: sums of integers wrap, max propagates
// NaN from either side, the mean divides once at the end (IEEE division for
// floats, truncation towards zero for integers). So for the same inputs it
// gives the CPU ring's bits.
//
// Compiled by nvcc (cuda_library); in a build without CUDA every call
// answers Unavailable. Nothing here includes CUDA headers, so host code of
// any build may include it.
#ifndef DFLOW_RUNTIME_GPU_GPU_RING_REDUCE_H_
#define DFLOW_RUNTIME_GPU_GPU_RING_REDUCE_H_

#include <cstdint>

#include "absl/status/status.h"

namespace dflow {

// The element types the GPU collectives compute on (the CPU ring's).
enum class RingElementType { kFloat, kDouble, kInt32, kInt64 };
// How two elements combine. A mean is a sum divided at the end.
enum class RingCombine { kSum, kMax };

// Bytes of one element (4 or 8).
inline int RingElementSize(RingElementType type) {
  return type == RingElementType::kFloat || type == RingElementType::kInt32 ? 4
                                                                            : 8;
}

// Reduces `num_inputs` (>= 1) device buffers of `count` elements, in their
// order, and writes the result to each of `num_outputs` (>= 1) device
// buffers; divides by `mean_divisor` at the end when it is > 1. Every
// buffer is on the GPU that owns `stream` (a cudaStream_t), which must be
// the calling thread's current device. `inputs` and `outputs` are host
// arrays of device pointers, read before this returns. An output may be an
// input only at index 0 of both (the accumulator of a long reduction, read
// before written by the same thread); no other aliasing. Any number of
// inputs and outputs: more than a launch takes are chained through
// outputs[0], which keeps the order.
absl::Status LaunchRingReduce(RingElementType type, RingCombine combine,
                              const void* const* inputs, int num_inputs,
                              void* const* outputs, int num_outputs,
                              int64_t count, int mean_divisor, void* stream);

// data[i] /= divisor for `count` elements of device buffer `data`, on
// `stream` (the mean after an NCCL sum). Nothing when divisor <= 1.
absl::Status LaunchRingDivide(RingElementType type, void* data, int64_t count,
                              int divisor, void* stream);

}  // namespace dflow

#endif  // DFLOW_RUNTIME_GPU_GPU_RING_REDUCE_H_
