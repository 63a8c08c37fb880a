// Gradients of a conditional's Switch and Merge, as ops::Cond builds them
// (graph/ops/control_flow_builders.h). Loops are differentiated as wholes
// (while_loop_grad.h), never through these.
//
// The untaken branch's ops run on dead tensors, and so do their gradients:
// a Switch's gradient merges the gradients of its two outputs (exactly one
// is live: the other branch's, or zeros shaped like the dead output, is
// dead), and a Merge's gradient switches its gradient on the predicate, so
// only the taken branch's gradient ops run.
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/gradients/grad_registry.h"
#include "graph/ops/control_flow_builders.h"
#include "graph/scope.h"

namespace dflow {
namespace {

absl::Status SwitchGrad(const Scope& scope, const Operation& op,
                        absl::Span<const Output> grad_outputs,
                        std::vector<Output>* grad_inputs) {
  const Operation merge = OpBuilder(scope, "Merge")
                              .InputList({grad_outputs[0], grad_outputs[1]})
                              .Finalize();
  *grad_inputs = {merge.valid() ? merge.output(0) : Output(), Output()};
  return scope.status();
}
DFLOW_REGISTER_GRADIENT("Switch", SwitchGrad);

absl::Status MergeGrad(const Scope& scope, const Operation& op,
                       absl::Span<const Output> grad_outputs,
                       std::vector<Output>* grad_inputs) {
  const ops::ControlFlowRecords& records = ops::RecordsOf(scope);
  auto it = records.merge_predicates.find(op.node()->id());
  if (it == records.merge_predicates.end() || op.num_inputs() != 2) {
    return absl::UnimplementedError(absl::StrCat(
        "Merge '", op.name(),
        "' was not built by ops::Cond, so its predicate is unknown; only "
        "conditionals built with ops::Cond (or TensorFlow's functional If, "
        "which dflow lowers) have gradients"));
  }
  // Inputs: the false branch's result, then the true branch's.
  const Operation sw = OpBuilder(scope, "Switch")
                           .Input(grad_outputs[0])
                           .Input(it->second)
                           .Finalize();
  *grad_inputs = {sw.valid() ? sw.output(0) : Output(),
                  sw.valid() ? sw.output(1) : Output()};
  return scope.status();
}
DFLOW_REGISTER_GRADIENT("Merge", MergeGrad);

}  // namespace
}  // namespace dflow
