// An allocator that counts what it hands out: live and peak bytes, number of
// allocations. Each device has one, so `RunMetadata` and `dflow run
// --memory` can say how much memory a step used on which device. It wraps
// the memory's real allocator (the host's, a GPU's BfcAllocator) and passes
// its out-of-memory explanations through.
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
  TrackingAllocator(Allocator* base, std::string name);

  void* AllocateRaw(size_t alignment, size_t bytes) override;
  void DeallocateRaw(void* ptr, size_t bytes) override;
  std::string Name() const override { return name_; }
  // The base allocator's (a BfcAllocator names its state).
  absl::Status OutOfMemoryError(absl::string_view node_label,
                                int64_t requested_bytes) const override {
    return base_->OutOfMemoryError(node_label, requested_bytes);
  }
  Allocator* base() const { return base_; }

  AllocatorStats Stats() const;
  // Starts a new peak measurement from the current live bytes.
  void ResetPeak();

 private:
  Allocator* base_;
  std::string name_;
  std::atomic<int64_t> live_{0};
  std::atomic<int64_t> peak_{0};
  std::atomic<int64_t> count_{0};
};

}  // namespace dflow

#endif  // DFLOW_RUNTIME_TRACKING_ALLOCATOR_H_
