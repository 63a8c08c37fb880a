// Tensor fusion: several small all-reduces of one group become one.
//
// Horovod's observation: a training step all-reduces one gradient per
// variable, most of them small, and each collective pays a fixed cost (the
// members meeting, a hand-off per device) that dwarfs the arithmetic. Packing
// the small tensors into one buffer pays it once. Horovod decides at run
// time which tensors are ready together; here every member's collectives
// are fixed when the graph is built, so the compiler decides once per run
// signature, identically on every device.
//
// On each device, the members of the fused instances become one node,
//
//   x_1 ... x_N -> _FusedCollectiveAllReduce -> Identity (member 1's name)
//                                  ...       -> Identity (member N's name)
//
// an internal op (registered here, with CollectiveAllReduce's attrs plus N
// and a fresh instance key) whose kernel packs its N inputs into one buffer,
// runs one all-reduce of it, and copies the parts out into its N outputs;
// its step stats show the phases "pack", "wait", "reduce" and "unpack". Each
// Identity takes a member's name and edges (forwarding the buffer, no
// copy), so fetches and consumers see no difference; the fused node takes
// the members' control inputs, their requested device and `_class`. The
// all-reduce combines every element in rank order wherever it sits in the
// buffer (runtime/collective_ring.h), so fused and unfused results are
// bitwise equal. Members that packed different tensors (a bug, or graphs
// fused differently) fail with an error instead of mixing their parts.
//
// An instance is fused when all its `group_size` members are in the graph,
// on distinct requested devices, with one fully known shape and identical
// attrs. Instances are packed in instance-key order into buckets of at most
// `threshold_bytes` (per member) sharing group, dtype, reduction and
// devices; a bucket never holds two instances one of which depends on the
// other (the fused node would wait for itself). A bucket of one stays as it
// is.
#ifndef DFLOW_COMPILER_TENSOR_FUSION_H_
#define DFLOW_COMPILER_TENSOR_FUSION_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "graph/graph.h"

namespace dflow {

// The op fused members become: inputs `input: N * T`, outputs `data: N * T`
// (output k has input k's shape), attrs N, T, group_size, group_key,
// instance_key, reduction, communication_hint, timeout_seconds.
inline constexpr char kFusedAllReduceOp[] = "_FusedCollectiveAllReduce";

struct TensorFusionOptions {
  // The most bytes one fused buffer holds per member (Horovod's
  // HOROVOD_FUSION_THRESHOLD, 64 MiB by default there too). Tensors larger
  // than this are never fused; 0 disables fusion.
  int64_t threshold_bytes = 64 << 20;
};

struct TensorFusionResult {
  int buckets = 0;    // fused all-reduce instances created
  int instances = 0;  // original instances they replace
};

// Rewrites `graph` in place. Runs shape inference first where the members'
// shapes are not known (a failure there only means fewer candidates).
absl::StatusOr<TensorFusionResult> FuseAllReduces(
    Graph* graph, const TensorFusionOptions& options = {});

}  // namespace dflow

#endif  // DFLOW_COMPILER_TENSOR_FUSION_H_
