#include "graph/gradients/grad_helpers.h"

#include "graph/ops/math_ops.h"
#include "graph/ops/shape_ops.h"

namespace dflow {
namespace {

bool SameKnownShape(const TensorShape& a, const TensorShape& b) {
  return a.IsFullyDefined() && b.IsFullyDefined() && a == b;
}

}  // namespace

void ReduceBroadcastGradients(const Scope& scope, const Output& x,
                              const Output& y, Output gx, Output gy,
                              Output* grad_x, Output* grad_y) {
  const TensorShape xs = x.shape(), ys = y.shape();
  if (SameKnownShape(xs, ys)) {
    *grad_x = gx;
    *grad_y = gy;
    return;
  }
  const Output sx = ops::Shape(scope, x);
  const Output sy = ops::Shape(scope, y);
  const ops::BroadcastGradientArgsOutputs axes =
      ops::BroadcastGradientArgs(scope, sx, sy);
  *grad_x = gx.valid() ? ops::Reshape(scope, ops::Sum(scope, gx, axes.r0), sx)
                       : Output();
  *grad_y = gy.valid() ? ops::Reshape(scope, ops::Sum(scope, gy, axes.r1), sy)
                       : Output();
}

}  // namespace dflow
