// Tests for PlacementDevice: simulated device sets, names, preference order.

#include "compiler/placement_device.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace dflow {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::vector<std::string> Names(const std::vector<PlacementDevice>& devices) {
  std::vector<std::string> names;
  for (const PlacementDevice& d : devices) names.push_back(d.name);
  return names;
}

TEST(ParseSimulatedDevicesTest, CountsPerType) {
  absl::StatusOr<std::vector<PlacementDevice>> devices =
      ParseSimulatedDevices("CPU:1,GPU:4");
  ASSERT_TRUE(devices.ok()) << devices.status();
  EXPECT_THAT(Names(*devices),
              ElementsAre("/job:localhost/replica:0/task:0/device:CPU:0",
                          "/job:localhost/replica:0/task:0/device:GPU:0",
                          "/job:localhost/replica:0/task:0/device:GPU:1",
                          "/job:localhost/replica:0/task:0/device:GPU:2",
                          "/job:localhost/replica:0/task:0/device:GPU:3"));
  EXPECT_EQ((*devices)[1].type(), "GPU");
  EXPECT_EQ((*devices)[1].spec.id(), 0);
  EXPECT_GT((*devices)[1].priority, (*devices)[0].priority);
}

TEST(ParseSimulatedDevicesTest, CaseSpacesAndZeroCounts) {
  absl::StatusOr<std::vector<PlacementDevice>> devices =
      ParseSimulatedDevices(" cpu:2 , gpu:0 ");
  ASSERT_TRUE(devices.ok()) << devices.status();
  EXPECT_THAT(Names(*devices),
              ElementsAre("/job:localhost/replica:0/task:0/device:CPU:0",
                          "/job:localhost/replica:0/task:0/device:CPU:1"));
  EXPECT_TRUE(ParseSimulatedDevices("")->empty());
}

TEST(ParseSimulatedDevicesTest, RejectsMalformedEntries) {
  for (const char* bad :
       {"GPU", "GPU:-1", "GPU:x", "GPU:1:2", ":3", "G-PU:1"}) {
    absl::StatusOr<std::vector<PlacementDevice>> devices =
        ParseSimulatedDevices(bad);
    EXPECT_FALSE(devices.ok()) << bad;
    EXPECT_THAT(devices.status().message(), HasSubstr("CPU:1,GPU:4")) << bad;
  }
  absl::StatusOr<std::vector<PlacementDevice>> twice =
      ParseSimulatedDevices("CPU:1,cpu:2");
  ASSERT_FALSE(twice.ok());
  EXPECT_THAT(twice.status().message(), HasSubstr("CPU appears twice"));
}

TEST(PlacementDeviceTest, FromNameNeedsAFullySpecifiedName) {
  absl::StatusOr<PlacementDevice> d =
      PlacementDevice::FromName("/job:worker/replica:0/task:1/gpu:3");
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->name, "/job:worker/replica:0/task:1/device:GPU:3");
  EXPECT_EQ(d->priority, DefaultDeviceTypePriority("GPU"));

  absl::StatusOr<PlacementDevice> partial = PlacementDevice::FromName("/gpu:0");
  ASSERT_FALSE(partial.ok());
  EXPECT_THAT(partial.status().message(), HasSubstr("partial"));
  EXPECT_FALSE(PlacementDevice::FromName("/gpu:zero").ok());
}

TEST(PlacementDeviceTest, PreferenceIsGpuThenCpuThenOthersThenIndex) {
  EXPECT_GT(DefaultDeviceTypePriority("GPU"), DefaultDeviceTypePriority("CPU"));
  EXPECT_GT(DefaultDeviceTypePriority("CPU"), DefaultDeviceTypePriority("TPU"));
  std::vector<PlacementDevice> devices;
  for (const char* name : {"/job:localhost/replica:0/task:0/device:TPU:0",
                           "/job:localhost/replica:0/task:0/device:CPU:0",
                           "/job:localhost/replica:0/task:0/device:GPU:1",
                           "/job:localhost/replica:0/task:0/device:GPU:0"}) {
    devices.push_back(*PlacementDevice::FromName(name));
  }
  SortByPreference(&devices);
  EXPECT_THAT(Names(devices),
              ElementsAre("/job:localhost/replica:0/task:0/device:GPU:0",
                          "/job:localhost/replica:0/task:0/device:GPU:1",
                          "/job:localhost/replica:0/task:0/device:CPU:0",
                          "/job:localhost/replica:0/task:0/device:TPU:0"));
}

TEST(PlacementDeviceTest, DescribeDevicesIsShortWithinOneTask) {
  EXPECT_EQ(DescribeDevices(*ParseSimulatedDevices("CPU:1,GPU:2")),
            "CPU:0, GPU:0, GPU:1");
  EXPECT_EQ(DescribeDevices({}), "no devices");
  std::vector<PlacementDevice> two_tasks = {
      *PlacementDevice::FromName("/job:w/replica:0/task:0/device:CPU:0"),
      *PlacementDevice::FromName("/job:w/replica:0/task:1/device:CPU:0")};
  EXPECT_EQ(DescribeDevices(two_tasks),
            "/job:w/replica:0/task:0/device:CPU:0, "
            "/job:w/replica:0/task:1/device:CPU:0");
}

}  // namespace
}  // namespace dflow
