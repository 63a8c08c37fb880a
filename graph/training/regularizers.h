// Weight regularization (TensorFlow's tf.contrib.layers.l2_regularizer).
#ifndef DFLOW_GRAPH_TRAINING_REGULARIZERS_H_
#define DFLOW_GRAPH_TRAINING_REGULARIZERS_H_

#include "graph/scope.h"

namespace dflow {
namespace train {

// scale * sum(weights^2) / 2, a scalar of weights' value type, built in a
// name scope "l2_regularizer". Also added to the kLosses collection, from
// which TotalRegularizationLoss sums.
Output L2Regularizer(const Scope& scope, float scale, const Output& weights);

// AddN of the kLosses collection (a float 0 if it is empty), named
// "regularization_loss" in `scope`.
Output TotalRegularizationLoss(const Scope& scope);

}  // namespace train
}  // namespace dflow

#endif  // DFLOW_GRAPH_TRAINING_REGULARIZERS_H_
