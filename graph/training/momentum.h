// SGD with momentum (ApplyMomentum): accum = accum * momentum + grad;
// var -= learning_rate * accum, or the Nesterov form. One slot per
// variable, "<var>/Momentum".
#ifndef DFLOW_GRAPH_TRAINING_MOMENTUM_H_
#define DFLOW_GRAPH_TRAINING_MOMENTUM_H_

#include "graph/training/optimizer.h"

namespace dflow {
namespace train {

class MomentumOptimizer : public Optimizer {
 public:
  MomentumOptimizer(Input learning_rate, Input momentum,
                    bool use_nesterov = false, std::string name = "Momentum")
      : Optimizer(std::move(name)),
        learning_rate_(std::move(learning_rate)),
        momentum_(std::move(momentum)),
        use_nesterov_(use_nesterov) {}

 protected:
  absl::Status Prepare(const Scope& scope,
                       const std::vector<Output>& vars) override;
  Operation ApplyDense(const Scope& scope, const Output& grad,
                       const Output& var) override;

 private:
  const Input learning_rate_;
  const Input momentum_;
  const bool use_nesterov_;
};

}  // namespace train
}  // namespace dflow

#endif  // DFLOW_GRAPH_TRAINING_MOMENTUM_H_
