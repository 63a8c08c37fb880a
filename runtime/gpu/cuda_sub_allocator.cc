#include "runtime/gpu/cuda_sub_allocator.h"

#include "absl/strings/str_cat.h"
#include "runtime/gpu/cuda_status.h"

namespace dflow {

#if DFLOW_HAVE_CUDA

void* CudaSubAllocator::Alloc(size_t bytes) {
  if (bytes == 0) return nullptr;
  if (cudaSetDevice(ordinal_) != cudaSuccess) {
    cudaGetLastError();
    return nullptr;
  }
  void* ptr = nullptr;
  if (cudaMalloc(&ptr, bytes) != cudaSuccess) {
    // cudaErrorMemoryAllocation is not sticky, but it stays the "last
    // error" of this thread until read: read it now.
    cudaGetLastError();
    return nullptr;
  }
  held_.fetch_add(static_cast<int64_t>(bytes), std::memory_order_relaxed);
  return ptr;
}

void CudaSubAllocator::Free(void* ptr, size_t bytes) {
  if (ptr == nullptr) return;
  // cudaFree synchronizes the device; it runs when a BfcAllocator dies,
  // after the work using its memory (the device's streams drained first).
  if (cudaSetDevice(ordinal_) == cudaSuccess) cudaFree(ptr);
  cudaGetLastError();
  held_.fetch_sub(static_cast<int64_t>(bytes), std::memory_order_relaxed);
}

absl::StatusOr<GpuMemoryInfo> GetGpuMemoryInfo(int ordinal) {
  DFLOW_CUDA_RETURN_IF_ERROR(cudaSetDevice(ordinal),
                             absl::StrCat("cudaSetDevice(", ordinal, ")"));
  size_t free_bytes = 0, total_bytes = 0;
  DFLOW_CUDA_RETURN_IF_ERROR(cudaMemGetInfo(&free_bytes, &total_bytes),
                             absl::StrCat("cudaMemGetInfo on GPU ", ordinal));
  GpuMemoryInfo info;
  info.free_bytes = static_cast<int64_t>(free_bytes);
  info.total_bytes = static_cast<int64_t>(total_bytes);
  return info;
}

#else  // !DFLOW_HAVE_CUDA

void* CudaSubAllocator::Alloc(size_t) { return nullptr; }
void CudaSubAllocator::Free(void*, size_t) {}

absl::StatusOr<GpuMemoryInfo> GetGpuMemoryInfo(int ordinal) {
  return BuiltWithoutCudaError(absl::StrCat("memory of GPU ", ordinal));
}

#endif  // DFLOW_HAVE_CUDA

}  // namespace dflow
