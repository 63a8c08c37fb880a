#include "graph/training/momentum.h"

#include "graph/ops/training_ops.h"
#include "graph/training/variables.h"

namespace dflow {
namespace train {

absl::Status MomentumOptimizer::Prepare(const Scope& scope,
                                        const std::vector<Output>& vars) {
  for (const Output& var : vars) CreateZerosSlot(scope, var, "momentum", name());
  return scope.status();
}

Operation MomentumOptimizer::ApplyDense(const Scope& scope, const Output& grad,
                                        const Output& var) {
  const DataType dtype = ValueType(var);
  const Output lr = AsType(scope, learning_rate_, dtype);
  const Output momentum = AsType(scope, momentum_, dtype);
  const Output accum = GetSlot(var, "momentum");
  const auto attrs = ops::ApplyMomentumAttrs().UseNesterov(use_nesterov_);
  if (var.dtype() == DT_RESOURCE) {
    return ops::ResourceApplyMomentum(scope, var, accum, lr, grad, momentum,
                                      attrs);
  }
  return ops::ApplyMomentum(scope, var, accum, lr, grad, momentum, attrs).op();
}

}  // namespace train
}  // namespace dflow
