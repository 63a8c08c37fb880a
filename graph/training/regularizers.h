// Weight regularization (TensorFlow's tf.contrib.layers.l2_regularizer).
#ifndef DFLOW_GRAPH_TRAINING_REGULARIZERS_H_
#define DFLOW_GRAPH_TRAINING_REGULARIZERS_H_

#include "absl/strings/string_view.h"
#include "graph/scope.h"

namespace dflow {
namespace train {

// scale * sum(weights^2) / 2, a scalar of weights' value type, built in a
// name scope "l2_regularizer". Also added to the kLosses collection, from
// which TotalRegularizationLoss sums.
Output L2Regularizer(const Scope& scope, float scale, const Output& weights);

// AddN of the kLosses collection (a float 0 if it is empty), named
// "regularization_loss" in `scope`. With `name_scope` only the losses built
// in that name scope or below it count, as tf.get_collection('losses',
// scope) in the seed towers: each tower adds the L2 terms of the shared
// weights in its own name scope, and its loss must sum only its own.
Output TotalRegularizationLoss(const Scope& scope,
                               absl::string_view name_scope = "");

}  // namespace train
}  // namespace dflow

#endif  // DFLOW_GRAPH_TRAINING_REGULARIZERS_H_
