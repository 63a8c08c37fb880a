#include "runtime/gpu/pinned_host_pool.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "runtime/gpu/cuda_status.h"

namespace dflow {
namespace {

// Unpins and frees `data`. Errors are dropped: this runs in destructors, and
// a failing cudaFreeHost leaves nothing for the caller to do.
void FreePinned(void* data) {
#if DFLOW_HAVE_CUDA
  if (cudaFreeHost(data) != cudaSuccess) cudaGetLastError();
#else
  (void)data;
#endif
}

}  // namespace

PinnedHostPool::Buffer& PinnedHostPool::Buffer::operator=(
    Buffer&& other) noexcept {
  if (this != &other) {
    Reset();
    pool_ = std::exchange(other.pool_, nullptr);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    capacity_ = std::exchange(other.capacity_, 0);
  }
  return *this;
}

void PinnedHostPool::Buffer::Reset() {
  if (data_ != nullptr) pool_->Return(data_, capacity_);
  pool_ = nullptr;
  data_ = nullptr;
  size_ = capacity_ = 0;
}

PinnedHostPool::PinnedHostPool(Options options) : options_(options) {}

PinnedHostPool::~PinnedHostPool() { ReleaseCached(); }

size_t PinnedHostPool::CapacityFor(size_t bytes) {
  constexpr size_t kLargeStep = size_t{16} << 20;
  if (bytes > kLargeStep)
    return (bytes + kLargeStep - 1) / kLargeStep * kLargeStep;
  size_t capacity = 4096;
  while (capacity < bytes) capacity <<= 1;
  return capacity;
}

absl::StatusOr<PinnedHostPool::Buffer> PinnedHostPool::Allocate(size_t bytes) {
  const size_t capacity = CapacityFor(bytes);
  Buffer buffer;
  buffer.pool_ = this;
  buffer.size_ = bytes;
  buffer.capacity_ = capacity;
  {
    absl::MutexLock lock(&mu_);
    auto it = free_.find(capacity);
    if (it != free_.end() && !it->second.empty()) {
      buffer.data_ = it->second.back();
      it->second.pop_back();
      stats_.reuses++;
      stats_.cached_bytes -= capacity;
      stats_.in_use_bytes += capacity;
      stats_.peak_in_use_bytes =
          std::max(stats_.peak_in_use_bytes, stats_.in_use_bytes);
      return buffer;
    }
  }
#if DFLOW_HAVE_CUDA
  void* data = nullptr;
  cudaError_t err = cudaHostAlloc(&data, capacity, cudaHostAllocPortable);
  if (err != cudaSuccess) {
    cudaGetLastError();
    return CudaStatus(err, absl::StrCat("cudaHostAlloc of ", capacity,
                                        " bytes of pinned host memory for ",
                                        bytes, " bytes of staging"));
  }
  buffer.data_ = data;
  absl::MutexLock lock(&mu_);
  stats_.host_allocs++;
  stats_.in_use_bytes += capacity;
  stats_.peak_in_use_bytes =
      std::max(stats_.peak_in_use_bytes, stats_.in_use_bytes);
  return buffer;
#else
  buffer.pool_ = nullptr;
  return BuiltWithoutCudaError(
      absl::StrCat("allocating ", bytes, " bytes of pinned host memory"));
#endif
}

void PinnedHostPool::Return(void* data, size_t capacity) {
  {
    absl::MutexLock lock(&mu_);
    stats_.in_use_bytes -= capacity;
    if (stats_.cached_bytes + static_cast<int64_t>(capacity) <=
        options_.max_cached_bytes) {
      free_[capacity].push_back(data);
      stats_.cached_bytes += capacity;
      return;
    }
  }
  FreePinned(data);
}

PinnedHostPool::Stats PinnedHostPool::stats() const {
  absl::MutexLock lock(&mu_);
  return stats_;
}

void PinnedHostPool::ReleaseCached() {
  std::map<size_t, std::vector<void*>> cached;
  {
    absl::MutexLock lock(&mu_);
    cached.swap(free_);
    stats_.cached_bytes = 0;
  }
  for (auto& [capacity, buffers] : cached) {
    for (void* data : buffers) FreePinned(data);
  }
}

PinnedHostPool* PinnedHostPool::Shared() {
  static PinnedHostPool* pool = new PinnedHostPool();
  return pool;
}

}  // namespace dflow
