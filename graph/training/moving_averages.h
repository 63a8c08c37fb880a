// Exponential moving averages of variables (TensorFlow's
// tf.train.ExponentialMovingAverage): for each variable a shadow variable
// "<var>/ExponentialMovingAverage", starting at the variable's initial
// value, updated by the op Apply returns:
//
//   shadow -= (1 - decay) * (shadow - var)
//
// With num_updates (usually the global step) the decay used is
// min(decay, (1 + num_updates) / (10 + num_updates)), so early averages
// follow the variable quickly.
#ifndef DFLOW_GRAPH_TRAINING_MOVING_AVERAGES_H_
#define DFLOW_GRAPH_TRAINING_MOVING_AVERAGES_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "graph/scope.h"

namespace dflow {
namespace train {

class ExponentialMovingAverage {
 public:
  explicit ExponentialMovingAverage(float decay,
                                    Output num_updates = Output(),
                                    std::string name = "ExponentialMovingAverage")
      : decay_(decay), num_updates_(num_updates), name_(std::move(name)) {}

  // Makes the shadows (first time per variable) and returns the op that
  // updates them all. The shadows join the global-variables collection:
  // build the initializer after this. Variables must come from NewVariable.
  absl::StatusOr<Operation> Apply(const Scope& scope,
                                  const std::vector<Output>& vars);

  // The shadow of `var` (invalid before Apply saw it).
  Output Average(const Output& var) const;
  // "<var>/ExponentialMovingAverage": what a checkpoint calls the shadow.
  std::string AverageName(const Output& var) const;

 private:
  const float decay_;
  const Output num_updates_;
  const std::string name_;
  std::map<const Node*, Output> shadows_;
};

}  // namespace train
}  // namespace dflow

#endif  // DFLOW_GRAPH_TRAINING_MOVING_AVERAGES_H_
