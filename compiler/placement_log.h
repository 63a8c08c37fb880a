// Human and machine views of a PlacementRecord.
//
// FormatPlacementLog writes what `log_device_placement` prints once per
// compiled run signature: one line per node in TensorFlow's format, then a
// summary TensorFlow does not give (nodes per device, every soft-placement
// fallback and its reason), so a fallback is visible without reading every
// line. The JSON form is protobuf's canonical JSON mapping of the record.
#ifndef DFLOW_COMPILER_PLACEMENT_LOG_H_
#define DFLOW_COMPILER_PLACEMENT_LOG_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "proto/placement.pb.h"

namespace dflow {

// For example:
//   tower_0/MatMul: (MatMul): /job:localhost/replica:0/task:0/device:GPU:0
//   ...
//   Placement summary: 12 nodes
//     /job:localhost/replica:0/task:0/device:GPU:0: 5 nodes
//     /job:localhost/replica:0/task:0/device:CPU:0: 7 nodes
//   Loop frames: 1                        (graphs with loops only)
//     while: /job:...CPU:0: 9 nodes, /job:...CPU:1: 3 nodes (cut across
//     devices)
//   Soft placement fallbacks: 1
//     tower_2/MatMul (MatMul) -> /job:...GPU:0: soft placement: ...
// Nodes named _Send/_Recv (transfers added by partitioning) get no line but
// are counted. Every line ends with '\n'.
std::string FormatPlacementLog(const PlacementRecord& record);

// Pretty-printed JSON with proto field names ("assigned_device", ...) and
// enum names ("SOFT_FALLBACK").
absl::StatusOr<std::string> PlacementRecordToJson(
    const PlacementRecord& record);
absl::StatusOr<PlacementRecord> PlacementRecordFromJson(absl::string_view json);

}  // namespace dflow

#endif  // DFLOW_COMPILER_PLACEMENT_LOG_H_
