#include "graph/training/regularizers.h"

#include <vector>

#include "graph/ops/ops.h"
#include "graph/training/variables.h"

namespace dflow {
namespace train {

Output L2Regularizer(const Scope& scope, float scale, const Output& weights) {
  const Scope s = scope.NewSubScope("l2_regularizer");
  Output value = ReadValue(s, weights);
  Output scale_t = ops::Const(s, scale);
  if (ValueType(weights) != DT_FLOAT) {
    scale_t = ops::Cast(s, scale_t, ValueType(weights));
  }
  Output loss = ops::Mul(s, ops::L2Loss(s, value), scale_t);
  if (loss.valid()) scope.AddToCollection(kLosses, loss.op());
  return loss;
}

Output TotalRegularizationLoss(const Scope& scope) {
  std::vector<Output> losses;
  for (const Operation& op : scope.GetCollection(kLosses)) {
    losses.push_back(op.output(0));
  }
  if (losses.empty()) {
    return ops::Const(scope.WithOpName("regularization_loss"), 0.0f);
  }
  if (losses.size() == 1) {
    return ops::Identity(scope.WithOpName("regularization_loss"), losses[0]);
  }
  return ops::AddN(scope.WithOpName("regularization_loss"), losses);
}

}  // namespace train
}  // namespace dflow
