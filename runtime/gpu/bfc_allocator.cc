#include "runtime/gpu/bfc_allocator.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace dflow {
namespace {

constexpr size_t kUnit = BfcAllocator::kMinAllocationSize;

size_t RoundDownToUnit(int64_t bytes) {
  return bytes <= 0 ? 0 : static_cast<size_t>(bytes) & ~(kUnit - 1);
}

}  // namespace

void* HostSubAllocator::Alloc(size_t bytes) {
  // aligned_alloc wants a size that is a multiple of the alignment; every
  // region size is a multiple of kUnit.
  if (bytes == 0 || bytes % kUnit != 0) return nullptr;
  return std::aligned_alloc(kUnit, bytes);
}

void HostSubAllocator::Free(void* ptr, size_t /*bytes*/) { std::free(ptr); }

BfcAllocator::BfcAllocator(std::unique_ptr<SubAllocator> sub_allocator,
                           BfcAllocatorOptions options)
    : sub_allocator_(std::move(sub_allocator)),
      options_(std::move(options)),
      limit_(RoundDownToUnit(options_.memory_limit)) {
  size_t initial = RoundDownToUnit(options_.initial_region_bytes);
  next_region_bytes_ = std::max(kUnit, std::min(initial, limit_));
}

BfcAllocator::~BfcAllocator() {
  for (const Region& region : regions_) {
    sub_allocator_->Free(region.base, region.size);
  }
}

size_t BfcAllocator::RoundedBytes(size_t bytes) {
  if (bytes == 0) return kUnit;
  if (bytes > std::numeric_limits<size_t>::max() - (kUnit - 1)) return 0;
  return (bytes + kUnit - 1) & ~(kUnit - 1);
}

int BfcAllocator::BinIndex(size_t rounded_bytes) {
  const uint64_t units = rounded_bytes / kUnit;
  if (units <= 1) return 0;
  const int log2 = 63 - __builtin_clzll(units);
  return std::min(log2, kNumBins - 1);
}

void* BfcAllocator::AllocateRaw(size_t alignment, size_t bytes) {
  if (alignment == 0) alignment = 1;
  const bool bad_alignment = (alignment & (alignment - 1)) != 0;
  const size_t rounded = RoundedBytes(bytes);
  const size_t align = std::max(alignment, kUnit);
  std::lock_guard<std::mutex> lock(mu_);
  if (bad_alignment || rounded == 0) {
    ++num_failed_allocs_;
    return nullptr;
  }
  void* ptr = FindAndTake(rounded, align);
  if (ptr == nullptr) {
    // A fresh region starts kUnit-aligned, so it may need this much front
    // padding to meet a larger alignment.
    const size_t padding = align - kUnit;
    if (rounded <= limit_ && padding <= limit_ - rounded &&
        Extend(rounded + padding)) {
      ptr = FindAndTake(rounded, align);
    }
  }
  if (ptr == nullptr) ++num_failed_allocs_;
  return ptr;
}

void* BfcAllocator::FindAndTake(size_t rounded, size_t alignment) {
  // Bins above the request's hold only larger chunks, so the first chunk
  // that fits, scanning bins upwards in (size, address) order, is the best
  // fit. With alignment padding a smaller chunk may not fit where a larger
  // one does, hence the inner scan.
  const uint32_t from_bin = ~uint32_t{0} << BinIndex(rounded);
  for (uint32_t bins = nonempty_bins_ & from_bin; bins != 0; bins &= bins - 1) {
    const int b = __builtin_ctz(bins);
    std::set<FreeKey>& bin = bins_[b];
    for (auto it = bin.lower_bound(FreeKey{rounded, nullptr, kNoChunk});
         it != bin.end(); ++it) {
      const uintptr_t start = reinterpret_cast<uintptr_t>(it->ptr);
      const uintptr_t aligned = (start + alignment - 1) & ~(alignment - 1);
      const size_t padding = aligned - start;
      if (it->size < padding + rounded) continue;
      ChunkHandle h = it->handle;
      KeepNode(bin.extract(it));
      if (bin.empty()) nonempty_bins_ &= ~(uint32_t{1} << b);
      if (padding > 0) {
        const ChunkHandle rest = SplitTail(h, padding);
        InsertFree(h);  // the front stays free
        h = rest;
      }
      if (chunks_[h].size > rounded) InsertFree(SplitTail(h, rounded));
      Chunk& chunk = chunks_[h];
      chunk.in_use = true;
      in_use_.emplace(chunk.ptr, h);
      in_use_bytes_ += static_cast<int64_t>(chunk.size);
      peak_bytes_ = std::max(peak_bytes_, in_use_bytes_);
      ++num_allocs_;
      return chunk.ptr;
    }
  }
  return nullptr;
}

bool BfcAllocator::Extend(size_t min_bytes) {
  const size_t available = limit_ - reserved_;
  if (min_bytes > available) return false;
  size_t bytes = available;
  if (options_.allow_growth) {
    while (next_region_bytes_ < min_bytes) next_region_bytes_ *= 2;
    bytes = std::min(next_region_bytes_, available);
  }
  void* base = sub_allocator_->Alloc(bytes);
  if (base == nullptr && bytes > min_bytes) {
    // The device may have less than the limit free (other processes, the
    // CUDA context): one more try with just what this request needs.
    bytes = min_bytes;
    base = sub_allocator_->Alloc(bytes);
  }
  if (base == nullptr) return false;
  if (reinterpret_cast<uintptr_t>(base) % kUnit != 0) {
    // Breaks the SubAllocator contract; chunks would be misaligned.
    sub_allocator_->Free(base, bytes);
    return false;
  }
  if (options_.allow_growth) {
    next_region_bytes_ = std::min(next_region_bytes_ * 2, limit_);
  }
  const ChunkHandle h = NewChunk();
  chunks_[h].ptr = static_cast<char*>(base);
  chunks_[h].size = bytes;
  regions_.push_back(Region{static_cast<char*>(base), bytes, h});
  reserved_ += bytes;
  InsertFree(h);
  return true;
}

void BfcAllocator::DeallocateRaw(void* ptr, size_t /*bytes*/) {
  if (ptr == nullptr) return;
  std::lock_guard<std::mutex> lock(mu_);
  auto it = in_use_.find(ptr);
  if (it == in_use_.end()) return;
  ChunkHandle h = it->second;
  in_use_.erase(it);
  chunks_[h].in_use = false;
  in_use_bytes_ -= static_cast<int64_t>(chunks_[h].size);
  const ChunkHandle next = chunks_[h].next;
  if (next != kNoChunk && !chunks_[next].in_use) {
    RemoveFree(next);
    MergeNext(h);
  }
  const ChunkHandle prev = chunks_[h].prev;
  if (prev != kNoChunk && !chunks_[prev].in_use) {
    RemoveFree(prev);
    MergeNext(prev);
    h = prev;
  }
  InsertFree(h);
}

BfcAllocator::ChunkHandle BfcAllocator::NewChunk() {
  if (!free_handles_.empty()) {
    const ChunkHandle h = free_handles_.back();
    free_handles_.pop_back();
    return h;
  }
  chunks_.emplace_back();
  return static_cast<ChunkHandle>(chunks_.size() - 1);
}

void BfcAllocator::DeleteChunk(ChunkHandle h) {
  chunks_[h] = Chunk();
  free_handles_.push_back(h);
}

BfcAllocator::ChunkHandle BfcAllocator::SplitTail(ChunkHandle h, size_t size) {
  const ChunkHandle tail = NewChunk();  // may move chunks_: index afresh
  Chunk& head = chunks_[h];
  Chunk& rest = chunks_[tail];
  rest.ptr = head.ptr + size;
  rest.size = head.size - size;
  rest.in_use = false;
  rest.prev = h;
  rest.next = head.next;
  if (head.next != kNoChunk) chunks_[head.next].prev = tail;
  head.next = tail;
  head.size = size;
  return tail;
}

void BfcAllocator::MergeNext(ChunkHandle h) {
  const ChunkHandle n = chunks_[h].next;
  chunks_[h].size += chunks_[n].size;
  chunks_[h].next = chunks_[n].next;
  if (chunks_[n].next != kNoChunk) chunks_[chunks_[n].next].prev = h;
  DeleteChunk(n);
}

void BfcAllocator::InsertFree(ChunkHandle h) {
  const Chunk& c = chunks_[h];
  const FreeKey key{c.size, c.ptr, h};
  const int b = BinIndex(c.size);
  nonempty_bins_ |= uint32_t{1} << b;
  std::set<FreeKey>& bin = bins_[b];
  if (spare_nodes_.empty()) {
    bin.insert(key);
    return;
  }
  FreeSet::node_type node = std::move(spare_nodes_.back());
  spare_nodes_.pop_back();
  node.value() = key;
  bin.insert(std::move(node));
}

void BfcAllocator::KeepNode(FreeSet::node_type node) {
  if (spare_nodes_.size() < kMaxSpareNodes) {
    spare_nodes_.push_back(std::move(node));
  }
}

void BfcAllocator::RemoveFree(ChunkHandle h) {
  const Chunk& c = chunks_[h];
  const int b = BinIndex(c.size);
  KeepNode(bins_[b].extract(FreeKey{c.size, c.ptr, h}));
  if (bins_[b].empty()) nonempty_bins_ &= ~(uint32_t{1} << b);
}

size_t BfcAllocator::LargestFreeChunk() const {
  if (nonempty_bins_ == 0) return 0;
  return bins_[31 - __builtin_clz(nonempty_bins_)].rbegin()->size;
}

BfcAllocatorStats BfcAllocator::StatsLocked() const {
  BfcAllocatorStats s;
  s.bytes_in_use = in_use_bytes_;
  s.peak_bytes_in_use = peak_bytes_;
  s.num_allocs = num_allocs_;
  s.num_failed_allocs = num_failed_allocs_;
  s.bytes_reserved = static_cast<int64_t>(reserved_);
  s.num_regions = static_cast<int64_t>(regions_.size());
  s.largest_free_chunk = static_cast<int64_t>(LargestFreeChunk());
  s.bytes_limit = static_cast<int64_t>(limit_);
  const int64_t free_bytes = s.bytes_reserved - s.bytes_in_use;
  s.fragmentation = free_bytes == 0
                        ? 0.0
                        : 1.0 - static_cast<double>(s.largest_free_chunk) /
                                    static_cast<double>(free_bytes);
  return s;
}

BfcAllocatorStats BfcAllocator::Stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return StatsLocked();
}

void BfcAllocator::ResetPeak() {
  std::lock_guard<std::mutex> lock(mu_);
  peak_bytes_ = in_use_bytes_;
}

std::string BfcAllocator::DebugString() const {
  std::lock_guard<std::mutex> lock(mu_);
  const BfcAllocatorStats s = StatsLocked();
  std::string out = absl::StrFormat(
      "%s: %s in use of %s limit (peak %s), %s reserved in %d region(s), "
      "%d allocations (%d failed), largest free chunk %s, fragmentation "
      "%.2f\n",
      options_.name, HumanBytes(s.bytes_in_use), HumanBytes(s.bytes_limit),
      HumanBytes(s.peak_bytes_in_use), HumanBytes(s.bytes_reserved),
      s.num_regions, s.num_allocs, s.num_failed_allocs,
      HumanBytes(s.largest_free_chunk), s.fragmentation);
  struct BinCount {
    int64_t used = 0, used_bytes = 0, free = 0, free_bytes = 0;
  };
  BinCount counts[kNumBins];
  for (const Region& region : regions_) {
    for (ChunkHandle h = region.first; h != kNoChunk; h = chunks_[h].next) {
      const Chunk& c = chunks_[h];
      BinCount& count = counts[BinIndex(c.size)];
      if (c.in_use) {
        ++count.used;
        count.used_bytes += static_cast<int64_t>(c.size);
      } else {
        ++count.free;
        count.free_bytes += static_cast<int64_t>(c.size);
      }
    }
  }
  for (int b = 0; b < kNumBins; ++b) {
    const BinCount& c = counts[b];
    if (c.used == 0 && c.free == 0) continue;
    const std::string range =
        b == kNumBins - 1
            ? absl::StrCat(">= ", HumanBytes(int64_t{256} << b, 0))
            : absl::StrCat(HumanBytes(int64_t{256} << b, 0), "-",
                           HumanBytes(int64_t{256} << (b + 1), 0));
    absl::StrAppendFormat(
        &out, "  bin %2d (%s): %d in use (%s), %d free (%s)\n", b, range,
        c.used, HumanBytes(c.used_bytes), c.free, HumanBytes(c.free_bytes));
  }
  return out;
}

absl::Status BfcAllocator::OutOfMemoryError(absl::string_view node_label,
                                            int64_t requested_bytes) const {
  const BfcAllocatorStats s = Stats();
  std::string state = absl::StrFormat(
      "%s of %s in use", HumanBytes(s.bytes_in_use), HumanBytes(s.bytes_limit));
  // Less reserved than the limit means the SubAllocator (the device itself)
  // ran out first: other processes or contexts hold the rest.
  if (s.bytes_reserved < s.bytes_limit) {
    absl::StrAppend(&state, " (", HumanBytes(s.bytes_reserved),
                    " reserved from the device)");
  }
  const std::string advice =
      requested_bytes > s.bytes_limit
          ? "the request alone is larger than the memory limit: set a larger "
            "limit or make the tensor smaller"
          : "lower the batch size or set a larger memory limit";
  return absl::ResourceExhaustedError(absl::StrFormat(
      "out of memory on %s allocating %s for %s: %s, largest free chunk %s "
      "(fragmentation %.2f); %s",
      options_.name, HumanBytes(requested_bytes, 2), node_label, state,
      HumanBytes(s.largest_free_chunk), s.fragmentation, advice));
}

absl::StatusOr<std::vector<int64_t>> VirtualDeviceLimits(
    int64_t total_free, int n, double memory_fraction,
    const std::vector<int64_t>& explicit_limits) {
  if (n < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "virtual devices: asked for ", n, " devices; ask for at least 1"));
  }
  if (total_free < 0) total_free = 0;
  std::vector<int64_t> limits;
  if (!explicit_limits.empty()) {
    if (static_cast<int>(explicit_limits.size()) != n) {
      return absl::InvalidArgumentError(absl::StrCat(
          "virtual devices: ", explicit_limits.size(),
          " memory limits given for ", n, " devices; give one per device"));
    }
    int64_t sum = 0;
    for (int64_t limit : explicit_limits) {
      const int64_t rounded = static_cast<int64_t>(RoundDownToUnit(limit));
      if (rounded <= 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("virtual devices: memory limit ", limit,
                         " bytes is not positive (at least 256 bytes)"));
      }
      sum += rounded;
      limits.push_back(rounded);
    }
    if (sum > total_free) {
      return absl::ResourceExhaustedError(
          absl::StrCat("virtual devices: limits add up to ", HumanBytes(sum),
                       " but only ", HumanBytes(total_free),
                       " of the physical device is free; give "
                       "smaller limits"));
    }
    return limits;
  }
  if (!(memory_fraction > 0.0 && memory_fraction <= 1.0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("virtual devices: memory fraction ", memory_fraction,
                     " is outside (0, 1]"));
  }
  const int64_t share = static_cast<int64_t>(RoundDownToUnit(
      static_cast<int64_t>(static_cast<double>(total_free) * memory_fraction) /
      n));
  if (share <= 0) {
    return absl::ResourceExhaustedError(
        absl::StrCat("virtual devices: ", HumanBytes(total_free),
                     " free is too little to split into ", n, " devices"));
  }
  limits.assign(n, share);
  return limits;
}

std::string HumanBytes(int64_t bytes, int decimals) {
  static const char* const kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while ((value >= 1024 || value <= -1024) && unit < 4) {
    value /= 1024;
    ++unit;
  }
  if (unit == 0) return absl::StrCat(bytes, " B");
  return absl::StrFormat("%.*f %s", decimals, value, kUnits[unit]);
}

}  // namespace dflow
