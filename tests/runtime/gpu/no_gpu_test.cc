// What every GPU API answers where there is no GPU: a CPU-only build, or a
// build with CUDA on a machine without a GPU or driver (CI). Runs
// everywhere; skips itself on a machine that has a GPU.
#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "runtime/device.h"
#include "runtime/gpu/cuda_status.h"
#include "runtime/gpu/gpu_device.h"
#include "runtime/gpu/gpu_discovery.h"
#include "runtime/gpu/gpu_fill.h"
#include "runtime/gpu/gpu_streams.h"
#include "runtime/gpu/pinned_host_pool.h"
#include "tests/runtime/gpu/gpu_test_util.h"

namespace dflow {
namespace {

class NoGpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (GpusAvailable().ok()) {
      GTEST_SKIP() << "this machine has " << VisibleGpuCount()
                   << " GPU(s): the no-GPU answers cannot be checked here";
    }
  }

  // The reason every API gives: the build, or what CUDA said.
  static void ExpectNoGpuReason(const absl::Status& s) {
    EXPECT_EQ(s.code(), absl::StatusCode::kUnavailable) << s;
    if (BuiltWithCuda()) {
      EXPECT_TRUE(absl::StrContains(s.message(), "cudaGetDeviceCount") ||
                  absl::StrContains(s.message(), "0 devices"))
          << s;
    } else {
      EXPECT_TRUE(absl::StrContains(s.message(), "built without CUDA")) << s;
    }
  }
};

TEST_F(NoGpuTest, DiscoverySaysWhyThereIsNoGpu) {
  EXPECT_EQ(VisibleGpuCount(), 0);
  ExpectNoGpuReason(GpusAvailable());
  ExpectNoGpuReason(DiscoverGpus().status());
  ExpectNoGpuReason(GetGpuInfo(0).status());
  // The answer is kept, not asked again with a different outcome.
  EXPECT_EQ(GpusAvailable(), GpusAvailable());
}

TEST_F(NoGpuTest, PeerAccessIsUnavailable) {
  ExpectNoGpuReason(CanAccessPeer(0, 1).status());
  ExpectNoGpuReason(EnablePeerAccess(0, 1));
  ExpectNoGpuReason(EnableAllPeerAccess().status());
}

TEST_F(NoGpuTest, StreamsAndDevicesCannotBeCreated) {
  ExpectNoGpuReason(GpuStreams::Create(0).status());
  GpuDeviceOptions options;
  ExpectNoGpuReason(
      NewGpuDevice(options, ProcessAllocator("GPU:0"), ThreadPool::Shared())
          .status());
  ExpectNoGpuReason(GpuDeviceAttributes(options).status());
}

TEST_F(NoGpuTest, PinnedMemoryAndKernelsAreUnavailable) {
  PinnedHostPool pool;
  absl::StatusOr<PinnedHostPool::Buffer> buffer = pool.Allocate(4096);
  ASSERT_FALSE(buffer.ok());
  EXPECT_EQ(buffer.status().code(), absl::StatusCode::kUnavailable)
      << buffer.status();
  EXPECT_EQ(pool.stats().host_allocs, 0);
  EXPECT_EQ(pool.stats().in_use_bytes, 0);

  // Any aligned address: the launch fails before touching it.
  void* fake = reinterpret_cast<void*>(uintptr_t{1} << 20);
  absl::Status fill = FillDeviceWords(fake, 0, 16, nullptr);
  EXPECT_EQ(fill.code(), absl::StatusCode::kUnavailable) << fill;
  EXPECT_EQ(PoisonDeviceMemory(fake, 64, nullptr).code(),
            absl::StatusCode::kUnavailable);
}

TEST(BuiltWithoutCudaErrorTest, NamesTheCallAndWhatToDo) {
  absl::Status s = BuiltWithoutCudaError("creating GPU streams");
  EXPECT_EQ(s.code(), absl::StatusCode::kUnavailable);
  EXPECT_TRUE(absl::StartsWith(s.message(), "creating GPU streams: "));
  EXPECT_TRUE(absl::StrContains(s.message(), "dflow was built without CUDA"));
  EXPECT_TRUE(absl::StrContains(s.message(), "CUDA_PATH"));
  EXPECT_TRUE(absl::StrContains(s.message(), DFLOW_CUDA_CONFIG_NOTE));
}

TEST(PinnedHostPoolTest, SizeClassesArePowersOfTwoThenSteps) {
  EXPECT_EQ(PinnedHostPool::CapacityFor(0), 4096u);
  EXPECT_EQ(PinnedHostPool::CapacityFor(1), 4096u);
  EXPECT_EQ(PinnedHostPool::CapacityFor(4096), 4096u);
  EXPECT_EQ(PinnedHostPool::CapacityFor(4097), 8192u);
  EXPECT_EQ(PinnedHostPool::CapacityFor((1u << 20) + 1), 2u << 20);
  EXPECT_EQ(PinnedHostPool::CapacityFor(16u << 20), 16u << 20);
  // Beyond 16 MiB, multiples of 16 MiB: 100 MiB pins 112 MiB, not 128.
  EXPECT_EQ(PinnedHostPool::CapacityFor((16u << 20) + 1), 32u << 20);
  EXPECT_EQ(PinnedHostPool::CapacityFor(100u << 20), 112u << 20);
}

}  // namespace
}  // namespace dflow
