// The compiler's optimization passes, in the two stages a run signature
// goes through (see DESIGN.md's data flow):
//
//   prune -> device-independent passes -> place -> partition
//         -> device-specific passes (once per partition) -> executors
//
// Device-independent passes see the whole pruned graph with the devices
// the user asked for, before placement: a rewrite here must keep every
// node placeable (tensor fusion packs the all-reduces of all devices into
// one per device, identically on each). Device-specific passes see one
// device's partition, after placement and partitioning: whatever they
// build runs on that device, so they may use kernels only some devices
// have (the MatMul+update fusion).
//
// Each stage reports what every pass did, so `log_device_placement` (and
// later `--dump_passes`) can show it.
#ifndef DFLOW_COMPILER_OPTIMIZATION_STAGES_H_
#define DFLOW_COMPILER_OPTIMIZATION_STAGES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "compiler/tensor_fusion.h"
#include "graph/graph.h"

namespace dflow {

struct OptimizationOptions {
  // false: no pass runs; the graph executes exactly as built.
  bool enabled = true;
  // Tensor fusion of all-reduces (threshold_bytes 0 turns it off alone).
  TensorFusionOptions tensor_fusion;
};

// What one pass did to one graph.
struct PassSummary {
  std::string pass;    // "tensor_fusion", "fuse_matmul_update"
  std::string device;  // the partition's device; empty before placement
  std::string what;    // "6 all-reduce instances into 1", "2 fused"
  int changes = 0;     // rewrites made (0: the graph is unchanged)
  absl::Duration time;
};

// Runs the passes that need no placement on the pruned graph.
absl::Status RunDeviceIndependentPasses(const OptimizationOptions& options,
                                        Graph* graph,
                                        std::vector<PassSummary>* summaries);

// Runs the passes for one device's partition (`device` its full name,
// `device_type` "CPU", "GPU").
absl::Status RunDeviceSpecificPasses(const OptimizationOptions& options,
                                     absl::string_view device,
                                     absl::string_view device_type,
                                     Graph* graph,
                                     std::vector<PassSummary>* summaries);

// "tensor_fusion: 6 all-reduce instances into 1 (0.2 ms)", with the device
// when there is one.
std::string PassSummaryLine(const PassSummary& summary);

}  // namespace dflow

#endif  // DFLOW_COMPILER_OPTIMIZATION_STAGES_H_
