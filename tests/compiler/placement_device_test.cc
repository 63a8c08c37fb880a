// Tests for PlacementDevice: simulated device sets, names, preference order.

#include "compiler/placement_device.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
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
}

TEST(ParseSimulatedDevicesTest, ACpuIsImpliedAndAnEmptyListIsAnError) {
  absl::StatusOr<std::vector<PlacementDevice>> devices =
      ParseSimulatedDevices("GPU:1");
  ASSERT_TRUE(devices.ok()) << devices.status();
  EXPECT_THAT(Names(*devices),
              ElementsAre("/job:localhost/replica:0/task:0/device:CPU:0",
                          "/job:localhost/replica:0/task:0/device:GPU:0"));
  for (const char* empty : {"", ",", " , "}) {
    absl::StatusOr<std::vector<PlacementDevice>> none =
        ParseSimulatedDevices(empty);
    ASSERT_FALSE(none.ok()) << empty;
    EXPECT_THAT(none.status().message(), HasSubstr("names no devices"));
  }
  for (const char* bad : {"CPU:0", "CPU:0,GPU:2", "TPU:1"}) {
    EXPECT_FALSE(ParseSimulatedDevices(bad).ok()) << bad;
  }
}

TEST(ParseDeviceCountsTest, CountsAreBounded) {
  absl::StatusOr<DeviceCounts> counts =
      ParseDeviceCounts(absl::StrCat("CPU:", kMaxDevicesPerType, ",GPU:3"));
  ASSERT_TRUE(counts.ok()) << counts.status();
  EXPECT_EQ(counts->cpus, kMaxDevicesPerType);
  EXPECT_EQ(counts->gpus, 3);
  for (const char* huge : {"GPU:99999999", "CPU:1,GPU:2147483647", "CPU:1025",
                           "GPU:99999999999999999999"}) {
    absl::StatusOr<DeviceCounts> bad = ParseDeviceCounts(huge);
    EXPECT_FALSE(bad.ok()) << huge;
  }
  EXPECT_THAT(ParseDeviceCounts("GPU:99999999").status().message(),
              HasSubstr("the most is 1024"));
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
