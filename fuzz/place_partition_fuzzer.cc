// Placement and partitioning: a GraphDef (either encoding) is imported,
// lowered and placed as `dflow place` does on two CPUs and two GPUs with
// soft placement (the kernel registry's answers), then split per device
// with Send/Recv pairs and host<->device copies. Device strings, colocation
// attrs and cycles all come from the input.
#include <cstddef>
#include <cstdint>

#include "compiler/partition.h"
#include "compiler/placement_device.h"
#include "fuzz/fuzz_util.h"
#include "graph/graph.h"
#include "graph/graph_def_file.h"
#include "runtime/placement_bridge.h"
#include "tools/placement_flags.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace dflow;
  absl::StatusOr<GraphDef> def = ParseGraphDef(fuzz::AsBytes(data, size));
  if (!def.ok()) return 0;
  static const std::vector<PlacementDevice>* const devices =
      new std::vector<PlacementDevice>(*ParseSimulatedDevices("CPU:2,GPU:2"));
  for (bool soft : {true, false}) {
    PlacementFlags flags;
    flags.devices = *devices;
    flags.options.allow_soft_placement = soft;
    Graph graph;
    absl::StatusOr<PlacementRecord> placed =
        ImportAndPlace(*def, flags, &graph);
    if (!placed.ok()) continue;
    RegistryKernelQuery kernels;
    PartitionOptions options;
    options.kernels = &kernels;
    PartitionGraph(graph, options).IgnoreError();
  }
  return 0;
}
