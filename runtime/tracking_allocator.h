// An allocator that counts what it hands out: live and peak bytes, number of
// allocations. Each device has one, so `RunMetadata` and `dflow run
// --memory` can say how much memory a step used on which device. It wraps
// the memory's real allocator (the host's, a GPU's BfcAllocator) and passes
// its out-of-memory explanations through.
//
// It may also enforce a limit: an allocation that would take the live bytes
// above it is refused (nullptr, which OpKernelContext turns into
// ResourceExhausted naming the node, the bytes asked and the limit), before
// the base allocator is asked. That is what keeps a graph asking for a huge
// tensor from reaching malloc's overcommitted pages and the OOM killer.
#ifndef DFLOW_RUNTIME_TRACKING_ALLOCATOR_H_
#define DFLOW_RUNTIME_TRACKING_ALLOCATOR_H_

#include <atomic>
#include <cstdint>
#include <string>

#include "graph/allocator.h"

namespace dflow {

struct AllocatorStats {
  int64_t live_bytes = 0;
  int64_t peak_bytes = 0;
  int64_t num_allocations = 0;
};

class TrackingAllocator : public Allocator {
 public:
  // Allocates from `base` (not owned), named `name` in stats and errors.
  // `limit_bytes` > 0 caps the live bytes (see the file comment); 0: no cap.
  TrackingAllocator(Allocator* base, std::string name, int64_t limit_bytes = 0);

  void* AllocateRaw(size_t alignment, size_t bytes) override;
  void DeallocateRaw(void* ptr, size_t bytes) override;
  std::string Name() const override { return name_; }
  // The base allocator's (a BfcAllocator names its state), else, with a
  // limit, ResourceExhausted naming the node, the bytes asked, the bytes in
  // use and the limit.
  absl::Status OutOfMemoryError(absl::string_view node_label,
                                int64_t requested_bytes) const override;
  Allocator* base() const { return base_; }
  // 0: no limit.
  int64_t limit_bytes() const { return limit_; }

  AllocatorStats Stats() const;
  // Starts a new peak measurement from the current live bytes.
  void ResetPeak();

 private:
  // Counts one allocation that took the live bytes to `live`.
  void UpdatePeak(int64_t live);

  Allocator* base_;
  std::string name_;
  const int64_t limit_;
  std::atomic<int64_t> live_{0};
  std::atomic<int64_t> peak_{0};
  std::atomic<int64_t> count_{0};
};

}  // namespace dflow

#endif  // DFLOW_RUNTIME_TRACKING_ALLOCATOR_H_
