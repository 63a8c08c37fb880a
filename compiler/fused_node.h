// Replacing a group of nodes by the one node that computes what they did:
// the step every fusion pass ends with (fuse_bias_activation,
// fuse_elementwise).
#ifndef DFLOW_COMPILER_FUSED_NODE_H_
#define DFLOW_COMPILER_FUSED_NODE_H_

#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/graph_pass.h"
#include "graph/graph.h"
#include "proto/node_def.pb.h"

namespace dflow {

// Whether a CPU fusion pass runs on this partition: only CPU partitions
// have the fused kernels. Otherwise fills `result` with why not.
bool FusesOn(const PassContext& ctx, PassResult* result);

// Whether `a` and `b` may become one fused node: on a placed graph both are
// assigned the same device (what they asked for no longer matters: soft
// placement put a tower's ops, which ask for a GPU, on the CPU beside the
// ops that average the towers); unplaced, they ask for the same device.
bool RunOnOneDevice(const Node* a, const Node* b);

// Removes `members` and adds `def` in their place. `last` is the member
// whose output 0 the fused node's output 0 replaces: its data and control
// consumers read the fused node, which keeps its assigned device (`def`
// usually takes its name, requested device and `_class`). `inputs` are the
// (node, output) pairs feeding the fused node's inputs in order, from
// outside the group. Every control input of every member (from outside the
// group) becomes one of the fused node, so what ran before any member still
// runs before it. The fused node's shapes are inferred for later passes.
// The caller guarantees that no member but `last` is read from outside the
// group. An error (a bad `def`, a dtype mismatch) names the node.
absl::StatusOr<Node*> ReplaceWithFusedNode(
    Graph* graph, const std::vector<Node*>& members, Node* last, NodeDef def,
    const std::vector<std::pair<Node*, int>>& inputs);

}  // namespace dflow

#endif  // DFLOW_COMPILER_FUSED_NODE_H_
