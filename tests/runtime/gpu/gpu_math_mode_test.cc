// SessionOptions.gpu_allow_tf32 reaches the process-wide GPU math mode
// (runtime/gpu/gpu_math_mode.h) through the GPU device factory, with or
// without a GPU: the factory sets it before it looks for GPUs.
#include "runtime/gpu/gpu_math_mode.h"

#include <memory>

#include "gtest/gtest.h"
#include "runtime/gpu/gpu_device_factory.h"
#include "runtime/session.h"

namespace dflow {
namespace {

TEST(GpuMathModeTest, DefaultsToFullPrecisionAndRemembersTheLastSetting) {
  EXPECT_FALSE(GpuTensorFloat32Allowed());
  SetGpuTensorFloat32Allowed(true);
  EXPECT_TRUE(GpuTensorFloat32Allowed());
  SetGpuTensorFloat32Allowed(false);
  EXPECT_FALSE(GpuTensorFloat32Allowed());
}

TEST(GpuMathModeTest, SessionOptionReachesTheFactoryOptions) {
  SessionOptions options;
  absl::StatusOr<DeviceFactoryOptions> off = GpuFactoryOptions(options);
  ASSERT_TRUE(off.ok()) << off.status();
  EXPECT_FALSE(off->allow_tf32);
  options.gpu_allow_tf32 = true;
  absl::StatusOr<DeviceFactoryOptions> on = GpuFactoryOptions(options);
  ASSERT_TRUE(on.ok()) << on.status();
  EXPECT_TRUE(on->allow_tf32);
}

TEST(GpuMathModeTest, TheFactorySetsTheProcessWideMode) {
  DeviceFactoryOptions options;
  options.allow_tf32 = true;
  ASSERT_TRUE(CreateGpuDevices(options).ok());
  EXPECT_TRUE(GpuTensorFloat32Allowed());
  options.allow_tf32 = false;
  ASSERT_TRUE(CreateGpuDevices(options).ok());
  EXPECT_FALSE(GpuTensorFloat32Allowed());
}

TEST(GpuMathModeTest, CreatingASessionSetsIt) {
  ASSERT_TRUE(HasDeviceFactory("GPU"));  // linked (alwayslink)
  SessionOptions options;
  options.gpu_allow_tf32 = true;
  absl::StatusOr<std::unique_ptr<Session>> on =
      Session::Create(GraphDef(), options);
  ASSERT_TRUE(on.ok()) << on.status();
  EXPECT_TRUE(GpuTensorFloat32Allowed());

  options.gpu_allow_tf32 = false;
  absl::StatusOr<std::unique_ptr<Session>> off =
      Session::Create(GraphDef(), options);
  ASSERT_TRUE(off.ok()) << off.status();
  EXPECT_FALSE(GpuTensorFloat32Allowed());
}

TEST(GpuMathModeTest, SessionsWithoutTheGpuFactoryLeaveItAlone) {
  // device_count {"GPU": 0}: the factory is not asked for devices.
  SetGpuTensorFloat32Allowed(false);
  SessionOptions options;
  options.gpu_allow_tf32 = true;
  options.device_count["GPU"] = 0;
  absl::StatusOr<std::unique_ptr<Session>> session =
      Session::Create(GraphDef(), options);
  ASSERT_TRUE(session.ok()) << session.status();
  EXPECT_FALSE(GpuTensorFloat32Allowed());
}

}  // namespace
}  // namespace dflow
