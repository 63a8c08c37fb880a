// Devices: logical CPUs sharing the pool, fake GPUs, attributes, the
// `Device mapping:` block, session device creation, CUDA discovery.
#include "runtime/device.h"

#include <unistd.h>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "graph/ops/ops.h"
#include "graph/scope.h"
#include "graph/tensor.h"
#include "gtest/gtest.h"
#include "runtime/cuda_device_count.h"
#include "runtime/session.h"

namespace dflow {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::vector<std::string> Names(const DeviceSet& set) {
  std::vector<std::string> out;
  for (const auto& d : set.devices()) out.push_back(d->name());
  return out;
}

std::unique_ptr<DeviceSet> Devices(const SessionOptions& options) {
  absl::StatusOr<std::unique_ptr<DeviceSet>> set =
      CreateSessionDevices(options);
  EXPECT_TRUE(set.ok()) << set.status();
  return set.ok() ? *std::move(set) : nullptr;
}

TEST(DeviceTest, DefaultSessionHasOneCpu) {
  auto set = Devices(SessionOptions());
  EXPECT_THAT(Names(*set),
              ElementsAre("/job:localhost/replica:0/task:0/device:CPU:0"));
  EXPECT_EQ(set->cpu()->type(), "CPU");
  EXPECT_EQ(set->cpu()->kernel_device_type(), "CPU");
}

TEST(DeviceTest, DeviceCountMakesLogicalCpusSharingThePool) {
  SessionOptions options;
  options.device_count = {{"CPU", 4}};
  auto set = Devices(options);
  EXPECT_THAT(Names(*set),
              ElementsAre("/job:localhost/replica:0/task:0/device:CPU:0",
                          "/job:localhost/replica:0/task:0/device:CPU:1",
                          "/job:localhost/replica:0/task:0/device:CPU:2",
                          "/job:localhost/replica:0/task:0/device:CPU:3"));
  for (const auto& d : set->devices()) {
    EXPECT_EQ(d->type(), "CPU");
    EXPECT_EQ(d->thread_pool(), ThreadPool::Shared()) << d->name();
  }
  // Lower-case keys work as TensorFlow users spell them sometimes.
  options.device_count = {{"cpu", 2}};
  EXPECT_EQ(Devices(options)->devices().size(), 2u);
}

TEST(DeviceTest, EachCpuKeepsItsOwnAllocatorStatistics) {
  SessionOptions options;
  options.device_count = {{"CPU", 3}};
  auto set = Devices(options);
  Device* cpu1 = set->devices()[1].get();
  Device* cpu2 = set->devices()[2].get();
  EXPECT_NE(cpu1->allocator(), cpu2->allocator());
  EXPECT_EQ(cpu2->allocator()->Name(), "CPU:2");
  const int64_t before1 = cpu1->allocator()->Stats().num_allocations;
  const int64_t before2 = cpu2->allocator()->Stats().num_allocations;
  const int64_t live2 = cpu2->allocator()->Stats().live_bytes;
  {
    absl::StatusOr<Tensor> t =
        Tensor::Allocate(cpu2->allocator(), DT_FLOAT, TensorShape({256}));
    ASSERT_TRUE(t.ok()) << t.status();
    EXPECT_EQ(cpu2->allocator()->Stats().num_allocations, before2 + 1);
    EXPECT_GE(cpu2->allocator()->Stats().live_bytes, live2 + 1024);
    EXPECT_EQ(cpu1->allocator()->Stats().num_allocations, before1);
  }
  EXPECT_EQ(cpu2->allocator()->Stats().live_bytes, live2);
}

TEST(DeviceTest, BadDeviceCountsAreErrors) {
  SessionOptions options;
  options.device_count = {{"TPU", 1}};
  auto set = CreateSessionDevices(options);
  ASSERT_FALSE(set.ok());
  EXPECT_THAT(set.status().message(), HasSubstr("'TPU'"));
  options.device_count = {{"CPU", 0}};
  set = CreateSessionDevices(options);
  ASSERT_FALSE(set.ok());
  EXPECT_THAT(set.status().message(), HasSubstr("at least one CPU"));
  options.device_count = {{"GPU", -1}};
  EXPECT_FALSE(CreateSessionDevices(options).ok());
  options.device_count = {};
  options.fake_gpus = -2;
  EXPECT_FALSE(CreateSessionDevices(options).ok());
}

TEST(DeviceTest, GpuCountZeroIsAccepted) {
  SessionOptions options;
  options.device_count = {{"GPU", 0}, {"CPU", 1}};
  EXPECT_EQ(Devices(options)->devices().size(), 1u);
}

TEST(DeviceTest, FakeGpusAreGpusComputingOnHostWithCpuKernels) {
  SessionOptions options;
  options.device_count = {{"CPU", 2}};
  options.fake_gpus = 2;
  auto set = Devices(options);
  EXPECT_THAT(Names(*set),
              ElementsAre("/job:localhost/replica:0/task:0/device:CPU:0",
                          "/job:localhost/replica:0/task:0/device:CPU:1",
                          "/job:localhost/replica:0/task:0/device:GPU:0",
                          "/job:localhost/replica:0/task:0/device:GPU:1"));
  std::vector<Device*> gpus = set->DevicesOfType("GPU");
  ASSERT_EQ(gpus.size(), 2u);
  for (Device* gpu : gpus) {
    EXPECT_EQ(gpu->type(), "GPU");
    EXPECT_EQ(gpu->spec().type(), "GPU");
    EXPECT_EQ(gpu->kernel_device_type(), "CPU");
    EXPECT_EQ(gpu->attributes().kernel_device_type, "CPU");
    EXPECT_THAT(gpu->attributes().physical_device_desc,
                HasSubstr("host memory stand-in for a GPU"));
  }
  EXPECT_EQ(gpus[1]->allocator()->Name(), "GPU:1");
  EXPECT_NE(gpus[0]->allocator(), set->cpu()->allocator());
  // Partial specs match fake GPUs as they would real ones.
  EXPECT_EQ(set->FindMatching(*DeviceSpec::Parse("/gpu:1")), gpus[1]);
  EXPECT_EQ(set->FindMatching(*DeviceSpec::Parse("/device:GPU:*")), gpus[0]);
  EXPECT_EQ(set->Find("/job:localhost/replica:0/task:0/device:GPU:1"), gpus[1]);
}

TEST(DeviceTest, AttributesDescribeEachDevice) {
  auto set = *DeviceSet::Create({/*num_cpus=*/1, /*num_fake_gpus=*/1,
                                 /*fake_gpu_memory_limit=*/int64_t{1} << 30});
  const DeviceAttributes& cpu = set->cpu()->attributes();
  EXPECT_EQ(cpu.name, "/job:localhost/replica:0/task:0/device:CPU:0");
  EXPECT_EQ(cpu.device_type, "CPU");
  EXPECT_EQ(cpu.kernel_device_type, "CPU");
  EXPECT_EQ(cpu.memory_limit, HostMemoryBytes());
  EXPECT_GT(cpu.memory_limit, 0);
  EXPECT_EQ(cpu.locality.bus_id, 0);
  EXPECT_EQ(cpu.locality.numa_node, 0);
  EXPECT_THAT(cpu.physical_device_desc,
              HasSubstr(absl::StrCat("threads: ",
                                     ThreadPool::Shared()->num_threads())));
  const DeviceAttributes& gpu = set->devices()[1]->attributes();
  EXPECT_EQ(gpu.name, "/job:localhost/replica:0/task:0/device:GPU:0");
  EXPECT_EQ(gpu.device_type, "GPU");
  EXPECT_EQ(gpu.memory_limit, int64_t{1} << 30);
}

TEST(DeviceTest, DeviceMappingHasTensorFlowsFormat) {
  auto set = *DeviceSet::Create({/*num_cpus=*/1, /*num_fake_gpus=*/2});
  const int threads = ThreadPool::Shared()->num_threads();
  EXPECT_EQ(
      DeviceMappingString(*set),
      absl::StrCat(
          "Device mapping:\n"
          "/job:localhost/replica:0/task:0/device:CPU:0 -> device: 0, name: "
          "host CPU, threads: ",
          threads,
          " (shared by every CPU device)\n"
          "/job:localhost/replica:0/task:0/device:GPU:0 -> device: 0, name: "
          "host memory stand-in for a GPU (test device, runs CPU kernels), "
          "pci bus id: none\n"
          "/job:localhost/replica:0/task:0/device:GPU:1 -> device: 1, name: "
          "host memory stand-in for a GPU (test device, runs CPU kernels), "
          "pci bus id: none\n"));

  // Devices without a description (made directly, as benchmarks do) are
  // left out, as TensorFlow leaves out its CPUs.
  DeviceSet bare;
  bare.Add(std::make_unique<Device>(DeviceSpec::LocalDevice("CPU", 0),
                                    ProcessAllocator("CPU:0"),
                                    ThreadPool::Shared()));
  EXPECT_EQ(DeviceMappingString(bare), "Device mapping: no known devices.\n");
}

TEST(DeviceTest, ParsesSimulatedDeviceLists) {
  auto o = DeviceSet::Options::Parse("CPU:1,GPU:4");
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->num_cpus, 1);
  EXPECT_EQ(o->num_fake_gpus, 4);
  o = DeviceSet::Options::Parse(" gpu:2 , cpu:3 ");
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->num_cpus, 3);
  EXPECT_EQ(o->num_fake_gpus, 2);
  o = DeviceSet::Options::Parse("GPU:2");
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->num_cpus, 1);
  for (const char* bad : {"CPU", "CPU:x", "CPU:-1", "TPU:1", "CPU:1,CPU:2",
                          "CPU:0,GPU:1", "CPU:1:2"}) {
    EXPECT_FALSE(DeviceSet::Options::Parse(bad).ok()) << bad;
  }
}

TEST(DeviceTest, SessionUsesTheOptionsDevices) {
  Scope root = Scope::NewRootScope();
  ops::Const(root.WithOpName("c"), 1.0f);
  GraphDef def;
  ASSERT_TRUE(root.ToGraphDef(&def).ok());
  SessionOptions options;
  options.device_count = {{"CPU", 2}};
  options.fake_gpus = 3;
  auto session = Session::Create(def, options);
  ASSERT_TRUE(session.ok()) << session.status();
  EXPECT_EQ((*session)->devices().devices().size(), 5u);
  EXPECT_EQ((*session)->devices().DevicesOfType("GPU").size(), 3u);

  options.device_count = {{"XPU", 1}};
  EXPECT_FALSE(Session::Create(def, options).ok());
}

TEST(CudaDeviceCountTest, ZeroWithoutAGpuAndNeverAnError) {
  const int n = CountCudaDevices();
  EXPECT_GE(n, 0);
  EXPECT_EQ(CountCudaDevices(), n);  // cached, stable
  EXPECT_FALSE(CudaDiscoveryNote().empty());
  if (access("/dev/nvidiactl", F_OK) != 0) {
    // No driver device node: no GPU can be visible.
    EXPECT_EQ(n, 0) << CudaDiscoveryNote();
  }
}

}  // namespace
}  // namespace dflow
