// Symbolic differentiation: builds the graph that computes dy/dx.
//
//   Output loss = ...;
//   auto grads = AddSymbolicGradients(root, {loss}, {w1, b1, w2, b2});
//   if (!grads.ok()) return grads.status();
//   // (*grads)[0] is d(loss)/d(w1), shaped like w1.
//
// For every op between the xs and the ys the gradient function registered
// for its op type (graph/gradients/grad_registry.h) adds ops that turn the
// gradients of its outputs into gradients of its inputs; an output that
// feeds several consumers sums their gradients with AddN. Nodes no x
// depends on get no gradient ops (anything built for them is removed before
// returning), StopGradient ends a path, and a path through an op with no
// registered gradient is an error naming the node and its op.
//
// The gradient of forward node "tower_0/MatMul" is built in the name scope
// "gradients/tower_0/MatMul_grad" below `scope` (so "gradients_1/..." the
// second time). With colocate_gradients_with_ops each gradient op also asks
// for its forward op's device and joins its colocation group, so the placer
// keeps each tower's backward pass on the tower's device.
#ifndef DFLOW_GRAPH_GRADIENTS_GRADIENTS_H_
#define DFLOW_GRAPH_GRADIENTS_GRADIENTS_H_

#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "graph/scope.h"

namespace dflow {

struct GradientOptions {
  // TensorFlow's colocate_gradients_with_ops: gradient ops take the device
  // request and the colocation group (`_class: loc:@<forward op>`) of the
  // forward op they differentiate, instead of `scope`'s device.
  bool colocate_gradients_with_ops = false;
  // What an x that no y depends on gets: zeros shaped like x (TensorFlow's
  // C++ API), or an invalid Output (Python's None), which the optimizers
  // skip.
  enum class Unconnected { kZeros, kNone };
  Unconnected unconnected = Unconnected::kZeros;

  // TensorFlow's gate_gradients. kOp (GATE_OP): the gradients one op gives
  // its inputs become available together, once all are computed, so an
  // optimizer's in-place update of a reference variable (which may start
  // as soon as the variable's gradient exists) never runs before another
  // gradient op that still reads the variable's old value (MatMul's
  // gradient for its other input). kDefault is kNone for
  // AddSymbolicGradients (tf.gradients) and kOp for an Optimizer's
  // ComputeGradients (tf.compat.v1.train.Optimizer).
  enum class Gate { kDefault, kNone, kOp };
  Gate gate_gradients = Gate::kDefault;

  GradientOptions& GateGradients(Gate v) {
    gate_gradients = v;
    return *this;
  }
  GradientOptions& ColocateGradientsWithOps(bool v) {
    colocate_gradients_with_ops = v;
    return *this;
  }
  GradientOptions& UnconnectedGradients(Unconnected v) {
    unconnected = v;
    return *this;
  }
};

// Returns d(sum of ys[i] * grad_ys[i])/d(xs[j]) for each j, in xs' order.
// `grad_ys` empty means ones shaped like each y; otherwise one per y, of
// y's dtype. xs may be any outputs, including variables (VariableV2 refs
// and VarHandleOp handles: the gradient of a resource is the gradient of
// the values read from it).
absl::StatusOr<std::vector<Output>> AddSymbolicGradients(
    const Scope& scope, absl::Span<const Output> ys,
    absl::Span<const Output> xs, absl::Span<const Output> grad_ys = {},
    const GradientOptions& options = {});

}  // namespace dflow

#endif  // DFLOW_GRAPH_GRADIENTS_GRADIENTS_H_
