#include "runtime/thread_pool.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <thread>

#define EIGEN_USE_THREADS
#include "unsupported/Eigen/CXX11/Tensor"
#include "unsupported/Eigen/CXX11/ThreadPool"

namespace dflow {

namespace {

// Runs every task inline: the pool of a one-core (or DFLOW_NUM_THREADS=1)
// process, where handing work to another thread only adds latency.
class InlinePool : public Eigen::ThreadPoolInterface {
 public:
  void Schedule(std::function<void()> fn) override { fn(); }
  int NumThreads() const override { return 1; }
  int CurrentThreadId() const override { return 0; }
};

int DefaultThreads() {
  if (const char* env = std::getenv("DFLOW_NUM_THREADS")) {
    const int n = std::atoi(env);
    if (n > 0) return std::min(n, ThreadPool::kMaxThreads);
  }
  return std::max(1u, std::thread::hardware_concurrency());
}

}  // namespace

ThreadPool::ThreadPool(int num_threads)
    : num_threads_(num_threads > 0 ? std::min(num_threads, kMaxThreads)
                                   : DefaultThreads()) {
  if (num_threads_ == 1) {
    pool_ = std::make_unique<InlinePool>();
  } else {
    pool_ = std::make_unique<Eigen::ThreadPool>(num_threads_);
  }
}

ThreadPool::~ThreadPool() = default;

namespace {
std::mutex shared_mu;
ThreadPool* shared_pool = nullptr;  // shared_mu
}  // namespace

ThreadPool* ThreadPool::Shared() {
  std::lock_guard<std::mutex> lock(shared_mu);
  if (shared_pool == nullptr) shared_pool = new ThreadPool(0);
  return shared_pool;
}

bool ThreadPool::ConfigureShared(int num_threads) {
  std::lock_guard<std::mutex> lock(shared_mu);
  if (shared_pool == nullptr) {
    shared_pool = new ThreadPool(num_threads);
    return true;
  }
  return num_threads <= 0 || shared_pool->num_threads() == num_threads;
}

namespace {
thread_local bool run_on_caller = false;  // a ScopedRunOnCaller is alive
}  // namespace

ThreadPool::ScopedRunOnCaller::ScopedRunOnCaller()
    : previous_(run_on_caller) {
  run_on_caller = true;
}

ThreadPool::ScopedRunOnCaller::~ScopedRunOnCaller() {
  run_on_caller = previous_;
}

void ThreadPool::Schedule(std::function<void()> fn) {
  pool_->Schedule(std::move(fn));
}

void ThreadPool::ParallelFor(int64_t total, int64_t cost_per_unit,
                             const std::function<void(int64_t, int64_t)>& fn) {
  if (total <= 0) return;
  // Below ~10k cycles of work a thread hand-off costs more than it saves.
  constexpr int64_t kMinCostPerBlock = 10000;
  const int64_t cost = std::max<int64_t>(cost_per_unit, 1);
  const int64_t max_blocks =
      std::max<int64_t>(1, total * cost / kMinCostPerBlock);
  const int64_t blocks = std::min<int64_t>(num_threads_, max_blocks);
  if (blocks <= 1) {
    fn(0, total);
    return;
  }
  RunClaimedBlocks(total, blocks, /*helpers=*/blocks - 1, fn);
}

void ThreadPool::ParallelForEach(int64_t units,
                                 const std::function<void(int64_t)>& fn) {
  if (units <= 0) return;
  const int64_t helpers = std::min<int64_t>(num_threads_, units) - 1;
  if (helpers <= 0) {
    for (int64_t u = 0; u < units; ++u) fn(u);
    return;
  }
  RunClaimedBlocks(units, units, helpers, [&fn](int64_t begin, int64_t end) {
    for (int64_t u = begin; u < end; ++u) fn(u);
  });
}

void ThreadPool::RunClaimedBlocks(
    int64_t total, int64_t blocks, int64_t helpers,
    const std::function<void(int64_t, int64_t)>& fn) {
  // Blocks are claimed from a shared counter by the caller and by helpers.
  // The caller keeps claiming until none are left, then waits only for
  // blocks already running; it never waits for work still queued behind a
  // busy worker, so nested ParallelFor calls from pool threads cannot
  // deadlock the one shared pool.
  struct State {
    std::atomic<int64_t> next{0};
    std::atomic<int64_t> done{0};
    int64_t blocks, block, total;
    const std::function<void(int64_t, int64_t)>* fn;
    std::mutex mu;
    std::condition_variable all_done;
  };
  auto state = std::make_shared<State>();
  state->blocks = blocks;
  state->block = (total + blocks - 1) / blocks;
  state->total = total;
  state->fn = &fn;
  auto work = [](State* s) {
    for (int64_t b; (b = s->next.fetch_add(1)) < s->blocks;) {
      const int64_t begin = b * s->block;
      const int64_t end = std::min(s->total, begin + s->block);
      if (begin < end) (*s->fn)(begin, end);
      if (s->done.fetch_add(1, std::memory_order_acq_rel) + 1 == s->blocks) {
        std::lock_guard<std::mutex> wake(s->mu);
        s->all_done.notify_all();
      }
    }
  };
  if (run_on_caller) helpers = 0;  // the same blocks, all claimed here
  for (int64_t h = 0; h < helpers; ++h) {
    pool_->Schedule([state, work] { work(state.get()); });
  }
  work(state.get());
  std::unique_lock<std::mutex> lock(state->mu);
  state->all_done.wait(lock, [&] {
    return state->done.load(std::memory_order_acquire) >= state->blocks;
  });
}

}  // namespace dflow
