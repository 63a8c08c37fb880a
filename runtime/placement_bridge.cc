#include "runtime/placement_bridge.h"

namespace dflow {

absl::StatusOr<std::vector<PlacementDevice>> PlacementDevicesOf(
    const DeviceSet& set) {
  std::vector<PlacementDevice> devices;
  devices.reserve(set.devices().size());
  for (const auto& d : set.devices()) {
    absl::StatusOr<PlacementDevice> device = PlacementDevice::FromName(d->name());
    if (!device.ok()) return device.status();
    devices.push_back(*std::move(device));
  }
  return devices;
}

}  // namespace dflow
