// What a cluster's master writes into a placed graph's collective nodes so
// that their group can meet across tasks (runtime/
// cross_process_collectives.h): `_group_devices`, every member's device in
// rank order, and `_group_session`, the master session's id.
#ifndef DFLOW_DISTRIBUTED_COLLECTIVE_GROUPS_H_
#define DFLOW_DISTRIBUTED_COLLECTIVE_GROUPS_H_

#include <string>

#include "absl/status/status.h"
#include "graph/graph.h"

namespace dflow {

// For each group key whose collective nodes (nodes with `group_key`,
// `group_size` and `instance_key` attrs) sit on devices of more than one
// task, writes the group's devices and `session` into every node of it.
// A group on one task is left alone: it meets in its task's process as in
// one process. InvalidArgument, naming the group's nodes and devices, when
// the group's devices are not `group_size` distinct devices (every member
// of a group across tasks must be in the graph) or its nodes disagree on
// group_size.
absl::Status AnnotateCollectiveGroups(Graph* graph, const std::string& session);

}  // namespace dflow

#endif  // DFLOW_DISTRIBUTED_COLLECTIVE_GROUPS_H_
