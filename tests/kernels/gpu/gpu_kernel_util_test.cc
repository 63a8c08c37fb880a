// kernels/gpu/gpu_kernel_util: launch geometry (everywhere) and what a
// kernel class gets from its context on a CPU, a fake GPU and a real GPU.
#include "kernels/gpu/gpu_kernel_util.h"

#include <memory>
#include <vector>

#include "gmock/gmock.h"
#include "graph/ops/ops.h"
#include "graph/scope.h"
#include "gtest/gtest.h"
#include "runtime/gpu/gpu_device.h"
#include "tests/runtime/gpu/gpu_test_util.h"

namespace dflow {
namespace {

using ::testing::HasSubstr;

TEST(GpuLaunchConfigTest, NothingToLaunchForNoElements) {
  EXPECT_TRUE(GpuLaunchConfigFor(0, 132).empty());
  EXPECT_TRUE(GpuLaunchConfigFor(-5, 132).empty());
}

TEST(GpuLaunchConfigTest, OneBlockPerThreadsWorthUpToAFullGpu) {
  GpuLaunchConfig c = GpuLaunchConfigFor(1, 132);
  EXPECT_EQ(c.blocks, 1);
  EXPECT_EQ(c.threads_per_block, 256);
  EXPECT_EQ(c.num_elements, 1);
  EXPECT_EQ(GpuLaunchConfigFor(256 * 10, 132).blocks, 10);
  EXPECT_EQ(GpuLaunchConfigFor(256 * 10 + 1, 132).blocks, 11);
  // Beyond what the GPU holds resident, a grid-stride loop covers the rest.
  c = GpuLaunchConfigFor(int64_t{1} << 40, 132);
  EXPECT_EQ(c.blocks, 132 * kGpuBlocksPerMultiprocessor);
  EXPECT_EQ(c.num_elements, int64_t{1} << 40);
  // Unknown multiprocessor counts assume an H100.
  EXPECT_EQ(GpuLaunchConfigFor(int64_t{1} << 40, 0).blocks,
            132 * kGpuBlocksPerMultiprocessor);
}

TEST(GpuLaunchConfigTest, ThreadsAreWholeWarpsWithinLimits) {
  EXPECT_EQ(GpuLaunchConfigFor(1000, 8, 100).threads_per_block, 128);
  EXPECT_EQ(GpuLaunchConfigFor(1000, 8, 1).threads_per_block, 32);
  EXPECT_EQ(GpuLaunchConfigFor(1000, 8, 5000).threads_per_block, 1024);
  GpuLaunchConfig c = GpuLaunchConfigFor(1000, 8, 100);
  EXPECT_GE(static_cast<int64_t>(c.blocks) * c.threads_per_block, 1000);
}

class NoopOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    DFLOW_GPU_KERNEL_PREAMBLE(ctx, gpu);
    (void)gpu;
  }
};

TEST(GpuKernelUtilTest, OffAGpuThereIsNoGpuDeviceAndTheKernelSaysSo) {
  Scope root = Scope::NewRootScope();
  Node* node = ops::Const(root.WithOpName("c"), {1.0f}).node();
  ASSERT_TRUE(root.status().ok());
  std::vector<std::unique_ptr<Device>> devices;
  devices.push_back(NewCpuDevice(0));
  devices.push_back(NewFakeGpuDevice(0));
  for (const std::unique_ptr<Device>& device : devices) {
    OpKernelConstruction construction(*node, device.get());
    EXPECT_EQ(GpuDeviceOf(&construction), nullptr);
    NoopOp kernel(&construction);
    OpKernelContext::Params params;
    params.kernel = &kernel;
    params.device = device.get();
    OpKernelContext ctx(params);
    EXPECT_EQ(GpuDeviceOf(&ctx), nullptr);
    EXPECT_EQ(GpuComputeStreamOf(&ctx), nullptr);
    EXPECT_EQ(GpuLaunchConfigFor(&ctx, 256 * 3).blocks, 3);
    kernel.Compute(&ctx);
    EXPECT_EQ(ctx.status().code(), absl::StatusCode::kFailedPrecondition);
    EXPECT_THAT(ctx.status().message(),
                HasSubstr("which is not a CUDA GPU device"));
  }
}

TEST(GpuKernelUtilTest, OnAGpuTheContextGivesItsComputeStream) {
  DFLOW_SKIP_WITHOUT_GPU();
  absl::StatusOr<std::unique_ptr<GpuDevice>> gpu = NewGpuDevice(
      GpuDeviceOptions(), ProcessAllocator("GPU:0"), ThreadPool::Shared());
  ASSERT_TRUE(gpu.ok()) << gpu.status();
  Scope root = Scope::NewRootScope();
  Node* node = ops::Const(root.WithOpName("c"), {1.0f}).node();
  ASSERT_TRUE(root.status().ok());
  OpKernelConstruction construction(*node, gpu->get());
  EXPECT_EQ(GpuDeviceOf(&construction), gpu->get());
  NoopOp kernel(&construction);
  OpKernelContext::Params params;
  params.kernel = &kernel;
  params.device = gpu->get();
  OpKernelContext ctx(params);
  EXPECT_EQ(GpuDeviceOf(&ctx), gpu->get());
  EXPECT_EQ(GpuComputeStreamOf(&ctx), (*gpu)->streams()->compute_stream());
  EXPECT_EQ(GpuLaunchConfigFor(&ctx, int64_t{1} << 40).blocks,
            (*gpu)->gpu_info().multiprocessors * kGpuBlocksPerMultiprocessor);
  kernel.Compute(&ctx);
  EXPECT_TRUE(ctx.status().ok()) << ctx.status();
}

}  // namespace
}  // namespace dflow
