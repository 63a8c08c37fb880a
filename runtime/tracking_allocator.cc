#include "runtime/tracking_allocator.h"

#include "absl/strings/str_cat.h"

namespace dflow {

TrackingAllocator::TrackingAllocator(Allocator* base, std::string name,
                                     int64_t limit_bytes)
    : base_(base),
      name_(std::move(name)),
      limit_(limit_bytes > 0 ? limit_bytes : 0) {}

void* TrackingAllocator::AllocateRaw(size_t alignment, size_t bytes) {
  int64_t live = 0;
  if (limit_ > 0) {
    // Reserve first, so that threads allocating at once cannot together
    // pass the limit; a request above the limit alone is refused before it
    // can overflow the sum.
    if (bytes > static_cast<size_t>(limit_)) return nullptr;
    live = live_.fetch_add(static_cast<int64_t>(bytes),
                           std::memory_order_relaxed) +
           static_cast<int64_t>(bytes);
    if (live > limit_) {
      live_.fetch_sub(static_cast<int64_t>(bytes), std::memory_order_relaxed);
      return nullptr;
    }
    void* p = base_->AllocateRaw(alignment, bytes);
    if (p == nullptr) {
      live_.fetch_sub(static_cast<int64_t>(bytes), std::memory_order_relaxed);
      return nullptr;
    }
    UpdatePeak(live);
    return p;
  }
  void* p = base_->AllocateRaw(alignment, bytes);
  if (p == nullptr) return nullptr;
  live =
      live_.fetch_add(static_cast<int64_t>(bytes), std::memory_order_relaxed) +
      static_cast<int64_t>(bytes);
  UpdatePeak(live);
  return p;
}

void TrackingAllocator::UpdatePeak(int64_t live) {
  count_.fetch_add(1, std::memory_order_relaxed);
  int64_t peak = peak_.load(std::memory_order_relaxed);
  while (live > peak &&
         !peak_.compare_exchange_weak(peak, live, std::memory_order_relaxed)) {
  }
}

absl::Status TrackingAllocator::OutOfMemoryError(
    absl::string_view node_label, int64_t requested_bytes) const {
  absl::Status base = base_->OutOfMemoryError(node_label, requested_bytes);
  if (!base.ok() || limit_ == 0) return base;
  const int64_t live = live_.load(std::memory_order_relaxed);
  const bool alone = requested_bytes > limit_;
  return absl::ResourceExhaustedError(absl::StrCat(
      node_label, " asked for ", requested_bytes, " bytes on ", name_,
      ", whose memory limit is ", limit_, " bytes (", live, " bytes in use); ",
      alone ? "the tensor alone is larger than the limit: make it smaller or "
              "raise the limit (SessionOptions.memory_limit_bytes, dflow run "
              "--memory_limit)"
            : "lower the batch size or raise the limit "
              "(SessionOptions.memory_limit_bytes, dflow run "
              "--memory_limit)"));
}

void TrackingAllocator::DeallocateRaw(void* ptr, size_t bytes) {
  if (ptr == nullptr) return;
  live_.fetch_sub(static_cast<int64_t>(bytes), std::memory_order_relaxed);
  base_->DeallocateRaw(ptr, bytes);
}

AllocatorStats TrackingAllocator::Stats() const {
  AllocatorStats s;
  s.live_bytes = live_.load(std::memory_order_relaxed);
  s.peak_bytes = peak_.load(std::memory_order_relaxed);
  s.num_allocations = count_.load(std::memory_order_relaxed);
  return s;
}

void TrackingAllocator::ResetPeak() {
  peak_.store(live_.load(std::memory_order_relaxed), std::memory_order_relaxed);
}

}  // namespace dflow
