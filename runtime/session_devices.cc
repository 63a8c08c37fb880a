// CreateSessionDevices and GpuFactoryOptions (runtime/session.h): the
// devices a session computes on, from SessionOptions' device counts, fake
// GPUs and GPU options.
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "runtime/device.h"
#include "runtime/kernel_registry.h"
#include "runtime/session.h"

namespace dflow {

absl::StatusOr<DeviceFactoryOptions> GpuFactoryOptions(
    const SessionOptions& options) {
  DeviceFactoryOptions gpu;
  for (const auto& [key, count] : options.device_count) {
    if (absl::AsciiStrToUpper(key) == "GPU") gpu.max_physical_devices = count;
  }
  if (!(options.gpu_memory_fraction >= 0 && options.gpu_memory_fraction <= 1)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "SessionOptions.gpu_memory_fraction = ", options.gpu_memory_fraction,
        "; it is a share of each GPU's free memory in (0, 1], or 0 for the "
        "default (0.9)"));
  }
  if (options.gpu_virtual_devices < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "SessionOptions.gpu_virtual_devices = ", options.gpu_virtual_devices,
        "; a device count cannot be negative"));
  }
  const std::vector<int64_t>& limits = options.gpu_virtual_device_memory_limits;
  for (size_t i = 0; i < limits.size(); ++i) {
    if (limits[i] <= 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("SessionOptions.gpu_virtual_device_memory_limits[", i,
                       "] = ", limits[i],
                       "; each virtual GPU needs a positive memory limit "
                       "(bytes)"));
    }
  }
  if (!limits.empty() && options.gpu_virtual_devices > 0 &&
      options.gpu_virtual_devices != static_cast<int>(limits.size())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "SessionOptions.gpu_virtual_devices = ", options.gpu_virtual_devices,
        " but gpu_virtual_device_memory_limits has ", limits.size(),
        " limits; give one limit per virtual GPU, or only one of the two"));
  }
  gpu.virtual_devices = limits.empty() ? options.gpu_virtual_devices
                                       : static_cast<int>(limits.size());
  gpu.virtual_device_memory_limits = limits;
  gpu.memory_fraction = options.gpu_memory_fraction;
  gpu.allow_growth = options.gpu_allow_growth;
  gpu.allow_tf32 = options.gpu_allow_tf32;
  gpu.log = options.log_device_placement;
  return gpu;
}

absl::StatusOr<std::unique_ptr<DeviceSet>> CreateSessionDevices(
    const SessionOptions& options) {
  DeviceSet::Options set;
  for (const auto& [key, count] : options.device_count) {
    const std::string type = absl::AsciiStrToUpper(key);
    if (type != "CPU" && type != "GPU") {
      return absl::InvalidArgumentError(
          absl::StrCat("SessionOptions.device_count names device type '", key,
                       "'; the types are CPU and GPU"));
    }
    if (count < 0 || (type == "CPU" && count < 1)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "SessionOptions.device_count[\"", key, "\"] = ", count,
          type == "CPU" ? "; a session needs at least one CPU device"
                        : "; a device count cannot be negative"));
    }
    if (type == "CPU") set.num_cpus = count;
  }
  if (options.fake_gpus < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("SessionOptions.fake_gpus = ", options.fake_gpus,
                     "; a device count cannot be negative"));
  }
  if (options.memory_limit_bytes < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "SessionOptions.memory_limit_bytes = ", options.memory_limit_bytes,
        "; give the bytes each host device may hold, or 0 for the machine's "
        "memory"));
  }
  if (options.step_timeout_ms < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "SessionOptions.step_timeout_ms = ", options.step_timeout_ms,
        "; give milliseconds, or 0 for no limit"));
  }
  absl::StatusOr<DeviceFactoryOptions> gpu = GpuFactoryOptions(options);
  if (!gpu.ok()) return gpu.status();
  set.num_fake_gpus = options.fake_gpus;
  set.host_memory_limit = options.memory_limit_bytes;
  absl::StatusOr<std::unique_ptr<DeviceSet>> devices = DeviceSet::Create(set);
  if (!devices.ok()) return devices.status();
  // Fake GPUs take the place of real ones; device_count {"GPU", 0} asks
  // for none.
  if (options.fake_gpus == 0 && gpu->max_physical_devices != 0) {
    absl::StatusOr<std::vector<std::unique_ptr<Device>>> gpus =
        CreateFactoryDevices(kDeviceGpu, *gpu);
    if (!gpus.ok()) return gpus.status();
    for (std::unique_ptr<Device>& d : *gpus) (*devices)->Add(std::move(d));
  }
  return devices;
}

}  // namespace dflow
