// GpuStreams: copies both ways with callbacks, ordering between the compute
// and copy streams (a slow kernel decides the outcome if ordering is
// missing), errors, and the destructor draining. Skips without a GPU.
#include "runtime/gpu/gpu_streams.h"

#include <atomic>
#include <numeric>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/synchronization/notification.h"
#include "gtest/gtest.h"
#include "runtime/gpu/gpu_fill.h"
#include "tests/runtime/gpu/gpu_test_util.h"
#include "tests/runtime/gpu/slow_kernel.h"

namespace dflow {
namespace {

#if DFLOW_HAVE_CUDA

// Long enough that an unordered copy would certainly overtake the kernel.
constexpr int64_t kSpinNs = 200'000'000;

class GpuStreamsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    DFLOW_SKIP_WITHOUT_GPU();
    auto streams = GpuStreams::Create(0);
    ASSERT_TRUE(streams.ok()) << streams.status();
    streams_ = *std::move(streams);
  }

  absl::Status ToHost(void* dst, const void* src, size_t bytes) {
    return AwaitCallback([&](GpuStreams::DoneCallback done) {
      streams_->CopyDeviceToHost(dst, src, bytes, std::move(done));
    });
  }
  absl::Status ToDevice(void* dst, const void* src, size_t bytes) {
    return AwaitCallback([&](GpuStreams::DoneCallback done) {
      streams_->CopyHostToDevice(dst, src, bytes, std::move(done));
    });
  }

  std::unique_ptr<GpuStreams> streams_;
};

TEST_F(GpuStreamsTest, FourDistinctStreams) {
  std::vector<void*> s = {streams_->stream(GpuStreams::Kind::kCompute),
                          streams_->stream(GpuStreams::Kind::kHostToDevice),
                          streams_->stream(GpuStreams::Kind::kDeviceToHost),
                          streams_->stream(GpuStreams::Kind::kDeviceToDevice)};
  for (size_t i = 0; i < s.size(); ++i) {
    EXPECT_NE(s[i], nullptr);
    for (size_t j = 0; j < i; ++j) EXPECT_NE(s[i], s[j]);
  }
  EXPECT_EQ(streams_->compute_stream(), s[0]);
  EXPECT_EQ(streams_->ordinal(), 0);
}

TEST_F(GpuStreamsTest, RoundTripsPageableAndPinnedMemory) {
  PinnedHostPool pool;
  for (size_t count : {size_t{1}, size_t{1000}, size_t{(1 << 20) + 7}}) {
    const size_t bytes = count * sizeof(float);
    std::vector<float> in(count);
    std::iota(in.begin(), in.end(), 0.5f);
    DeviceBuffer a(bytes), b(bytes);
    ASSERT_TRUE(ToDevice(a.get(), in.data(), bytes).ok());
    ASSERT_TRUE(AwaitCallback([&](GpuStreams::DoneCallback done) {
                  streams_->CopyDeviceToDevice(b.get(), a.get(), bytes,
                                               std::move(done));
                }).ok());
    // Pageable destination (staged) ...
    std::vector<float> out(count, -1.0f);
    ASSERT_TRUE(ToHost(out.data(), b.get(), bytes).ok());
    EXPECT_EQ(out, in) << count;
    // ... and pinned (direct).
    auto pinned = pool.Allocate(bytes);
    ASSERT_TRUE(pinned.ok()) << pinned.status();
    ASSERT_TRUE(ToHost(pinned->data(), b.get(), bytes).ok());
    EXPECT_EQ(std::memcmp(pinned->data(), in.data(), bytes), 0) << count;
  }
  EXPECT_EQ(streams_->staged_copies(), 6);  // 3 sizes x (H2D + D2H)
}

TEST_F(GpuStreamsTest, CallbacksRunOffTheCallersThread) {
  DeviceBuffer d(4096);
  std::vector<char> host(4096);
  const std::thread::id caller = std::this_thread::get_id();
  std::thread::id callback_thread;
  absl::Notification done;
  streams_->CopyHostToDevice(d.get(), host.data(), host.size(),
                             [&](absl::Status s) {
                               EXPECT_TRUE(s.ok()) << s;
                               callback_thread = std::this_thread::get_id();
                               done.Notify();
                             });
  done.WaitForNotification();
  EXPECT_NE(callback_thread, caller);
}

TEST_F(GpuStreamsTest, SlowKernelThenDeviceToHostSeesItsResult) {
  constexpr int kCount = 4096;
  DeviceBuffer d(kCount * sizeof(float));
  ASSERT_TRUE(
      PoisonDeviceMemory(d.get(), d.bytes(), streams_->compute_stream()).ok());
  ASSERT_TRUE(LaunchSpinThenFill(d.floats(), kCount, 42.0f, kSpinNs,
                                 streams_->compute_stream())
                  .ok());
  // Enqueued at once, without waiting: ordering alone must make it right.
  std::vector<float> out(kCount, -1.0f);
  ASSERT_TRUE(ToHost(out.data(), d.get(), d.bytes()).ok());
  EXPECT_EQ(out, std::vector<float>(kCount, 42.0f));
}

TEST_F(GpuStreamsTest, ComputeWorkAfterHostToDeviceSeesTheData) {
  constexpr int kCount = 4096;
  const size_t bytes = kCount * sizeof(float);
  DeviceBuffer scratch(bytes), dst(bytes), copy(bytes);
  std::vector<float> in(kCount);
  std::iota(in.begin(), in.end(), 1.0f);
  ASSERT_TRUE(
      PoisonDeviceMemory(dst.get(), bytes, streams_->compute_stream()).ok());
  ASSERT_TRUE(streams_->Synchronize().ok());
  // Hold the host-to-device stream up, so the copy lands late...
  ASSERT_TRUE(
      LaunchSpinThenFill(scratch.floats(), kCount, 0.0f, kSpinNs,
                         streams_->stream(GpuStreams::Kind::kHostToDevice))
          .ok());
  absl::Notification copied;
  streams_->CopyHostToDevice(dst.get(), in.data(), bytes, [&](absl::Status s) {
    EXPECT_TRUE(s.ok()) << s;
    copied.Notify();
  });
  // ...and read the destination on the compute stream right away.
  ASSERT_EQ(
      cudaMemcpyAsync(copy.get(), dst.get(), bytes, cudaMemcpyDeviceToDevice,
                      static_cast<cudaStream_t>(streams_->compute_stream())),
      cudaSuccess);
  std::vector<float> out(kCount, -1.0f);
  ASSERT_TRUE(ToHost(out.data(), copy.get(), bytes).ok());
  EXPECT_EQ(out, in);
  copied.WaitForNotification();
}

TEST_F(GpuStreamsTest, ThenCallWaitsForTheStream) {
  DeviceBuffer d(1024 * sizeof(float));
  ASSERT_TRUE(LaunchSpinThenFill(d.floats(), 1024, 1.0f, kSpinNs / 4,
                                 streams_->compute_stream())
                  .ok());
  // What was on the stream before ThenCall: the callback must find it done.
  // (Not cudaStreamQuery of the whole stream: ThenCall enqueues a host
  // function that wakes the completion thread, and it may still be running
  // when the callback does.)
  cudaEvent_t before = nullptr;
  ASSERT_EQ(cudaEventCreateWithFlags(&before, cudaEventDisableTiming),
            cudaSuccess);
  ASSERT_EQ(cudaEventRecord(before, static_cast<cudaStream_t>(
                                        streams_->compute_stream())),
            cudaSuccess);
  cudaError_t state_at_callback = cudaErrorUnknown;
  ASSERT_TRUE(AwaitCallback([&](GpuStreams::DoneCallback done) {
                streams_->ThenCall(
                    GpuStreams::Kind::kCompute,
                    [&, done = std::move(done)](absl::Status s) mutable {
                      state_at_callback = cudaEventQuery(before);
                      done(std::move(s));
                    });
              }).ok());
  EXPECT_EQ(state_at_callback, cudaSuccess);
  EXPECT_EQ(cudaEventDestroy(before), cudaSuccess);
}

TEST_F(GpuStreamsTest, ManyCopiesAllCallBackOnce) {
  constexpr int kCopies = 200;
  DeviceBuffer d(kCopies * sizeof(float));
  std::vector<float> host(kCopies, 0.0f);
  std::atomic<int> calls{0};
  absl::Notification all;
  for (int i = 0; i < kCopies; ++i) {
    host[i] = static_cast<float>(i);
    streams_->CopyHostToDevice(d.floats() + i, &host[i], sizeof(float),
                               [&](absl::Status s) {
                                 EXPECT_TRUE(s.ok()) << s;
                                 if (++calls == kCopies) all.Notify();
                               });
  }
  all.WaitForNotification();
  std::vector<float> out(kCopies);
  ASSERT_TRUE(ToHost(out.data(), d.get(), d.bytes()).ok());
  EXPECT_EQ(out, host);
  EXPECT_EQ(calls.load(), kCopies);
}

TEST_F(GpuStreamsTest, ErrorsReachTheCallbackAndDoNotStick) {
  std::vector<char> host(64);
  absl::Status null_dst = ToDevice(nullptr, host.data(), host.size());
  EXPECT_EQ(null_dst.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(null_dst.message(), "null pointer"))
      << null_dst;
  absl::Status null_src = ToHost(host.data(), nullptr, host.size());
  EXPECT_EQ(null_src.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(
      absl::StrContains(null_src.message(), "device-to-host copy of 64"))
      << null_src;
  EXPECT_TRUE(ToDevice(host.data(), host.data(), 0).ok());  // nothing to do
  DeviceBuffer d(64);
  EXPECT_TRUE(ToDevice(d.get(), host.data(), 64).ok());
}

TEST_F(GpuStreamsTest, WaitForOrdersStreams) {
  constexpr int kCount = 1024;
  DeviceBuffer d(kCount * sizeof(float)), e(kCount * sizeof(float));
  ASSERT_TRUE(LaunchSpinThenFill(d.floats(), kCount, 7.0f, kSpinNs,
                                 streams_->compute_stream())
                  .ok());
  ASSERT_TRUE(streams_
                  ->WaitFor(GpuStreams::Kind::kDeviceToDevice,
                            GpuStreams::Kind::kCompute)
                  .ok());
  ASSERT_EQ(
      cudaMemcpyAsync(e.get(), d.get(), d.bytes(), cudaMemcpyDeviceToDevice,
                      static_cast<cudaStream_t>(
                          streams_->stream(GpuStreams::Kind::kDeviceToDevice))),
      cudaSuccess);
  ASSERT_TRUE(streams_->Synchronize().ok());
  std::vector<float> out(kCount);
  ASSERT_TRUE(ToHost(out.data(), e.get(), e.bytes()).ok());
  EXPECT_EQ(out, std::vector<float>(kCount, 7.0f));
}

TEST_F(GpuStreamsTest, DestructionWaitsForWorkAndCallbacks) {
  DeviceBuffer d(1024 * sizeof(float));
  std::vector<float> out(1024, 0.0f);
  std::atomic<bool> called{false};
  ASSERT_TRUE(LaunchSpinThenFill(d.floats(), 1024, 3.0f, kSpinNs / 4,
                                 streams_->compute_stream())
                  .ok());
  streams_->CopyDeviceToHost(out.data(), d.get(), d.bytes(),
                             [&](absl::Status s) {
                               EXPECT_TRUE(s.ok()) << s;
                               called = true;
                             });
  streams_.reset();
  EXPECT_TRUE(called);
  EXPECT_EQ(out, std::vector<float>(1024, 3.0f));
}

TEST(GpuStreamsCreateTest, BadOrdinalIsInvalid) {
  DFLOW_SKIP_WITHOUT_GPU();
  for (int bad : {-1, VisibleGpuCount()}) {
    absl::Status s = GpuStreams::Create(bad).status();
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  }
}

#else  // !DFLOW_HAVE_CUDA

TEST(GpuStreamsTest, NeedsCuda) {
  GTEST_SKIP() << "dflow was built without CUDA (no_gpu_test checks the "
                  "answers then)";
}

#endif  // DFLOW_HAVE_CUDA

}  // namespace
}  // namespace dflow
