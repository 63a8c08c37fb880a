#include "runtime/collective_backend.h"

#include <algorithm>
#include <mutex>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace dflow {
namespace {

struct Registry {
  std::mutex mu;
  // Never erased: FindCollectiveBackend hands out raw pointers.
  absl::flat_hash_map<std::string, std::unique_ptr<CollectiveBackend>> backends;
};

// Built on first use, never destroyed: registrations run from static
// initializers of other files, and lookups may happen at exit.
Registry& GetRegistry() {
  static Registry* registry = new Registry();
  return *registry;
}

}  // namespace

bool IsHostCollectiveType(absl::string_view kernel_device_type) {
  return kernel_device_type.empty() || kernel_device_type == "CPU";
}

absl::Status RegisterCollectiveBackend(
    const std::string& kernel_device_type,
    std::unique_ptr<CollectiveBackend> backend) {
  if (IsHostCollectiveType(kernel_device_type)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot register a collective backend for '", kernel_device_type,
        "': members running CPU kernels compute in host memory and always "
        "use the executor's CPU ring"));
  }
  if (backend == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "RegisterCollectiveBackend('", kernel_device_type, "'): null backend"));
  }
  Registry& r = GetRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  auto [it, inserted] = r.backends.try_emplace(kernel_device_type);
  if (!inserted) {
    return absl::AlreadyExistsError(absl::StrCat(
        "a collective backend for ", kernel_device_type, " is registered ",
        "already (", it->second->Name(), "); register one per device type"));
  }
  it->second = std::move(backend);
  return absl::OkStatus();
}

CollectiveBackend* FindCollectiveBackend(absl::string_view kernel_device_type) {
  if (IsHostCollectiveType(kernel_device_type)) return nullptr;
  Registry& r = GetRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.backends.find(kernel_device_type);
  return it == r.backends.end() ? nullptr : it->second.get();
}

std::string DescribeCollectiveGroup(const std::vector<const Device*>& devices) {
  if (devices.empty()) return "no members";
  std::vector<std::string> types;
  for (const Device* d : devices) {
    std::string t = IsHostCollectiveType(d->kernel_device_type())
                        ? std::string("CPU")
                        : d->kernel_device_type();
    if (std::find(types.begin(), types.end(), t) == types.end()) {
      types.push_back(std::move(t));
    }
  }
  if (types.size() > 1) {
    return absl::StrCat("cannot run: its members run ",
                        absl::StrJoin(types, " and "),
                        " kernels (host and device memory do not mix in one "
                        "group)");
  }
  if (types[0] == "CPU") return "ring over host memory";
  CollectiveBackend* backend = FindCollectiveBackend(types[0]);
  if (backend == nullptr) {
    return absl::StrCat("cannot run: no collective backend for ", types[0],
                        " is linked into this binary");
  }
  return backend->DescribeGroup(devices);
}

}  // namespace dflow
