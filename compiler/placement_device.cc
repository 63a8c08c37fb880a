#include "compiler/placement_device.h"

#include <algorithm>
#include <cstdint>
#include <tuple>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace dflow {

absl::StatusOr<PlacementDevice> PlacementDevice::FromName(
    absl::string_view name) {
  absl::StatusOr<DeviceSpec> spec = DeviceSpec::Parse(name);
  if (!spec.ok()) return spec.status();
  if (!spec->IsFullySpecified()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "device name '", name,
        "' is partial; a device needs job, replica, task, type and id"));
  }
  PlacementDevice device;
  device.name = spec->ToString();
  device.priority = DefaultDeviceTypePriority(spec->type().value_or(""));
  device.spec = *std::move(spec);
  return device;
}

int DefaultDeviceTypePriority(absl::string_view type) {
  if (type == "GPU") return 2;
  if (type == "CPU") return 1;
  return 0;
}

absl::StatusOr<DeviceCounts> ParseDeviceCounts(absl::string_view devices) {
  constexpr char kExample[] =
      "write TYPE:COUNT pairs separated by commas, "
      "e.g. CPU:1,GPU:4";
  DeviceCounts counts;
  bool seen_cpu = false, seen_gpu = false;
  for (absl::string_view entry :
       absl::StrSplit(devices, ',', absl::SkipWhitespace())) {
    entry = absl::StripAsciiWhitespace(entry);
    std::vector<absl::string_view> parts = absl::StrSplit(entry, ':');
    int64_t count = 0;
    if (parts.size() != 2 || parts[0].empty() ||
        !absl::SimpleAtoi(parts[1], &count) || count < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "bad device count '", entry, "' in '", devices, "'; ", kExample));
    }
    const std::string type = absl::AsciiStrToUpper(parts[0]);
    bool* seen = type == "CPU"   ? &seen_cpu
                 : type == "GPU" ? &seen_gpu
                                 : nullptr;
    if (seen == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("unknown device type '", parts[0], "' in '", devices,
                       "'; the types are CPU and GPU; ", kExample));
    }
    if (*seen) {
      return absl::InvalidArgumentError(absl::StrCat("device type ", type,
                                                     " appears twice in '",
                                                     devices, "'; ", kExample));
    }
    *seen = true;
    if (count > kMaxDevicesPerType) {
      return absl::InvalidArgumentError(absl::StrCat(
          "'", entry, "' in '", devices, "' asks for ", count, " ", type,
          " devices; the most is ", kMaxDevicesPerType, " per type"));
    }
    if (type == "CPU" && count == 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "'", devices,
          "' has no CPU device; every session needs its host "
          "(CPU:1 or more; leave CPU out for one), e.g. CPU:1,GPU:4"));
    }
    (type == "CPU" ? counts.cpus : counts.gpus) = static_cast<int>(count);
  }
  if (!seen_cpu && !seen_gpu) {
    return absl::InvalidArgumentError(absl::StrCat(
        "device list '", devices, "' names no devices; ", kExample));
  }
  return counts;
}

absl::StatusOr<std::vector<PlacementDevice>> ParseSimulatedDevices(
    absl::string_view devices) {
  absl::StatusOr<DeviceCounts> counts = ParseDeviceCounts(devices);
  if (!counts.ok()) return counts.status();
  std::vector<PlacementDevice> result;
  for (const auto& [type, count] :
       {std::pair<const char*, int>{"CPU", counts->cpus},
        std::pair<const char*, int>{"GPU", counts->gpus}}) {
    for (int i = 0; i < count; ++i) {
      PlacementDevice device;
      device.spec = DeviceSpec::LocalDevice(type, i);
      device.name = device.spec.ToString();
      device.priority = DefaultDeviceTypePriority(type);
      result.push_back(std::move(device));
    }
  }
  return result;
}

void SortByPreference(std::vector<PlacementDevice>* devices) {
  auto key = [](const PlacementDevice& d) {
    const DeviceSpec& s = d.spec;
    return std::make_tuple(-d.priority, s.type().value_or(""),
                           s.job().value_or(""), s.replica().value_or(-1),
                           s.task().value_or(-1), s.id().value_or(-1));
  };
  std::stable_sort(devices->begin(), devices->end(),
                   [&](const PlacementDevice& a, const PlacementDevice& b) {
                     return key(a) < key(b);
                   });
}

std::string DescribeDevices(absl::Span<const PlacementDevice> devices,
                            bool full_names) {
  if (devices.empty()) return "no devices";
  std::vector<const DeviceSpec*> specs;
  for (const PlacementDevice& d : devices) specs.push_back(&d.spec);
  auto key = [](const DeviceSpec* s) {
    return std::make_tuple(s->job().value_or(""), s->replica().value_or(-1),
                           s->task().value_or(-1), s->type().value_or(""),
                           s->id().value_or(-1));
  };
  std::sort(specs.begin(), specs.end(),
            [&](const DeviceSpec* a, const DeviceSpec* b) {
              return key(a) < key(b);
            });
  bool one_task = true;
  for (const DeviceSpec* s : specs) {
    one_task &= s->job() == specs.front()->job() &&
                s->replica() == specs.front()->replica() &&
                s->task() == specs.front()->task();
  }
  std::vector<std::string> names;
  for (const DeviceSpec* s : specs) {
    names.push_back(one_task && !full_names ? s->ShortName() : s->ToString());
  }
  return absl::StrJoin(names, ", ");
}

}  // namespace dflow
