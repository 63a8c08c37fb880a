#include "runtime/device.h"

#include <unistd.h>

#include <atomic>
#include <mutex>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "compiler/placement_device.h"

namespace dflow {

Device::Device(DeviceSpec spec, TrackingAllocator* allocator, ThreadPool* pool)
    : Device(std::move(spec), DeviceAttributes(), allocator, pool) {}

Device::Device(DeviceSpec spec, DeviceAttributes attributes,
               TrackingAllocator* allocator, ThreadPool* pool)
    : spec_(std::move(spec)),
      attributes_(std::move(attributes)),
      allocator_(allocator),
      pool_(pool) {
  attributes_.name = spec_.ToString();
  attributes_.device_type = spec_.type().value_or("");
  if (attributes_.kernel_device_type.empty()) {
    attributes_.kernel_device_type = attributes_.device_type;
  }
}

TrackingAllocator* ProcessAllocator(const std::string& device_short_name,
                                    int64_t limit_bytes) {
  if (limit_bytes <= 0) limit_bytes = HostMemoryBytes();
  static std::mutex mu;
  static auto* allocators =
      new absl::flat_hash_map<std::pair<std::string, int64_t>,
                              std::unique_ptr<TrackingAllocator>>;
  std::lock_guard<std::mutex> lock(mu);
  auto& slot = (*allocators)[std::make_pair(device_short_name, limit_bytes)];
  if (slot == nullptr) {
    slot = std::make_unique<TrackingAllocator>(DefaultCpuAllocator(),
                                               device_short_name, limit_bytes);
  }
  return slot.get();
}

int64_t HostMemoryBytes() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page_size <= 0) return 0;
  return static_cast<int64_t>(pages) * page_size;
}

std::unique_ptr<Device> NewCpuDevice(int id, int64_t memory_limit,
                                     const std::string& job, int task) {
  ThreadPool* pool = ThreadPool::Shared();
  DeviceAttributes attrs;
  attrs.memory_limit = memory_limit > 0 ? memory_limit : HostMemoryBytes();
  attrs.physical_device_desc = absl::StrCat(
      "device: ", id, ", name: host CPU, threads: ", pool->num_threads(),
      " (shared by every CPU device)");
  DeviceSpec spec = DeviceSpec::LocalDevice("CPU", id);
  spec.set_job(job);
  spec.set_task(task);
  return std::make_unique<Device>(
      std::move(spec), std::move(attrs),
      ProcessAllocator(absl::StrCat("CPU:", id), attrs.memory_limit), pool);
}

std::unique_ptr<Device> NewFakeGpuDevice(int id, int64_t memory_limit) {
  DeviceAttributes attrs;
  attrs.kernel_device_type = "CPU";
  attrs.memory_limit = memory_limit > 0 ? memory_limit : HostMemoryBytes();
  attrs.physical_device_desc = absl::StrCat(
      "device: ", id,
      ", name: host memory stand-in for a GPU (test device, runs CPU "
      "kernels), pci bus id: none");
  return std::make_unique<Device>(
      DeviceSpec::LocalDevice("GPU", id), std::move(attrs),
      ProcessAllocator(absl::StrCat("GPU:", id), attrs.memory_limit),
      ThreadPool::Shared());
}

absl::StatusOr<DeviceSet::Options> DeviceSet::Options::Parse(
    absl::string_view spec) {
  // The placer's parser: `dflow run` and `dflow place` read a list alike.
  absl::StatusOr<DeviceCounts> counts = ParseDeviceCounts(spec);
  if (!counts.ok()) return counts.status();
  Options options;
  options.num_cpus = counts->cpus;
  options.num_fake_gpus = counts->gpus;
  return options;
}

std::unique_ptr<DeviceSet> DeviceSet::LocalCpu() {
  auto set = std::make_unique<DeviceSet>();
  set->Add(NewCpuDevice(0));
  return set;
}

absl::StatusOr<std::unique_ptr<DeviceSet>> DeviceSet::Create(
    const Options& options) {
  if (options.num_cpus < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("a device set needs at least one CPU device, asked for ",
                     options.num_cpus));
  }
  if (options.num_fake_gpus < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("negative number of fake GPUs: ", options.num_fake_gpus));
  }
  if (options.num_cpus > kMaxDevicesPerType ||
      options.num_fake_gpus > kMaxDevicesPerType) {
    return absl::InvalidArgumentError(absl::StrCat(
        "a device set of ", options.num_cpus, " CPU and ",
        options.num_fake_gpus, " GPU devices is too large; the most is ",
        kMaxDevicesPerType, " per type"));
  }
  auto set = std::make_unique<DeviceSet>();
  if (options.host_memory_limit < 0 || options.fake_gpu_memory_limit < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "negative device memory limit: ", options.host_memory_limit, " (CPU), ",
        options.fake_gpu_memory_limit,
        " (fake GPU); give bytes, or 0 for "
        "the machine's memory"));
  }
  for (int i = 0; i < options.num_cpus; ++i) {
    set->Add(
        NewCpuDevice(i, options.host_memory_limit, options.job, options.task));
  }
  for (int i = 0; i < options.num_fake_gpus; ++i) {
    set->Add(NewFakeGpuDevice(i, options.fake_gpu_memory_limit > 0
                                     ? options.fake_gpu_memory_limit
                                     : options.host_memory_limit));
  }
  return set;
}

void DeviceSet::Add(std::unique_ptr<Device> device) {
  devices_.push_back(std::move(device));
}

Device* DeviceSet::Find(absl::string_view name) const {
  for (const auto& d : devices_) {
    if (d->name() == name) return d.get();
  }
  return nullptr;
}

Device* DeviceSet::FindMatching(const DeviceSpec& pattern) const {
  for (const auto& d : devices_) {
    if (d->spec().Matches(pattern)) return d.get();
  }
  return nullptr;
}

std::vector<Device*> DeviceSet::DevicesOfType(absl::string_view type) const {
  std::vector<Device*> out;
  for (const auto& d : devices_) {
    if (d->type() == type) out.push_back(d.get());
  }
  return out;
}

namespace {

struct DeviceFactories {
  std::mutex mu;
  absl::flat_hash_map<std::string, DeviceFactory> by_type;  // mu
};

DeviceFactories& Factories() {
  static auto* factories = new DeviceFactories;
  return *factories;
}

}  // namespace

DeviceFactory SetDeviceFactory(const std::string& device_type,
                               DeviceFactory factory) {
  DeviceFactories& f = Factories();
  std::lock_guard<std::mutex> lock(f.mu);
  DeviceFactory previous;
  auto it = f.by_type.find(device_type);
  if (it != f.by_type.end()) previous = std::move(it->second);
  if (factory) {
    f.by_type[device_type] = std::move(factory);
  } else if (it != f.by_type.end()) {
    f.by_type.erase(it);
  }
  return previous;
}

bool HasDeviceFactory(const std::string& device_type) {
  DeviceFactories& f = Factories();
  std::lock_guard<std::mutex> lock(f.mu);
  return f.by_type.contains(device_type);
}

absl::StatusOr<std::vector<std::unique_ptr<Device>>> CreateFactoryDevices(
    const std::string& device_type, const DeviceFactoryOptions& options) {
  DeviceFactory factory;
  {
    DeviceFactories& f = Factories();
    std::lock_guard<std::mutex> lock(f.mu);
    auto it = f.by_type.find(device_type);
    if (it == f.by_type.end()) {
      return std::vector<std::unique_ptr<Device>>();
    }
    factory = it->second;  // a copy: the factory runs without the lock
  }
  return factory(options);
}

namespace {
std::atomic<std::string (*)()> cpu_math_describer{nullptr};
}  // namespace

void SetCpuMathDescription(std::string (*describe)()) {
  cpu_math_describer.store(describe);
}

std::string CpuMathDescription() {
  std::string (*describe)() = cpu_math_describer.load();
  return describe == nullptr ? std::string() : describe();
}

std::string DeviceMappingString(const DeviceSet& devices) {
  std::string lines;
  for (const auto& d : devices.devices()) {
    const std::string& desc = d->attributes().physical_device_desc;
    if (!desc.empty()) absl::StrAppend(&lines, d->name(), " -> ", desc, "\n");
  }
  std::string mapping = lines.empty()
                            ? std::string("Device mapping: no known devices.\n")
                            : absl::StrCat("Device mapping:\n", lines);
  if (const std::string math = CpuMathDescription(); !math.empty()) {
    absl::StrAppend(&mapping, "CPU math: ", math, "\n");
  }
  return mapping;
}

}  // namespace dflow
