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
  // `implemented_only`: device types whose devices run their own kernels
  // (real GPUs; see TypesRunningTheirOwnKernels): for those a node has a
  // kernel only where this binary implements it, so soft placement puts a
  // node whose GPU kernel is defined but not yet written on the CPU. Other
  // types (fake GPUs) answer from the definitions.
  explicit RegistryKernelQuery(
      const KernelRegistry* registry = KernelRegistry::Global(),
      std::vector<std::string> implemented_only = {})
      : registry_(registry), implemented_only_(std::move(implemented_only)) {}

  std::vector<std::string> SupportedDeviceTypes(
      const Node& node) const override {
    return registry_->SupportedDeviceTypes(node, implemented_only_);
  }
  std::vector<std::string> HostMemoryArgs(
      const Node& node, absl::string_view device_type) const override {
    return registry_->HostMemoryArgs(node, device_type);
  }
  std::string DescribeKernels(const Node& node) const override;

 private:
  const KernelRegistry* registry_;
  std::vector<std::string> implemented_only_;
};

// The device types of `set` other than CPU whose devices run the kernels
// of their own type (real GPUs; not fake GPUs, which run the CPU kernels),
// in the set's order.
std::vector<std::string> TypesRunningTheirOwnKernels(const DeviceSet& set);

// The first node of `graph` that asks for a device of one of the
// `implemented_only` types (its requested device names the type) whose
// kernel there is defined but not implemented in this binary, as
// KernelRegistry::CheckImplemented's Unimplemented error; OK when there is
// none. Sessions without soft placement check this before placing, so the
// error says what is missing rather than that the type has no kernel.
absl::Status CheckRequestedKernelsImplemented(
    const Graph& graph, const KernelRegistry& registry,
    const std::vector<std::string>& implemented_only);

}  // namespace dflow

#endif  // DFLOW_RUNTIME_PLACEMENT_BRIDGE_H_
