// Building blocks several gradient families share.
#ifndef DFLOW_GRAPH_GRADIENTS_GRAD_HELPERS_H_
#define DFLOW_GRAPH_GRADIENTS_GRAD_HELPERS_H_

#include "graph/scope.h"

namespace dflow {

// For a broadcasting binary op z = f(x, y) whose element-wise gradients
// gx and gy are shaped like z: each summed over the axes along which its
// input was broadcast and reshaped to that input's shape. When the static
// shapes show no broadcast (both fully known and equal to z's) the
// gradients pass through untouched: no Shape/Sum/Reshape ops on the hot
// path of equal-shape arithmetic.
void ReduceBroadcastGradients(const Scope& scope, const Output& x,
                              const Output& y, Output gx, Output gy,
                              Output* grad_x, Output* grad_y);

}  // namespace dflow

#endif  // DFLOW_GRAPH_GRADIENTS_GRAD_HELPERS_H_
