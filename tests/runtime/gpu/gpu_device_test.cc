// GpuDevice: the dflow Device on a GPU, including virtual GPUs sharing one
// physical GPU. Skips without a GPU (no_gpu_test checks the answer then).
#include "runtime/gpu/gpu_device.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "runtime/device.h"
#include "tests/runtime/gpu/gpu_test_util.h"

namespace dflow {
namespace {

TEST(GpuDeviceTest, AttributesDescribeThePhysicalGpu) {
  DFLOW_SKIP_WITHOUT_GPU();
  absl::StatusOr<GpuInfo> info = GetGpuInfo(0);
  ASSERT_TRUE(info.ok()) << info.status();
  GpuDeviceOptions options;
  auto device =
      NewGpuDevice(options, ProcessAllocator("GPU:0"), ThreadPool::Shared());
  ASSERT_TRUE(device.ok()) << device.status();
  const GpuDevice& d = **device;
  EXPECT_EQ(d.name(), "/job:localhost/replica:0/task:0/device:GPU:0");
  EXPECT_EQ(d.type(), "GPU");
  EXPECT_EQ(d.kernel_device_type(), "GPU");
  EXPECT_EQ(d.attributes().memory_limit, info->total_memory);
  EXPECT_EQ(d.attributes().physical_device_desc, info->Description());
  EXPECT_GE(d.attributes().locality.bus_id, 1);
  EXPECT_EQ(d.physical_ordinal(), 0);
  ASSERT_NE(d.streams(), nullptr);
  EXPECT_EQ(d.streams()->ordinal(), 0);
}

TEST(GpuDeviceTest, VirtualGpusShareOnePhysicalGpu) {
  DFLOW_SKIP_WITHOUT_GPU();
  std::vector<std::unique_ptr<GpuDevice>> devices;
  for (int i = 0; i < 2; ++i) {
    GpuDeviceOptions options;
    options.id = i;
    options.memory_limit = int64_t{1} << 30;
    options.virtual_index = i;
    options.virtual_count = 2;
    auto d = NewGpuDevice(options, ProcessAllocator(absl::StrCat("GPU:", i)),
                          ThreadPool::Shared());
    ASSERT_TRUE(d.ok()) << d.status();
    devices.push_back(*std::move(d));
  }
  EXPECT_EQ(devices[1]->name(), "/job:localhost/replica:0/task:0/device:GPU:1");
  EXPECT_EQ(devices[1]->physical_ordinal(), 0);
  EXPECT_EQ(devices[1]->attributes().memory_limit, int64_t{1} << 30);
  EXPECT_TRUE(absl::EndsWith(devices[1]->attributes().physical_device_desc,
                             ", virtual device 1 of 2"))
      << devices[1]->attributes().physical_device_desc;
  EXPECT_NE(devices[0]->streams()->compute_stream(),
            devices[1]->streams()->compute_stream());
}

TEST(GpuDeviceTest, LimitBeyondTheGpuIsRefused) {
  DFLOW_SKIP_WITHOUT_GPU();
  absl::StatusOr<GpuInfo> info = GetGpuInfo(0);
  ASSERT_TRUE(info.ok());
  GpuDeviceOptions options;
  options.memory_limit = info->total_memory + 1;
  absl::Status s = GpuDeviceAttributes(options).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), info->name)) << s;
  options.memory_limit = 0;
  options.physical_ordinal = VisibleGpuCount();
  EXPECT_EQ(GpuDeviceAttributes(options).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace dflow
