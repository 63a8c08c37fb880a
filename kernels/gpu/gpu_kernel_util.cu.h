// Launch geometry for GPU kernels, shared by the launchers (.cu.cc, compiled
// by nvcc) and the kernel classes (.cc, compiled by the host compiler).
//
// Plain C++ outside `__CUDACC__` (no CUDA or Abseil), so both compilers
// include it. Kernels use grid-stride loops: a launch has enough
// blocks to fill the GPU (a few per multiprocessor), not one per element,
// and each thread walks the elements `stride` apart:
//
//   __global__ void ScaleKernel(float* x, float a, int64_t n) {
//     DFLOW_GPU_1D_KERNEL_LOOP(i, n) { x[i] *= a; }
//   }
//   // host side (the launcher):
//   GpuLaunchConfig c = GpuLaunchConfigFor(n, multiprocessors);
//   if (c.empty()) return;  // nothing to do: never launch 0 blocks
//   ScaleKernel<<<c.blocks, c.threads_per_block, 0, stream>>>(x, a, n);
//   DFLOW_GPU_RETURN_IF_LAUNCH_FAILED("ScaleKernel");  // in a launcher
//   // (a kernel class checks with DFLOW_GPU_LAUNCH_CHECK: gpu_kernel_util.h)
#ifndef DFLOW_KERNELS_GPU_GPU_KERNEL_UTIL_CU_H_
#define DFLOW_KERNELS_GPU_GPU_KERNEL_UTIL_CU_H_

#include <algorithm>
#include <cstdint>

namespace dflow {

// Threads per block unless a kernel knows better: a multiple of the warp
// (32), small enough to keep several blocks resident per multiprocessor.
inline constexpr int kGpuDefaultThreadsPerBlock = 256;
// Resident blocks a grid-stride launch aims for per multiprocessor (an H100
// holds up to 2048 threads per SM: 8 blocks of 256).
inline constexpr int kGpuBlocksPerMultiprocessor = 8;
// The most blocks of one 1-D launch (gridDim.x may go to 2^31 - 1; a
// grid-stride loop never needs that many).
inline constexpr int64_t kGpuMaxBlocks = int64_t{1} << 20;

struct GpuLaunchConfig {
  int blocks = 0;
  int threads_per_block = 0;
  // The elements the launch covers (the loop bound).
  int64_t num_elements = 0;

  // True when there is nothing to launch: n <= 0. CUDA rejects a grid of
  // zero blocks (cudaErrorInvalidConfiguration), so check before launching.
  bool empty() const { return blocks <= 0; }
};

// A grid-stride configuration for `n` elements on a GPU with
// `multiprocessors` SMs (GpuInfo::multiprocessors; <= 0: assume 132, an
// H100): blocks = min(ceil(n / threads), multiprocessors *
// kGpuBlocksPerMultiprocessor), at least 1 for n > 0. `threads_per_block`
// is clamped to [32, 1024] and rounded up to a multiple of 32.
inline GpuLaunchConfig GpuLaunchConfigFor(
    int64_t n, int multiprocessors,
    int threads_per_block = kGpuDefaultThreadsPerBlock) {
  GpuLaunchConfig c;
  if (n <= 0) return c;
  threads_per_block = std::min(std::max(threads_per_block, 32), 1024);
  threads_per_block = (threads_per_block + 31) / 32 * 32;
  if (multiprocessors <= 0) multiprocessors = 132;
  const int64_t needed = (n + threads_per_block - 1) / threads_per_block;
  const int64_t resident =
      static_cast<int64_t>(multiprocessors) * kGpuBlocksPerMultiprocessor;
  c.blocks = static_cast<int>(
      std::max<int64_t>(1, std::min({needed, resident, kGpuMaxBlocks})));
  c.threads_per_block = threads_per_block;
  c.num_elements = n;
  return c;
}

}  // namespace dflow

#if defined(__CUDACC__)
#include "runtime/gpu/cuda_status.h"

// Returns the launch error of the last kernel launched on this thread (a
// bad configuration, no kernel image for this GPU) from a function
// returning absl::Status. Errors of the kernel's execution show up later,
// on the stream.
#define DFLOW_GPU_RETURN_IF_LAUNCH_FAILED(what)                         \
  do {                                                                  \
    const cudaError_t _dflow_launch_err = cudaGetLastError();           \
    if (_dflow_launch_err != cudaSuccess) {                             \
      return ::dflow::CudaStatus(_dflow_launch_err,                     \
                                 ::absl::StrCat("launching ", (what))); \
    }                                                                   \
  } while (0)

// for (int64_t i = first index of this thread; i < n; i += grid's threads):
// every element of [0, n) exactly once, whatever the grid's size. 64-bit
// indices: tensors may hold more than 2^31 elements.
#define DFLOW_GPU_1D_KERNEL_LOOP(i, n)                                       \
  for (int64_t                                                               \
           i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x,  \
           _dflow_stride_##i = static_cast<int64_t>(blockDim.x) * gridDim.x; \
       i < static_cast<int64_t>(n); i += _dflow_stride_##i)
#endif  // __CUDACC__

#endif  // DFLOW_KERNELS_GPU_GPU_KERNEL_UTIL_CU_H_
