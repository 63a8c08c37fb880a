// The fill/poison kernel (the nvcc-compiled part of runtime/gpu). Skips
// without a GPU.
#include "runtime/gpu/gpu_fill.h"

#include <cmath>
#include <cstring>
#include <vector>

#include "gtest/gtest.h"
#include "tests/runtime/gpu/gpu_test_util.h"

namespace dflow {
namespace {

#if DFLOW_HAVE_CUDA

TEST(GpuFillTest, FillsFloats) {
  DFLOW_SKIP_WITHOUT_GPU();
  auto streams = GpuStreams::Create(0);
  ASSERT_TRUE(streams.ok()) << streams.status();
  constexpr int kCount = 3 * 256 * 4096 + 5;  // more than one grid pass
  DeviceBuffer d(kCount * sizeof(float));
  ASSERT_TRUE(
      FillDeviceFloats(d.floats(), 2.5f, kCount, (*streams)->compute_stream())
          .ok());
  std::vector<float> out(kCount);
  ASSERT_TRUE(AwaitCallback([&](GpuStreams::DoneCallback done) {
                (*streams)->CopyDeviceToHost(out.data(), d.get(), d.bytes(),
                                             std::move(done));
              }).ok());
  EXPECT_EQ(out, std::vector<float>(kCount, 2.5f));
}

TEST(GpuFillTest, PoisonIsNanIncludingTheTrailingBytes) {
  DFLOW_SKIP_WITHOUT_GPU();
  auto streams = GpuStreams::Create(0);
  ASSERT_TRUE(streams.ok()) << streams.status();
  constexpr size_t kBytes = 4 * 1000 + 3;
  DeviceBuffer d(kBytes + 1);
  ASSERT_EQ(cudaMemset(d.get(), 0, kBytes + 1), cudaSuccess);
  ASSERT_TRUE(
      PoisonDeviceMemory(d.get(), kBytes, (*streams)->compute_stream()).ok());
  std::vector<unsigned char> out(kBytes + 1);
  ASSERT_TRUE(AwaitCallback([&](GpuStreams::DoneCallback done) {
                (*streams)->CopyDeviceToHost(out.data(), d.get(), out.size(),
                                             std::move(done));
              }).ok());
  for (size_t i = 0; i + 4 <= kBytes; i += 4) {
    float f;
    std::memcpy(&f, &out[i], 4);
    ASSERT_TRUE(std::isnan(f)) << i;
    uint32_t w;
    std::memcpy(&w, &out[i], 4);
    ASSERT_EQ(w, kGpuPoisonWord) << i;
  }
  uint32_t word = kGpuPoisonWord;
  EXPECT_EQ(std::memcmp(&out[4000], &word, 3), 0);
  EXPECT_EQ(out[kBytes], 0);  // not one byte further
}

TEST(GpuFillTest, MisalignedDestinationIsRefused) {
  DFLOW_SKIP_WITHOUT_GPU();
  DeviceBuffer d(64);
  absl::Status s =
      FillDeviceWords(static_cast<char*>(d.get()) + 2, 0, 4, nullptr);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
}

#else  // !DFLOW_HAVE_CUDA

TEST(GpuFillTest, NeedsCuda) {
  GTEST_SKIP() << "dflow was built without CUDA (no_gpu_test checks the "
                  "answers then)";
}

#endif  // DFLOW_HAVE_CUDA

}  // namespace
}  // namespace dflow
