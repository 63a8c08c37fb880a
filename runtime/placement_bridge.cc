#include "runtime/placement_bridge.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/device_spec.h"

namespace dflow {

std::string RegistryKernelQuery::DescribeKernels(const Node& node) const {
  const std::vector<KernelDef> defs = registry_->DefinitionsForOp(node.op());
  if (defs.empty()) return "";
  std::vector<std::string> kernels, attrs;
  for (const KernelDef& def : defs) {
    kernels.push_back(def.DebugString());
    for (const auto& [attr, allowed] : def.type_constraints) {
      DataType t = DT_INVALID;
      const std::string value = node.GetAttr(attr, &t).ok()
                                    ? DataTypeName(t)
                                    : std::string("no value");
      const std::string described = absl::StrCat(attr, " ", value);
      if (std::find(attrs.begin(), attrs.end(), described) == attrs.end()) {
        attrs.push_back(described);
      }
    }
  }
  std::string out = absl::StrCat("its kernels: ", absl::StrJoin(kernels, "; "));
  if (!attrs.empty()) {
    absl::StrAppend(&out, "; this node has ", absl::StrJoin(attrs, ", "));
  }
  return out;
}

absl::StatusOr<std::vector<PlacementDevice>> PlacementDevicesOf(
    const DeviceSet& set) {
  std::vector<PlacementDevice> devices;
  devices.reserve(set.devices().size());
  for (const auto& d : set.devices()) {
    absl::StatusOr<PlacementDevice> device =
        PlacementDevice::FromName(d->name());
    if (!device.ok()) return device.status();
    devices.push_back(*std::move(device));
  }
  return devices;
}

std::vector<std::string> TypesRunningTheirOwnKernels(const DeviceSet& set) {
  std::vector<std::string> types;
  for (const auto& d : set.devices()) {
    if (d->type() == kDeviceCpu || d->kernel_device_type() != d->type() ||
        std::find(types.begin(), types.end(), d->type()) != types.end()) {
      continue;
    }
    types.push_back(d->type());
  }
  return types;
}

absl::Status CheckRequestedKernelsImplemented(
    const Graph& graph, const KernelRegistry& registry,
    const std::vector<std::string>& implemented_only) {
  if (implemented_only.empty()) return absl::OkStatus();
  for (const Node* node : graph.nodes()) {
    if (node->requested_device().empty()) continue;
    absl::StatusOr<DeviceSpec> spec =
        DeviceSpec::Parse(node->requested_device());
    // A malformed device is the placer's to report.
    if (!spec.ok() || !spec->type().has_value()) continue;
    const std::string& type = *spec->type();
    if (std::find(implemented_only.begin(), implemented_only.end(), type) ==
        implemented_only.end()) {
      continue;
    }
    absl::Status s =
        registry.CheckImplemented(*node, type, node->requested_device());
    // Only "defined but not implemented" is ours to say; a node without a
    // definition gets the placer's error (with soft placement's hint).
    if (s.code() == absl::StatusCode::kUnimplemented) return s;
  }
  return absl::OkStatus();
}

}  // namespace dflow
