// Deliberate host placement: nodes the placer keeps on the CPU on purpose.
//
// A node that nothing pins to a device type is placed on the CPU, and the
// record calls it a choice (HOST_CHOICE), not a fallback, when
//   1. it is a small integer shape computation: Shape, ShapeN, Size or Rank
//      with int32 outputs (their values are read by the host: shapes, loop
//      bounds), or
//   2. all its outputs are int32 and every consumer reads them through an
//      argument that the consumer's accelerator kernels keep in host memory
//      (e.g. the `shape` input of Reshape): computing them on a GPU would
//      only add a copy back, or
//   3. its own kernel on the accelerator keeps every argument in host
//      memory, so the accelerator would do no work.
// The rule is deliberately narrow: it only looks at the node and its direct
// consumers, and it never overrides a requested type or a colocation group.
#ifndef DFLOW_COMPILER_HOST_PLACEMENT_H_
#define DFLOW_COMPILER_HOST_PLACEMENT_H_

#include <optional>
#include <string>

#include "compiler/kernel_query.h"
#include "graph/graph.h"

namespace dflow {

// Device type of the host.
inline constexpr char kHostDeviceType[] = "CPU";

// The reason `node` should stay on the host ("host memory: ..."), or nullopt.
// `accelerator_type` is the best non-host type the node could otherwise go
// to (used by rule 3).
std::optional<std::string> HostPlacementReason(
    const Node& node, const KernelQuery& kernels,
    absl::string_view accelerator_type);

}  // namespace dflow

#endif  // DFLOW_COMPILER_HOST_PLACEMENT_H_
