// PinnedHostPool: buffers are pinned, reused by size class, and the cache is
// bounded. Pinning needs a GPU driver: skips without a GPU (no_gpu_test
// checks the answer then).
#include "runtime/gpu/pinned_host_pool.h"

#include <cstring>

#include "gtest/gtest.h"
#include "tests/runtime/gpu/gpu_test_util.h"

namespace dflow {
namespace {

#if DFLOW_HAVE_CUDA

TEST(PinnedHostPoolTest, BuffersArePinnedAndWritable) {
  DFLOW_SKIP_WITHOUT_GPU();
  PinnedHostPool pool;
  auto b = pool.Allocate(10000);
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->size(), 10000u);
  EXPECT_EQ(b->capacity(), 16384u);
  std::memset(b->data(), 0xAB, b->capacity());
  cudaPointerAttributes attr;
  ASSERT_EQ(cudaPointerGetAttributes(&attr, b->data()), cudaSuccess);
  EXPECT_EQ(attr.type, cudaMemoryTypeHost);
}

TEST(PinnedHostPoolTest, AReturnedBufferServesItsSizeClass) {
  DFLOW_SKIP_WITHOUT_GPU();
  PinnedHostPool pool;
  void* first = nullptr;
  {
    auto b = pool.Allocate(5000);
    ASSERT_TRUE(b.ok()) << b.status();
    first = b->data();
    EXPECT_EQ(pool.stats().in_use_bytes, 8192);
  }
  EXPECT_EQ(pool.stats().in_use_bytes, 0);
  EXPECT_EQ(pool.stats().cached_bytes, 8192);
  auto again = pool.Allocate(8000);  // same class (8 KiB)
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->data(), first);
  auto other = pool.Allocate(9000);  // next class: a new buffer
  ASSERT_TRUE(other.ok()) << other.status();
  EXPECT_NE(other->data(), first);
  PinnedHostPool::Stats stats = pool.stats();
  EXPECT_EQ(stats.host_allocs, 2);
  EXPECT_EQ(stats.reuses, 1);
  EXPECT_EQ(stats.in_use_bytes, 8192 + 16384);
  EXPECT_EQ(stats.peak_in_use_bytes, 8192 + 16384);
  EXPECT_EQ(stats.cached_bytes, 0);
}

TEST(PinnedHostPoolTest, TheCacheIsBounded) {
  DFLOW_SKIP_WITHOUT_GPU();
  PinnedHostPool::Options options;
  options.max_cached_bytes = 8192;
  PinnedHostPool pool(options);
  {
    auto a = pool.Allocate(4096);
    auto b = pool.Allocate(4096);
    auto c = pool.Allocate(4096);
    ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  }
  EXPECT_EQ(pool.stats().cached_bytes, 8192);  // the third was freed
  pool.ReleaseCached();
  EXPECT_EQ(pool.stats().cached_bytes, 0);
  auto d = pool.Allocate(4096);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(pool.stats().host_allocs, 4);
  EXPECT_EQ(pool.stats().reuses, 0);
}

TEST(PinnedHostPoolTest, MovingABufferMovesTheLoan) {
  DFLOW_SKIP_WITHOUT_GPU();
  PinnedHostPool pool;
  auto a = pool.Allocate(100);
  ASSERT_TRUE(a.ok());
  PinnedHostPool::Buffer moved = *std::move(a);
  EXPECT_TRUE(moved);
  PinnedHostPool::Buffer target;
  target = std::move(moved);
  EXPECT_FALSE(moved);  // NOLINT(bugprone-use-after-move): checks the move
  EXPECT_EQ(pool.stats().in_use_bytes, 4096);
  target.Reset();
  EXPECT_EQ(pool.stats().in_use_bytes, 0);
  EXPECT_EQ(pool.stats().cached_bytes, 4096);
}

TEST(PinnedHostPoolTest, SharedPoolIsOneObject) {
  DFLOW_SKIP_WITHOUT_GPU();
  EXPECT_EQ(PinnedHostPool::Shared(), PinnedHostPool::Shared());
  auto b = PinnedHostPool::Shared()->Allocate(1);
  EXPECT_TRUE(b.ok()) << b.status();
}

#else  // !DFLOW_HAVE_CUDA

TEST(PinnedHostPoolTest, NeedsCuda) {
  GTEST_SKIP() << "dflow was built without CUDA (no_gpu_test checks the "
                  "answers then)";
}

#endif  // DFLOW_HAVE_CUDA

}  // namespace
}  // namespace dflow
