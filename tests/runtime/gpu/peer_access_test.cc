// Peer access between GPUs and copies from one GPU (or virtual GPU) to
// another. Skips without a GPU; the two-GPU cases skip with one.
#include <numeric>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "runtime/gpu/gpu_discovery.h"
#include "runtime/gpu/gpu_streams.h"
#include "tests/runtime/gpu/gpu_test_util.h"

namespace dflow {
namespace {

TEST(PeerAccessTest, AGpuIsNotItsOwnPeer) {
  DFLOW_SKIP_WITHOUT_GPU();
  absl::StatusOr<bool> self = CanAccessPeer(0, 0);
  ASSERT_TRUE(self.ok()) << self.status();
  EXPECT_FALSE(*self);
  absl::Status s = EnablePeerAccess(0, 0);
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "through host memory")) << s;
}

TEST(PeerAccessTest, BadOrdinalsAreInvalid) {
  DFLOW_SKIP_WITHOUT_GPU();
  EXPECT_EQ(CanAccessPeer(0, VisibleGpuCount()).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(CanAccessPeer(-1, 0).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(PeerAccessTest, MatrixMatchesQueriesAndEnablingTwiceIsFine) {
  DFLOW_SKIP_WITHOUT_GPU();
  const int n = VisibleGpuCount();
  absl::StatusOr<std::vector<std::vector<bool>>> access = EnableAllPeerAccess();
  ASSERT_TRUE(access.ok()) << access.status();
  ASSERT_EQ(static_cast<int>(access->size()), n);
  for (int i = 0; i < n; ++i) {
    EXPECT_FALSE((*access)[i][i]);
    for (int j = 0; j < n; ++j) {
      if (i == j) continue;
      absl::StatusOr<bool> can = CanAccessPeer(i, j);
      ASSERT_TRUE(can.ok()) << can.status();
      EXPECT_EQ((*access)[i][j], *can) << i << " -> " << j;
      if (*can) {
        EXPECT_TRUE(EnablePeerAccess(i, j).ok());
      }
    }
  }
}

#if DFLOW_HAVE_CUDA

// Copies `n` floats from `from`'s GPU to `to`'s and back to the host.
void CheckCopy(GpuStreams* from, GpuStreams* to) {
  constexpr int kCount = (1 << 18) + 3;
  std::vector<float> host(kCount);
  std::iota(host.begin(), host.end(), 1.0f);
  cudaSetDevice(from->ordinal());
  DeviceBuffer src(kCount * sizeof(float));
  cudaSetDevice(to->ordinal());
  DeviceBuffer dst(kCount * sizeof(float));
  ASSERT_TRUE(AwaitCallback([&](GpuStreams::DoneCallback done) {
                from->CopyHostToDevice(src.get(), host.data(), src.bytes(),
                                       std::move(done));
              }).ok());
  ASSERT_TRUE(AwaitCallback([&](GpuStreams::DoneCallback done) {
                from->CopyToPeer(to, dst.get(), src.get(), src.bytes(),
                                 std::move(done));
              }).ok());
  std::vector<float> back(kCount, -1.0f);
  ASSERT_TRUE(AwaitCallback([&](GpuStreams::DoneCallback done) {
                to->CopyDeviceToHost(back.data(), dst.get(), dst.bytes(),
                                     std::move(done));
              }).ok());
  EXPECT_EQ(back, host);
}

TEST(PeerCopyTest, BetweenTwoStreamSetsOfOneGpu) {
  DFLOW_SKIP_WITHOUT_GPU();
  // Virtual GPUs: two devices on physical GPU 0.
  auto a = GpuStreams::Create(0);
  auto b = GpuStreams::Create(0);
  ASSERT_TRUE(a.ok() && b.ok());
  CheckCopy(a->get(), b->get());
}

TEST(PeerCopyTest, BetweenTwoGpus) {
  DFLOW_SKIP_WITHOUT_GPU();
  if (VisibleGpuCount() < 2) GTEST_SKIP() << "needs two GPUs";
  auto a = GpuStreams::Create(0);
  auto b = GpuStreams::Create(1);
  ASSERT_TRUE(a.ok() && b.ok());
  // Either way works, with peer access or staged by CUDA through the host.
  CheckCopy(a->get(), b->get());
  CheckCopy(b->get(), a->get());
}

#endif  // DFLOW_HAVE_CUDA

}  // namespace
}  // namespace dflow
