// What the compiler's placer needs from the runtime, in the compiler's terms:
// the session's devices as PlacementDevices, and a KernelQuery answered by
// the KernelRegistry (kernel definitions are metadata, linked in every
// build, so a CPU-only binary places against GPUs as a CUDA build would).
#ifndef DFLOW_RUNTIME_PLACEMENT_BRIDGE_H_
#define DFLOW_RUNTIME_PLACEMENT_BRIDGE_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/kernel_query.h"
#include "compiler/placement_device.h"
#include "runtime/device.h"
#include "runtime/kernel_registry.h"

namespace dflow {

// The devices of `set`, in the set's order.
absl::StatusOr<std::vector<PlacementDevice>> PlacementDevicesOf(
    const DeviceSet& set);

class RegistryKernelQuery : public KernelQuery {
 public:
  explicit RegistryKernelQuery(
      const KernelRegistry* registry = KernelRegistry::Global())
      : registry_(registry) {}

  std::vector<std::string> SupportedDeviceTypes(
      const Node& node) const override {
    return registry_->SupportedDeviceTypes(node);
  }
  std::vector<std::string> HostMemoryArgs(
      const Node& node, absl::string_view device_type) const override {
    return registry_->HostMemoryArgs(node, device_type);
  }

 private:
  const KernelRegistry* registry_;
};

}  // namespace dflow

#endif  // DFLOW_RUNTIME_PLACEMENT_BRIDGE_H_
