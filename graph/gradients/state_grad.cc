// Gradients of the variable ops: reading a resource variable passes the
// gradient to its handle, so AddSymbolicGradients(ys, {handle}) gives the
// gradient of the values read from the variable.
#include "graph/gradients/grad_registry.h"

namespace dflow {
namespace {

absl::Status ReadVariableOpGrad(const Scope& /*scope*/, const Operation& /*op*/,
                                absl::Span<const Output> grad_outputs,
                                std::vector<Output>* grad_inputs) {
  *grad_inputs = {grad_outputs[0]};
  return absl::OkStatus();
}
DFLOW_REGISTER_GRADIENT("ReadVariableOp", ReadVariableOpGrad);

// Updates return the variable, not a function of their inputs.
DFLOW_REGISTER_NO_GRADIENT("Assign");
DFLOW_REGISTER_NO_GRADIENT("AssignAdd");
DFLOW_REGISTER_NO_GRADIENT("AssignSub");
DFLOW_REGISTER_NO_GRADIENT("ScatterAdd");
DFLOW_REGISTER_NO_GRADIENT("ScatterSub");
DFLOW_REGISTER_NO_GRADIENT("ScatterUpdate");
// A bool about the variable, not a function of its value.
DFLOW_REGISTER_NO_GRADIENT("IsVariableInitialized");
DFLOW_REGISTER_NO_GRADIENT("VarIsInitializedOp");
// Summaries are sinks (TensorFlow's NotDifferentiable).
DFLOW_REGISTER_NO_GRADIENT("ScalarSummary");
DFLOW_REGISTER_NO_GRADIENT("HistogramSummary");
DFLOW_REGISTER_NO_GRADIENT("MergeSummary");

}  // namespace
}  // namespace dflow
