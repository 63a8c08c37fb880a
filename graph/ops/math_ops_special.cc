// Schemas and builder wrappers of the element-wise math TensorFlow graphs
// use beyond the core set of math_ops.cc: absolute value and sign,
// trigonometric and hyperbolic functions, log1p/expm1, reciprocal,
// rounding, the error and gamma functions, the IsFinite/IsNan/IsInf
// predicates, and the gradients TensorFlow writes for Rsqrt, Sqrt and
// Reciprocal. Type lists are TensorFlow 2.21's (tests/graph/tf_op_defs_test
// compares them); the CPU kernels (kernels/cpu/cwise_ops_special.cc) cover
// the real floating types, and the integer types where TensorFlow's do.
#include <string>

#include "graph/op_registry.h"
#include "graph/ops/math_ops.h"
#include "graph/ops/shape_fn_util.h"
#include "graph/shape_inference.h"

namespace dflow {
namespace {

constexpr char kRealInts[] =
    "T: {bfloat16, half, float, double, int8, int16, int32, int64}";
constexpr char kRealIntsComplex[] =
    "T: {bfloat16, half, float, double, int8, int16, int32, int64, "
    "complex64, complex128}";
constexpr char kFloatsComplex[] =
    "T: {bfloat16, half, float, double, complex64, complex128}";
constexpr char kFloats[] = "T: {bfloat16, half, float, double}";

#define DFLOW_SPECIAL_UNARY_OP(name, types, doc) \
  DFLOW_REGISTER_OP(name)                        \
      .Input("x: T")                             \
      .Output("y: T")                            \
      .Attr(types)                               \
      .SetShapeFn(shape_fns::UnchangedShape)     \
      .Doc(doc)

DFLOW_SPECIAL_UNARY_OP("Abs", kRealInts, "Returns |x| element-wise.");
DFLOW_SPECIAL_UNARY_OP("Sign", kRealIntsComplex,
                       "Returns -1, 0 or 1 by the sign of x, element-wise.");
DFLOW_SPECIAL_UNARY_OP("Sin", kFloatsComplex, "Returns sin(x) element-wise.");
DFLOW_SPECIAL_UNARY_OP("Cos", kFloatsComplex, "Returns cos(x) element-wise.");
DFLOW_SPECIAL_UNARY_OP("Tan", kFloatsComplex, "Returns tan(x) element-wise.");
DFLOW_SPECIAL_UNARY_OP("Asin", kFloatsComplex, "Returns asin(x) element-wise.");
DFLOW_SPECIAL_UNARY_OP("Acos", kFloatsComplex, "Returns acos(x) element-wise.");
DFLOW_SPECIAL_UNARY_OP("Atan", kFloatsComplex, "Returns atan(x) element-wise.");
DFLOW_SPECIAL_UNARY_OP("Sinh", kFloatsComplex, "Returns sinh(x) element-wise.");
DFLOW_SPECIAL_UNARY_OP("Cosh", kFloatsComplex, "Returns cosh(x) element-wise.");
DFLOW_SPECIAL_UNARY_OP("Asinh", kFloatsComplex,
                       "Returns asinh(x) element-wise.");
DFLOW_SPECIAL_UNARY_OP("Acosh", kFloatsComplex,
                       "Returns acosh(x) element-wise.");
DFLOW_SPECIAL_UNARY_OP("Atanh", kFloatsComplex,
                       "Returns atanh(x) element-wise.");
DFLOW_SPECIAL_UNARY_OP("Log1p", kFloatsComplex,
                       "Returns ln(1 + x) element-wise.");
DFLOW_SPECIAL_UNARY_OP("Expm1", kFloatsComplex,
                       "Returns e^x - 1 element-wise.");
DFLOW_SPECIAL_UNARY_OP("Reciprocal", kRealIntsComplex,
                       "Returns 1 / x element-wise.");
DFLOW_SPECIAL_UNARY_OP("Inv", kRealIntsComplex,
                       "Returns 1 / x element-wise (Reciprocal's old name).");
DFLOW_SPECIAL_UNARY_OP("Round", kRealIntsComplex,
                       "Rounds x to the nearest integer, halves to even.");
DFLOW_SPECIAL_UNARY_OP("Rint", kFloats,
                       "Rounds x to the nearest integer, halves to even.");
DFLOW_SPECIAL_UNARY_OP("Ceil", kFloats,
                       "Returns the smallest integer not below x.");
DFLOW_SPECIAL_UNARY_OP("Erf", kFloats, "Returns erf(x) element-wise.");
DFLOW_SPECIAL_UNARY_OP("Erfc", kFloats, "Returns 1 - erf(x) element-wise.");
DFLOW_SPECIAL_UNARY_OP("Lgamma", kFloats, "Returns ln|Gamma(x)| element-wise.");
DFLOW_SPECIAL_UNARY_OP("Digamma", kFloats,
                       "Returns Psi(x), the derivative of Lgamma.");
DFLOW_SPECIAL_UNARY_OP("Erfinv", kFloats,
                       "Returns the inverse of erf element-wise.");
DFLOW_SPECIAL_UNARY_OP("Ndtri", kFloats,
                       "Returns the inverse of the standard normal CDF.");

#undef DFLOW_SPECIAL_UNARY_OP

#define DFLOW_PREDICATE_OP(name, doc)        \
  DFLOW_REGISTER_OP(name)                    \
      .Input("x: T")                         \
      .Output("y: bool")                     \
      .Attr(kFloats)                         \
      .SetShapeFn(shape_fns::UnchangedShape) \
      .Doc(doc)

DFLOW_PREDICATE_OP("IsFinite", "Whether x is neither infinite nor NaN.");
DFLOW_PREDICATE_OP("IsNan", "Whether x is NaN.");
DFLOW_PREDICATE_OP("IsInf", "Whether x is +inf or -inf.");

#undef DFLOW_PREDICATE_OP

#define DFLOW_UNARY_GRAD_OP(name, doc)       \
  DFLOW_REGISTER_OP(name)                    \
      .Input("y: T")                         \
      .Input("dy: T")                        \
      .Output("z: T")                        \
      .Attr(kFloatsComplex)                  \
      .SetShapeFn(shape_fns::UnchangedShape) \
      .Doc(doc)

DFLOW_UNARY_GRAD_OP("RsqrtGrad",
                    "Returns -0.5 * dy * y^3, where y = rsqrt(x).");
DFLOW_UNARY_GRAD_OP("SqrtGrad", "Returns 0.5 * dy / y, where y = sqrt(x).");
DFLOW_UNARY_GRAD_OP("ReciprocalGrad", "Returns -dy * y^2, where y = 1 / x.");

#undef DFLOW_UNARY_GRAD_OP

Output Call(const Scope& scope, const char* op, const Input& x) {
  return shape_fn_util::FirstOutput(OpBuilder(scope, op).Input(x).Finalize());
}

Output Call(const Scope& scope, const char* op, const Input& x,
            const Input& y) {
  return shape_fn_util::FirstOutput(
      OpBuilder(scope, op).Input(x).Input(y).Finalize());
}

}  // namespace

namespace ops {

Output Abs(const Scope& scope, Input x) { return Call(scope, "Abs", x); }
Output Sign(const Scope& scope, Input x) { return Call(scope, "Sign", x); }
Output Sin(const Scope& scope, Input x) { return Call(scope, "Sin", x); }
Output Cos(const Scope& scope, Input x) { return Call(scope, "Cos", x); }
Output Tan(const Scope& scope, Input x) { return Call(scope, "Tan", x); }
Output Asin(const Scope& scope, Input x) { return Call(scope, "Asin", x); }
Output Acos(const Scope& scope, Input x) { return Call(scope, "Acos", x); }
Output Atan(const Scope& scope, Input x) { return Call(scope, "Atan", x); }
Output Sinh(const Scope& scope, Input x) { return Call(scope, "Sinh", x); }
Output Cosh(const Scope& scope, Input x) { return Call(scope, "Cosh", x); }
Output Asinh(const Scope& scope, Input x) { return Call(scope, "Asinh", x); }
Output Acosh(const Scope& scope, Input x) { return Call(scope, "Acosh", x); }
Output Atanh(const Scope& scope, Input x) { return Call(scope, "Atanh", x); }
Output Log1p(const Scope& scope, Input x) { return Call(scope, "Log1p", x); }
Output Expm1(const Scope& scope, Input x) { return Call(scope, "Expm1", x); }
Output Reciprocal(const Scope& scope, Input x) {
  return Call(scope, "Reciprocal", x);
}
Output Inv(const Scope& scope, Input x) { return Call(scope, "Inv", x); }
Output Round(const Scope& scope, Input x) { return Call(scope, "Round", x); }
Output Rint(const Scope& scope, Input x) { return Call(scope, "Rint", x); }
Output Ceil(const Scope& scope, Input x) { return Call(scope, "Ceil", x); }
Output Erf(const Scope& scope, Input x) { return Call(scope, "Erf", x); }
Output Erfc(const Scope& scope, Input x) { return Call(scope, "Erfc", x); }
Output Lgamma(const Scope& scope, Input x) { return Call(scope, "Lgamma", x); }
Output Digamma(const Scope& scope, Input x) {
  return Call(scope, "Digamma", x);
}
Output Erfinv(const Scope& scope, Input x) { return Call(scope, "Erfinv", x); }
Output Ndtri(const Scope& scope, Input x) { return Call(scope, "Ndtri", x); }
Output IsFinite(const Scope& scope, Input x) {
  return Call(scope, "IsFinite", x);
}
Output IsNan(const Scope& scope, Input x) { return Call(scope, "IsNan", x); }
Output IsInf(const Scope& scope, Input x) { return Call(scope, "IsInf", x); }
Output RsqrtGrad(const Scope& scope, Input y, Input dy) {
  return Call(scope, "RsqrtGrad", y, dy);
}
Output SqrtGrad(const Scope& scope, Input y, Input dy) {
  return Call(scope, "SqrtGrad", y, dy);
}
Output ReciprocalGrad(const Scope& scope, Input y, Input dy) {
  return Call(scope, "ReciprocalGrad", y, dy);
}

}  // namespace ops
}  // namespace dflow
