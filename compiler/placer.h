// The placement pass: chooses a device for every node of a graph.
//
// Each colocation group (see colocation_graph.h) is placed as one unit:
//   1. A group with a member already carrying an assigned device keeps it.
//   2. Otherwise the members' requests are merged; candidates are the
//      devices matching the merged request whose type has a kernel for
//      every member, preferred by type priority (GPU, CPU, others) then
//      index; the first candidate wins. A lone, unrequested small integer
//      computation goes to the CPU instead (host_placement.h).
//   3. When no device fits, soft placement keeps the request's job, replica
//      and task, drops its type and id, and takes the best candidate left;
//      the record says why the request failed. Without soft placement (or in
//      strict mode) that is an error that says what exists and what to do.
// Two members asking for incompatible devices are an error naming both;
// under soft placement the group's earliest request wins (colocation over
// an explicit device: the node that joined a group of, say, a variable
// follows the variable).
//
// Placement is deterministic: groups, members and devices are visited in a
// fixed order (node ids, device preference), never in hash order.
#ifndef DFLOW_COMPILER_PLACER_H_
#define DFLOW_COMPILER_PLACER_H_

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "compiler/kernel_query.h"
#include "compiler/placement_device.h"
#include "graph/graph.h"
#include "proto/placement.pb.h"

namespace dflow {

struct PlacerOptions {
  // TensorFlow's allow_soft_placement: fall back instead of failing when a
  // request names a missing device or a type with no kernel for the op.
  bool allow_soft_placement = false;
  // Every fallback and every request overruled by colocation is an error,
  // even with allow_soft_placement (for users who want placement surprises
  // to stop the run rather than show up in a log).
  bool strict = false;
  // `graph` is the part of a larger graph one run needs (a session's run
  // signature): colocation with a node that was pruned away is dropped
  // rather than an error.
  bool pruned_subgraph = false;
};

// Places every node of `graph` on one of `devices`, writing each node's
// assigned device, and returns the record of what was chosen and why. On
// error no node's assigned device is changed.
absl::StatusOr<PlacementRecord> PlaceGraph(
    Graph* graph, absl::Span<const PlacementDevice> devices,
    const KernelQuery& kernels, const PlacerOptions& options);

}  // namespace dflow

#endif  // DFLOW_COMPILER_PLACER_H_
