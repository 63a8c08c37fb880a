// Where a session's stateful nodes live, the same for every run signature.
//
// A session places each run signature's pruned graph on its own (what one
// step runs decides where it runs). A stateful node's kernel and its state
// (a variable's tensor, a queue's elements) are made once and shared by
// every signature (runtime/shared_kernels.h), so its device must not depend
// on which signature placed it first. It did: the initializer's signature
// sees a slot variable with only its Assign and puts it on GPU:0, the
// training step's sees it colocated with a SparseApplyAdagrad that has no
// GPU kernel and puts it on the CPU; the variable's kernel, made for the
// GPU, was then asked to run on the CPU, and a variable filled in host
// memory was read by GPU kernels. TensorFlow places the whole graph once;
// here the whole graph is placed once (as the signatures are, with soft
// placement when the session allows it) to learn where each stateful node
// belongs, and every signature's placement starts from those devices
// (compiler/placer.h: a colocation group with an assigned member keeps its
// device).
#ifndef DFLOW_RUNTIME_STATEFUL_PLACEMENT_H_
#define DFLOW_RUNTIME_STATEFUL_PLACEMENT_H_

#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "compiler/kernel_query.h"
#include "compiler/placement_device.h"
#include "compiler/placer.h"
#include "compiler/prune.h"
#include "graph/graph.h"

namespace dflow {

// The part of `graph` that can run, as a graph of its own to place whole:
// every node but those of ops dflow lacks and what depends on them.
absl::StatusOr<PrunedGraph> PruneToRunnableNodes(const Graph& graph);

class StatefulPlacement {
 public:
  // Places `whole` (PruneToRunnableNodes' graph after the passes a
  // signature's graph gets before placement, which lower functional If and
  // Case) and remembers the device of each stateful node not remembered
  // yet: a node keeps its first device when a graph extension is placed
  // again. When the whole graph cannot be placed (a request only soft
  // placement could meet, on a session without it) nothing is remembered
  // and each signature places on its own.
  void Learn(Graph* whole, absl::Span<const PlacementDevice> devices,
             const KernelQuery& kernels, const PlacerOptions& options);

  // Assigns each stateful node of `graph` (a signature's pruned graph) the
  // device learned for it.
  void Pin(Graph* graph) const;

 private:
  absl::flat_hash_map<std::string, std::string> devices_;
};

// Whether `node`'s kernel and state are shared by every graph of a session
// (runtime/shared_kernels.h): a stateful op, not an internal _Arg/_Retval.
bool IsSharedStatefulNode(const Node& node);

}  // namespace dflow

#endif  // DFLOW_RUNTIME_STATEFUL_PLACEMENT_H_
