#include "runtime/gpu/gpu_device.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "runtime/gpu/cuda_status.h"

namespace dflow {

GpuDevice::GpuDevice(DeviceSpec spec, DeviceAttributes attributes,
                     TrackingAllocator* allocator, ThreadPool* pool,
                     GpuInfo info, std::unique_ptr<GpuStreams> streams)
    : Device(std::move(spec), std::move(attributes), allocator, pool),
      info_(std::move(info)),
      streams_(std::move(streams)) {}

absl::StatusOr<Tensor> GpuDevice::HostCopyOf(const Tensor& t) {
  if (!t.IsInitialized() || t.NumElements() == 0) return t;
  const void* data = t.raw_data();
  cudaPointerAttributes attr;
  if (cudaPointerGetAttributes(&attr, data) != cudaSuccess) {
    cudaGetLastError();  // host memory CUDA never saw
    return t;
  }
  if (attr.type != cudaMemoryTypeDevice || attr.device != info_.ordinal) {
    return t;
  }
  DFLOW_CUDA_RETURN_IF_ERROR(cudaSetDevice(info_.ordinal), "cudaSetDevice");
  // The value's last writer may be on any stream of any virtual device of
  // this GPU: wait for them all (a save is rare; a step is not running).
  DFLOW_CUDA_RETURN_IF_ERROR(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  absl::StatusOr<Tensor> host =
      Tensor::Allocate(DefaultCpuAllocator(), t.dtype(), t.shape());
  if (!host.ok()) return host.status();
  DFLOW_CUDA_RETURN_IF_ERROR(
      cudaMemcpy(host->raw_data(), data, t.TotalBytes(),
                 cudaMemcpyDeviceToHost),
      absl::StrCat("copying a ", t.shape().ToString(), " tensor from ", name(),
                   " to the host"));
  return host;
}

absl::StatusOr<DeviceAttributes> GpuDeviceAttributes(
    const GpuDeviceOptions& options) {
  absl::StatusOr<GpuInfo> info = GetGpuInfo(options.physical_ordinal);
  if (!info.ok()) return info.status();
  if (options.memory_limit < 0 || options.memory_limit > info->total_memory) {
    return absl::InvalidArgumentError(absl::StrCat(
        "GPU:", options.id, ": memory limit ", options.memory_limit,
        " bytes is not within 0..", info->total_memory, " (the memory of ",
        info->name, ", GPU ", info->ordinal, "); 0 means all of it"));
  }
  DeviceAttributes attrs;
  attrs.kernel_device_type = "GPU";
  attrs.memory_limit =
      options.memory_limit > 0 ? options.memory_limit : info->total_memory;
  // TensorFlow's convention: bus_id is the NUMA node + 1, 0 if unknown.
  attrs.locality.numa_node = std::max(info->numa_node, 0);
  attrs.locality.bus_id = attrs.locality.numa_node + 1;
  attrs.physical_device_desc = info->Description();
  if (options.virtual_count > 1) {
    absl::StrAppend(&attrs.physical_device_desc, ", virtual device ",
                    options.virtual_index, " of ", options.virtual_count);
  }
  return attrs;
}

absl::StatusOr<std::unique_ptr<GpuDevice>> NewGpuDevice(
    const GpuDeviceOptions& options, TrackingAllocator* allocator,
    ThreadPool* pool) {
  absl::StatusOr<DeviceAttributes> attrs = GpuDeviceAttributes(options);
  if (!attrs.ok()) return attrs.status();
  absl::StatusOr<GpuInfo> info = GetGpuInfo(options.physical_ordinal);
  if (!info.ok()) return info.status();
  GpuStreams::Options stream_options;
  stream_options.staging = options.staging;
  absl::StatusOr<std::unique_ptr<GpuStreams>> streams =
      GpuStreams::Create(options.physical_ordinal, stream_options);
  if (!streams.ok()) return streams.status();
  auto device = std::make_unique<GpuDevice>(
      DeviceSpec::LocalDevice("GPU", options.id), *std::move(attrs), allocator,
      pool, *std::move(info), *std::move(streams));
  device->set_host_memory_allocator(
      options.host_allocator != nullptr
          ? options.host_allocator
          : ProcessAllocator(absl::StrCat("GPU:", options.id, "/host")));
  device->set_keep_alive(options.keep_alive);
  return device;
}

}  // namespace dflow
