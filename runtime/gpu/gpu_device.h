// A dflow Device computing on a CUDA GPU: the runtime/device.h Device (name,
// type "GPU", attributes, allocator, thread pool) plus the physical GPU it
// runs on and its GpuStreams.
//
// Several GpuDevices may share one physical GPU (TensorFlow's virtual
// devices): each has its own id, memory limit and streams. The caller brings
// the allocator of the device's memory (the caching GPU allocator), as it
// does for CPU devices.
//
// Sessions reach this through a factory the runtime calls (runtime/gpu
// depends on //runtime, so //runtime cannot depend back on it); binaries
// and tests may also add GpuDevices to a DeviceSet themselves:
//   auto gpus = DiscoverGpus();  // Unavailable: no GPUs (or no CUDA)
//   for (const GpuInfo& g : *gpus) {
//     GpuDeviceOptions o;
//     o.id = o.physical_ordinal = g.ordinal;
//     auto device = NewGpuDevice(o, gpu_allocator(g.ordinal),
//                                ThreadPool::Shared());
//     if (device.ok()) set->Add(*std::move(device));
//   }
#ifndef DFLOW_RUNTIME_GPU_GPU_DEVICE_H_
#define DFLOW_RUNTIME_GPU_GPU_DEVICE_H_

#include <cstdint>
#include <memory>

#include "absl/status/statusor.h"
#include "runtime/device.h"
#include "runtime/gpu/gpu_discovery.h"
#include "runtime/gpu/gpu_streams.h"
#include "runtime/gpu/pinned_host_pool.h"

namespace dflow {

struct GpuDeviceOptions {
  int id = 0;                // the device is /job:localhost/.../GPU:<id>
  int physical_ordinal = 0;  // the CUDA ordinal it computes on
  // Bytes this device may hold; 0: the whole GPU's memory.
  int64_t memory_limit = 0;
  // Which of the physical GPU's logical devices this is (descriptions only).
  int virtual_index = 0;
  int virtual_count = 1;
  // Staging buffers for pageable host memory; null: the shared pool.
  PinnedHostPool* staging = nullptr;
  // Host memory for the outputs GPU kernels keep on the host (shape
  // outputs); null: ProcessAllocator("GPU:<id>/host"). Not owned; must
  // outlive every tensor allocated from it.
  TrackingAllocator* host_allocator = nullptr;
  // Held by the device until it is destroyed, after its streams drained:
  // e.g. the lease on its allocator (runtime/gpu/gpu_device_factory.h).
  std::shared_ptr<const void> keep_alive;
};

class GpuDevice : public Device {
 public:
  GpuDevice(DeviceSpec spec, DeviceAttributes attributes,
            TrackingAllocator* allocator, ThreadPool* pool, GpuInfo info,
            std::unique_ptr<GpuStreams> streams);

  const GpuInfo& gpu_info() const { return info_; }
  int physical_ordinal() const { return info_.ordinal; }
  GpuStreams* streams() const { return streams_.get(); }

  // See GpuDeviceOptions (NewGpuDevice sets both).
  void set_host_memory_allocator(TrackingAllocator* allocator) {
    set_host_allocator(allocator);
  }
  void set_keep_alive(std::shared_ptr<const void> keep_alive) {
    keep_alive_ = std::move(keep_alive);
  }

  // Copies a tensor in this physical GPU's memory (any of its virtual
  // devices') to the host after all work queued on the GPU.
  absl::StatusOr<Tensor> HostCopyOf(const Tensor& t) override;

 private:
  // Declared first: released last, after the streams drained.
  std::shared_ptr<const void> keep_alive_;
  GpuInfo info_;
  std::unique_ptr<GpuStreams> streams_;
};

// The attributes of GPU device `options.id`: type and kernel type "GPU",
// the memory limit, locality from the GPU's NUMA node and a
// physical_device_desc such as "device: 0, name: NVIDIA H100 80GB HBM3,
// pci bus id: 0000:1b:00.0, compute capability: 9.0". Unavailable without
// CUDA or GPUs; InvalidArgument for a bad ordinal or a limit above the
// GPU's memory.
absl::StatusOr<DeviceAttributes> GpuDeviceAttributes(
    const GpuDeviceOptions& options);

// A GPU device with fresh streams on its physical GPU. `allocator` and
// `pool` are not owned and must outlive the device (see Device).
absl::StatusOr<std::unique_ptr<GpuDevice>> NewGpuDevice(
    const GpuDeviceOptions& options, TrackingAllocator* allocator,
    ThreadPool* pool);

}  // namespace dflow

#endif  // DFLOW_RUNTIME_GPU_GPU_DEVICE_H_
