// Plain SGD: var -= learning_rate * grad (ApplyGradientDescent).
#ifndef DFLOW_GRAPH_TRAINING_GRADIENT_DESCENT_H_
#define DFLOW_GRAPH_TRAINING_GRADIENT_DESCENT_H_

#include "graph/training/optimizer.h"

namespace dflow {
namespace train {

class GradientDescentOptimizer : public Optimizer {
 public:
  // `learning_rate`: a number, or a scalar Output (e.g. ExponentialDecay).
  explicit GradientDescentOptimizer(Input learning_rate,
                                    std::string name = "GradientDescent")
      : Optimizer(std::move(name)), learning_rate_(std::move(learning_rate)) {}

 protected:
  Operation ApplyDense(const Scope& scope, const Output& grad,
                       const Output& var) override;

 private:
  const Input learning_rate_;
};

}  // namespace train
}  // namespace dflow

#endif  // DFLOW_GRAPH_TRAINING_GRADIENT_DESCENT_H_
