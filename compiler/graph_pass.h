// The contract every optimization pass keeps, and what it is handed.
//
// A pass is a function that rewrites a Graph in place and says what it did:
//
//   absl::StatusOr<PassResult> FoldConstants(const PassContext& ctx,
//                                            Graph* graph);
//
// It must preserve what the graph computes: the values of its _Retval
// nodes, the effects of its stateful nodes (variables, random streams,
// collectives, transfers), and every node named in `protected_nodes` (the
// run's targets) must still exist under its name. It may assume the graph
// is acyclic with every input connected, and must leave it so. A pass that
// cannot handle a node leaves it alone; it fails only on a broken graph.
//
// The pipeline that orders the passes, turns them on and off and dumps the
// graph after each is compiler/optimization_stages.h.
#ifndef DFLOW_COMPILER_GRAPH_PASS_H_
#define DFLOW_COMPILER_GRAPH_PASS_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "compiler/constant_evaluator.h"
#include "compiler/kernel_query.h"
#include "compiler/tensor_fusion.h"
#include "graph/graph.h"

namespace dflow {

struct ConstantFoldingOptions {
  // A folded output larger than this stays computed at run time: folding
  // Fill([1000, 1000], 0.5) would put 4 MB into the graph (and every
  // GraphDef dumped or sent) to save a cheap kernel.
  int64_t max_constant_bytes = 1 << 20;
};

// What the pipeline runs and how (SessionOptions and `dflow run` fill it).
struct OptimizationOptions {
  // false: no pass runs; the graph executes exactly as built.
  bool enabled = true;
  // Passes turned off by name ("constant_folding", "cse", ...; see
  // PassNames() in optimization_stages.h).
  absl::flat_hash_set<std::string> disabled_passes;
  // When not empty: the graph after every pass is written there as
  // <n>_<pass>[_<device>].pbtxt and .dot, with one line per pass in
  // passes.txt (see optimization_stages.h).
  std::string dump_dir;

  TensorFusionOptions tensor_fusion;
  ConstantFoldingOptions constant_folding;

  // Injected by the runtime; a pass that needs one and finds null skips.
  const ConstantEvaluator* evaluator = nullptr;
  const KernelQuery* kernels = nullptr;

  bool IsEnabled(absl::string_view pass) const {
    return enabled && !disabled_passes.contains(pass);
  }
};

// What one pass run is handed besides the graph.
struct PassContext {
  const OptimizationOptions* options = nullptr;  // never null
  // The partition's device ("/job:localhost/replica:0/task:0/device:CPU:0")
  // and its type ("CPU"); both empty in the device-independent stage.
  std::string device;
  std::string device_type;
  // Nodes the caller names (a run's targets): keep them, by name.
  absl::flat_hash_set<std::string> protected_nodes;
};

// What one pass did.
struct PassResult {
  int changes = 0;   // rewrites made; 0: the graph is unchanged
  std::string what;  // "12 nodes folded into 3 constants"
  // Figures a pass computes for the caller, by name
  // ("planned_peak_bytes" from memory planning).
  std::vector<std::pair<std::string, int64_t>> figures;
};

using GraphPassFn = absl::StatusOr<PassResult> (*)(const PassContext& ctx,
                                                   Graph* graph);

}  // namespace dflow

#endif  // DFLOW_COMPILER_GRAPH_PASS_H_
