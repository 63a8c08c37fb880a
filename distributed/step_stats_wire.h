// A task's step stats on the wire (RunGraphResponse.step_stats): the
// NodeExecStats of runtime/session.h as NodeStats messages and back, so the
// master's RunMetadata holds every task's nodes as one process's does (a
// timeline, TensorBoard's run metadata).
#ifndef DFLOW_DISTRIBUTED_STEP_STATS_WIRE_H_
#define DFLOW_DISTRIBUTED_STEP_STATS_WIRE_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "proto/worker_service.pb.h"
#include "runtime/session.h"

namespace dflow {

void NodeStatsToProto(const NodeExecStats& stats, NodeStats* proto);

// `shift_us` is added to every time: the task's step start minus the
// master's, so that all tasks' stats count from the master's step start.
// InvalidArgument for an output shape that is not one.
absl::StatusOr<NodeExecStats> NodeStatsFromProto(const NodeStats& proto,
                                                 int64_t shift_us);

}  // namespace dflow

#endif  // DFLOW_DISTRIBUTED_STEP_STATS_WIRE_H_
