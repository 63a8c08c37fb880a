// Adam (ApplyAdam): per-variable first and second moment slots
// "<var>/Adam" (m) and "<var>/Adam_1" (v), and two variables beta1_power
// and beta2_power (beta^t), colocated with the first variable and advanced
// after every step's updates.
#ifndef DFLOW_GRAPH_TRAINING_ADAM_H_
#define DFLOW_GRAPH_TRAINING_ADAM_H_

#include "graph/training/optimizer.h"

namespace dflow {
namespace train {

struct AdamOptions {
  float beta1 = 0.9f;
  float beta2 = 0.999f;
  float epsilon = 1e-8f;
  bool use_nesterov = false;
};

class AdamOptimizer : public Optimizer {
 public:
  explicit AdamOptimizer(Input learning_rate = 0.001f,
                         const AdamOptions& options = {},
                         std::string name = "Adam")
      : Optimizer(std::move(name)),
        learning_rate_(std::move(learning_rate)),
        options_(options) {}

 protected:
  absl::Status Prepare(const Scope& scope,
                       const std::vector<Output>& vars) override;
  Operation ApplyDense(const Scope& scope, const Output& grad,
                       const Output& var) override;
  Operation Finish(const Scope& scope,
                   const std::vector<Operation>& updates) override;

 private:
  const Input learning_rate_;
  const AdamOptions options_;
  Output beta1_power_, beta2_power_;  // float, on the first variable's device
};

}  // namespace train
}  // namespace dflow

#endif  // DFLOW_GRAPH_TRAINING_ADAM_H_
