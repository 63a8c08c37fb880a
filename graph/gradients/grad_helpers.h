// Building blocks several gradient families share: reducing a broadcast
// gradient back to an input's shape, reading small constants (axes,
// shapes) at build time, and constants of a gradient's dtype.
#ifndef DFLOW_GRAPH_GRADIENTS_GRAD_HELPERS_H_
#define DFLOW_GRAPH_GRADIENTS_GRAD_HELPERS_H_

#include <cstdint>
#include <vector>

#include "graph/scope.h"
#include "graph/types.h"

namespace dflow {

// For a broadcasting binary op z = f(x, y) whose element-wise gradients
// gx and gy are shaped like z: each summed over the axes along which its
// input was broadcast and reshaped to that input's shape. An invalid gx or
// gy gives an invalid result.
//
// When the static shapes decide which axes were broadcast (ranks known,
// and every dimension where the other input may be larger known in the
// input itself) the sums take constant axes and need no Shape,
// BroadcastGradientArgs or Reshape ops: equal shapes pass the gradient
// through untouched, and a bias [N] added to [?,N] costs one Sum over
// axis 0. Otherwise the axes come from BroadcastGradientArgs at run time.
void ReduceBroadcastGradients(const Scope& scope, const Output& x,
                              const Output& y, Output gx, Output gy,
                              Output* grad_x, Output* grad_y);

// The dtype gradients of `op`'s output 0 have (inputs may be refs).
DataType GradType(const Operation& op);

// The values of `o` when it is the output of an int32 or int64 Const node
// (reduction axes, perms, shapes written as literals); false otherwise.
// Lets a gradient use static axes instead of building shape arithmetic.
bool ConstantInts(const Output& o, std::vector<int64_t>* values);

// A scalar Const of `dtype` holding `value` (rounded to the dtype). For
// float, double, half, bfloat16, the integer types and complex types
// (real part).
Output ScalarOfType(const Scope& scope, double value, DataType dtype);

// An int32 vector Const.
Output Int32Vector(const Scope& scope, const std::vector<int64_t>& values);

}  // namespace dflow

#endif  // DFLOW_GRAPH_GRADIENTS_GRAD_HELPERS_H_
