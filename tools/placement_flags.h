// The placement flags `dflow place` and `dflow dot --placed` share
// (--devices, --soft_placement, --strict), and placing a loaded GraphDef
// with them.
//
// The placer asks the kernel registry which device types can run each op:
// the caller links the kernel definitions (//kernels/cpu:cpu_kernels, which
// brings in the GPU kernel definitions too).
#ifndef DFLOW_TOOLS_PLACEMENT_FLAGS_H_
#define DFLOW_TOOLS_PLACEMENT_FLAGS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "compiler/placement_device.h"
#include "compiler/placer.h"
#include "graph/graph.h"
#include "proto/graph.pb.h"
#include "proto/placement.pb.h"
#include "tools/cli_args.h"

namespace dflow {

// --devices (default CPU:1), --soft_placement and --strict, in that order.
std::vector<FlagSpec> PlacementFlagSpecs();

struct PlacementFlags {
  std::vector<PlacementDevice> devices;
  PlacerOptions options;
};

// The flags' values from parsed `cli`. On a bad or empty --devices, an
// InvalidArgument whose message is the whole usage error line, e.g.
// "dflow place: --devices: ..." (`verb` names the verb).
absl::StatusOr<PlacementFlags> ParsePlacementFlags(const CliArgs& cli,
                                                   absl::string_view verb);

// Imports `def` into `graph` (which must be empty), lowers its functional
// If nodes as sessions do (compiler/lower_functional_if.h) and places it on
// `flags.devices` with the kernel registry's answers.
absl::StatusOr<PlacementRecord> ImportAndPlace(const GraphDef& def,
                                               const PlacementFlags& flags,
                                               Graph* graph);

}  // namespace dflow

#endif  // DFLOW_TOOLS_PLACEMENT_FLAGS_H_
