// The gradient of a loop built by ops::WhileLoop
// (graph/ops/control_flow_builders.h), differentiated as a whole.
//
// The forward loop pushes each iteration's loop variables (as the body
// read them) onto one stack per variable; pushes are added to the loop when
// its gradient is first asked for, and every NextIteration waits for them,
// so the loop's results come out only after the last push. The gradient is
// a second loop that runs as many iterations as the body did (the loop's
// hidden counter), each popping that iteration's variables, building the
// body again from them and differentiating it (AddSymbolicGradients) with
// the gradients of its results: the gradients of the variables flow back
// one iteration per step, and those of the tensors the body read from
// outside (the captures: an RNN's weights) are summed over the iterations.
// Rebuilding the body costs one more forward pass per iteration, and in
// exchange the gradient needs no record of any value but the variables.
#ifndef DFLOW_GRAPH_GRADIENTS_WHILE_LOOP_GRAD_H_
#define DFLOW_GRAPH_GRADIENTS_WHILE_LOOP_GRAD_H_

#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "graph/gradients/gradients.h"
#include "graph/ops/control_flow_builders.h"
#include "graph/scope.h"

namespace dflow {

struct WhileLoopGradients {
  std::vector<Output> inputs;    // per loop variable (invalid: none)
  std::vector<Output> captures;  // per record.captures entry
};

// `grad_exits`: the gradient of each loop result (invalid: zeros). Builds
// in `scope` (ops named "<scope>/while_grad/...").
absl::StatusOr<WhileLoopGradients> BuildWhileLoopGradient(
    const Scope& scope, ops::WhileLoopRecord& record,
    absl::Span<const Output> grad_exits, const GradientOptions& options);

}  // namespace dflow

#endif  // DFLOW_GRAPH_GRADIENTS_WHILE_LOOP_GRAD_H_
