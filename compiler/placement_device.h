// PlacementDevice: what the placer knows of one device of a session.
//
// The compiler does not link the runtime, so the runtime describes its
// DeviceSet as a list of these; tools and tests can also simulate a device
// set from a short string ("CPU:1,GPU:4") to see where a graph would land on
// hardware they do not have.
#ifndef DFLOW_COMPILER_PLACEMENT_DEVICE_H_
#define DFLOW_COMPILER_PLACEMENT_DEVICE_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "graph/device_spec.h"

namespace dflow {

struct PlacementDevice {
  // Fully specified canonical name, e.g.
  // "/job:localhost/replica:0/task:0/device:GPU:0".
  std::string name;
  // `name` parsed.
  DeviceSpec spec;
  // Higher is preferred when a node could go to several device types.
  int priority = 0;

  const std::string& type() const { return *spec.type(); }

  // A device from its fully specified name, with the default priority of its
  // type. InvalidArgument if `name` is malformed or partial.
  static absl::StatusOr<PlacementDevice> FromName(absl::string_view name);
};

// GPU before CPU before any other type: accelerators do the heavy work, and
// unknown (test or plug-in) types are only chosen when nothing else fits.
int DefaultDeviceTypePriority(absl::string_view type);

// The most devices of one type a device list may ask for. Every device
// costs an allocator, a name and placement bookkeeping, so a mistyped count
// (GPU:99999999) would exhaust memory; no machine has a thousand GPUs, and
// more logical CPU devices than that only divide the same cores.
inline constexpr int kMaxDevicesPerType = 1024;

// How many devices of each type a device list ("CPU:1,GPU:4") asks for.
struct DeviceCounts {
  int cpus = 1;
  int gpus = 0;
};

// The one parser of device lists, for every verb and option that takes one
// (dflow run/place/dot --devices, DeviceSet::Options::Parse), so a list
// means the same everywhere. TYPE:COUNT entries separated by commas; the
// types are CPU and GPU, case-insensitive, each at most once; counts are
// 0..kMaxDevicesPerType. CPU defaults to 1 and cannot be 0: every session
// has its host, where feeds, fetches and host-memory ops live ("GPU:2" is
// CPU:1,GPU:2). A list naming nothing ("", ",") is an error, not the
// default: whoever passed it meant something else.
absl::StatusOr<DeviceCounts> ParseDeviceCounts(absl::string_view devices);

// ParseDeviceCounts's devices by name: "CPU:1,GPU:4" -> CPU:0 and
// GPU:0..3 of /job:localhost/replica:0/task:0.
absl::StatusOr<std::vector<PlacementDevice>> ParseSimulatedDevices(
    absl::string_view devices);

// Sorts devices the way the placer prefers them: priority (high first), then
// type, job, replica, task, id. Ties cannot occur between distinct devices.
void SortByPreference(std::vector<PlacementDevice>* devices);

// "CPU:0, GPU:0, GPU:1": the devices sorted by job, replica, task, type and
// id (however they were listed), by short names when all share a
// job/replica/task and `full_names` is false, else by full names; "no
// devices" for an empty list. For error messages.
std::string DescribeDevices(absl::Span<const PlacementDevice> devices,
                            bool full_names = false);

}  // namespace dflow

#endif  // DFLOW_COMPILER_PLACEMENT_DEVICE_H_
