// ThreadPool's ParallelFor and ParallelForEach: every unit runs exactly
// once on any pool size, nested calls from pool threads finish, and a
// caller whose helpers are all busy does the work itself instead of
// waiting for them.
#include "runtime/thread_pool.h"

#include <atomic>
#include <cstdint>
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

}  // namespace
}  // namespace dflow
