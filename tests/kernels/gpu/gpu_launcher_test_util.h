// Helpers for the tests of the cuBLAS/cuDNN launchers (kernels/gpu/
// matmul_gpu.h, conv_ops_gpu.h, pooling_ops_gpu.h, lrn_ops_gpu.h) against
// the CPU kernels: a stream, host tensors copied to and from device memory,
// outputs poisoned (NaN words) before a launch so an element the launcher
// forgot to write shows up.
//
// The tests using these skip themselves without a GPU
// (DFLOW_SKIP_WITHOUT_GPU in SetUp); everything here needs CUDA.
#ifndef DFLOW_TESTS_KERNELS_GPU_GPU_LAUNCHER_TEST_UTIL_H_
#define DFLOW_TESTS_KERNELS_GPU_GPU_LAUNCHER_TEST_UTIL_H_

#include <cstddef>
#include <cstring>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "graph/tensor.h"
#include "gtest/gtest.h"
#include "runtime/gpu/cuda_status.h"
#include "runtime/gpu/gpu_fill.h"
#include "tests/runtime/gpu/gpu_test_util.h"

namespace dflow {
namespace testing_gpu {

#if DFLOW_HAVE_CUDA

// A fixture with a fresh stream on GPU 0 (skips without a GPU).
class GpuLauncherTest : public ::testing::Test {
 protected:
  void SetUp() override {
    DFLOW_SKIP_WITHOUT_GPU();
    ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
    ASSERT_EQ(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking),
              cudaSuccess);
  }
  void TearDown() override {
    if (stream_ != nullptr) {
      EXPECT_EQ(cudaStreamSynchronize(stream_), cudaSuccess);
      EXPECT_EQ(cudaStreamDestroy(stream_), cudaSuccess);
    }
  }

  void* stream() const { return stream_; }
  absl::Status Sync() const {
    return CudaStatus(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
  }

  // Device memory holding `t`'s bytes (at least 4 bytes, so empty tensors
  // get a valid pointer too). Copied on the test's stream and waited for: a
  // plain cudaMemcpy runs on the legacy default stream, which a
  // non-blocking stream does not wait for.
  std::unique_ptr<DeviceBuffer> Upload(const Tensor& t) const {
    auto buffer = std::make_unique<DeviceBuffer>(Bytes(t) + 4);
    EXPECT_EQ(cudaMemcpyAsync(buffer->get(), t.raw_data(), Bytes(t),
                              cudaMemcpyHostToDevice, stream_),
              cudaSuccess);
    EXPECT_TRUE(Sync().ok());
    return buffer;
  }

  // Device memory for a `dtype` tensor of `shape`, filled with NaN words.
  std::unique_ptr<DeviceBuffer> Poisoned(DataType dtype,
                                         const TensorShape& shape) const {
    const size_t bytes = static_cast<size_t>(shape.num_elements()) *
                         static_cast<size_t>(DataTypeSize(dtype));
    auto buffer = std::make_unique<DeviceBuffer>(bytes + 4);
    EXPECT_TRUE(PoisonDeviceMemory(buffer->get(), bytes + 4, stream_).ok());
    return buffer;
  }

  // The `dtype` tensor of `shape` in `buffer` (after the stream finished).
  Tensor Download(const DeviceBuffer& buffer, DataType dtype,
                  const TensorShape& shape) const {
    EXPECT_TRUE(Sync().ok());
    Tensor t(dtype, shape);
    EXPECT_EQ(cudaMemcpy(t.raw_data(), buffer.get(), Bytes(t),
                         cudaMemcpyDeviceToHost),
              cudaSuccess);
    return t;
  }

  static size_t Bytes(const Tensor& t) {
    return static_cast<size_t>(t.NumElements()) *
           static_cast<size_t>(DataTypeSize(t.dtype()));
  }

 private:
  cudaStream_t stream_ = nullptr;
};

#endif  // DFLOW_HAVE_CUDA

}  // namespace testing_gpu
}  // namespace dflow

#endif  // DFLOW_TESTS_KERNELS_GPU_GPU_LAUNCHER_TEST_UTIL_H_
