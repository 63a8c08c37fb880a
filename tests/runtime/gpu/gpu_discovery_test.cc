// Discovery of physical GPUs. Skips without a GPU (no_gpu_test checks
// what is answered then).
#include "runtime/gpu/gpu_discovery.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/runtime/gpu/gpu_test_util.h"

namespace dflow {
namespace {

TEST(GpuDiscoveryTest, ListsEveryVisibleGpu) {
  DFLOW_SKIP_WITHOUT_GPU();
  EXPECT_TRUE(BuiltWithCuda());
  absl::StatusOr<std::vector<GpuInfo>> gpus = DiscoverGpus();
  ASSERT_TRUE(gpus.ok()) << gpus.status();
  ASSERT_EQ(static_cast<int>(gpus->size()), VisibleGpuCount());
  ASSERT_GT(VisibleGpuCount(), 0);
  for (int i = 0; i < VisibleGpuCount(); ++i) {
    const GpuInfo& g = (*gpus)[i];
    EXPECT_EQ(g.ordinal, i);
    EXPECT_FALSE(g.name.empty());
    EXPECT_GT(g.total_memory, int64_t{256} << 20) << g.Description();
    EXPECT_GE(g.compute_major, 3) << g.Description();
    EXPECT_GT(g.multiprocessors, 0) << g.Description();
    EXPECT_FALSE(g.pci_bus_id.empty()) << g.Description();
  }
}

TEST(GpuDiscoveryTest, GetGpuInfoMatchesDiscovery) {
  DFLOW_SKIP_WITHOUT_GPU();
  absl::StatusOr<std::vector<GpuInfo>> gpus = DiscoverGpus();
  ASSERT_TRUE(gpus.ok()) << gpus.status();
  absl::StatusOr<GpuInfo> first = GetGpuInfo(0);
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(first->name, (*gpus)[0].name);
  EXPECT_EQ(first->total_memory, (*gpus)[0].total_memory);
  EXPECT_EQ(first->pci_bus_id, (*gpus)[0].pci_bus_id);
}

TEST(GpuDiscoveryTest, DescriptionIsTensorFlowsPhysicalDeviceDesc) {
  DFLOW_SKIP_WITHOUT_GPU();
  absl::StatusOr<GpuInfo> g = GetGpuInfo(0);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->Description(),
            absl::StrCat("device: 0, name: ", g->name,
                         ", pci bus id: ", g->pci_bus_id,
                         ", compute capability: ", g->compute_major, ".",
                         g->compute_minor));
}

TEST(GpuDiscoveryTest, BadOrdinalsNameTheVisibleRange) {
  DFLOW_SKIP_WITHOUT_GPU();
  for (int bad : {-1, VisibleGpuCount()}) {
    absl::Status s = GetGpuInfo(bad).status();
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
    EXPECT_TRUE(absl::StrContains(
        s.message(), absl::StrCat("GPUs 0..", VisibleGpuCount() - 1)))
        << s;
  }
}

TEST(GpuInfoTest, DescriptionWithoutABusId) {
  GpuInfo g;
  g.ordinal = 3;
  g.name = "Test GPU";
  g.compute_major = 9;
  EXPECT_EQ(g.Description(),
            "device: 3, name: Test GPU, pci bus id: none, compute "
            "capability: 9.0");
}

}  // namespace
}  // namespace dflow
