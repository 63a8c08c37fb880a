#include "graph/training/regularizers.h"

#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
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

Output TotalRegularizationLoss(const Scope& scope,
                               absl::string_view name_scope) {
  std::vector<Output> losses;
  for (const Operation& op : scope.GetCollection(kLosses)) {
    // "tower_1" matches "tower_1/..." but not "tower_10/...".
    if (!name_scope.empty() && op.name() != name_scope &&
        !absl::StartsWith(op.name(), absl::StrCat(name_scope, "/"))) {
      continue;
    }
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
