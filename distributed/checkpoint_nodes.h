// The nodes through which a master reads and sets its graph's variables
// for checkpoints (ClusterSession as a Saver's VariableHost). The
// variables live in the tasks, so their values travel in steps, as
// tf.compat.v1.train.Saver's save/restore ops do: per variable (per
// VariableStore key, from its first node) a read beside it and an assign
// from a fed value:
//   dflow_checkpoint/<node>/read    Identity (VariableV2) or ReadVariableOp
//   dflow_checkpoint/<node>/value   Placeholder of the variable's dtype
//   dflow_checkpoint/<node>/assign  Assign (validate_shape false: it
//                                   creates the value) or AssignVariableOp
// The read and the assign ask for the variable's device and are colocated
// with it (`_class` loc:@<node>), so they run in the task that holds the
// variable; the value, a feed, arrives in the master's target task.
#ifndef DFLOW_DISTRIBUTED_CHECKPOINT_NODES_H_
#define DFLOW_DISTRIBUTED_CHECKPOINT_NODES_H_

#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "proto/graph.pb.h"

namespace dflow {

struct VariableCheckpointNodes {
  std::string read;    // fetch this node's output 0 for the value
  std::string value;   // feed the new value here
  std::string assign;  // and run this target
};

// Adds the nodes to `def`; by VariableKey. InvalidArgument when a name is
// taken already or a variable node has no dtype.
absl::StatusOr<std::map<std::string, VariableCheckpointNodes>>
AddCheckpointNodes(GraphDef* def);

}  // namespace dflow

#endif  // DFLOW_DISTRIBUTED_CHECKPOINT_NODES_H_
