#include "graph/training/gradient_descent.h"

#include "graph/ops/training_ops.h"
#include "graph/training/variables.h"

namespace dflow {
namespace train {

Operation GradientDescentOptimizer::ApplyDense(const Scope& scope,
                                               const Output& grad,
                                               const Output& var) {
  const Output lr = AsType(scope, learning_rate_, ValueType(var));
  if (var.dtype() == DT_RESOURCE) {
    return ops::ResourceApplyGradientDescent(scope, var, lr, grad);
  }
  return ops::ApplyGradientDescent(scope, var, lr, grad).op();
}

}  // namespace train
}  // namespace dflow
