// Helpers for the GPU runtime tests: skipping without a GPU, device buffers,
// and waiting for a GpuStreams callback.
#ifndef DFLOW_TESTS_RUNTIME_GPU_GPU_TEST_UTIL_H_
#define DFLOW_TESTS_RUNTIME_GPU_GPU_TEST_UTIL_H_

#include <cstdlib>
#include <functional>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/synchronization/notification.h"
#include "gtest/gtest.h"
#include "runtime/gpu/cuda_status.h"
#include "runtime/gpu/gpu_discovery.h"
#include "runtime/gpu/gpu_streams.h"

// Ends the test as skipped, saying why, when this process has no GPU; or
// as failed when the environment sets DFLOW_REQUIRE_GPU (non-empty, not
// "0"): gpu_bundle/run_all.sh sets it where nvidia-smi lists a GPU, so a
// driver/runtime mismatch cannot pass as "all skipped".
#define DFLOW_SKIP_WITHOUT_GPU()                                          \
  do {                                                                    \
    if (absl::Status _s = ::dflow::GpusAvailable(); !_s.ok()) {           \
      if (::dflow::GpuRequiredByEnvironment()) {                          \
        FAIL() << "DFLOW_REQUIRE_GPU is set but there is no usable GPU: " \
               << _s.message();                                           \
      }                                                                   \
      GTEST_SKIP() << "no GPU here (" << _s.message() << ")";             \
    }                                                                     \
  } while (0)

namespace dflow {

inline bool GpuRequiredByEnvironment() {
  const char* v = std::getenv("DFLOW_REQUIRE_GPU");
  return v != nullptr && *v != '\0' && std::string(v) != "0";
}

// Runs `enqueue(done)` and blocks until `done` was called; returns its
// status.
inline absl::Status AwaitCallback(
    const std::function<void(GpuStreams::DoneCallback)>& enqueue) {
  absl::Notification notified;
  absl::Status result;
  enqueue([&](absl::Status s) {
    result = std::move(s);
    notified.Notify();
  });
  notified.WaitForNotification();
  return result;
}

#if DFLOW_HAVE_CUDA
// Device memory of the current GPU, freed on destruction.
class DeviceBuffer {
 public:
  explicit DeviceBuffer(size_t bytes) : bytes_(bytes) {
    EXPECT_EQ(cudaMalloc(&data_, bytes), cudaSuccess);
  }
  ~DeviceBuffer() { cudaFree(data_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  void* get() const { return data_; }
  float* floats() const { return static_cast<float*>(data_); }
  size_t bytes() const { return bytes_; }

 private:
  void* data_ = nullptr;
  size_t bytes_;
};
#endif  // DFLOW_HAVE_CUDA

}  // namespace dflow

#endif  // DFLOW_TESTS_RUNTIME_GPU_GPU_TEST_UTIL_H_
