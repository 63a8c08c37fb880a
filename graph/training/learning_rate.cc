#include "graph/training/learning_rate.h"

#include "graph/ops/ops.h"

namespace dflow {
namespace train {

Output ExponentialDecay(const Scope& scope, float learning_rate,
                        const Output& global_step, double decay_steps,
                        float decay_rate,
                        const ExponentialDecayOptions& options) {
  const Scope s = scope.NewSubScope("ExponentialDecay");
  if (decay_steps <= 0) {
    s.UpdateStatus(absl::InvalidArgumentError(
        "ExponentialDecay: decay_steps must be positive"));
    return Output();
  }
  Output step = ops::Cast(s, global_step, DT_FLOAT);
  Output p = ops::RealDiv(s, step, static_cast<float>(decay_steps));
  if (options.staircase) {
    // Truncation is floor here: steps are never negative.
    p = ops::Cast(s, ops::Cast(s, p, DT_INT64), DT_FLOAT);
  }
  return ops::Mul(s.WithOpName("learning_rate"),
                  ops::Pow(s, decay_rate, p), learning_rate);
}

}  // namespace train
}  // namespace dflow
