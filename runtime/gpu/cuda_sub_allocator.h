// Device memory of one GPU for a BfcAllocator: each region is one
// cudaMalloc on that GPU, given back with cudaFree when the BfcAllocator
// dies. Regions are large and rare (the BfcAllocator caches what it
// carves out of them), so the cost of cudaMalloc's implicit
// synchronization is paid a few times per process.
//
// In a build without CUDA, Alloc answers nullptr (nothing can be made) and
// GpuMemoryInfo Unavailable.
#ifndef DFLOW_RUNTIME_GPU_CUDA_SUB_ALLOCATOR_H_
#define DFLOW_RUNTIME_GPU_CUDA_SUB_ALLOCATOR_H_

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "absl/status/statusor.h"
#include "runtime/gpu/bfc_allocator.h"

namespace dflow {

class CudaSubAllocator : public SubAllocator {
 public:
  // Memory of the GPU with this CUDA ordinal.
  explicit CudaSubAllocator(int ordinal) : ordinal_(ordinal) {}

  // cudaMalloc on the GPU (256-byte aligned at least, as BfcAllocator
  // needs); nullptr when the GPU cannot give `bytes`. A failed cudaMalloc
  // leaves no error behind for the next cudaGetLastError (a kernel's launch
  // check would report it otherwise).
  void* Alloc(size_t bytes) override;
  void Free(void* ptr, size_t bytes) override;

  int ordinal() const { return ordinal_; }
  // Bytes currently held through this object (regions not yet freed).
  int64_t bytes_held() const { return held_.load(std::memory_order_relaxed); }

 private:
  const int ordinal_;
  std::atomic<int64_t> held_{0};
};

struct GpuMemoryInfo {
  int64_t free_bytes = 0;
  int64_t total_bytes = 0;
};

// cudaMemGetInfo on the GPU with this ordinal: what every process may still
// allocate there, and its size.
absl::StatusOr<GpuMemoryInfo> GetGpuMemoryInfo(int ordinal);

}  // namespace dflow

#endif  // DFLOW_RUNTIME_GPU_CUDA_SUB_ALLOCATOR_H_
