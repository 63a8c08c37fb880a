// A pool of page-locked (pinned) host buffers for host<->GPU transfers.
//
// The GPU copies from and to pinned memory by DMA while the host goes on;
// from ordinary (pageable) memory the CUDA runtime may block the caller
// until the copy is done. Pinning memory (cudaHostAlloc) costs milliseconds,
// so buffers are kept and reused: sizes are rounded up to a size class (a
// power of two from 4 KiB to 16 MiB, then multiples of 16 MiB, so a large
// transfer does not pin twice its size) and a returned buffer serves the
// next request of its class. Buffers are portable: any GPU's streams may use
// them.
#ifndef DFLOW_RUNTIME_GPU_PINNED_HOST_POOL_H_
#define DFLOW_RUNTIME_GPU_PINNED_HOST_POOL_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"

namespace dflow {

class PinnedHostPool {
 public:
  struct Options {
    // Returned buffers kept for reuse, in bytes; a buffer returned beyond
    // this is unpinned and freed at once.
    int64_t max_cached_bytes = int64_t{256} << 20;
  };

  struct Stats {
    int64_t host_allocs = 0;   // cudaHostAlloc calls
    int64_t reuses = 0;        // requests served from returned buffers
    int64_t in_use_bytes = 0;  // capacity handed out and not yet returned
    int64_t peak_in_use_bytes = 0;
    int64_t cached_bytes = 0;  // capacity returned and kept for reuse
  };

  // A pinned buffer on loan; going out of scope returns it to the pool.
  class Buffer {
   public:
    Buffer() = default;
    Buffer(Buffer&& other) noexcept { *this = std::move(other); }
    Buffer& operator=(Buffer&& other) noexcept;
    Buffer(const Buffer&) = delete;
    Buffer& operator=(const Buffer&) = delete;
    ~Buffer() { Reset(); }

    void* data() const { return data_; }
    size_t size() const { return size_; }          // bytes asked for
    size_t capacity() const { return capacity_; }  // bytes usable
    explicit operator bool() const { return data_ != nullptr; }
    // Returns the buffer to its pool now.
    void Reset();

   private:
    friend class PinnedHostPool;
    PinnedHostPool* pool_ = nullptr;
    void* data_ = nullptr;
    size_t size_ = 0;
    size_t capacity_ = 0;
  };

  explicit PinnedHostPool(Options options);
  PinnedHostPool() : PinnedHostPool(Options()) {}
  // Frees the cached buffers. Buffers still on loan must be returned first.
  ~PinnedHostPool();
  PinnedHostPool(const PinnedHostPool&) = delete;
  PinnedHostPool& operator=(const PinnedHostPool&) = delete;

  // A buffer of at least `bytes`; ResourceExhausted when pinned memory runs
  // out, Unavailable without CUDA or a GPU driver.
  absl::StatusOr<Buffer> Allocate(size_t bytes);

  Stats stats() const;
  // Unpins and frees every cached buffer (not those on loan).
  void ReleaseCached();

  // The process's pool, never destroyed (pinned staging for every device).
  static PinnedHostPool* Shared();

  // The size class of a request (see the file comment).
  static size_t CapacityFor(size_t bytes);

 private:
  void Return(void* data, size_t capacity);

  const Options options_;
  mutable absl::Mutex mu_;
  std::map<size_t, std::vector<void*>> free_ ABSL_GUARDED_BY(mu_);
  Stats stats_ ABSL_GUARDED_BY(mu_);
};

}  // namespace dflow

#endif  // DFLOW_RUNTIME_GPU_PINNED_HOST_POOL_H_
