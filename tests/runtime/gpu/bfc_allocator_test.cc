// BfcAllocator on host memory: reuse, best fit, splitting and coalescing,
// alignment, the limit, growth, exact statistics, the out-of-memory message,
// a randomized run against a model, concurrent use, VirtualDeviceLimits.
// Nothing here needs a GPU.
#include "runtime/gpu/bfc_allocator.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <map>
#include <memory>
#include <random>
#include <thread>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace dflow {
namespace {

using ::testing::HasSubstr;

constexpr int64_t kKiB = 1024;
constexpr int64_t kMiB = 1024 * 1024;

// Counts the SubAllocator's calls (the counters outlive the allocator, so
// the destructor's frees are seen) and refuses regions over `max_bytes`.
struct SubCounters {
  int allocs = 0;
  int frees = 0;
  int refused = 0;
  std::vector<size_t> sizes;  // of the regions handed out
  size_t max_bytes = SIZE_MAX;
};

class CountingSubAllocator : public SubAllocator {
 public:
  explicit CountingSubAllocator(SubCounters* counters) : c_(counters) {}
  void* Alloc(size_t bytes) override {
    if (bytes > c_->max_bytes) {
      ++c_->refused;
      return nullptr;
    }
    ++c_->allocs;
    c_->sizes.push_back(bytes);
    return host_.Alloc(bytes);
  }
  void Free(void* ptr, size_t bytes) override {
    ++c_->frees;
    host_.Free(ptr, bytes);
  }

 private:
  SubCounters* c_;
  HostSubAllocator host_;
};

std::unique_ptr<BfcAllocator> Make(int64_t limit, bool growth = false,
                                   int64_t initial = 2 * kMiB,
                                   SubCounters* counters = nullptr) {
  BfcAllocatorOptions options;
  options.memory_limit = limit;
  options.allow_growth = growth;
  options.initial_region_bytes = initial;
  options.name = "GPU:0";
  std::unique_ptr<SubAllocator> sub;
  if (counters != nullptr) {
    sub = std::make_unique<CountingSubAllocator>(counters);
  } else {
    sub = std::make_unique<HostSubAllocator>();
  }
  return std::make_unique<BfcAllocator>(std::move(sub), options);
}

char* Alloc(BfcAllocator& a, int64_t bytes) {
  return static_cast<char*>(a.AllocateRaw(kTensorAlignment, bytes));
}

TEST(BfcAllocatorTest, RoundingAndBins) {
  EXPECT_EQ(BfcAllocator::RoundedBytes(0), 256u);
  EXPECT_EQ(BfcAllocator::RoundedBytes(1), 256u);
  EXPECT_EQ(BfcAllocator::RoundedBytes(256), 256u);
  EXPECT_EQ(BfcAllocator::RoundedBytes(257), 512u);
  EXPECT_EQ(BfcAllocator::RoundedBytes(SIZE_MAX), 0u);  // overflow
  EXPECT_EQ(BfcAllocator::BinIndex(256), 0);
  EXPECT_EQ(BfcAllocator::BinIndex(511 & ~255), 0);
  EXPECT_EQ(BfcAllocator::BinIndex(512), 1);
  EXPECT_EQ(BfcAllocator::BinIndex(3072), 3);
  EXPECT_EQ(BfcAllocator::BinIndex(4096), 4);
  EXPECT_EQ(BfcAllocator::BinIndex(size_t{1} << 40),
            BfcAllocator::kNumBins - 1);
}

TEST(BfcAllocatorTest, FreedChunkIsReusedForTheSameSize) {
  auto a = Make(kMiB);
  char* keep = Alloc(*a, 5000);
  char* p = Alloc(*a, 1000);
  ASSERT_NE(p, nullptr);
  a->DeallocateRaw(p, 1000);
  EXPECT_EQ(Alloc(*a, 1000), p);
  EXPECT_EQ(a->Stats().num_regions, 1);
  a->DeallocateRaw(keep, 5000);
}

TEST(BfcAllocatorTest, ReservesNothingUntilTheFirstAllocation) {
  SubCounters counters;
  {
    auto a = Make(kMiB, /*growth=*/false, 2 * kMiB, &counters);
    EXPECT_EQ(a->Stats().bytes_reserved, 0);
    EXPECT_EQ(counters.allocs, 0);
    Alloc(*a, 1);
    EXPECT_EQ(a->Stats().bytes_reserved, kMiB);  // one region: the limit
    EXPECT_EQ(counters.allocs, 1);
  }
  EXPECT_EQ(counters.frees, 1);  // the destructor gives the region back
}

TEST(BfcAllocatorTest, BestFitTakesTheSmallestFreeChunkThatFits) {
  auto a = Make(kMiB);
  // Holes of 4 KiB, 3.5 KiB and 2.5 KiB in address order, kept apart by live
  // 256-byte guards, then the rest of the region free. The last two share a
  // bin, the larger one first: first fit and best fit disagree.
  char* h4 = Alloc(*a, 4096);
  char* g1 = Alloc(*a, 1);
  char* h35 = Alloc(*a, 3584);
  char* g2 = Alloc(*a, 1);
  char* h25 = Alloc(*a, 2560);
  char* g3 = Alloc(*a, 1);
  ASSERT_NE(g3, nullptr);
  a->DeallocateRaw(h4, 4096);
  a->DeallocateRaw(h35, 3584);
  a->DeallocateRaw(h25, 2560);
  EXPECT_EQ(Alloc(*a, 2048), h25);
  EXPECT_EQ(Alloc(*a, 3000), h35);  // 3072
  EXPECT_EQ(Alloc(*a, 3840), h4);
  // Free now: 256 B after h4's chunk, 512 B after each of the others, and
  // the tail. The smallest that fits wins, then the lowest address.
  EXPECT_EQ(Alloc(*a, 200), h4 + 3840);
  EXPECT_EQ(Alloc(*a, 300), h35 + 3072);
  EXPECT_EQ(Alloc(*a, 300), h25 + 2048);
  EXPECT_EQ(Alloc(*a, 300), g3 + 256);  // the tail
  (void)g1;
  (void)g2;
}

TEST(BfcAllocatorTest, SplitsAndCoalescesThreeNeighboursInAnyOrder) {
  std::vector<int> order = {0, 1, 2};
  do {
    SCOPED_TRACE(testing::PrintToString(order));
    auto a = Make(64 * kKiB);
    char* guard = Alloc(*a, kKiB);
    char* p[3];
    for (char*& q : p) q = Alloc(*a, kKiB);
    EXPECT_EQ(p[0], guard + kKiB);  // one region carved in address order
    EXPECT_EQ(p[1], p[0] + kKiB);
    EXPECT_EQ(p[2], p[1] + kKiB);
    char* tail = Alloc(*a, 60 * kKiB);  // the region is now full
    ASSERT_NE(tail, nullptr);
    EXPECT_EQ(Alloc(*a, 1), nullptr);
    for (int i : order) a->DeallocateRaw(p[i], kKiB);
    const BfcAllocatorStats s = a->Stats();
    EXPECT_EQ(s.largest_free_chunk, 3 * kKiB);
    EXPECT_EQ(s.fragmentation, 0.0);
    EXPECT_EQ(Alloc(*a, 3 * kKiB), p[0]);  // only possible as one chunk
    // The region's first and last chunks coalesce with their neighbours too.
    a->DeallocateRaw(guard, kKiB);
    a->DeallocateRaw(tail, 60 * kKiB);
    a->DeallocateRaw(p[0], 3 * kKiB);
    EXPECT_EQ(a->Stats().largest_free_chunk, 64 * kKiB);
    EXPECT_EQ(Alloc(*a, 64 * kKiB), guard);
  } while (std::next_permutation(order.begin(), order.end()));
}

TEST(BfcAllocatorTest, MeetsEveryPowerOfTwoAlignment) {
  auto a = Make(4 * kMiB);
  std::vector<std::pair<void*, size_t>> live;
  for (size_t alignment = 1; alignment <= 64 * 1024; alignment *= 2) {
    // An odd-sized neighbour first, so a large alignment needs padding.
    live.emplace_back(a->AllocateRaw(1, 300), 300);
    void* p = a->AllocateRaw(alignment, 1000);
    ASSERT_NE(p, nullptr) << alignment;
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % std::max<size_t>(alignment, 256),
              0u)
        << alignment;
    std::memset(p, 0xab, 1000);
    live.emplace_back(p, 1000);
  }
  // Padding stays free: only the rounded requests are in use.
  EXPECT_EQ(a->Stats().bytes_in_use,
            static_cast<int64_t>(live.size() / 2) * (512 + 1024));
  for (auto& [p, n] : live) a->DeallocateRaw(p, n);
  EXPECT_EQ(a->Stats().bytes_in_use, 0);
  EXPECT_EQ(a->Stats().largest_free_chunk, 4 * kMiB);
}

TEST(BfcAllocatorTest, RejectsAlignmentThatIsNotAPowerOfTwo) {
  auto a = Make(kMiB);
  EXPECT_EQ(a->AllocateRaw(3, 100), nullptr);
  EXPECT_EQ(a->AllocateRaw(96, 100), nullptr);
  EXPECT_EQ(a->Stats().num_failed_allocs, 2);
  EXPECT_EQ(a->Stats().bytes_reserved, 0);
  EXPECT_NE(a->AllocateRaw(0, 100), nullptr);  // 0 means "any"
}

TEST(BfcAllocatorTest, ZeroBytesGetAUniqueMinimalChunk) {
  // nullptr means out of memory only, so zero bytes get a real chunk.
  auto a = Make(kMiB);
  char* p = Alloc(*a, 0);
  char* q = Alloc(*a, 0);
  ASSERT_NE(p, nullptr);
  ASSERT_NE(q, nullptr);
  EXPECT_NE(p, q);
  EXPECT_EQ(a->Stats().bytes_in_use, 512);
  a->DeallocateRaw(p, 0);
  a->DeallocateRaw(q, 0);
  EXPECT_EQ(a->Stats().bytes_in_use, 0);
}

TEST(BfcAllocatorTest, LimitIsRespectedAndAFailureChangesNothing) {
  SubCounters counters;
  auto a = Make(kMiB, /*growth=*/false, 2 * kMiB, &counters);
  EXPECT_EQ(Alloc(*a, kMiB + 1), nullptr);  // larger than the limit
  EXPECT_EQ(counters.allocs + counters.refused, 0);
  EXPECT_EQ(a->Stats().bytes_reserved, 0);

  char* p = Alloc(*a, kMiB - 256);
  ASSERT_NE(p, nullptr);
  char* q = Alloc(*a, 256);
  ASSERT_NE(q, nullptr);
  const BfcAllocatorStats before = a->Stats();
  EXPECT_EQ(Alloc(*a, 1), nullptr);
  const BfcAllocatorStats after = a->Stats();
  EXPECT_EQ(after.bytes_in_use, before.bytes_in_use);
  EXPECT_EQ(after.bytes_reserved, kMiB);
  EXPECT_EQ(after.num_regions, 1);
  EXPECT_EQ(after.num_allocs, before.num_allocs);
  EXPECT_EQ(after.num_failed_allocs, before.num_failed_allocs + 1);
  EXPECT_EQ(counters.allocs, 1);
  a->DeallocateRaw(q, 256);
  EXPECT_EQ(Alloc(*a, 200), q);  // and the allocator still works
}

TEST(BfcAllocatorTest, ARefusedRegionIsRetriedOnceAtTheRequestedSize) {
  SubCounters counters;
  counters.max_bytes = 64 * kKiB;  // the device has less than the limit
  auto a = Make(kMiB, /*growth=*/false, 2 * kMiB, &counters);
  ASSERT_NE(Alloc(*a, 1000), nullptr);
  EXPECT_EQ(counters.refused, 1);  // the whole limit
  EXPECT_EQ(counters.allocs, 1);   // then 1 KiB
  EXPECT_EQ(a->Stats().bytes_reserved, 1024);
  EXPECT_EQ(Alloc(*a, 100 * kKiB), nullptr);  // refused twice: no region
  EXPECT_EQ(counters.refused, 3);
  EXPECT_EQ(a->Stats().bytes_reserved, 1024);
  EXPECT_THAT(a->OutOfMemoryError("node 'y' (Conv2D)", 100 * kKiB).message(),
              HasSubstr("1.0 KiB of 1.0 MiB in use (1.0 KiB reserved from the "
                        "device)"));
}

TEST(BfcAllocatorTest, GrowthDoublesRegionsUpToTheLimit) {
  SubCounters counters;
  auto a = Make(kMiB, /*growth=*/true, 64 * kKiB, &counters);
  ASSERT_NE(Alloc(*a, 60 * kKiB), nullptr);
  EXPECT_EQ(a->Stats().bytes_reserved, 64 * kKiB);
  ASSERT_NE(Alloc(*a, 60 * kKiB), nullptr);  // 4 KiB left: a new region
  EXPECT_EQ(a->Stats().bytes_reserved, (64 + 128) * kKiB);
  ASSERT_NE(Alloc(*a, 100 * kKiB), nullptr);
  EXPECT_EQ(a->Stats().bytes_reserved, (64 + 128 + 256) * kKiB);
  // 512 KiB is next; 576 KiB remain under the limit.
  ASSERT_NE(Alloc(*a, 300 * kKiB), nullptr);
  EXPECT_EQ(a->Stats().bytes_reserved, (64 + 128 + 256 + 512) * kKiB);
  // Free: 4, 68, 156 and 212 KiB. These two fit without a region.
  ASSERT_NE(Alloc(*a, 200 * kKiB), nullptr);
  ASSERT_NE(Alloc(*a, 100 * kKiB), nullptr);
  EXPECT_EQ(a->Stats().num_regions, 4);
  EXPECT_EQ(a->Stats().largest_free_chunk, 68 * kKiB);
  // 64 KiB remain under the limit: too little for 100 KiB.
  EXPECT_EQ(Alloc(*a, 100 * kKiB), nullptr);
  ASSERT_NE(Alloc(*a, 64 * kKiB), nullptr);  // the 68 KiB chunk
  ASSERT_NE(Alloc(*a, 64 * kKiB), nullptr);  // the last region
  EXPECT_EQ(a->Stats().bytes_reserved, kMiB);
  EXPECT_EQ(counters.sizes,
            (std::vector<size_t>{64 * kKiB, 128 * kKiB, 256 * kKiB, 512 * kKiB,
                                 64 * kKiB}));
}

TEST(BfcAllocatorTest, GrowthDoublesPastALargeRequest) {
  SubCounters counters;
  auto a = Make(4 * kMiB, /*growth=*/true, 64 * kKiB, &counters);
  ASSERT_NE(Alloc(*a, 300 * kKiB), nullptr);  // 64 -> 128 -> 256 -> 512 KiB
  ASSERT_NE(Alloc(*a, 300 * kKiB), nullptr);  // then 1 MiB
  EXPECT_EQ(counters.sizes, (std::vector<size_t>{512 * kKiB, 1024 * kKiB}));
}

TEST(BfcAllocatorTest, StatisticsAreExactForAScriptedSequence) {
  auto a = Make(64 * kKiB);
  char* p1 = Alloc(*a, 1000);   // 1024
  char* p2 = Alloc(*a, 3000);   // 3072
  char* p3 = Alloc(*a, 256);    // 256
  char* p4 = Alloc(*a, 10000);  // 10240
  BfcAllocatorStats s = a->Stats();
  EXPECT_EQ(s.bytes_in_use, 14592);
  EXPECT_EQ(s.peak_bytes_in_use, 14592);
  EXPECT_EQ(s.num_allocs, 4);
  EXPECT_EQ(s.bytes_reserved, 65536);
  EXPECT_EQ(s.bytes_limit, 65536);
  EXPECT_EQ(s.largest_free_chunk, 65536 - 14592);
  EXPECT_EQ(s.fragmentation, 0.0);

  a->DeallocateRaw(p2, 3000);
  s = a->Stats();
  EXPECT_EQ(s.bytes_in_use, 11520);
  EXPECT_EQ(s.peak_bytes_in_use, 14592);
  EXPECT_EQ(s.largest_free_chunk, 50944);
  EXPECT_DOUBLE_EQ(s.fragmentation, 1.0 - 50944.0 / 54016.0);

  char* p5 = Alloc(*a, 2048);  // best fit: p2's chunk, split 2048 + 1024
  EXPECT_EQ(p5, p2);
  s = a->Stats();
  EXPECT_EQ(s.bytes_in_use, 13568);
  EXPECT_EQ(s.num_allocs, 5);
  EXPECT_DOUBLE_EQ(s.fragmentation, 1.0 - 50944.0 / 51968.0);

  a->ResetPeak();
  EXPECT_EQ(a->Stats().peak_bytes_in_use, 13568);
  a->DeallocateRaw(p4, 10000);  // merges with the free tail
  s = a->Stats();
  EXPECT_EQ(s.largest_free_chunk, 50944 + 10240);
  EXPECT_DOUBLE_EQ(s.fragmentation, 1.0 - 61184.0 / 62208.0);
  EXPECT_EQ(s.peak_bytes_in_use, 13568);

  const std::string debug = a->DebugString();
  EXPECT_THAT(debug, HasSubstr("GPU:0: " + HumanBytes(3328) +
                               " in use of 64.0 KiB limit"));
  EXPECT_THAT(debug, HasSubstr("bin  0 (256 B-512 B): 1 in use (256 B), "
                               "0 free (0 B)"));
  EXPECT_THAT(debug, HasSubstr("bin  2 (1 KiB-2 KiB): 1 in use (1.0 KiB), "
                               "1 free (1.0 KiB)"));
  EXPECT_THAT(debug, HasSubstr("bin  3 (2 KiB-4 KiB): 1 in use (2.0 KiB), "
                               "0 free (0 B)"));
  EXPECT_THAT(debug, HasSubstr("bin  7 (32 KiB-64 KiB): 0 in use (0 B), "
                               "1 free (" +
                               HumanBytes(61184) + ")"));
  for (char* p : {p1, p3, p5}) a->DeallocateRaw(p, 0);
  s = a->Stats();
  EXPECT_EQ(s.bytes_in_use, 0);
  EXPECT_EQ(s.largest_free_chunk, 65536);
  EXPECT_EQ(s.fragmentation, 0.0);
}

TEST(BfcAllocatorTest, IgnoresNullAndForeignPointers) {
  auto a = Make(kMiB);
  char* p = Alloc(*a, 1000);
  int on_stack = 0;
  a->DeallocateRaw(nullptr, 0);
  a->DeallocateRaw(&on_stack, sizeof(on_stack));
  a->DeallocateRaw(p + 256, 10);  // inside a chunk, not its start
  EXPECT_EQ(a->Stats().bytes_in_use, 1024);
  a->DeallocateRaw(p, 1000);
  a->DeallocateRaw(p, 1000);  // twice: the second is ignored
  EXPECT_EQ(a->Stats().bytes_in_use, 0);
}

TEST(BfcAllocatorTest, OutOfMemoryErrorNamesNodeRequestAndState) {
  auto a = Make(4 * kMiB);
  char* p[4];
  for (char*& q : p) q = Alloc(*a, kMiB);
  a->DeallocateRaw(p[1], kMiB);
  EXPECT_EQ(Alloc(*a, kMiB + kMiB / 2), nullptr);
  const absl::Status status =
      a->OutOfMemoryError("node 'x' (MatMul)", kMiB + kMiB / 2);
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(status.message(),
            "out of memory on GPU:0 allocating 1.50 MiB for node 'x' (MatMul): "
            "3.0 MiB of 4.0 MiB in use, largest free chunk 1.0 MiB "
            "(fragmentation 0.00); lower the batch size or set a larger "
            "memory limit");

  // Free memory in two pieces: fragmentation shows.
  a->DeallocateRaw(p[3], kMiB);
  char* small = Alloc(*a, 512 * kKiB);  // best fit at p[1]: 512 KiB remain
  EXPECT_EQ(small, p[1]);
  EXPECT_THAT(a->OutOfMemoryError("node 'x' (MatMul)", 2 * kMiB).message(),
              HasSubstr("2.5 MiB of 4.0 MiB in use, largest free chunk 1.0 "
                        "MiB (fragmentation 0.33)"));
  EXPECT_THAT(a->OutOfMemoryError("node 'big' (Fill)", 5 * kMiB).message(),
              HasSubstr("allocating 5.00 MiB for node 'big' (Fill)"));
  EXPECT_THAT(a->OutOfMemoryError("node 'big' (Fill)", 5 * kMiB).message(),
              HasSubstr("the request alone is larger than the memory limit"));
}

TEST(BfcAllocatorTest, HumanBytes) {
  EXPECT_EQ(HumanBytes(0), "0 B");
  EXPECT_EQ(HumanBytes(1023), "1023 B");
  EXPECT_EQ(HumanBytes(1536, 2), "1.50 KiB");
  EXPECT_EQ(HumanBytes(int64_t{8} << 30), "8.0 GiB");
}

// Random allocations and frees against a model of the live blocks: blocks
// never overlap, their contents survive, and bytes_in_use is the sum of the
// rounded sizes.
void RandomRun(bool growth, uint32_t seed) {
  auto a = Make(256 * kMiB, growth, 1 * kMiB);
  std::mt19937 rng(seed);
  using Live = std::map<char*, std::pair<size_t, uint32_t>>;
  Live live;  // ptr -> (bytes, tag)
  int64_t model_in_use = 0;
  const auto log_size = [&] {
    // Log-uniform over 1 B .. 1 MiB: mostly small, some large.
    std::uniform_real_distribution<double> e(0, 20);
    return static_cast<size_t>(std::exp2(e(rng)));
  };
  const auto check_and_free = [&](Live::iterator it) {
    char* p = it->first;
    const size_t n = it->second.first;
    const uint32_t tag = it->second.second;
    uint32_t head, tail;
    std::memcpy(&head, p, sizeof(head));
    std::memcpy(&tail, p + BfcAllocator::RoundedBytes(n) - sizeof(tail),
                sizeof(tail));
    EXPECT_EQ(head, tag);
    EXPECT_EQ(tail, tag);
    a->DeallocateRaw(p, n);
    model_in_use -= static_cast<int64_t>(BfcAllocator::RoundedBytes(n));
    live.erase(it);
  };
  for (int step = 0; step < 6000; ++step) {
    const bool alloc = live.size() < 8 || (live.size() < 160 && rng() % 2 == 0);
    if (alloc) {
      const size_t n = log_size();
      const size_t rounded = BfcAllocator::RoundedBytes(n);
      char* p = Alloc(*a, n);
      ASSERT_NE(p, nullptr) << "step " << step << "\n" << a->DebugString();
      auto next = live.lower_bound(p);
      if (next != live.end()) {
        ASSERT_LE(p + rounded, next->first);
      }
      if (next != live.begin()) {
        auto prev = std::prev(next);
        ASSERT_LE(prev->first + BfcAllocator::RoundedBytes(prev->second.first),
                  p);
      }
      const uint32_t tag = static_cast<uint32_t>(rng());
      std::memcpy(p, &tag, sizeof(tag));
      std::memcpy(p + rounded - sizeof(tag), &tag, sizeof(tag));
      live[p] = {n, tag};
      model_in_use += static_cast<int64_t>(rounded);
    } else {
      auto it = live.begin();
      std::advance(it, rng() % live.size());
      check_and_free(it);
    }
    ASSERT_EQ(a->Stats().bytes_in_use, model_in_use) << "step " << step;
  }
  while (!live.empty()) check_and_free(live.begin());
  const BfcAllocatorStats s = a->Stats();
  EXPECT_EQ(s.bytes_in_use, 0);
  EXPECT_EQ(s.num_failed_allocs, 0);
  if (!growth) {
    // Everything coalesced back into the one region.
    EXPECT_EQ(s.largest_free_chunk, s.bytes_reserved);
    EXPECT_EQ(s.fragmentation, 0.0);
  }
}

TEST(BfcAllocatorTest, RandomAllocationsMatchAModel) { RandomRun(false, 1); }
TEST(BfcAllocatorTest, RandomAllocationsMatchAModelWithGrowth) {
  RandomRun(true, 2);
}

TEST(BfcAllocatorTest, FourThreadsAllocateAndFreeConcurrently) {
  auto a = Make(64 * kMiB, /*growth=*/true, kMiB);
  constexpr int kThreads = 4;
  constexpr int kSteps = 3000;
  std::atomic<int> failures{0};
  std::atomic<int64_t> allocations{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937 rng(100 + t);
      std::vector<std::pair<unsigned char*, size_t>> mine;
      for (int i = 0; i < kSteps; ++i) {
        if (mine.size() < 4 || (mine.size() < 64 && rng() % 2 == 0)) {
          const size_t n = 1 + rng() % (64 * 1024);
          auto* p = static_cast<unsigned char*>(a->AllocateRaw(64, n));
          if (p == nullptr) {
            ++failures;
            continue;
          }
          ++allocations;
          std::memset(p, t + 1, n);
          mine.emplace_back(p, n);
        } else {
          const size_t k = rng() % mine.size();
          auto [p, n] = mine[k];
          for (size_t j = 0; j < n; j += 97) {
            if (p[j] != t + 1) ++failures;  // another thread wrote here
          }
          a->DeallocateRaw(p, n);
          mine[k] = mine.back();
          mine.pop_back();
        }
      }
      for (auto [p, n] : mine) a->DeallocateRaw(p, n);
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  const BfcAllocatorStats s = a->Stats();
  EXPECT_EQ(s.bytes_in_use, 0);
  EXPECT_EQ(s.num_allocs, allocations.load());
  EXPECT_LE(s.bytes_reserved, 64 * kMiB);
}

TEST(VirtualDeviceLimitsTest, SplitsAFractionEvenly) {
  auto limits = VirtualDeviceLimits(80 * kMiB, 2, 0.5);
  ASSERT_TRUE(limits.ok()) << limits.status();
  EXPECT_EQ(*limits, (std::vector<int64_t>{20 * kMiB, 20 * kMiB}));
  // Shares round down to 256 bytes.
  limits = VirtualDeviceLimits(10000, 3, 1.0);
  ASSERT_TRUE(limits.ok());
  EXPECT_EQ(*limits, (std::vector<int64_t>{3328, 3328, 3328}));
}

TEST(VirtualDeviceLimitsTest, UsesExplicitLimits) {
  auto limits = VirtualDeviceLimits(80 * kMiB, 2, 0.9, {30 * kMiB, 1000});
  ASSERT_TRUE(limits.ok()) << limits.status();
  EXPECT_EQ(*limits, (std::vector<int64_t>{30 * kMiB, 768}));
}

TEST(VirtualDeviceLimitsTest, Errors) {
  EXPECT_THAT(VirtualDeviceLimits(kMiB, 0).status().message(),
              HasSubstr("at least 1"));
  EXPECT_THAT(VirtualDeviceLimits(kMiB, 2, 1.5).status().message(),
              HasSubstr("outside (0, 1]"));
  EXPECT_THAT(VirtualDeviceLimits(kMiB, 2, 0.0).status().message(),
              HasSubstr("outside (0, 1]"));
  EXPECT_THAT(VirtualDeviceLimits(kMiB, 3, 0.9, {1, 2}).status().message(),
              HasSubstr("2 memory limits given for 3 devices"));
  EXPECT_THAT(VirtualDeviceLimits(kMiB, 1, 0.9, {100}).status().message(),
              HasSubstr("not positive"));
  const absl::Status too_much =
      VirtualDeviceLimits(kMiB, 2, 0.9, {kMiB, 256}).status();
  EXPECT_EQ(too_much.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(too_much.message(),
              HasSubstr("add up to 1.0 MiB but only 1.0 MiB"));
  EXPECT_THAT(VirtualDeviceLimits(1000, 8, 0.9).status().message(),
              HasSubstr("too little to split into 8 devices"));
}

}  // namespace
}  // namespace dflow
