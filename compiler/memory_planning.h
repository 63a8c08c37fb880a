// Memory planning for a device's partition, the last device-specific pass:
//
// 1. In-place forwarding. For nodes whose kernel may write its output over
//    one of its inputs (element-wise ops: each output element is written
//    only after the same element of that input was read), the pass records
//    which input on the node as attr `_forward_input` (list(int), one entry
//    per output, -1 for none). The executor hands it to
//    OpKernelContext::allocate_output, which reuses that input's buffer
//    when, at run time, it has the output's dtype and element count and no
//    one else holds it (runtime/op_kernel.h). The plan is only permission:
//    whether a buffer is free is known only when the node runs (a fetched
//    or twice-read tensor, a feed, a Const or a variable's value is held
//    elsewhere and is never overwritten).
//
// 2. Figures. With every tensor's static size (shape inference, _Arg shapes
//    from the `_feed_shape` hint when the declared shape is partial), it
//    simulates one sequential schedule, the one the executor's thread
//    follows: depth first, the node made ready last runs next (so one chain
//    of a partition finishes before the next starts, instead of all chains
//    advancing together and every tensor living as long as there are
//    chains). A tensor is live from its producer until its last reader
//    ran (until the run returns when it is fetched or sent), forwarded
//    outputs and aliases (Identity, Reshape, ...) cost nothing.
//    "planned_peak_bytes" is the most bytes live at once; "arena_bytes" the
//    size of a static assignment of offsets in one arena to the tensors
//    that stay inside the step (greedy by size, tensors whose lifetimes do
//    not overlap share space; fetched and sent tensors leave the step, so
//    they are the allocator's, not the arena's). Persistent memory (Consts,
//    variables) and feeds are not counted: they are not the step's to plan. A
//    partition with a tensor of unknown size reports no figure and says which.
//
// Not done: the executor does not serve allocations from the planned
// arena. That is only safe if no arena-backed tensor escapes (fetches,
// variables, the rendezvous, consumers forwarding their input) and if two
// tensors sharing a region are ordered by the graph, not just by the
// simulated schedule (the executor runs ready nodes concurrently); the
// figure says what it would save.
#ifndef DFLOW_COMPILER_MEMORY_PLANNING_H_
#define DFLOW_COMPILER_MEMORY_PLANNING_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/graph_pass.h"
#include "graph/graph.h"

namespace dflow {

// The node attr the executor reads: list(int), one per output, the input
// whose buffer the output may take, or -1.
inline constexpr char kForwardInputAttr[] = "_forward_input";

struct MemoryPlan {
  int nodes_marked = 0;  // nodes given a _forward_input attr
  // Figures; valid only when sizes_known.
  bool sizes_known = false;
  std::string unknown_reason;  // "node 'r' (_Recv) output 0 has shape [?]"
  int tensors = 0;             // buffers the step allocates
  int forwarded = 0;           // outputs the schedule forwards in place
  int64_t peak_bytes = 0;      // liveness peak
  int64_t arena_bytes = 0;     // static assignment's size
  int64_t no_reuse_bytes = 0;  // every buffer's size added up
};

// Marks forwarding (when `mark_forwarding`) and computes the figures.
// Leaves the graph's inferred shapes as they were.
absl::StatusOr<MemoryPlan> PlanMemory(Graph* graph, bool mark_forwarding);

// The static shapes `graph` would have if every _Arg were fed its
// `_feed_shape` hint (and every _Recv received its own), by node id; empty
// when no hint applies. The graph's shapes are left as they were. The
// session computes them on the placed graph so that partitioning can hint
// the _Recv nodes of batch-dependent tensors: the receiving partitions
// then get a planned peak too.
std::vector<std::vector<TensorShape>> ShapesUnderFeedHints(Graph* graph);

// The pass (compiler/graph_pass.h). Forwarding is marked on CPU
// partitions only: the allowlist below is checked against the CPU
// kernels; other devices' kernels were not audited for aliasing.
absl::StatusOr<PassResult> RunMemoryPlanning(const PassContext& ctx,
                                             Graph* graph);

}  // namespace dflow

#endif  // DFLOW_COMPILER_MEMORY_PLANNING_H_
