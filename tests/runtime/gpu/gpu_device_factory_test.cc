// The GPU device factory: which logical devices a session gets
// (PlanGpuDevices), the process's allocators (GpuAllocatorPool over host
// memory here), what the factory answers without a GPU, and, on a GPU,
// sessions with real and virtual GPU devices.
#include "runtime/gpu/gpu_device_factory.h"

#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/gpu/cuda_sub_allocator.h"
#include "runtime/gpu/gpu_device.h"
#include "runtime/gpu/gpu_discovery.h"
#include "runtime/session.h"
#include "tests/runtime/gpu/gpu_test_util.h"

namespace dflow {
namespace {

using ::testing::HasSubstr;

std::vector<std::string> Describe(const std::vector<GpuDevicePlan>& plans) {
  std::vector<std::string> out;
  for (const GpuDevicePlan& p : plans) {
    out.push_back(absl::StrCat("GPU:", p.id, "=", p.ordinal, ".",
                               p.virtual_index, "/", p.virtual_count));
  }
  return out;
}

TEST(PlanGpuDevicesTest, EveryVisibleGpuByDefault) {
  EXPECT_THAT(
      Describe(PlanGpuDevices(DeviceFactoryOptions(), 3)),
      ::testing::ElementsAre("GPU:0=0.0/1", "GPU:1=1.0/1", "GPU:2=2.0/1"));
  EXPECT_TRUE(PlanGpuDevices(DeviceFactoryOptions(), 0).empty());
}

TEST(PlanGpuDevicesTest, CountCapsPhysicalGpus) {
  DeviceFactoryOptions o;
  o.max_physical_devices = 2;
  EXPECT_EQ(PlanGpuDevices(o, 8).size(), 2u);
  o.max_physical_devices = 0;
  EXPECT_TRUE(PlanGpuDevices(o, 8).empty());
  o.max_physical_devices = 5;
  EXPECT_EQ(PlanGpuDevices(o, 1).size(), 1u);
}

TEST(PlanGpuDevicesTest, FirstGpuSplitIntoVirtualDevices) {
  DeviceFactoryOptions o;
  o.virtual_devices = 3;
  EXPECT_THAT(Describe(PlanGpuDevices(o, 2)),
              ::testing::ElementsAre("GPU:0=0.0/3", "GPU:1=0.1/3",
                                     "GPU:2=0.2/3", "GPU:3=1.0/1"));
  o.first_id = 4;
  o.max_physical_devices = 1;
  EXPECT_THAT(
      Describe(PlanGpuDevices(o, 2)),
      ::testing::ElementsAre("GPU:4=0.0/3", "GPU:5=0.1/3", "GPU:6=0.2/3"));
}

// A pool over host memory, with a GPU of `free` free bytes.
GpuAllocatorPool HostPool(int64_t* free) {
  return GpuAllocatorPool(
      [](int) -> std::unique_ptr<SubAllocator> {
        return std::make_unique<HostSubAllocator>();
      },
      [free](int) -> absl::StatusOr<int64_t> { return *free; });
}

TEST(GpuAllocatorPoolTest, EqualSharesOrExplicitLimits) {
  int64_t free = 64 << 20;
  GpuAllocatorPool pool = HostPool(&free);
  absl::StatusOr<GpuAllocatorPool::Lease> lease =
      pool.Acquire(0, 0, 2, {}, 0.5, false);
  ASSERT_TRUE(lease.ok()) << lease.status();
  EXPECT_EQ(lease->limits, (std::vector<int64_t>{16 << 20, 16 << 20}));
  ASSERT_EQ(lease->allocators.size(), 2u);
  EXPECT_EQ(lease->allocators[1]->Name(), "GPU:1");
  EXPECT_EQ(lease->bfc[0]->Stats().bytes_limit, 16 << 20);

  absl::StatusOr<GpuAllocatorPool::Lease> explicit_lease =
      pool.Acquire(1, 2, 2, {1 << 20, 3 << 20}, 0.9, true);
  ASSERT_TRUE(explicit_lease.ok()) << explicit_lease.status();
  EXPECT_EQ(explicit_lease->limits, (std::vector<int64_t>{1 << 20, 3 << 20}));

  absl::StatusOr<GpuAllocatorPool::Lease> too_big =
      pool.Acquire(2, 4, 1, {int64_t{1} << 40}, 0.9, false);
  ASSERT_FALSE(too_big.ok());
  EXPECT_THAT(too_big.status().message(), HasSubstr("GPU 2 (devices GPU:4"));
}

TEST(GpuAllocatorPoolTest, SameOptionsShareAllocatorsAcrossSessions) {
  int64_t free = 64 << 20;
  GpuAllocatorPool pool = HostPool(&free);
  absl::StatusOr<GpuAllocatorPool::Lease> a =
      pool.Acquire(0, 0, 1, {}, 0.5, false);
  ASSERT_TRUE(a.ok());
  // The first session's allocator reserved memory: less is free now, but
  // the same options still get the same allocator (and limit).
  free = 8 << 20;
  absl::StatusOr<GpuAllocatorPool::Lease> b =
      pool.Acquire(0, 0, 1, {}, 0.5, false);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(a->allocators[0], b->allocators[0]);
  EXPECT_EQ(b->limits[0], 32 << 20);
  EXPECT_EQ(pool.num_groups(), 1);
}

TEST(GpuAllocatorPoolTest, OtherOptionsReplaceIdleAllocators) {
  int64_t free = 64 << 20;
  GpuAllocatorPool pool = HostPool(&free);
  {
    absl::StatusOr<GpuAllocatorPool::Lease> a =
        pool.Acquire(0, 0, 1, {}, 0.5, false);
    ASSERT_TRUE(a.ok());
  }  // the session's devices are gone and hold no memory
  absl::StatusOr<GpuAllocatorPool::Lease> b =
      pool.Acquire(0, 0, 2, {}, 0.5, false);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(pool.num_groups(), 1);

  // In use (a tensor still holds memory): kept beside the new ones.
  void* held = b->allocators[0]->AllocateRaw(256, 1024);
  ASSERT_NE(held, nullptr);
  GpuAllocatorPool::Lease keep = *b;
  b = absl::StatusOr<GpuAllocatorPool::Lease>(absl::CancelledError(""));
  keep.hold.reset();
  absl::StatusOr<GpuAllocatorPool::Lease> c =
      pool.Acquire(0, 0, 1, {4 << 20}, 0.9, false);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(pool.num_groups(), 2);
  keep.allocators[0]->DeallocateRaw(held, 1024);
}

TEST(GpuDeviceFactoryTest, WithoutAGpuThereAreNoDevicesAndNoError) {
  if (GpusAvailable().ok()) GTEST_SKIP() << "this machine has a GPU";
  absl::StatusOr<std::vector<std::unique_ptr<Device>>> devices =
      CreateGpuDevices(DeviceFactoryOptions());
  ASSERT_TRUE(devices.ok()) << devices.status();
  EXPECT_TRUE(devices->empty());
  // The factory is registered: a session asks it and gets no GPU.
  EXPECT_TRUE(HasDeviceFactory("GPU"));
  absl::StatusOr<std::unique_ptr<DeviceSet>> set =
      CreateSessionDevices(SessionOptions());
  ASSERT_TRUE(set.ok()) << set.status();
  EXPECT_TRUE((*set)->DevicesOfType("GPU").empty());
  // Nor can cudaMalloc give anything.
  CudaSubAllocator sub(0);
  EXPECT_EQ(sub.Alloc(1 << 20), nullptr);
  EXPECT_FALSE(GetGpuMemoryInfo(0).ok());
}

// --- On a GPU.

TEST(GpuDeviceFactoryTest, SessionsGetEveryVisibleGpu) {
  DFLOW_SKIP_WITHOUT_GPU();
  absl::StatusOr<std::unique_ptr<DeviceSet>> set =
      CreateSessionDevices(SessionOptions());
  ASSERT_TRUE(set.ok()) << set.status();
  std::vector<Device*> gpus = (*set)->DevicesOfType("GPU");
  ASSERT_EQ(static_cast<int>(gpus.size()), VisibleGpuCount());
  for (size_t i = 0; i < gpus.size(); ++i) {
    EXPECT_EQ(gpus[i]->name(),
              absl::StrCat("/job:localhost/replica:0/task:0/device:GPU:", i));
    EXPECT_EQ(gpus[i]->kernel_device_type(), "GPU");
    auto* gpu = dynamic_cast<GpuDevice*>(gpus[i]);
    ASSERT_NE(gpu, nullptr);
    EXPECT_EQ(gpu->physical_ordinal(), static_cast<int>(i));
    // The allocator is a BfcAllocator with the device's limit.
    auto* bfc = dynamic_cast<BfcAllocator*>(gpus[i]->allocator()->base());
    ASSERT_NE(bfc, nullptr);
    EXPECT_EQ(bfc->Stats().bytes_limit, gpus[i]->attributes().memory_limit);
    EXPECT_NE(gpus[i]->host_allocator(), gpus[i]->allocator());
  }
  SessionOptions none;
  none.device_count = {{"GPU", 0}};
  set = CreateSessionDevices(none);
  ASSERT_TRUE(set.ok());
  EXPECT_TRUE((*set)->DevicesOfType("GPU").empty());
}

TEST(GpuDeviceFactoryTest, VirtualGpusSplitTheFirstGpu) {
  DFLOW_SKIP_WITHOUT_GPU();
  SessionOptions options;
  options.device_count = {{"GPU", 1}};
  options.gpu_virtual_device_memory_limits = {256 << 20, 512 << 20};
  absl::StatusOr<std::unique_ptr<DeviceSet>> set =
      CreateSessionDevices(options);
  ASSERT_TRUE(set.ok()) << set.status();
  std::vector<Device*> gpus = (*set)->DevicesOfType("GPU");
  ASSERT_EQ(gpus.size(), 2u);
  EXPECT_EQ(gpus[0]->attributes().memory_limit, 256 << 20);
  EXPECT_EQ(gpus[1]->attributes().memory_limit, 512 << 20);
  EXPECT_THAT(gpus[1]->attributes().physical_device_desc,
              HasSubstr("virtual device 1 of 2"));
  EXPECT_NE(gpus[0]->allocator(), gpus[1]->allocator());
  // Device memory, within the limit; beyond it, the BfcAllocator refuses
  // and explains.
  void* p = gpus[0]->allocator()->AllocateRaw(256, 1 << 20);
  ASSERT_NE(p, nullptr);
#if DFLOW_HAVE_CUDA
  cudaPointerAttributes attrs;
  ASSERT_EQ(cudaPointerGetAttributes(&attrs, p), cudaSuccess);
  EXPECT_EQ(attrs.type, cudaMemoryTypeDevice);
#endif
  EXPECT_EQ(gpus[0]->allocator()->AllocateRaw(256, 300 << 20), nullptr);
  absl::Status oom =
      gpus[0]->allocator()->OutOfMemoryError("node 'x' (Fill)", 300 << 20);
  EXPECT_THAT(oom.message(), HasSubstr("out of memory on GPU:0"));
  EXPECT_THAT(oom.message(), HasSubstr("node 'x' (Fill)"));
  gpus[0]->allocator()->DeallocateRaw(p, 1 << 20);
  // Equal shares of a fraction.
  options.gpu_virtual_device_memory_limits.clear();
  options.gpu_virtual_devices = 3;
  options.gpu_memory_fraction = 0.3;
  set = CreateSessionDevices(options);
  ASSERT_TRUE(set.ok()) << set.status();
  gpus = (*set)->DevicesOfType("GPU");
  ASSERT_EQ(gpus.size(), 3u);
  EXPECT_EQ(gpus[0]->attributes().memory_limit,
            gpus[2]->attributes().memory_limit);
}

TEST(GpuDeviceFactoryTest, TooLargeVirtualLimitsFailSessionCreation) {
  DFLOW_SKIP_WITHOUT_GPU();
  SessionOptions options;
  options.device_count = {{"GPU", 1}};
  options.gpu_virtual_device_memory_limits = {int64_t{1} << 50};
  absl::StatusOr<std::unique_ptr<DeviceSet>> set =
      CreateSessionDevices(options);
  ASSERT_FALSE(set.ok());
  EXPECT_THAT(set.status().message(), HasSubstr("GPU 0"));
}

}  // namespace
}  // namespace dflow
