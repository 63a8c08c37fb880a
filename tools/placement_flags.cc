#include "tools/placement_flags.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "compiler/lower_functional_if.h"
#include "graph/graph_def_import.h"
#include "runtime/placement_bridge.h"

namespace dflow {

std::vector<FlagSpec> PlacementFlagSpecs() {
  return {
      {"devices",
       "the device set to place on, e.g. CPU:1,GPU:4 (simulated: the "
       "devices need not exist; default: this machine's devices, CPU:1, as "
       "dflow has no GPU backend yet)",
       false, "CPU:1"},
      {"soft_placement",
       "a node asking for a missing device (e.g. /gpu:3 with two GPUs) or "
       "a type with no kernel for its op goes to the best device left "
       "instead of failing (TensorFlow's allow_soft_placement)",
       true},
      {"strict",
       "fail on any soft-placement fallback or request overruled by "
       "colocation, even with --soft_placement",
       true},
  };
}

absl::StatusOr<PlacementFlags> ParsePlacementFlags(const CliArgs& cli,
                                                   absl::string_view verb) {
  PlacementFlags flags;
  absl::StatusOr<std::vector<PlacementDevice>> devices =
      ParseSimulatedDevices(cli.Get("devices"));
  if (!devices.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "dflow ", verb, ": --devices: ", devices.status().message()));
  }
  flags.devices = *std::move(devices);
  flags.options.allow_soft_placement = cli.GetBool("soft_placement");
  flags.options.strict = cli.GetBool("strict");
  return flags;
}

absl::StatusOr<PlacementRecord> ImportAndPlace(const GraphDef& def,
                                               const PlacementFlags& flags,
                                               Graph* graph) {
  if (absl::Status s = ImportGraphDef(def, ImportOptions(), graph); !s.ok()) {
    return s;
  }
  // As a session does before placing: functional If nodes become Switch and
  // Merge (each keeps its name, so the log still lists it).
  OptimizationOptions optimization;
  PassContext context;
  context.options = &optimization;
  if (absl::StatusOr<PassResult> lowered = LowerFunctionalIf(context, graph);
      !lowered.ok()) {
    return lowered.status();
  }
  RegistryKernelQuery kernels;
  return PlaceGraph(graph, flags.devices, kernels, flags.options);
}

}  // namespace dflow
