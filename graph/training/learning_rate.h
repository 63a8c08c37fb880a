// Learning-rate schedules (TensorFlow's tf.train.exponential_decay).
#ifndef DFLOW_GRAPH_TRAINING_LEARNING_RATE_H_
#define DFLOW_GRAPH_TRAINING_LEARNING_RATE_H_

#include "graph/scope.h"

namespace dflow {
namespace train {

struct ExponentialDecayOptions {
  // Decay in whole steps of decay_steps (floor(global_step / decay_steps)).
  bool staircase = false;
  ExponentialDecayOptions& Staircase(bool v) {
    staircase = v;
    return *this;
  }
};

// learning_rate * decay_rate ^ (global_step / decay_steps), a float scalar
// recomputed every step from the (int64) global step. Built in a name
// scope "ExponentialDecay".
Output ExponentialDecay(const Scope& scope, float learning_rate,
                        const Output& global_step, double decay_steps,
                        float decay_rate,
                        const ExponentialDecayOptions& options = {});

}  // namespace train
}  // namespace dflow

#endif  // DFLOW_GRAPH_TRAINING_LEARNING_RATE_H_
