// The element-moving and Cast launchers (kernels/gpu/array_ops_gpu.h,
// cast_ops_gpu.h) on a GPU against host references: strided copies of
// every element width against HostStridedCopy, fills, and the saturating
// float -> int32 and rounding double -> float casts. Inputs are fresh
// random values (the seed is printed on failure); outputs are poisoned
// before each launch so an element left unwritten shows up. Skips without
// a GPU.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "kernels/gpu/array_ops_gpu.h"
#include "kernels/gpu/cast_ops_gpu.h"
#include "tests/kernels/gpu/gpu_launcher_test_util.h"

namespace dflow {
namespace testing_gpu {
namespace {

#if DFLOW_HAVE_CUDA

class ArrayOpsGpuTest : public GpuLauncherTest {
 protected:
  void SetUp() override {
    GpuLauncherTest::SetUp();
    seed_ = std::random_device()();
  }
  // A tensor of random bytes.
  Tensor RandomBytes(DataType dtype, const TensorShape& shape) {
    std::mt19937 rng(seed_++);
    Tensor t(dtype, shape);
    auto* p = static_cast<unsigned char*>(t.raw_data());
    for (size_t i = 0; i < Bytes(t); ++i) p[i] = static_cast<unsigned char>(rng());
    return t;
  }
  uint32_t seed_ = 0;
};

TEST_F(ArrayOpsGpuTest, StridedCopiesMatchTheHostCopyAtEveryWidth) {
  SCOPED_TRACE(::testing::Message() << "seed " << seed_);
  const DataType types[] = {DT_INT8, DT_INT16, DT_FLOAT, DT_DOUBLE,
                            DT_COMPLEX128};
  // Transpose [3,5,7] by [2,0,1], a Tile of [2,3] by [3,2] (output
  // [6,6]), and a reversed slice (negative strides).
  for (DataType t : types) {
    SCOPED_TRACE(DataTypeName(t));
    const int w = static_cast<int>(DataTypeSize(t));
    {
      const Tensor x = RandomBytes(t, TensorShape({3, 5, 7}));
      auto plan = MakeGpuStridedCopy({7, 3, 5}, {1, 35, 7}, {15, 5, 1}, 0, 0,
                                     {}, "Transpose");
      ASSERT_TRUE(plan.ok()) << plan.status();
      Tensor want(t, TensorShape({7, 3, 5}));
      HostStridedCopy(w, *plan, x.raw_data(), want.raw_data());
      auto in = Upload(x);
      auto out = Poisoned(t, want.shape());
      ASSERT_TRUE(
          LaunchGpuStridedCopy(w, *plan, in->get(), out->get(), stream()).ok());
      Tensor got = Download(*out, t, want.shape());
      EXPECT_EQ(std::memcmp(got.raw_data(), want.raw_data(), Bytes(want)), 0);
    }
    {
      const Tensor x = RandomBytes(t, TensorShape({2, 3}));
      auto plan = MakeGpuStridedCopy({6, 6}, {3, 1}, {6, 1}, 0, 0, {2, 3},
                                     "Tile");
      ASSERT_TRUE(plan.ok()) << plan.status();
      Tensor want(t, TensorShape({6, 6}));
      HostStridedCopy(w, *plan, x.raw_data(), want.raw_data());
      auto in = Upload(x);
      auto out = Poisoned(t, want.shape());
      ASSERT_TRUE(
          LaunchGpuStridedCopy(w, *plan, in->get(), out->get(), stream()).ok());
      Tensor got = Download(*out, t, want.shape());
      EXPECT_EQ(std::memcmp(got.raw_data(), want.raw_data(), Bytes(want)), 0);
    }
    {
      const Tensor x = RandomBytes(t, TensorShape({4, 9}));
      // x[3:0:-1, 8:1:-3]: rows 3,2,1; columns 8,5,2.
      auto plan = MakeGpuStridedCopy({3, 3}, {-9, -3}, {3, 1}, 3 * 9 + 8, 0,
                                     {}, "StridedSlice");
      ASSERT_TRUE(plan.ok()) << plan.status();
      Tensor want(t, TensorShape({3, 3}));
      HostStridedCopy(w, *plan, x.raw_data(), want.raw_data());
      auto in = Upload(x);
      auto out = Poisoned(t, want.shape());
      ASSERT_TRUE(
          LaunchGpuStridedCopy(w, *plan, in->get(), out->get(), stream()).ok());
      Tensor got = Download(*out, t, want.shape());
      EXPECT_EQ(std::memcmp(got.raw_data(), want.raw_data(), Bytes(want)), 0);
    }
  }
}

TEST_F(ArrayOpsGpuTest, FillsWriteEveryElement) {
  const double value = 2.75;
  Tensor scalar(DT_DOUBLE, TensorShape());
  scalar.data<double>()[0] = value;
  auto dev_value = Upload(scalar);
  auto out = Poisoned(DT_DOUBLE, TensorShape({1000}));
  ASSERT_TRUE(LaunchGpuFillFromDevice(8, dev_value->get(), out->get(), 1000,
                                      stream())
                  .ok());
  Tensor got = Download(*out, DT_DOUBLE, TensorShape({1000}));
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(got.data<double>()[i], value) << i;
  const uint16_t one_half = 0x3C00;
  auto out16 = Poisoned(DT_HALF, TensorShape({777}));
  ASSERT_TRUE(
      LaunchGpuFillValue(2, &one_half, out16->get(), 777, stream()).ok());
  Tensor got16 = Download(*out16, DT_HALF, TensorShape({777}));
  const auto* bits = static_cast<const uint16_t*>(got16.raw_data());
  for (int i = 0; i < 777; ++i) ASSERT_EQ(bits[i], one_half) << i;
}

TEST_F(ArrayOpsGpuTest, FloatToInt32SaturatesAndNanIsZero) {
  SCOPED_TRACE(::testing::Message() << "seed " << seed_);
  std::mt19937 rng(seed_);
  std::uniform_real_distribution<float> dist(-3e9f, 3e9f);
  std::vector<float> xs = {0.0f, -0.0f, 1.9f, -1.9f, 2147483520.0f,
                           3e9f, -3e9f, std::numeric_limits<float>::infinity(),
                           -std::numeric_limits<float>::infinity(),
                           std::numeric_limits<float>::quiet_NaN()};
  for (int i = 0; i < 1000; ++i) xs.push_back(dist(rng));
  const int64_t n = static_cast<int64_t>(xs.size());
  Tensor x(DT_FLOAT, TensorShape({n}));
  std::memcpy(x.raw_data(), xs.data(), xs.size() * sizeof(float));
  auto in = Upload(x);
  auto out = Poisoned(DT_INT32, x.shape());
  ASSERT_TRUE(LaunchGpuCast(GpuCastType::kFloat, GpuCastType::kInt32, false,
                            in->get(), out->get(), n, stream())
                  .ok());
  Tensor got = Download(*out, DT_INT32, x.shape());
  for (int64_t i = 0; i < n; ++i) {
    const double d = xs[i];
    int32_t want;
    if (std::isnan(d)) {
      want = 0;
    } else if (d >= 2147483648.0) {
      want = std::numeric_limits<int32_t>::max();
    } else if (d <= -2147483649.0) {
      want = std::numeric_limits<int32_t>::min();
    } else {
      want = static_cast<int32_t>(d);
    }
    ASSERT_EQ(got.data<int32_t>()[i], want) << xs[i];
  }
}

TEST_F(ArrayOpsGpuTest, DoubleToFloatRoundsToNearest) {
  SCOPED_TRACE(::testing::Message() << "seed " << seed_);
  std::mt19937_64 rng(seed_);
  std::uniform_real_distribution<double> dist(-1e6, 1e6);
  const int64_t n = 4096;
  Tensor x(DT_DOUBLE, TensorShape({n}));
  for (int64_t i = 0; i < n; ++i) x.data<double>()[i] = dist(rng);
  auto in = Upload(x);
  auto out = Poisoned(DT_FLOAT, x.shape());
  ASSERT_TRUE(LaunchGpuCast(GpuCastType::kDouble, GpuCastType::kFloat, false,
                            in->get(), out->get(), n, stream())
                  .ok());
  Tensor got = Download(*out, DT_FLOAT, x.shape());
  for (int64_t i = 0; i < n; ++i) {
    ASSERT_EQ(got.data<float>()[i], static_cast<float>(x.data<double>()[i]));
  }
}

#endif  // DFLOW_HAVE_CUDA

}  // namespace
}  // namespace testing_gpu
}  // namespace dflow
