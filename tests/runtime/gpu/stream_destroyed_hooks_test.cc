// GpuStreams' process-wide "on stream destroyed" hooks, host-side: the
// list itself (no GPU needed), that the cuBLAS and cuDNN handle caches
// register into it, and, on a GPU, that destroying a GpuStreams calls the
// hooks with each of its streams.
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "kernels/gpu/blas_handles.h"
#include "kernels/gpu/dnn_handles.h"
#include "runtime/gpu/gpu_streams.h"
#include "tests/runtime/gpu/gpu_test_util.h"

namespace dflow {
namespace {

using Calls = std::vector<std::pair<int, void*>>;

TEST(StreamDestroyedHooksTest, RunsEveryHookInOrderUntilRemoved) {
  std::vector<int> order;
  Calls calls;
  const int before = GpuStreams::num_stream_destroyed_hooks();
  const int a = GpuStreams::AddStreamDestroyedHook([&](int o, void* s) {
    order.push_back(1);
    calls.emplace_back(o, s);
  });
  const int b = GpuStreams::AddStreamDestroyedHook(
      [&](int, void*) { order.push_back(2); });
  EXPECT_NE(a, b);
  EXPECT_EQ(GpuStreams::num_stream_destroyed_hooks(), before + 2);

  int dummy = 0;
  GpuStreams::NotifyStreamDestroyed(3, &dummy);
  EXPECT_EQ(order, (std::vector<int>{1, 2}));
  EXPECT_EQ(calls, (Calls{{3, &dummy}}));

  GpuStreams::RemoveStreamDestroyedHook(a);
  GpuStreams::RemoveStreamDestroyedHook(a);     // again: ignored
  GpuStreams::RemoveStreamDestroyedHook(-123);  // unknown: ignored
  EXPECT_EQ(GpuStreams::num_stream_destroyed_hooks(), before + 1);
  GpuStreams::NotifyStreamDestroyed(0, nullptr);
  EXPECT_EQ(order, (std::vector<int>{1, 2, 2}));
  EXPECT_EQ(calls.size(), 1u);
  GpuStreams::RemoveStreamDestroyedHook(b);
  EXPECT_EQ(GpuStreams::num_stream_destroyed_hooks(), before);
}

TEST(StreamDestroyedHooksTest, NullHookIsSkipped) {
  const int id = GpuStreams::AddStreamDestroyedHook(nullptr);
  GpuStreams::NotifyStreamDestroyed(0, nullptr);  // must not crash
  GpuStreams::RemoveStreamDestroyedHook(id);
}

TEST(StreamDestroyedHooksTest, HandleCachesRegisterAndForgetUnknownStreams) {
  // Linking the caches registers their hooks (static initializers).
  (void)BlasHandles::Global();
  (void)DnnHandles::Global();
  EXPECT_GE(GpuStreams::num_stream_destroyed_hooks(), 2);
  // A stream with no cached handles: nothing to forget, nothing happens.
  int dummy = 0;
  GpuStreams::NotifyStreamDestroyed(0, &dummy);
  EXPECT_EQ(BlasHandles::Global()->size(), 0);
  EXPECT_EQ(DnnHandles::Global()->size(), 0);
}

TEST(StreamDestroyedHooksTest, DestroyingStreamsCallsTheHooks) {
  DFLOW_SKIP_WITHOUT_GPU();
  absl::StatusOr<std::unique_ptr<GpuStreams>> streams = GpuStreams::Create(0);
  ASSERT_TRUE(streams.ok()) << streams.status();
  const Calls expected = {
      {0, (*streams)->stream(GpuStreams::Kind::kCompute)},
      {0, (*streams)->stream(GpuStreams::Kind::kHostToDevice)},
      {0, (*streams)->stream(GpuStreams::Kind::kDeviceToHost)},
      {0, (*streams)->stream(GpuStreams::Kind::kDeviceToDevice)}};
  void* compute = (*streams)->compute_stream();
  // Handles cached for the compute stream are forgotten with it.
  ASSERT_TRUE(BlasHandles::Global()
                  ->With(0, compute,
                         [](const BlasContext&) { return absl::OkStatus(); })
                  .ok());
  const int64_t cached = BlasHandles::Global()->size();
  Calls calls;
  const int id = GpuStreams::AddStreamDestroyedHook(
      [&](int o, void* s) { calls.emplace_back(o, s); });
  streams->reset();
  GpuStreams::RemoveStreamDestroyedHook(id);
  EXPECT_EQ(calls, expected);
  EXPECT_EQ(BlasHandles::Global()->size(), cached - 1);
}

}  // namespace
}  // namespace dflow
