#include "runtime/gpu/gpu_device_factory.h"

#include <algorithm>
#include <iostream>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "runtime/gpu/cuda_sub_allocator.h"
#include "runtime/gpu/gpu_device.h"
#include "runtime/gpu/gpu_discovery.h"
#include "runtime/gpu/gpu_math_mode.h"
#include "runtime/kernel_registry.h"
#include "runtime/thread_pool.h"

namespace dflow {

std::vector<GpuDevicePlan> PlanGpuDevices(const DeviceFactoryOptions& options,
                                          int num_gpus) {
  std::vector<GpuDevicePlan> plans;
  int physical = std::max(num_gpus, 0);
  if (options.max_physical_devices >= 0) {
    physical = std::min(physical, options.max_physical_devices);
  }
  int id = options.first_id;
  for (int ordinal = 0; ordinal < physical; ++ordinal) {
    const int count = ordinal == 0 ? std::max(options.virtual_devices, 1) : 1;
    for (int v = 0; v < count; ++v) {
      GpuDevicePlan p;
      p.id = id++;
      p.ordinal = ordinal;
      p.virtual_index = v;
      p.virtual_count = count;
      plans.push_back(p);
    }
  }
  return plans;
}

// One physical GPU's allocators for one configuration.
struct GpuAllocatorPool::Group {
  int ordinal = 0;
  int first_id = 0;
  int count = 0;
  std::vector<int64_t> explicit_limits;
  double memory_fraction = 0;
  bool allow_growth = false;

  std::vector<std::unique_ptr<BfcAllocator>> bfc;
  std::vector<std::unique_ptr<TrackingAllocator>> tracking;
  std::vector<int64_t> limits;
  int users = 0;  // pool's mu_

  bool SameConfig(int o, int f, int c, const std::vector<int64_t>& e, double m,
                  bool g) const {
    return ordinal == o && first_id == f && count == c &&
           explicit_limits == e && memory_fraction == m && allow_growth == g;
  }
  bool HoldsMemory() const {
    for (const auto& b : bfc) {
      if (b->Stats().bytes_in_use > 0) return true;
    }
    return false;
  }
};

GpuAllocatorPool::GpuAllocatorPool(SubAllocatorFactory sub_allocators,
                                   FreeMemoryFn free_memory)
    : sub_allocators_(std::move(sub_allocators)),
      free_memory_(std::move(free_memory)) {}

GpuAllocatorPool::~GpuAllocatorPool() = default;

GpuAllocatorPool* GpuAllocatorPool::Global() {
  static auto* pool = new GpuAllocatorPool(
      [](int ordinal) -> std::unique_ptr<SubAllocator> {
        return std::make_unique<CudaSubAllocator>(ordinal);
      },
      [](int ordinal) -> absl::StatusOr<int64_t> {
        absl::StatusOr<GpuMemoryInfo> info = GetGpuMemoryInfo(ordinal);
        if (!info.ok()) return info.status();
        return info->free_bytes;
      });
  return pool;
}

int GpuAllocatorPool::num_groups() const {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int>(groups_.size());
}

absl::StatusOr<GpuAllocatorPool::Lease> GpuAllocatorPool::Acquire(
    int ordinal, int first_id, int count,
    const std::vector<int64_t>& explicit_limits, double memory_fraction,
    bool allow_growth) {
  std::lock_guard<std::mutex> lock(mu_);
  Group* group = nullptr;
  for (const auto& g : groups_) {
    if (g->SameConfig(ordinal, first_id, count, explicit_limits,
                      memory_fraction, allow_growth)) {
      group = g.get();
      break;
    }
  }
  if (group == nullptr) {
    // Other configurations of this GPU that nobody uses any more give
    // their memory back first, so the new limits see it free.
    groups_.erase(std::remove_if(groups_.begin(), groups_.end(),
                                 [&](const std::unique_ptr<Group>& g) {
                                   return g->ordinal == ordinal &&
                                          g->users == 0 && !g->HoldsMemory();
                                 }),
                  groups_.end());
    absl::StatusOr<int64_t> free_bytes = free_memory_(ordinal);
    if (!free_bytes.ok()) return free_bytes.status();
    absl::StatusOr<std::vector<int64_t>> limits = VirtualDeviceLimits(
        *free_bytes, count, memory_fraction, explicit_limits);
    if (!limits.ok()) {
      return absl::Status(
          limits.status().code(),
          absl::StrCat("GPU ", ordinal, " (devices GPU:", first_id, "..",
                       first_id + count - 1, "): ", limits.status().message()));
    }
    auto g = std::make_unique<Group>();
    g->ordinal = ordinal;
    g->first_id = first_id;
    g->count = count;
    g->explicit_limits = explicit_limits;
    g->memory_fraction = memory_fraction;
    g->allow_growth = allow_growth;
    g->limits = *limits;
    for (int i = 0; i < count; ++i) {
      const std::string name = absl::StrCat("GPU:", first_id + i);
      BfcAllocatorOptions o;
      o.memory_limit = (*limits)[i];
      o.allow_growth = allow_growth;
      o.name = name;
      g->bfc.push_back(
          std::make_unique<BfcAllocator>(sub_allocators_(ordinal), o));
      g->tracking.push_back(
          std::make_unique<TrackingAllocator>(g->bfc.back().get(), name));
    }
    group = g.get();
    groups_.push_back(std::move(g));
  }
  ++group->users;
  Lease lease;
  for (int i = 0; i < count; ++i) {
    lease.allocators.push_back(group->tracking[i].get());
    lease.bfc.push_back(group->bfc[i].get());
  }
  lease.limits = group->limits;
  // Groups are only erased with users == 0, so `group` outlives the lease.
  lease.hold = std::shared_ptr<const void>(group, [this](const void* p) {
    std::lock_guard<std::mutex> lock(mu_);
    --static_cast<Group*>(const_cast<void*>(p))->users;
  });
  return lease;
}

absl::StatusOr<std::vector<std::unique_ptr<Device>>> CreateGpuDevices(
    const DeviceFactoryOptions& options) {
  // Before looking for GPUs, so the setting is the same with or without
  // them (and testable without one).
  SetGpuTensorFloat32Allowed(options.allow_tf32);
  std::vector<std::unique_ptr<Device>> devices;
  if (absl::Status s = GpusAvailable(); !s.ok()) {
    if (options.log) {
      std::cerr << "No GPU devices: " << s.message() << "\n" << std::flush;
    }
    return devices;
  }
  absl::StatusOr<std::vector<GpuInfo>> gpus = DiscoverGpus();
  if (!gpus.ok()) {
    if (options.log) {
      std::cerr << "No GPU devices: " << gpus.status().message() << "\n"
                << std::flush;
    }
    return devices;
  }
  const std::vector<GpuDevicePlan> plans =
      PlanGpuDevices(options, static_cast<int>(gpus->size()));
  if (plans.empty()) return devices;
  if (plans.back().ordinal > 0) {
    // Direct copies between GPUs where the hardware allows; the others are
    // staged through host memory by CUDA. Either way transfers work.
    (void)EnableAllPeerAccess();
  }
  const double fraction = options.memory_fraction > 0
                              ? options.memory_fraction
                              : kDefaultGpuMemoryFraction;
  for (size_t i = 0; i < plans.size();) {
    const GpuDevicePlan& first = plans[i];
    const bool split = first.ordinal == 0;
    absl::StatusOr<GpuAllocatorPool::Lease> lease =
        GpuAllocatorPool::Global()->Acquire(
            first.ordinal, first.id, first.virtual_count,
            split ? options.virtual_device_memory_limits
                  : std::vector<int64_t>(),
            fraction, options.allow_growth);
    if (!lease.ok()) return lease.status();
    for (int v = 0; v < first.virtual_count; ++v, ++i) {
      const GpuDevicePlan& plan = plans[i];
      GpuDeviceOptions o;
      o.id = plan.id;
      o.physical_ordinal = plan.ordinal;
      o.memory_limit = lease->limits[v];
      o.virtual_index = plan.virtual_index;
      o.virtual_count = plan.virtual_count;
      o.keep_alive = lease->hold;
      absl::StatusOr<std::unique_ptr<GpuDevice>> device =
          NewGpuDevice(o, lease->allocators[v], ThreadPool::Shared());
      if (!device.ok()) return device.status();
      devices.push_back(*std::move(device));
    }
  }
  return devices;
}

DFLOW_REGISTER_DEVICE_FACTORY(kDeviceGpu, CreateGpuDevices);

}  // namespace dflow
