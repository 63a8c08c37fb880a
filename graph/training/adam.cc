#include "graph/training/adam.h"

#include "graph/ops/ops.h"
#include "graph/ops/training_ops.h"
#include "graph/training/variables.h"

namespace dflow {
namespace train {

absl::Status AdamOptimizer::Prepare(const Scope& scope,
                                    const std::vector<Output>& vars) {
  if (!beta1_power_.valid()) {
    // Like TensorFlow: beside the first variable, so the powers live where
    // (most) updates run.
    const Output& first = vars.front();
    const Scope at = scope.WithRootNameScope()
                         .WithNoControlDependencies()
                         .WithExactDevice(first.node()->requested_device())
                         .ColocateWith(first.op());
    const VariableOptions not_trained = VariableOptions().Trainable(false);
    beta1_power_ = NewVariable(at, "beta1_power", TensorShape({}), DT_FLOAT,
                               ConstantInitializer(options_.beta1),
                               not_trained);
    beta2_power_ = NewVariable(at, "beta2_power", TensorShape({}), DT_FLOAT,
                               ConstantInitializer(options_.beta2),
                               not_trained);
  }
  for (const Output& var : vars) {
    CreateZerosSlot(scope, var, "m", name());
    CreateZerosSlot(scope, var, "v", name() + "_1");
  }
  return scope.status();
}

Operation AdamOptimizer::ApplyDense(const Scope& scope, const Output& grad,
                                    const Output& var) {
  const DataType dtype = ValueType(var);
  auto as = [&](const Input& v) { return AsType(scope, v, dtype); };
  const Output m = GetSlot(var, "m"), v = GetSlot(var, "v");
  const auto attrs = ops::ApplyAdamAttrs().UseNesterov(options_.use_nesterov);
  if (var.dtype() == DT_RESOURCE) {
    return ops::ResourceApplyAdam(
        scope, var, m, v, as(beta1_power_), as(beta2_power_),
        as(learning_rate_), as(options_.beta1), as(options_.beta2),
        as(options_.epsilon), grad, attrs);
  }
  return ops::ApplyAdam(scope, var, m, v, as(beta1_power_), as(beta2_power_),
                        as(learning_rate_), as(options_.beta1),
                        as(options_.beta2), as(options_.epsilon), grad, attrs)
      .op();
}

Operation AdamOptimizer::Finish(const Scope& scope,
                                const std::vector<Operation>& updates) {
  // The powers advance only after every update has read them.
  const Scope after = scope.WithControlDependencies(absl::MakeConstSpan(updates))
                          .WithExactDevice(beta1_power_.node()->requested_device())
                          .ColocateWith(beta1_power_.op());
  Output b1 = ops::Assign(after.WithOpName("update_beta1_power"), beta1_power_,
                          ops::Mul(after, beta1_power_, options_.beta1));
  Output b2 = ops::Assign(after.WithOpName("update_beta2_power"), beta2_power_,
                          ops::Mul(after, beta2_power_, options_.beta2));
  return Group(scope, {b1.op(), b2.op()}, "update");
}

}  // namespace train
}  // namespace dflow
