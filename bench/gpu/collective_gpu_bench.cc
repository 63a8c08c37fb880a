// All-reduce bandwidth on one GPU split into virtual devices: 2 and 4
// members on GPU 0 summing float buffers of 1 to 256 MiB through
// RunGpuCollective (runtime/gpu/gpu_collective.h), which takes its device
// ring there (NCCL ranks one member per physical GPU). Each figure is the
// mean of repeated collectives, each timed from its submission to its
// `done` callback (wall clock; the collectives run one after another).
//
//   collective_gpu members=N bytes=B path=device_ring ms=T algbw_GBps=A
//   busbw_GBps=U
//
// algbw is the buffer's bytes per second; busbw scales it by 2(N-1)/N, the
// bytes a ring moves per member (NCCL's bus bandwidth, comparable across
// member counts). A device-to-device cudaMemcpyAsync of 256 MiB gives the
// GPU's copy bandwidth beside it (bytes copied per second):
//
//   copy_d2d bytes=B GBps=G
//
// Without a GPU it prints "collective_gpu: no GPU" and exits 0.
//   bazel run -c opt //bench/gpu:collective_gpu_bench
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "runtime/gpu/gpu_collective.h"
#include "runtime/gpu/gpu_streams.h"

namespace dflow {
namespace {

struct DeviceMemory {
  explicit DeviceMemory(size_t bytes) {
    if (cudaMalloc(&ptr, bytes) != cudaSuccess) ptr = nullptr;
    if (ptr != nullptr) cudaMemset(ptr, 0, bytes);
  }
  ~DeviceMemory() {
    if (ptr != nullptr) cudaFree(ptr);
  }
  void* ptr = nullptr;
};

absl::Status RunOnce(const GpuCollectiveSpec& spec,
                     const std::vector<GpuCollectiveMember>& members) {
  absl::Notification done;
  absl::Status status;
  RunGpuCollective(spec, members, [&](absl::Status s) {
    status = std::move(s);
    done.Notify();
  });
  done.WaitForNotification();
  return status;
}

// Mean seconds per all-reduce of `bytes` over `n` members on GPU 0.
absl::Status TimeAllReduce(int n, int64_t bytes, double* seconds,
                           GpuCollectivePath* path) {
  std::vector<std::unique_ptr<GpuStreams>> streams;
  std::vector<std::unique_ptr<DeviceMemory>> buffers;
  std::vector<GpuCollectiveMember> members(n);
  for (int r = 0; r < n; ++r) {
    absl::StatusOr<std::unique_ptr<GpuStreams>> s = GpuStreams::Create(0);
    if (!s.ok()) return s.status();
    streams.push_back(*std::move(s));
    auto in = std::make_unique<DeviceMemory>(bytes);
    auto out = std::make_unique<DeviceMemory>(bytes);
    if (in->ptr == nullptr || out->ptr == nullptr) {
      return absl::ResourceExhaustedError("cudaMalloc failed");
    }
    GpuCollectiveMember& m = members[r];
    m.device =
        "/job:localhost/replica:0/task:0/device:GPU:" + std::to_string(r);
    m.physical_ordinal = 0;
    m.streams = streams.back().get();
    m.input = in->ptr;
    m.output = out->ptr;
    buffers.push_back(std::move(in));
    buffers.push_back(std::move(out));
  }
  cudaDeviceSynchronize();
  GpuCollectiveSpec spec;
  spec.op = GpuCollectiveOp::kAllReduce;
  spec.type = RingElementType::kFloat;
  spec.count = bytes / static_cast<int64_t>(sizeof(float));
  spec.label = "benchmark all-reduce";
  *path = ChooseGpuCollectivePath(members);
  for (int warm = 0; warm < 2; ++warm) {
    if (absl::Status s = RunOnce(spec, members); !s.ok()) return s;
  }
  // About 2 GiB of buffers per figure, at least 5 collectives.
  const int reps =
      static_cast<int>(std::max<int64_t>(5, (int64_t{2} << 30) / (bytes * n)));
  const absl::Time start = absl::Now();
  for (int i = 0; i < reps; ++i) {
    if (absl::Status s = RunOnce(spec, members); !s.ok()) return s;
  }
  *seconds = absl::ToDoubleSeconds(absl::Now() - start) / reps;
  return absl::OkStatus();
}

double CopyBandwidth(int64_t bytes) {
  DeviceMemory a(bytes), b(bytes);
  cudaStream_t stream;
  cudaStreamCreate(&stream);
  cudaEvent_t begin, end;
  cudaEventCreate(&begin);
  cudaEventCreate(&end);
  cudaMemcpyAsync(b.ptr, a.ptr, bytes, cudaMemcpyDeviceToDevice, stream);
  const int reps = 20;
  cudaEventRecord(begin, stream);
  for (int i = 0; i < reps; ++i) {
    cudaMemcpyAsync(b.ptr, a.ptr, bytes, cudaMemcpyDeviceToDevice, stream);
  }
  cudaEventRecord(end, stream);
  cudaEventSynchronize(end);
  float ms = 0;
  cudaEventElapsedTime(&ms, begin, end);
  cudaEventDestroy(begin);
  cudaEventDestroy(end);
  cudaStreamDestroy(stream);
  return static_cast<double>(bytes) * reps / (ms / 1e3) / 1e9;
}

int Main() {
  int gpus = 0;
  if (cudaGetDeviceCount(&gpus) != cudaSuccess || gpus == 0) {
    cudaGetLastError();
    std::printf("collective_gpu: no GPU\n");
    return 0;
  }
  int failures = 0;
  for (int n : {2, 4}) {
    for (int64_t mib : {1, 16, 64, 256}) {
      const int64_t bytes = mib << 20;
      double seconds = 0;
      GpuCollectivePath path = GpuCollectivePath::kDeviceRing;
      absl::Status s = TimeAllReduce(n, bytes, &seconds, &path);
      if (!s.ok()) {
        std::printf("collective_gpu members=%d bytes=%lld error: %s\n", n,
                    static_cast<long long>(bytes), s.ToString().c_str());
        ++failures;
        continue;
      }
      const double algbw = static_cast<double>(bytes) / seconds / 1e9;
      std::printf(
          "collective_gpu members=%d bytes=%lld path=%s ms=%.3f "
          "algbw_GBps=%.1f busbw_GBps=%.1f\n",
          n, static_cast<long long>(bytes), GpuCollectivePathName(path),
          seconds * 1e3, algbw, algbw * 2.0 * (n - 1) / n);
    }
  }
  std::printf("copy_d2d bytes=%lld GBps=%.1f\n",
              static_cast<long long>(int64_t{256} << 20),
              CopyBandwidth(int64_t{256} << 20));
  return failures == 0 ? 0 : 1;
}

}  // namespace
}  // namespace dflow

int main() { return dflow::Main(); }
