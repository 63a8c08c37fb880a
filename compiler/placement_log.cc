#include "compiler/placement_log.h"

#include <map>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "google/protobuf/util/json_util.h"

namespace dflow {
namespace {

bool IsTransfer(const NodePlacement& p) {
  return p.op() == "_Send" || p.op() == "_Recv" ||
         absl::StartsWith(p.op(), "_HostSend") ||
         absl::StartsWith(p.op(), "_HostRecv");
}

std::string Nodes(int n) {
  return absl::StrCat(n, n == 1 ? " node" : " nodes");
}

}  // namespace

std::string FormatPlacementLog(const PlacementRecord& record) {
  std::string out;
  for (const NodePlacement& p : record.nodes()) {
    if (IsTransfer(p)) continue;
    absl::StrAppend(&out, p.name(), ": (", p.op(), "): ", p.assigned_device(),
                    "\n");
  }
  absl::StrAppend(&out, "Placement summary: ", Nodes(record.nodes_size()),
                  "\n");
  for (const DeviceNodeCount& c : record.device_counts()) {
    absl::StrAppend(&out, "  ", c.device(), ": ", Nodes(c.num_nodes()), "\n");
  }
  // Loops: which devices each frame's nodes run on (a frame on several
  // devices is cut: each gets a control loop, compiler/partition.h).
  std::map<std::string, std::map<std::string, int>> frames;
  for (const NodePlacement& p : record.nodes()) {
    if (!p.frame().empty()) ++frames[p.frame()][p.assigned_device()];
  }
  if (!frames.empty()) {
    absl::StrAppend(&out, "Loop frames: ", frames.size(), "\n");
    for (const auto& [frame, devices] : frames) {
      std::vector<std::string> parts;
      for (const auto& [device, n] : devices) {
        parts.push_back(absl::StrCat(device, ": ", Nodes(n)));
      }
      absl::StrAppend(&out, "  ", frame, ": ", absl::StrJoin(parts, ", "),
                      devices.size() > 1 ? " (cut across devices)" : "", "\n");
    }
  }
  if (record.num_soft_fallbacks() == 0) {
    absl::StrAppend(&out, "Soft placement fallbacks: none\n");
    return out;
  }
  absl::StrAppend(
      &out, "Soft placement fallbacks: ", record.num_soft_fallbacks(), "\n");
  for (const NodePlacement& p : record.nodes()) {
    if (p.kind() != NodePlacement::SOFT_FALLBACK) continue;
    absl::StrAppend(&out, "  ", p.name(), " (", p.op(), ") -> ",
                    p.assigned_device(), ": ", p.reason(), "\n");
  }
  return out;
}

absl::StatusOr<std::string> PlacementRecordToJson(
    const PlacementRecord& record) {
  google::protobuf::util::JsonPrintOptions options;
  options.add_whitespace = true;
  options.preserve_proto_field_names = true;
  options.always_print_primitive_fields = true;
  std::string json;
  auto status =
      google::protobuf::util::MessageToJsonString(record, &json, options);
  if (!status.ok()) {
    return absl::InternalError(absl::StrCat(
        "cannot write the placement record as JSON: ", status.ToString()));
  }
  return json;
}

absl::StatusOr<PlacementRecord> PlacementRecordFromJson(
    absl::string_view json) {
  PlacementRecord record;
  auto status = google::protobuf::util::JsonStringToMessage(
      std::string(json), &record, google::protobuf::util::JsonParseOptions());
  if (!status.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("not a placement record in JSON: ", status.ToString()));
  }
  return record;
}

}  // namespace dflow
