// BfcAllocator: a caching best-fit allocator with coalescing ("best-fit with
// coalescing", TensorFlow's GPU allocator design) for device memory.
//
// cudaMalloc and cudaFree are slow and synchronize the device, so a GPU
// device asks its SubAllocator for a few large regions and carves tensors out
// of them. Every size is rounded up to 256 bytes; a region is a list of
// chunks (in use or free) in address order; free chunks sit in bins by size
// class (powers of two from 256 bytes), each bin ordered by (size, address).
// An allocation takes the smallest free chunk that fits, searching from the
// bin of its size upwards, and splits off the rest; a free merges the chunk
// with free neighbours in the same region, so freeing three neighbours in any
// order leaves one chunk. Memory is never handed back to the SubAllocator
// before the allocator dies: it is a cache with a hard limit.
//
// The allocator knows nothing about CUDA: the GPU device plugs in a
// cudaMalloc SubAllocator, tests and the host use HostSubAllocator. Virtual
// GPUs (one physical GPU split into N logical devices) are N BfcAllocators
// over the same physical device, each with a limit from VirtualDeviceLimits.
#ifndef DFLOW_RUNTIME_GPU_BFC_ALLOCATOR_H_
#define DFLOW_RUNTIME_GPU_BFC_ALLOCATOR_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "graph/allocator.h"

namespace dflow {

// Where a BfcAllocator's regions come from (cudaMalloc on a GPU, the heap in
// tests). Regions are large and rare, so this interface may be slow.
class SubAllocator {
 public:
  virtual ~SubAllocator() = default;
  // Returns `bytes` bytes aligned to at least BfcAllocator::kMinAllocationSize,
  // or nullptr when the memory is not there.
  virtual void* Alloc(size_t bytes) = 0;
  // `ptr` came from Alloc with this `bytes`.
  virtual void Free(void* ptr, size_t bytes) = 0;
};

// Host memory from aligned_alloc: what tests and host-only builds manage.
class HostSubAllocator : public SubAllocator {
 public:
  void* Alloc(size_t bytes) override;
  void Free(void* ptr, size_t bytes) override;
};

struct BfcAllocatorOptions {
  // Hard cap on the bytes reserved from the SubAllocator (rounded down to
  // kMinAllocationSize).
  int64_t memory_limit = 0;
  // false: the first allocation reserves one region of the whole limit (one
  // cudaMalloc, no fragmentation across regions; TensorFlow's default).
  // true: regions start at `initial_region_bytes` and double each time the
  // allocator runs out, up to the limit, so a process only holds what it
  // uses (friendlier when the GPU is shared).
  bool allow_growth = false;
  int64_t initial_region_bytes = int64_t{2} << 20;
  // Used by Name() and messages, e.g. "GPU:0".
  std::string name = "bfc";
};

struct BfcAllocatorStats {
  int64_t bytes_in_use = 0;       // chunk bytes handed out (rounded sizes)
  int64_t peak_bytes_in_use = 0;  // since construction or ResetPeak()
  int64_t num_allocs = 0;         // successful allocations, cumulative
  int64_t num_failed_allocs = 0;  // requests answered with nullptr
  int64_t bytes_reserved = 0;     // sum of regions' sizes
  int64_t num_regions = 0;
  int64_t largest_free_chunk = 0;
  int64_t bytes_limit = 0;
  // 1 - largest_free_chunk / free bytes (free = reserved - in use): 0 when
  // the free memory is one chunk (or there is none), near 1 when it is
  // scattered in small pieces.
  double fragmentation = 0;
};

class BfcAllocator : public Allocator {
 public:
  // Every chunk's size and start are multiples of this.
  static constexpr size_t kMinAllocationSize = 256;
  // Bin b holds free chunks of [256 << b, 256 << (b + 1)) bytes; the last
  // bin holds everything larger.
  static constexpr int kNumBins = 21;

  BfcAllocator(std::unique_ptr<SubAllocator> sub_allocator,
               BfcAllocatorOptions options);
  // Returns every region to the SubAllocator; chunks still in use are lost.
  ~BfcAllocator() override;
  BfcAllocator(const BfcAllocator&) = delete;
  BfcAllocator& operator=(const BfcAllocator&) = delete;

  // Thread-safe. Returns nullptr, leaving the allocator as it was, when no
  // free chunk fits and no region can be added within the limit (there is
  // no retry and no collection of free regions), or when `alignment` is not
  // a power of two. Chunks are 256-byte aligned; a larger alignment is met by
  // splitting off the chunk's front. A zero-byte request gets a unique
  // 256-byte chunk like a one-byte request: nullptr means out of memory and
  // nothing else.
  void* AllocateRaw(size_t alignment, size_t bytes) override;
  // Thread-safe; `bytes` is not needed (the chunk knows its size). nullptr
  // and pointers this allocator did not hand out are ignored.
  void DeallocateRaw(void* ptr, size_t bytes) override;
  std::string Name() const override { return options_.name; }

  BfcAllocatorStats Stats() const;
  // Starts a new peak measurement from the current bytes in use.
  void ResetPeak();
  // One line of totals, then one line per non-empty bin: chunks and bytes in
  // use and free.
  std::string DebugString() const;

  // The error for a node whose allocation of `requested_bytes` failed here:
  // "out of memory on GPU:0 allocating 1.50 MiB for node 'x' (MatMul): 7.9 GiB
  // of 8.0 GiB in use, largest free chunk 1.0 MiB (fragmentation 0.37); lower
  // the batch size or set a larger memory limit". `node_label` is
  // NodeLabel(name, op) from graph/node_def_util.h.
  absl::Status OutOfMemoryError(absl::string_view node_label,
                                int64_t requested_bytes) const;

  // `bytes` rounded up to kMinAllocationSize (a zero-byte request takes one
  // unit); 0 when that would overflow.
  static size_t RoundedBytes(size_t bytes);
  static int BinIndex(size_t rounded_bytes);

 private:
  using ChunkHandle = int;
  static constexpr ChunkHandle kNoChunk = -1;

  struct Chunk {
    char* ptr = nullptr;
    size_t size = 0;
    bool in_use = false;
    ChunkHandle prev = kNoChunk;  // neighbours in the same region
    ChunkHandle next = kNoChunk;
  };
  // A free chunk's key in its bin: best fit first, then lowest address.
  struct FreeKey {
    size_t size;
    const char* ptr;
    ChunkHandle handle;
    bool operator<(const FreeKey& o) const {
      return size != o.size ? size < o.size : ptr < o.ptr;
    }
  };
  using FreeSet = std::set<FreeKey>;
  struct Region {
    char* base;
    size_t size;
    ChunkHandle first;
  };

  // All with mu_ held.
  void* FindAndTake(size_t rounded, size_t alignment);
  bool Extend(size_t min_bytes);
  ChunkHandle NewChunk();
  void DeleteChunk(ChunkHandle h);
  // Shrinks `h` to `size` bytes; returns the rest, a new free chunk that is
  // not in a bin yet.
  ChunkHandle SplitTail(ChunkHandle h, size_t size);
  void InsertFree(ChunkHandle h);
  void RemoveFree(ChunkHandle h);
  // Keeps an extracted bin node for the next InsertFree: a split or merge
  // then moves a node between bins instead of freeing and allocating one
  // (a third of a fixed-size alloc/free pair's time).
  void KeepNode(FreeSet::node_type node);
  // Merges `h`'s successor into `h` (both free, neither binned).
  void MergeNext(ChunkHandle h);
  size_t LargestFreeChunk() const;
  BfcAllocatorStats StatsLocked() const;

  const std::unique_ptr<SubAllocator> sub_allocator_;
  const BfcAllocatorOptions options_;
  const size_t limit_;

  mutable std::mutex mu_;  // std::mutex: see runtime/variables.h
  std::vector<Chunk> chunks_;
  std::vector<ChunkHandle> free_handles_;
  FreeSet bins_[kNumBins];
  // Bit b set when bins_[b] is not empty: the search skips empty bins.
  uint32_t nonempty_bins_ = 0;
  static_assert(kNumBins <= 32, "nonempty_bins_ has 32 bits");
  static constexpr size_t kMaxSpareNodes = 8;
  std::vector<FreeSet::node_type> spare_nodes_;
  absl::flat_hash_map<const void*, ChunkHandle> in_use_;
  std::vector<Region> regions_;
  size_t next_region_bytes_ = 0;  // with allow_growth
  size_t reserved_ = 0;
  int64_t in_use_bytes_ = 0;
  int64_t peak_bytes_ = 0;
  int64_t num_allocs_ = 0;
  int64_t num_failed_allocs_ = 0;
};

// The memory limits of `n` virtual devices on one physical device with
// `total_free` free bytes (TensorFlow's virtual GPUs): with
// `explicit_limits` empty, each gets an equal share of `memory_fraction` of
// the free memory (leave some to the CUDA context, cuBLAS/cuDNN workspaces
// and other processes); otherwise `explicit_limits` (n of them) are used as
// given. Limits are rounded down to 256 bytes. Errors: n < 1, a fraction
// outside (0, 1], a count that is not n, a limit <= 0, explicit limits
// summing to more than `total_free`, or a share that rounds to nothing.
absl::StatusOr<std::vector<int64_t>> VirtualDeviceLimits(
    int64_t total_free, int n, double memory_fraction = 0.9,
    const std::vector<int64_t>& explicit_limits = {});

// "1.50 MiB" (B, KiB, MiB, GiB, TiB) with `decimals` decimals; bytes below
// 1 KiB are written as an integer ("256 B").
std::string HumanBytes(int64_t bytes, int decimals = 1);

}  // namespace dflow

#endif  // DFLOW_RUNTIME_GPU_BFC_ALLOCATOR_H_
