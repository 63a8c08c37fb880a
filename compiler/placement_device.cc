#include "compiler/placement_device.h"

#include <algorithm>
#include <tuple>

#include "absl/container/flat_hash_set.h"
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

absl::StatusOr<std::vector<PlacementDevice>> ParseSimulatedDevices(
    absl::string_view devices) {
  std::vector<PlacementDevice> result;
  absl::flat_hash_set<std::string> seen;
  for (absl::string_view entry :
       absl::StrSplit(devices, ',', absl::SkipWhitespace())) {
    entry = absl::StripAsciiWhitespace(entry);
    std::vector<absl::string_view> parts = absl::StrSplit(entry, ':');
    int count = 0;
    std::string type = parts.empty() ? "" : absl::AsciiStrToUpper(parts[0]);
    bool type_ok =
        !type.empty() && std::all_of(type.begin(), type.end(), [](char c) {
          return absl::ascii_isalnum(c) || c == '_';
        });
    if (parts.size() != 2 || !type_ok || !absl::SimpleAtoi(parts[1], &count) ||
        count < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "bad device count '", entry, "' in '", devices,
          "'; write TYPE:COUNT pairs separated by commas, e.g. CPU:1,GPU:4"));
    }
    if (!seen.insert(type).second) {
      return absl::InvalidArgumentError(absl::StrCat(
          "device type ", type, " appears twice in '", devices, "'"));
    }
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
