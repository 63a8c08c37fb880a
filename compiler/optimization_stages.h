// The compiler's optimization pipeline: named passes in the two stages a
// run signature goes through (see DESIGN.md's data flow):
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
// Each pass is one file with one test file (compiler/graph_pass.h is the
// contract); PassNames() lists them in the order they run. Options turn
// passes off by name. Every pass run leaves a PassSummary; with
// OptimizationOptions::dump_dir the graph after each pass is written there
// (PassDumper), which `dflow run --dump_passes DIR` and
// SessionOptions::dump_passes_dir use.
#ifndef DFLOW_COMPILER_OPTIMIZATION_STAGES_H_
#define DFLOW_COMPILER_OPTIMIZATION_STAGES_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "compiler/graph_pass.h"
#include "graph/graph.h"

namespace dflow {

enum class PassStage { kDeviceIndependent, kDeviceSpecific };

// What one pass did to one graph.
struct PassSummary {
  std::string pass;    // "tensor_fusion", "fuse_matmul_update"
  std::string device;  // the partition's device; empty before placement
  std::string what;    // "6 all-reduce instances into 1", "2 fused"
  int changes = 0;     // rewrites made (0: the graph is unchanged)
  int nodes_before = 0;
  int nodes_after = 0;
  absl::Duration time;
  std::vector<std::pair<std::string, int64_t>> figures;  // PassResult's
};

// Every pass's name, in the order the pipeline runs them, with its stage.
std::vector<std::pair<std::string, PassStage>> PassNames();

// Writes the graph after each pass into a directory (see
// OptimizationOptions::dump_dir), numbering files in the order written so
// that a listing reads as the pipeline ran:
//   000_prune.pbtxt  001_arithmetic_simplification.pbtxt ...
//   012_memory_planning_CPU_0.pbtxt (+ .dot each), and passes.txt, one
// PassSummaryLine per file. One dumper per compiled run signature; a
// session numbers signatures (sig_0/, sig_1/, ...).
class PassDumper {
 public:
  // Creates `dir` (and parents) if needed; null-safe to use when dir is
  // empty (dumps nothing).
  static absl::StatusOr<PassDumper> Create(const std::string& dir);
  PassDumper() = default;

  bool active() const { return !dir_.empty(); }
  // Writes `graph` as <n>_<summary.pass>[_<device>].pbtxt and .dot and
  // appends the summary's line to passes.txt.
  absl::Status Dump(const PassSummary& summary, const Graph& graph);

 private:
  std::string dir_;
  int next_ = 0;
};

// Runs the passes that need no placement on the pruned graph. Targets (by
// name) are kept.
absl::Status RunDeviceIndependentPasses(
    const OptimizationOptions& options,
    const absl::flat_hash_set<std::string>& protected_nodes, Graph* graph,
    std::vector<PassSummary>* summaries, PassDumper* dumper = nullptr);

// Runs the passes for one device's partition (`device` its full name,
// `device_type` "CPU", "GPU").
absl::Status RunDeviceSpecificPasses(
    const OptimizationOptions& options, absl::string_view device,
    absl::string_view device_type,
    const absl::flat_hash_set<std::string>& protected_nodes, Graph* graph,
    std::vector<PassSummary>* summaries, PassDumper* dumper = nullptr);

// "tensor_fusion: 6 all-reduce instances into 1 (0.2 ms)", with the device
// when there is one.
std::string PassSummaryLine(const PassSummary& summary);

}  // namespace dflow

#endif  // DFLOW_COMPILER_OPTIMIZATION_STAGES_H_
