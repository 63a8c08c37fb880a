// Gradients of the array, shape and slicing ops (graph/ops/array_ops.h,
// shape_ops.h, slicing_ops.h): data movement, whose gradient moves the
// gradient back.
#include "graph/gradients/grad_helpers.h"
#include "graph/gradients/grad_registry.h"
#include "graph/ops/ops.h"

namespace dflow {
namespace {

absl::Status IdentityGrad(const Scope& /*scope*/, const Operation& /*op*/,
                          absl::Span<const Output> grad_outputs,
                          std::vector<Output>* grad_inputs) {
  *grad_inputs = {grad_outputs[0]};
  return absl::OkStatus();
}
DFLOW_REGISTER_GRADIENT("Identity", IdentityGrad);

// StopGradient ends every path through it.
DFLOW_REGISTER_NO_GRADIENT("StopGradient");

}  // namespace
}  // namespace dflow
