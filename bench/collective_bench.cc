// CPU all-reduce throughput: 4 members (logical CPU devices) summing float
// tensors of 1 KB to 64 MB through the CollectiveExecutor, against memcpy
// of the same size on one thread.
//
// bytes_per_second is the tensor's bytes per second of a whole collective
// (NCCL's "algorithm bandwidth"): the time from the first member's submit to
// the last member's callback. `bus_GBps` scales it by 2(n-1)/n, the bytes a
// ring moves per member, NCCL's bus bandwidth. An all-reduce of n members in
// one memory reads n tensors and writes n, so it costs at least n memcpys
// of the tensor: `vs_memcpy` is the all-reduce's time over n memcpy times
// (1.0 would be memory-bound on one core; below 1 means the pool's threads
// helped). The memcpy rows give the machine's copy bandwidth.
//
//   bazel run //bench:collective_bench
//   bazel run //bench:collective_bench -- --benchmark_filter=AllReduce
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "graph/tensor.h"
#include "runtime/collective_executor.h"
#include "runtime/thread_pool.h"

namespace dflow {
namespace {

constexpr int kMembers = 4;

class Latch {
 public:
  void Reset(int n) { n_ = n; }
  void CountDown() {
    std::lock_guard<std::mutex> lock(mu_);
    if (--n_ == 0) cv_.notify_all();
  }
  void Wait() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [this] { return n_ == 0; });
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  int n_ = 0;
};

Tensor Filled(int64_t n, float v) {
  Tensor t(DT_FLOAT, TensorShape({n}));
  for (float& x : t.flat<float>()) x = v;
  return t;
}

// Seconds per memcpy of `bytes`, measured here for the vs_memcpy ratio.
double MemcpySeconds(int64_t bytes) {
  std::vector<char> a(bytes, 1), b(bytes, 0);
  const int reps = static_cast<int>(std::max<int64_t>(1, (256 << 20) / bytes));
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < reps; ++i) {
    std::memcpy(b.data(), a.data(), bytes);
    benchmark::DoNotOptimize(b.data());
    benchmark::ClobberMemory();
  }
  const std::chrono::duration<double> d =
      std::chrono::steady_clock::now() - start;
  return d.count() / reps;
}

void BM_AllReduce(benchmark::State& state) {
  const int64_t bytes = state.range(0);
  const int64_t n = bytes / static_cast<int64_t>(sizeof(float));
  auto exec = CollectiveExecutor::Create(ThreadPool::Shared());
  std::vector<Tensor> inputs, outputs;
  for (int i = 0; i < kMembers; ++i) {
    inputs.push_back(Filled(n, 1.0f + i));
    outputs.push_back(Filled(n, 0.0f));
  }
  Latch latch;
  absl::Status failure;
  std::mutex failure_mu;
  int64_t step = 0;
  const auto start = std::chrono::steady_clock::now();
  for (auto _ : state) {
    latch.Reset(kMembers);
    ++step;
    for (int i = 0; i < kMembers; ++i) {
      CollectiveRequest r;
      r.kind = CollectiveKind::kAllReduce;
      r.group_size = kMembers;
      r.group_key = 1;
      r.instance_key = 1;
      r.step_id = step;
      r.device = absl::StrCat("/job:localhost/replica:0/task:0/device:CPU:", i);
      r.input = inputs[i];
      r.output = outputs[i];
      r.done = [&](const absl::Status& s) {
        if (!s.ok()) {
          std::lock_guard<std::mutex> lock(failure_mu);
          failure = s;
        }
        latch.CountDown();
      };
      exec->Submit(std::move(r));
    }
    latch.Wait();
  }
  const std::chrono::duration<double> elapsed =
      std::chrono::steady_clock::now() - start;
  if (!failure.ok()) {
    state.SkipWithError(std::string(failure.message()).c_str());
    return;
  }
  if (n > 0 && outputs[kMembers - 1].flat<float>()[n - 1] != 10.0f) {
    state.SkipWithError("wrong sum");
    return;
  }
  state.SetBytesProcessed(state.iterations() * bytes);
  const double per_op =
      elapsed.count() / static_cast<double>(std::max<int64_t>(
                            1, static_cast<int64_t>(state.iterations())));
  const double memcpy_seconds = MemcpySeconds(bytes);
  state.counters["bus_GBps"] = static_cast<double>(bytes) * 2 * (kMembers - 1) /
                               kMembers / per_op * 1e-9;
  state.counters["memcpy_GBps"] =
      static_cast<double>(bytes) / memcpy_seconds * 1e-9;
  state.counters["vs_memcpy"] = per_op / (kMembers * memcpy_seconds);
}

void BM_Memcpy(benchmark::State& state) {
  const int64_t bytes = state.range(0);
  std::vector<char> a(bytes, 1), b(bytes, 0);
  for (auto _ : state) {
    std::memcpy(b.data(), a.data(), bytes);
    benchmark::DoNotOptimize(b.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * bytes);
}

// 1 KB to 64 MB, by 8 (then 64 MB itself).
void Sizes(benchmark::internal::Benchmark* b) {
  for (int64_t bytes = 1 << 10; bytes < (64 << 20); bytes *= 8) b->Arg(bytes);
  b->Arg(64 << 20);
}

BENCHMARK(BM_AllReduce)
    ->Apply(Sizes)
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Memcpy)->Apply(Sizes)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace dflow

BENCHMARK_MAIN();
