// Removes computations whose values nobody reads: a stateless node whose
// outputs feed only control edges computes something that is thrown away.
//
// Gradient code makes these. TensorFlow's MatMul gradient computes both
// dX = dY W^T and dW = X^T dY and joins them with a `tuple` (a NoOp with a
// control edge from each, and an Identity of each after it). For the first
// layer dX is the gradient of the input batch, which nobody uses: pruning
// drops its Identity, but the NoOp's control edge keeps the product
// itself, the largest matrix product of the seed MLP's backward pass (a
// third of its step). TensorFlow's Grappler turns such nodes into NoOps
// (its dependency optimizer); this pass removes them.
//
// A removed node's consumers must still run after what it ran after: each
// control consumer gets a control edge from each of the node's inputs
// (data or control). That also keeps dead tensors flowing as before (a
// node fed a dead input is dead, and so is a consumer of its control
// edge). Removal cascades: an input left feeding only control edges goes
// too.
//
// Never removed: stateful nodes (their effect is the point), nodes taking
// a ref or a resource (Assign writes through its ref input, yet TensorFlow
// does not call it stateful), readers of a Switch output (a control edge
// from a Switch does not say which branch was taken, so a tf.cond branch's
// pivot Identity must stay), checks that exist to fail (CheckNumerics,
// EnsureShape), placeholders,
// NoOps (joining control edges is what they are for; they cost nothing),
// Switch/Merge and the other control-flow ops, stand-ins for ops dflow
// cannot run, and protected nodes (targets). A node no edge leaves is left
// alone: pruning already dropped those a run does not reach.
#ifndef DFLOW_COMPILER_REMOVE_UNREAD_VALUES_H_
#define DFLOW_COMPILER_REMOVE_UNREAD_VALUES_H_

#include "absl/status/statusor.h"
#include "compiler/graph_pass.h"
#include "graph/graph.h"

namespace dflow {

// The "remove_unread_values" pass: changes = nodes removed, what =
// "4 nodes whose values nobody reads (MatMul x4)".
absl::StatusOr<PassResult> RemoveUnreadValues(const PassContext& ctx,
                                              Graph* graph);

}  // namespace dflow

#endif  // DFLOW_COMPILER_REMOVE_UNREAD_VALUES_H_
