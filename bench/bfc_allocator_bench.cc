// BfcAllocator's bookkeeping cost: allocate/free pairs through the caching
// best-fit allocator (on host memory) against std::malloc/free and against
// dflow's default CPU allocator (malloc for small blocks, posix_memalign for
// large ones).
//
// Fixed: one size allocated and freed at once (the best case of any cache).
// Mixed: a window of 64 live blocks of log-uniform sizes 1 B - 1 MiB; each
// pair frees the oldest block and allocates the next size, the pattern of
// an executor's tensors. Memory is not touched, so this measures the
// allocators' own work (glibc serves large blocks with mmap/munmap, which is
// what cudaMalloc-per-tensor would resemble and what a BFC cache avoids).
// items_per_second is pairs per second. Threads share one allocator, so the
// multi-threaded rows show the cost of the BFC's single mutex.
//
//   bazel run //bench:bfc_allocator_bench
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <random>
#include <vector>

#include "benchmark/benchmark.h"
#include "graph/allocator.h"
#include "runtime/gpu/bfc_allocator.h"

namespace dflow {
namespace {

enum Kind { kBfc = 0, kMalloc = 1, kDefaultCpu = 2 };
const char* const kKindNames[] = {"bfc", "malloc", "default_cpu"};

// Plain malloc/free behind the Allocator interface (alignment ignored:
// malloc's 16 bytes), so every row goes through one virtual call.
class MallocAllocator : public Allocator {
 public:
  void* AllocateRaw(size_t, size_t bytes) override {
    return std::malloc(bytes);
  }
  void DeallocateRaw(void* ptr, size_t) override { std::free(ptr); }
  std::string Name() const override { return "malloc"; }
};

// One allocator of each kind for the whole process: benchmark threads must
// share it, and a BFC region reserved once stays warm across runs.
Allocator* Get(int kind) {
  static Allocator* const bfc = [] {
    BfcAllocatorOptions options;
    options.memory_limit = int64_t{1} << 30;
    options.name = "bench";
    return new BfcAllocator(std::make_unique<HostSubAllocator>(), options);
  }();
  static Allocator* const plain = new MallocAllocator();
  switch (kind) {
    case kBfc:
      return bfc;
    case kMalloc:
      return plain;
    default:
      return DefaultCpuAllocator();
  }
}

void BM_FixedSize(benchmark::State& state) {
  Allocator* a = Get(static_cast<int>(state.range(0)));
  const size_t bytes = static_cast<size_t>(state.range(1));
  for (auto _ : state) {
    void* p = a->AllocateRaw(kTensorAlignment, bytes);
    benchmark::DoNotOptimize(p);
    a->DeallocateRaw(p, bytes);
  }
  state.SetItemsProcessed(state.iterations());
  state.SetLabel(kKindNames[state.range(0)]);
}

void BM_MixedSizes(benchmark::State& state) {
  Allocator* a = Get(static_cast<int>(state.range(0)));
  constexpr int kWindow = 64;
  constexpr int kSizes = 4096;
  std::mt19937 rng(7 + state.thread_index());
  std::uniform_real_distribution<double> log2_size(0, 20);
  std::vector<size_t> sizes(kSizes);
  for (size_t& s : sizes) s = static_cast<size_t>(std::exp2(log2_size(rng)));
  std::vector<std::pair<void*, size_t>> live(kWindow, {nullptr, 0});
  int next = 0;
  int slot = 0;
  for (auto _ : state) {
    auto& [p, n] = live[slot];
    if (p != nullptr) a->DeallocateRaw(p, n);
    n = sizes[next];
    p = a->AllocateRaw(kTensorAlignment, n);
    if (p == nullptr) {
      state.SkipWithError("allocation failed");
      break;
    }
    next = (next + 1) % kSizes;
    slot = (slot + 1) % kWindow;
  }
  for (auto& [p, n] : live) {
    if (p != nullptr) a->DeallocateRaw(p, n);
  }
  state.SetItemsProcessed(state.iterations());
  state.SetLabel(kKindNames[state.range(0)]);
}

BENCHMARK(BM_FixedSize)
    ->ArgNames({"kind", "bytes"})
    ->ArgsProduct({{kBfc, kMalloc, kDefaultCpu}, {256, 64 << 10, 4 << 20}});
BENCHMARK(BM_MixedSizes)
    ->ArgNames({"kind"})
    ->DenseRange(kBfc, kDefaultCpu)
    ->Threads(1)
    ->Threads(2)
    ->UseRealTime();

}  // namespace
}  // namespace dflow

BENCHMARK_MAIN();
