// Gradients of the math ops (graph/ops/math_ops.h), following TensorFlow's
// math_grad.py: element-wise arithmetic (reduced back to each input's shape
// when it broadcast), unary functions, MatMul, cumulative sums and
// products, Cast, AddN, floor division, DivNoNan and the selections.
// Comparisons and logical ops carry no gradient. The reductions are in
// math_grad_reduction.cc.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "graph/gradients/grad_helpers.h"
#include "graph/gradients/grad_registry.h"
#include "graph/ops/ops.h"
#include "graph/tensor.h"
#include "graph/tensor_shape.h"

namespace dflow {
namespace {

// --- Element-wise binary ops. ---

absl::Status AddGrad(const Scope& scope, const Operation& op,
                     absl::Span<const Output> grad_outputs,
                     std::vector<Output>* grad_inputs) {
  grad_inputs->resize(2);
  ReduceBroadcastGradients(scope, op.input(0), op.input(1), grad_outputs[0],
                           grad_outputs[0], &(*grad_inputs)[0],
                           &(*grad_inputs)[1]);
  return absl::OkStatus();
}
DFLOW_REGISTER_GRADIENT("Add", AddGrad);
DFLOW_REGISTER_GRADIENT("AddV2", AddGrad);

// y's gradient is negated after its reduction: fewer elements when y was
// broadcast.
absl::Status SubGrad(const Scope& scope, const Operation& op,
                     absl::Span<const Output> grad_outputs,
                     std::vector<Output>* grad_inputs) {
  grad_inputs->resize(2);
  ReduceBroadcastGradients(scope, op.input(0), op.input(1), grad_outputs[0],
                           grad_outputs[0], &(*grad_inputs)[0],
                           &(*grad_inputs)[1]);
  (*grad_inputs)[1] = ops::Neg(scope, (*grad_inputs)[1]);
  return absl::OkStatus();
}
DFLOW_REGISTER_GRADIENT("Sub", SubGrad);

absl::Status MulGrad(const Scope& scope, const Operation& op,
                     absl::Span<const Output> grad_outputs,
                     std::vector<Output>* grad_inputs) {
  const Output x = op.input(0), y = op.input(1), g = grad_outputs[0];
  grad_inputs->resize(2);
  ReduceBroadcastGradients(scope, x, y, ops::Mul(scope, g, y),
                           ops::Mul(scope, x, g), &(*grad_inputs)[0],
                           &(*grad_inputs)[1]);
  return absl::OkStatus();
}
DFLOW_REGISTER_GRADIENT("Mul", MulGrad);

// z = x / y: dx = g / y, dy = -g x / y^2 = -dx z (reusing both).
absl::Status RealDivGrad(const Scope& scope, const Operation& op,
                         absl::Span<const Output> grad_outputs,
                         std::vector<Output>* grad_inputs) {
  const Output x = op.input(0), y = op.input(1), g = grad_outputs[0];
  const Output gx = ops::RealDiv(scope, g, y);
  const Output gy = ops::Neg(scope, ops::Mul(scope, gx, op.output(0)));
  grad_inputs->resize(2);
  ReduceBroadcastGradients(scope, x, y, gx, gy, &(*grad_inputs)[0],
                           &(*grad_inputs)[1]);
  return absl::OkStatus();
}
DFLOW_REGISTER_GRADIENT("RealDiv", RealDivGrad);

// The gradient goes to the selected input; on ties to x, as TensorFlow's
// GreaterEqual (Maximum) and LessEqual (Minimum) masks send it. So y gets
// it where x < y (Maximum) or x > y (Minimum), and x gets the rest.
absl::Status MinMaxGrad(const Scope& scope, const Operation& op,
                        absl::Span<const Output> grad_outputs,
                        std::vector<Output>* grad_inputs, bool is_max) {
  const Output x = op.input(0), y = op.input(1), g = grad_outputs[0];
  const Output y_selected =
      is_max ? ops::Less(scope, x, y) : ops::Greater(scope, x, y);
  const Output gy =
      ops::Mul(scope, g, ops::Cast(scope, y_selected, GradType(op)));
  const Output gx = ops::Sub(scope, g, gy);
  grad_inputs->resize(2);
  ReduceBroadcastGradients(scope, x, y, gx, gy, &(*grad_inputs)[0],
                           &(*grad_inputs)[1]);
  return absl::OkStatus();
}
absl::Status MaximumGrad(const Scope& scope, const Operation& op,
                         absl::Span<const Output> grad_outputs,
                         std::vector<Output>* grad_inputs) {
  return MinMaxGrad(scope, op, grad_outputs, grad_inputs, /*is_max=*/true);
}
absl::Status MinimumGrad(const Scope& scope, const Operation& op,
                         absl::Span<const Output> grad_outputs,
                         std::vector<Output>* grad_inputs) {
  return MinMaxGrad(scope, op, grad_outputs, grad_inputs, /*is_max=*/false);
}
DFLOW_REGISTER_GRADIENT("Maximum", MaximumGrad);
DFLOW_REGISTER_GRADIENT("Minimum", MinimumGrad);

// z = x^y: dx = g y x^(y-1); dy = g z log(x) where x > 0 and 0 elsewhere
// (TensorFlow's choice: log(x) is undefined there, and z is 0 at x = 0,
// which would otherwise give 0 * -inf = NaN).
absl::Status PowGrad(const Scope& scope, const Operation& op,
                     absl::Span<const Output> grad_outputs,
                     std::vector<Output>* grad_inputs) {
  const Output x = op.input(0), y = op.input(1), g = grad_outputs[0];
  const Output gx = ops::Mul(scope, ops::Mul(scope, g, y),
                             ops::Pow(scope, x, ops::Sub(scope, y, 1)));
  // safe_x = x where x > 0, else 1: max(x, 1 - [x > 0]).
  const Output positive =
      ops::Cast(scope, ops::Greater(scope, x, 0), GradType(op));
  const Output safe_x = ops::Maximum(scope, x, ops::Sub(scope, 1, positive));
  const Output gy = ops::Mul(scope, ops::Mul(scope, g, op.output(0)),
                             ops::Log(scope, safe_x));
  grad_inputs->resize(2);
  ReduceBroadcastGradients(scope, x, y, gx, gy, &(*grad_inputs)[0],
                           &(*grad_inputs)[1]);
  return absl::OkStatus();
}
DFLOW_REGISTER_GRADIENT("Pow", PowGrad);

// z = (x - y)^2: dx = 2 g (x - y) = -dy (negated after y's reduction).
absl::Status SquaredDifferenceGrad(const Scope& scope, const Operation& op,
                                   absl::Span<const Output> grad_outputs,
                                   std::vector<Output>* grad_inputs) {
  const Output x = op.input(0), y = op.input(1), g = grad_outputs[0];
  const Output gx =
      ops::Mul(scope, ops::Mul(scope, g, 2), ops::Sub(scope, x, y));
  grad_inputs->resize(2);
  ReduceBroadcastGradients(scope, x, y, gx, gx, &(*grad_inputs)[0],
                           &(*grad_inputs)[1]);
  (*grad_inputs)[1] = ops::Neg(scope, (*grad_inputs)[1]);
  return absl::OkStatus();
}
DFLOW_REGISTER_GRADIENT("SquaredDifference", SquaredDifferenceGrad);

// The gradient of each summand is the gradient of the sum.
absl::Status AddNGrad(const Scope& /*scope*/, const Operation& op,
                      absl::Span<const Output> grad_outputs,
                      std::vector<Output>* grad_inputs) {
  grad_inputs->assign(op.node()->num_inputs(), grad_outputs[0]);
  return absl::OkStatus();
}
DFLOW_REGISTER_GRADIENT("AddN", AddNGrad);

DFLOW_REGISTER_NO_GRADIENT("Less");
DFLOW_REGISTER_NO_GRADIENT("Greater");
DFLOW_REGISTER_NO_GRADIENT("Equal");

// --- Element-wise unary ops: y = f(x), dx = g f'(x), written with y where
// that is cheaper (as TensorFlow's *Grad ops do). ---

absl::Status NegGrad(const Scope& scope, const Operation& /*op*/,
                     absl::Span<const Output> grad_outputs,
                     std::vector<Output>* grad_inputs) {
  *grad_inputs = {ops::Neg(scope, grad_outputs[0])};
  return absl::OkStatus();
}
DFLOW_REGISTER_GRADIENT("Neg", NegGrad);

absl::Status SquareGrad(const Scope& scope, const Operation& op,
                        absl::Span<const Output> grad_outputs,
                        std::vector<Output>* grad_inputs) {
  *grad_inputs = {
      ops::Mul(scope, grad_outputs[0], ops::Mul(scope, op.input(0), 2))};
  return absl::OkStatus();
}
DFLOW_REGISTER_GRADIENT("Square", SquareGrad);

// d sqrt(x) = 0.5 / y.
absl::Status SqrtGrad(const Scope& scope, const Operation& op,
                      absl::Span<const Output> grad_outputs,
                      std::vector<Output>* grad_inputs) {
  *grad_inputs = {
      ops::RealDiv(scope, ops::Mul(scope, grad_outputs[0], 0.5), op.output(0))};
  return absl::OkStatus();
}
DFLOW_REGISTER_GRADIENT("Sqrt", SqrtGrad);

// d x^-1/2 = -0.5 x^-3/2 = -0.5 y^3.
absl::Status RsqrtGrad(const Scope& scope, const Operation& op,
                       absl::Span<const Output> grad_outputs,
                       std::vector<Output>* grad_inputs) {
  const Output y = op.output(0);
  const Output y3 = ops::Mul(scope, ops::Square(scope, y), y);
  *grad_inputs = {ops::Mul(scope, ops::Mul(scope, grad_outputs[0], -0.5), y3)};
  return absl::OkStatus();
}
DFLOW_REGISTER_GRADIENT("Rsqrt", RsqrtGrad);

absl::Status ExpGrad(const Scope& scope, const Operation& op,
                     absl::Span<const Output> grad_outputs,
                     std::vector<Output>* grad_inputs) {
  *grad_inputs = {ops::Mul(scope, grad_outputs[0], op.output(0))};
  return absl::OkStatus();
}
DFLOW_REGISTER_GRADIENT("Exp", ExpGrad);

absl::Status LogGrad(const Scope& scope, const Operation& op,
                     absl::Span<const Output> grad_outputs,
                     std::vector<Output>* grad_inputs) {
  *grad_inputs = {ops::RealDiv(scope, grad_outputs[0], op.input(0))};
  return absl::OkStatus();
}
DFLOW_REGISTER_GRADIENT("Log", LogGrad);

absl::Status SigmoidGradFn(const Scope& scope, const Operation& op,
                           absl::Span<const Output> grad_outputs,
                           std::vector<Output>* grad_inputs) {
  *grad_inputs = {ops::SigmoidGrad(scope, op.output(0), grad_outputs[0])};
  return absl::OkStatus();
}
DFLOW_REGISTER_GRADIENT("Sigmoid", SigmoidGradFn);

absl::Status TanhGradFn(const Scope& scope, const Operation& op,
                        absl::Span<const Output> grad_outputs,
                        std::vector<Output>* grad_inputs) {
  *grad_inputs = {ops::TanhGrad(scope, op.output(0), grad_outputs[0])};
  return absl::OkStatus();
}
DFLOW_REGISTER_GRADIENT("Tanh", TanhGradFn);

// z = dy y (1 - y): dz/dy = g dy (1 - 2y), dz/d(dy) = g y (1 - y).
absl::Status SigmoidGradGrad(const Scope& scope, const Operation& op,
                             absl::Span<const Output> grad_outputs,
                             std::vector<Output>* grad_inputs) {
  const Output y = op.input(0), dy = op.input(1), g = grad_outputs[0];
  const Output g_dy = ops::Mul(scope, g, dy);
  *grad_inputs = {
      ops::Sub(scope, g_dy, ops::Mul(scope, ops::Mul(scope, g_dy, 2), y)),
      ops::SigmoidGrad(scope, y, g)};
  return absl::OkStatus();
}
DFLOW_REGISTER_GRADIENT("SigmoidGrad", SigmoidGradGrad);

// z = dy (1 - y^2): dz/dy = -2 g dy y, dz/d(dy) = g (1 - y^2).
absl::Status TanhGradGrad(const Scope& scope, const Operation& op,
                          absl::Span<const Output> grad_outputs,
                          std::vector<Output>* grad_inputs) {
  const Output y = op.input(0), dy = op.input(1), g = grad_outputs[0];
  *grad_inputs = {
      ops::Mul(scope, ops::Mul(scope, g, -2), ops::Mul(scope, dy, y)),
      ops::TanhGrad(scope, y, g)};
  return absl::OkStatus();
}
DFLOW_REGISTER_GRADIENT("TanhGrad", TanhGradGrad);

// --- MatMul. ---

// C = op(A) op(B): each gradient is one MatMul of the other operand and
// dC, with the transposes chosen so no Transpose op is needed.
absl::Status MatMulGrad(const Scope& scope, const Operation& op,
                        absl::Span<const Output> grad_outputs,
                        std::vector<Output>* grad_inputs) {
  bool ta = false, tb = false;
  if (absl::Status s = op.node()->GetAttr("transpose_a", &ta); !s.ok()) {
    return s;
  }
  if (absl::Status s = op.node()->GetAttr("transpose_b", &tb); !s.ok()) {
    return s;
  }
  const Output a = op.input(0), b = op.input(1), g = grad_outputs[0];
  auto matmul = [&](const Output& x, const Output& y, bool tx, bool ty) {
    return ops::MatMul(scope, x, y,
                       ops::MatMulAttrs().TransposeA(tx).TransposeB(ty));
  };
  Output da, db;
  if (!ta && !tb) {
    da = matmul(g, b, false, true);
    db = matmul(a, g, true, false);
  } else if (!ta && tb) {
    da = matmul(g, b, false, false);
    db = matmul(g, a, true, false);
  } else if (ta && !tb) {
    da = matmul(b, g, false, true);
    db = matmul(a, g, false, false);
  } else {
    da = matmul(b, g, true, true);
    db = matmul(g, a, true, true);
  }
  *grad_inputs = {da, db};
  return absl::OkStatus();
}
DFLOW_REGISTER_GRADIENT("MatMul", MatMulGrad);

// --- Cumulative sums and products (TensorFlow's gradients). ---

// Each output sums inputs from one side, so each input's gradient sums the
// gradients from the other side.
absl::Status CumsumGrad(const Scope& scope, const Operation& op,
                        absl::Span<const Output> grad_outputs,
                        std::vector<Output>* grad_inputs) {
  bool exclusive = false, reverse = false;
  if (absl::Status s = op.node()->GetAttr("exclusive", &exclusive); !s.ok()) {
    return s;
  }
  if (absl::Status s = op.node()->GetAttr("reverse", &reverse); !s.ok()) {
    return s;
  }
  *grad_inputs = {
      ops::Cumsum(scope, grad_outputs[0], op.input(1),
                  ops::ScanAttrs().Exclusive(exclusive).Reverse(!reverse)),
      NoGradient()};
  return absl::OkStatus();
}
DFLOW_REGISTER_GRADIENT("Cumsum", CumsumGrad);

// dx_i = sum over the outputs k that include x_i of g_k z_k / x_i, which
// divides by x_i: like TensorFlow (div_no_nan), 0 where x_i == 0, which is
// exact only when the products there are zero anyway.
absl::Status CumprodGrad(const Scope& scope, const Operation& op,
                         absl::Span<const Output> grad_outputs,
                         std::vector<Output>* grad_inputs) {
  bool exclusive = false, reverse = false;
  if (absl::Status s = op.node()->GetAttr("exclusive", &exclusive); !s.ok()) {
    return s;
  }
  if (absl::Status s = op.node()->GetAttr("reverse", &reverse); !s.ok()) {
    return s;
  }
  const Output x = op.input(0);
  const Output sums = ops::Cumsum(
      scope, ops::Mul(scope, op.output(0), grad_outputs[0]), op.input(1),
      ops::ScanAttrs().Exclusive(exclusive).Reverse(!reverse));
  const Output zero = ops::Cast(scope, ops::Equal(scope, x, 0), GradType(op));
  *grad_inputs = {
      ops::Mul(scope, ops::RealDiv(scope, sums, ops::AddV2(scope, x, zero)),
               ops::Sub(scope, 1, zero)),
      NoGradient()};
  return absl::OkStatus();
}
DFLOW_REGISTER_GRADIENT("Cumprod", CumprodGrad);

// --- Cast. ---

bool IsFloatOrComplex(DataType t) {
  return IsFloatingType(t) || IsComplexType(t);
}

// Between floating (or complex) types the gradient is cast back; to or
// from an integer or bool there is none (TensorFlow's rule).
absl::Status CastGrad(const Scope& scope, const Operation& op,
                      absl::Span<const Output> grad_outputs,
                      std::vector<Output>* grad_inputs) {
  DataType src = DT_INVALID, dst = DT_INVALID;
  if (absl::Status s = op.node()->GetAttr("SrcT", &src); !s.ok()) return s;
  if (absl::Status s = op.node()->GetAttr("DstT", &dst); !s.ok()) return s;
  src = BaseType(src);
  dst = BaseType(dst);
  if (!IsFloatOrComplex(src) || !IsFloatOrComplex(dst)) {
    *grad_inputs = {NoGradient()};
  } else if (src == dst) {
    *grad_inputs = {grad_outputs[0]};
  } else {
    *grad_inputs = {ops::Cast(scope, grad_outputs[0], src)};
  }
  return absl::OkStatus();
}
DFLOW_REGISTER_GRADIENT("Cast", CastGrad);

}  // namespace
}  // namespace dflow

// --- Floor division, DivNoNan, selections (TensorFlow's math_grad.py). ---

namespace dflow {
namespace {

// z = x mod y = x - floor(x / y) y: dx = g, dy = -g floor(x / y).
absl::Status FloorModGrad(const Scope& scope, const Operation& op,
                          absl::Span<const Output> grad_outputs,
                          std::vector<Output>* grad_inputs) {
  const Output x = op.input(0), y = op.input(1), g = grad_outputs[0];
  const Output gy =
      ops::Mul(scope, g, ops::Neg(scope, ops::FloorDiv(scope, x, y)));
  grad_inputs->resize(2);
  ReduceBroadcastGradients(scope, x, y, g, gy, &(*grad_inputs)[0],
                           &(*grad_inputs)[1]);
  return absl::OkStatus();
}
DFLOW_REGISTER_GRADIENT("FloorMod", FloorModGrad);

// z = x / y, or 0 where y = 0: dx = g / y, dy = g (-x / y) / y, both with
// the same "0 where y = 0" rule.
absl::Status DivNoNanGrad(const Scope& scope, const Operation& op,
                          absl::Span<const Output> grad_outputs,
                          std::vector<Output>* grad_inputs) {
  const Output x = op.input(0), y = op.input(1), g = grad_outputs[0];
  const Output gx = ops::DivNoNan(scope, g, y);
  const Output gy = ops::Mul(
      scope, g,
      ops::DivNoNan(scope, ops::DivNoNan(scope, ops::Neg(scope, x), y), y));
  grad_inputs->resize(2);
  ReduceBroadcastGradients(scope, x, y, gx, gy, &(*grad_inputs)[0],
                           &(*grad_inputs)[1]);
  return absl::OkStatus();
}
DFLOW_REGISTER_GRADIENT("DivNoNan", DivNoNanGrad);

// Legacy Select: t and e have the output's shape; each gets the gradient
// where it was picked.
absl::Status SelectGrad(const Scope& scope, const Operation& op,
                        absl::Span<const Output> grad_outputs,
                        std::vector<Output>* grad_inputs) {
  const Output c = op.input(0), g = grad_outputs[0];
  const Output zeros = ops::ZerosLike(scope, op.input(1));
  grad_inputs->assign(3, NoGradient());
  (*grad_inputs)[1] = ops::Select(scope, c, g, zeros);
  (*grad_inputs)[2] = ops::Select(scope, c, zeros, g);
  return absl::OkStatus();
}
DFLOW_REGISTER_GRADIENT("Select", SelectGrad);

// `g` (shaped like `out`) summed back to the shape of `x`, which
// broadcast to `out`. Static when both shapes are known and equal.
Output SumToShapeOf(const Scope& scope, const Output& g, const Output& x,
                    const Output& out) {
  const TensorShape xs = x.shape(), os = out.shape();
  if (xs.IsFullyDefined() && xs == os) return g;
  const Output x_shape = ops::Shape(scope, x);
  const Output axes =
      ops::BroadcastGradientArgs(scope, x_shape, ops::Shape(scope, out)).r0;
  return ops::Reshape(
      scope, ops::Sum(scope, g, axes, ops::ReductionAttrs().KeepDims(true)),
      x_shape);
}

// SelectV2 broadcasts condition, t and e: each gradient is summed over
// the dimensions its input was broadcast along.
absl::Status SelectV2Grad(const Scope& scope, const Operation& op,
                          absl::Span<const Output> grad_outputs,
                          std::vector<Output>* grad_inputs) {
  const Output c = op.input(0), t = op.input(1), e = op.input(2);
  const Output g = grad_outputs[0];
  const Output zero = ScalarOfType(scope, 0, BaseType(g.dtype()));
  grad_inputs->assign(3, NoGradient());
  (*grad_inputs)[1] =
      SumToShapeOf(scope, ops::SelectV2(scope, c, g, zero), t, op.output(0));
  (*grad_inputs)[2] =
      SumToShapeOf(scope, ops::SelectV2(scope, c, zero, g), e, op.output(0));
  return absl::OkStatus();
}
DFLOW_REGISTER_GRADIENT("SelectV2", SelectV2Grad);

// Piecewise constant, or boolean: no gradient (TensorFlow returns None).
DFLOW_REGISTER_NO_GRADIENT("Floor");
DFLOW_REGISTER_NO_GRADIENT("FloorDiv");
DFLOW_REGISTER_NO_GRADIENT("GreaterEqual");
DFLOW_REGISTER_NO_GRADIENT("LessEqual");
DFLOW_REGISTER_NO_GRADIENT("NotEqual");
DFLOW_REGISTER_NO_GRADIENT("LogicalNot");
DFLOW_REGISTER_NO_GRADIENT("LogicalAnd");
DFLOW_REGISTER_NO_GRADIENT("LogicalOr");

}  // namespace
}  // namespace dflow
