// Filling device memory with a 32-bit pattern, on a stream, asynchronously:
// tests poison kernel outputs before a run so an element a kernel forgot to
// write shows up (as NaN for floats), and benchmarks initialize buffers.
//
// The kernel is gpu_fill.cu.cc, compiled with nvcc through cuda_library();
// in a build without CUDA these answer Unavailable.
#ifndef DFLOW_RUNTIME_GPU_GPU_FILL_H_
#define DFLOW_RUNTIME_GPU_GPU_FILL_H_

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "absl/status/status.h"

namespace dflow {

// A quiet NaN with a recognizable payload ("dead"); as an int32, 2143346349.
inline constexpr uint32_t kGpuPoisonWord = 0x7FC0DEADu;

// Writes `pattern` into `count` consecutive 32-bit words at `dst` (device
// memory of the GPU that owns `stream`, 4-byte aligned), enqueued on
// `stream` (a cudaStream_t).
absl::Status FillDeviceWords(void* dst, uint32_t pattern, int64_t count,
                             void* stream);

inline absl::Status FillDeviceFloats(float* dst, float value, int64_t count,
                                     void* stream) {
  uint32_t pattern;
  std::memcpy(&pattern, &value, sizeof(pattern));
  return FillDeviceWords(dst, pattern, count, stream);
}

// Fills `bytes` at `dst` with kGpuPoisonWord (a trailing partial word gets
// its leading bytes).
absl::Status PoisonDeviceMemory(void* dst, size_t bytes, void* stream);

}  // namespace dflow

#endif  // DFLOW_RUNTIME_GPU_GPU_FILL_H_
