// The fill kernel behind gpu_fill.h (compiled by nvcc: see cuda_library).
#include "runtime/gpu/gpu_fill.h"

#include <cuda_runtime.h>

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "runtime/gpu/cuda_status.h"

namespace dflow {
namespace {

__global__ void FillWordsKernel(uint32_t* dst, uint32_t pattern,
                                int64_t count) {
  const int64_t stride = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       i < count; i += stride) {
    dst[i] = pattern;
  }
}

// The 1-3 bytes after the last whole word: the pattern's leading bytes in
// memory order.
__global__ void FillTailKernel(unsigned char* dst, uint32_t pattern,
                               int bytes) {
  const auto* p = reinterpret_cast<const unsigned char*>(&pattern);
  for (int i = 0; i < bytes; ++i) dst[i] = p[i];
}

}  // namespace

absl::Status FillDeviceWords(void* dst, uint32_t pattern, int64_t count,
                             void* stream) {
  if (count <= 0) return absl::OkStatus();
  if (dst == nullptr || reinterpret_cast<uintptr_t>(dst) % 4 != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "FillDeviceWords: the destination must be a non-null, 4-byte "
        "aligned device pointer; got ",
        reinterpret_cast<uintptr_t>(dst)));
  }
  constexpr int kThreads = 256;
  // A grid-stride loop: enough blocks to fill the GPU, not one per element.
  const int64_t blocks =
      std::min<int64_t>((count + kThreads - 1) / kThreads, 4096);
  FillWordsKernel<<<static_cast<unsigned>(blocks), kThreads, 0,
                    static_cast<cudaStream_t>(stream)>>>(
      static_cast<uint32_t*>(dst), pattern, count);
  return CudaStatus(
      cudaGetLastError(),
      absl::StrCat("launching FillDeviceWords for ", count, " words"));
}

absl::Status PoisonDeviceMemory(void* dst, size_t bytes, void* stream) {
  const int64_t words = static_cast<int64_t>(bytes / 4);
  if (absl::Status s = FillDeviceWords(dst, kGpuPoisonWord, words, stream);
      !s.ok()) {
    return s;
  }
  if (const size_t tail = bytes % 4; tail != 0) {
    FillTailKernel<<<1, 1, 0, static_cast<cudaStream_t>(stream)>>>(
        static_cast<unsigned char*>(dst) + words * 4, kGpuPoisonWord,
        static_cast<int>(tail));
    return CudaStatus(cudaGetLastError(),
                      "launching PoisonDeviceMemory for the trailing bytes");
  }
  return absl::OkStatus();
}

}  // namespace dflow
