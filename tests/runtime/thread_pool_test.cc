// ThreadPool's ParallelFor and ParallelForEach: every unit runs exactly
// once on any pool size, nested calls from pool threads finish, and a
// caller whose helpers are all busy does the work itself instead of
// waiting for them.
#include "runtime/thread_pool.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "absl/synchronization/notification.h"
#include "gtest/gtest.h"

namespace dflow {
namespace {

TEST(ThreadPoolTest, EveryUnitRunsOnce) {
  for (int threads : {1, 2, 3, 8}) {
    ThreadPool pool(threads);
    for (int64_t units : {0, 1, 2, 5, 33, 1000}) {
      std::vector<std::atomic<int>> each(units);
      pool.ParallelForEach(units, [&each](int64_t u) { each[u].fetch_add(1); });
      std::vector<std::atomic<int>> ranged(units);
      pool.ParallelFor(units, int64_t{1} << 20, [&](int64_t b, int64_t e) {
        for (int64_t u = b; u < e; ++u) ranged[u].fetch_add(1);
      });
      for (int64_t u = 0; u < units; ++u) {
        ASSERT_EQ(each[u].load(), 1) << "ParallelForEach unit " << u << " of "
                                     << units << ", " << threads << " threads";
        ASSERT_EQ(ranged[u].load(), 1) << "ParallelFor unit " << u << " of "
                                       << units << ", " << threads << " threads";
      }
    }
  }
}

TEST(ThreadPoolTest, NestedCallsFromPoolThreadsFinish) {
  ThreadPool pool(2);
  std::atomic<int64_t> total{0};
  pool.ParallelForEach(4, [&](int64_t) {
    pool.ParallelForEach(8, [&](int64_t u) { total.fetch_add(u); });
  });
  EXPECT_EQ(total.load(), 4 * 28);
}

TEST(ThreadPoolTest, TheCallerDoesTheWorkWhileEveryHelperIsBusy) {
  // Declared before the pool, so they outlive its workers.
  absl::Notification release;
  std::atomic<int> blocked{0};
  ThreadPool pool(2);
  for (int i = 0; i < 2; ++i) {
    pool.Schedule([&] {
      blocked.fetch_add(1);
      release.WaitForNotification();
    });
  }
  while (blocked.load() < 2) {
  }
  // Both workers wait on `release`: only the caller can run the units, and
  // the call must return without them.
  std::atomic<int> done{0};
  pool.ParallelForEach(10, [&done](int64_t) { done.fetch_add(1); });
  EXPECT_EQ(done.load(), 10);
  release.Notify();
}

// Under ScopedRunOnCaller every block runs on the calling thread, in the
// blocks the pool would hand out (so reductions keep their bits); the scope
// nests and ends with the previous setting.
TEST(ThreadPoolTest, ScopedRunOnCallerKeepsTheBlocksOnTheCaller) {
  ThreadPool pool(2);
  auto blocks_of = [&pool](std::vector<std::pair<int64_t, int64_t>>* seen,
                           bool* all_here) {
    std::mutex mu;
    const std::thread::id caller = std::this_thread::get_id();
    *all_here = true;
    pool.ParallelFor(1000, 1000, [&](int64_t begin, int64_t end) {
      std::lock_guard<std::mutex> lock(mu);
      seen->emplace_back(begin, end);
      *all_here = *all_here && std::this_thread::get_id() == caller;
    });
    std::sort(seen->begin(), seen->end());
  };
  std::vector<std::pair<int64_t, int64_t>> split, kept;
  bool split_here = false, kept_here = false;
  blocks_of(&split, &split_here);
  {
    ThreadPool::ScopedRunOnCaller outer;
    {
      ThreadPool::ScopedRunOnCaller inner;
    }
    blocks_of(&kept, &kept_here);
    std::atomic<int> units{0};
    const std::thread::id caller = std::this_thread::get_id();
    std::atomic<bool> elsewhere{false};
    pool.ParallelForEach(16, [&](int64_t) {
      units.fetch_add(1);
      if (std::this_thread::get_id() != caller) elsewhere = true;
    });
    EXPECT_EQ(units.load(), 16);
    EXPECT_FALSE(elsewhere.load());
  }
  EXPECT_TRUE(kept_here);
  EXPECT_EQ(split.size(), 2u);  // 1000 units of 1000 cycles: two blocks
  EXPECT_EQ(kept, split);
  // The scope has ended: a helper takes the second block while the caller
  // waits inside the first (which only a helper can end).
  std::atomic<int> started{0}, running{0};
  std::atomic<bool> overlapped{false};
  pool.ParallelFor(2, 100000, [&](int64_t, int64_t) {
    if (running.fetch_add(1) == 1) overlapped = true;  // the other waits
    started.fetch_add(1);
    for (int wait = 0; wait < 20000 && started.load() < 2; ++wait) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    running.fetch_sub(1);
  });
  EXPECT_TRUE(overlapped.load());
}

}  // namespace
}  // namespace dflow
