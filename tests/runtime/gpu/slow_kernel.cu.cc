// The spinning kernel of slow_kernel.h (compiled by nvcc).
#include "tests/runtime/gpu/slow_kernel.h"

#include <cuda_runtime.h>

#include "runtime/gpu/cuda_status.h"

namespace dflow {
namespace {

__device__ uint64_t GlobalTimerNs() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// One block: thread 0 spins, the block waits for it, then all fill.
__global__ void SpinThenFillKernel(float* dst, int64_t count, float value,
                                   int64_t spin_ns) {
  if (threadIdx.x == 0) {
    const uint64_t start = GlobalTimerNs();
    while (GlobalTimerNs() - start < static_cast<uint64_t>(spin_ns)) {
    }
  }
  __syncthreads();
  for (int64_t i = threadIdx.x; i < count; i += blockDim.x) dst[i] = value;
}

}  // namespace

absl::Status LaunchSpinThenFill(float* dst, int64_t count, float value,
                                int64_t spin_ns, void* stream) {
  SpinThenFillKernel<<<1, 256, 0, static_cast<cudaStream_t>(stream)>>>(
      dst, count, value, spin_ns);
  return CudaStatus(cudaGetLastError(), "launching SpinThenFillKernel");
}

}  // namespace dflow
