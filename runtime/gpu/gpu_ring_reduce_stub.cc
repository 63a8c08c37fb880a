// gpu_ring_reduce.h in builds without CUDA: the kernels
// (gpu_ring_reduce.cu.cc) are not compiled there, and every call answers
// Unavailable.
#include "runtime/gpu/cuda_status.h"
#include "runtime/gpu/gpu_ring_reduce.h"

#if !DFLOW_HAVE_CUDA

namespace dflow {

absl::Status LaunchRingReduce(RingElementType, RingCombine, const void* const*,
                              int, void* const*, int, int64_t, int, void*) {
  return BuiltWithoutCudaError("LaunchRingReduce");
}

absl::Status LaunchRingDivide(RingElementType, void*, int64_t, int, void*) {
  return BuiltWithoutCudaError("LaunchRingDivide");
}

}  // namespace dflow

#endif  // !DFLOW_HAVE_CUDA
