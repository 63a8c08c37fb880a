// Collective ops: one tensor per member of a group of devices, combined
// across the group (all-reduce, all-gather, broadcast), as TensorFlow's
// CollectiveReduceV2 / CollectiveGatherV2 / CollectiveBcastSend/Recv with
// dflow's names.
//
// Every member of a group runs one node of the same op with the same
// `group_size`, `group_key` and `instance_key`, each on its own device:
//
//   for (int i = 0; i < 4; ++i) {
//     Scope tower = root.WithDevice(absl::StrCat("/cpu:", i));
//     sums[i] = ops::CollectiveAllReduce(tower, grads[i], /*group_size=*/4,
//                                        /*group_key=*/1, /*instance_key=*/7,
//                                        "mean");
//   }
//
// The keys are attrs, fixed when the graph is built, so every member knows
// its collectives and their order before a step starts: two members can
// never pair up different tensors by accident. In one step, the group of an
// instance is the `group_size` members that arrive with its keys; members
// are ranked by device name (CPU:0 before CPU:1 before CPU:10), which fixes
// the reduction order: results are bitwise the same run to run, whatever
// order the members arrive in. A member that never arrives fails every
// waiting one after `timeout_seconds`, naming the devices that did arrive
// and the missing ones; members that disagree on dtype, shape, group size or
// op fail at once, naming both devices. The ops are stateful: the compiler
// never merges, folds or prunes one member differently from another.
#ifndef DFLOW_GRAPH_OPS_COLLECTIVE_OPS_H_
#define DFLOW_GRAPH_OPS_COLLECTIVE_OPS_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "graph/scope.h"
#include "graph/tensor_shape.h"
#include "graph/types.h"

namespace dflow {

// The range of a collective's timeout_seconds. There is no "wait forever":
// a member that never comes (a pruned node, a failed partition) must fail
// the step, not hang it. Below a millisecond a group could not even meet,
// and an absl::Duration of 1e-30 s rounds to zero (which armed no timer).
inline constexpr double kMinCollectiveTimeoutSeconds = 1e-3;
inline constexpr double kMaxCollectiveTimeoutSeconds = 1e6;  // ~11.6 days

// OK if `seconds` is a finite value in that range; InvalidArgument saying
// what to write otherwise. Checked by the ops' shape functions (so import
// fails) and again by the kernels.
absl::Status CheckCollectiveTimeout(float seconds);

namespace ops {

// Attrs every collective op shares besides its keys.
struct CollectiveAttrs {
  // "auto", "ring" or "nccl": which implementation to prefer. CPU devices
  // always use the ring; GPUs use NCCL where it is built ("auto" or
  // "nccl").
  std::string communication_hint = "auto";
  // How long a member waits for the rest of its group before the step
  // fails with DeadlineExceeded: kMinCollectiveTimeoutSeconds to
  // kMaxCollectiveTimeoutSeconds (other values fail the graph's import).
  float timeout_seconds = 60.0f;
  CollectiveAttrs& CommunicationHint(std::string v) {
    communication_hint = std::move(v);
    return *this;
  }
  CollectiveAttrs& TimeoutSeconds(float v) {
    timeout_seconds = v;
    return *this;
  }
};

// The element-wise `reduction` ("sum", "mean" or "max") of `input` over the
// group, on every member; the inputs must have one dtype (float, double,
// int32, int64) and one shape. Every element is combined in rank order,
// ((x_0 + x_1) + x_2) + ..., so results are bitwise reproducible and do not
// change when tensors are fused into one buffer. "mean" divides the sum
// once, at the end (integers: truncated towards zero).
Output CollectiveAllReduce(const Scope& scope, Input input, int64_t group_size,
                           int64_t group_key, int64_t instance_key,
                           absl::string_view reduction = "sum",
                           const CollectiveAttrs& attrs = {});

// The members' inputs (one shape, rank >= 1) concatenated along dimension 0
// in rank order, on every member: [group_size * d0, d1, ...].
Output CollectiveAllGather(const Scope& scope, Input input, int64_t group_size,
                           int64_t group_key, int64_t instance_key,
                           const CollectiveAttrs& attrs = {});

// Broadcast: exactly one member of the group sends `input` (its output is
// `input` itself), the group_size - 1 others receive it, declaring its dtype
// and (fully defined) shape.
Output CollectiveBroadcastSend(const Scope& scope, Input input,
                               int64_t group_size, int64_t group_key,
                               int64_t instance_key,
                               const CollectiveAttrs& attrs = {});
Output CollectiveBroadcastRecv(const Scope& scope, DataType dtype,
                               const TensorShape& shape, int64_t group_size,
                               int64_t group_key, int64_t instance_key,
                               const CollectiveAttrs& attrs = {});

}  // namespace ops
}  // namespace dflow

#endif  // DFLOW_GRAPH_OPS_COLLECTIVE_OPS_H_
