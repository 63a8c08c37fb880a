// Schemas and builder wrappers of the special functions TensorFlow 2.21
// computes with Eigen's SpecialFunctions module and with its own Cephes
// ports (TensorFlow's math_ops.cc and special_math_ops.cc OpDefs): the
// incomplete gamma and beta functions and their derivatives, Hurwitz zeta,
// polygamma, the Bessel functions, Dawson's integral, the exponential
// integral, the Fresnel integrals and Spence's function. Kernels:
// kernels/cpu/cwise_ops_special_functions.cc (+ _cephes.h).
#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "graph/op_registry.h"
#include "graph/ops/math_ops.h"
#include "graph/ops/shape_fn_util.h"
#include "graph/shape_inference.h"
#include "graph/tensor_shape.h"

namespace dflow {
namespace {

// a, b and x of one shape, or scalars (TensorFlow's Betainc broadcasts
// nothing else).
absl::Status BetaincShape(InferenceContext* c) {
  static constexpr const char* kNames[] = {"a", "b", "x"};
  TensorShape merged = TensorShape::Unknown();
  bool all_scalars = true;
  for (int i = 0; i < 3; ++i) {
    const TensorShape& s = c->input(i);
    if (s.rank() == 0) continue;
    all_scalars = false;
    DFLOW_RETURN_IF_ERROR(c->MergeShapes(
        merged, s,
        absl::StrCat("the shapes of the non-scalar inputs (", kNames[i], ")"),
        &merged));
  }
  c->set_output(0, all_scalars ? TensorShape() : merged);
  return absl::OkStatus();
}

#define DFLOW_SPECIAL_BINARY_OP(name, in0, in1, types, doc) \
  DFLOW_REGISTER_OP(name)                                   \
      .Input(in0 ": T")                                     \
      .Input(in1 ": T")                                     \
      .Output("z: T")                                       \
      .Attr(types)                                          \
      .SetShapeFn(shape_fns::BroadcastBinary)               \
      .Doc(doc)

constexpr char kAllFloats[] = "T: {bfloat16, half, float, double}";
constexpr char kFloatDouble[] = "T: {float, double}";

DFLOW_SPECIAL_BINARY_OP("Igamma", "a", "x", kAllFloats,
                        "The regularized lower incomplete gamma P(a, x).");
DFLOW_SPECIAL_BINARY_OP("Igammac", "a", "x", kAllFloats,
                        "The regularized upper incomplete gamma Q(a, x).");
DFLOW_SPECIAL_BINARY_OP("IgammaGradA", "a", "x", kFloatDouble,
                        "The derivative of P(a, x) with respect to a.");
DFLOW_SPECIAL_BINARY_OP("Zeta", "x", "q", kFloatDouble,
                        "The Hurwitz zeta function sum_k (k + q)^-x.");
DFLOW_SPECIAL_BINARY_OP("Polygamma", "a", "x", kFloatDouble,
                        "The a-th derivative of digamma at x.");

#undef DFLOW_SPECIAL_BINARY_OP

DFLOW_REGISTER_OP("RandomGammaGrad")
    .Input("alpha: T")
    .Input("sample: T")
    .Output("output: T")
    .Attr(kFloatDouble)
    .SetShapeFn(shape_fns::BroadcastBinary)
    .Doc("The derivative of a Gamma(alpha, 1) sample with respect to alpha.");

DFLOW_REGISTER_OP("Betainc")
    .Input("a: T")
    .Input("b: T")
    .Input("x: T")
    .Output("z: T")
    .Attr(kFloatDouble)
    .SetShapeFn(BetaincShape)
    .Doc("The regularized incomplete beta function I_x(a, b).");

#define DFLOW_SPECIAL_UNARY_FN(name, doc)    \
  DFLOW_REGISTER_OP(name)                    \
      .Input("x: T")                         \
      .Output("y: T")                        \
      .Attr(kAllFloats)                      \
      .SetShapeFn(shape_fns::UnchangedShape) \
      .Doc(doc)

DFLOW_SPECIAL_UNARY_FN("BesselI0", "The modified Bessel function I0(x).");
DFLOW_SPECIAL_UNARY_FN("BesselI0e", "exp(-|x|) I0(x).");
DFLOW_SPECIAL_UNARY_FN("BesselI1", "The modified Bessel function I1(x).");
DFLOW_SPECIAL_UNARY_FN("BesselI1e", "exp(-|x|) I1(x).");
DFLOW_SPECIAL_UNARY_FN("BesselJ0", "The Bessel function J0(x).");
DFLOW_SPECIAL_UNARY_FN("BesselJ1", "The Bessel function J1(x).");
DFLOW_SPECIAL_UNARY_FN("BesselK0", "The modified Bessel function K0(x).");
DFLOW_SPECIAL_UNARY_FN("BesselK0e", "exp(x) K0(x).");
DFLOW_SPECIAL_UNARY_FN("BesselK1", "The modified Bessel function K1(x).");
DFLOW_SPECIAL_UNARY_FN("BesselK1e", "exp(x) K1(x).");
DFLOW_SPECIAL_UNARY_FN("BesselY0", "The Bessel function Y0(x).");
DFLOW_SPECIAL_UNARY_FN("BesselY1", "The Bessel function Y1(x).");
DFLOW_SPECIAL_UNARY_FN("Dawsn", "Dawson's integral.");
DFLOW_SPECIAL_UNARY_FN("Expint", "The exponential integral Ei(x).");
DFLOW_SPECIAL_UNARY_FN("FresnelCos", "The Fresnel cosine integral C(x).");
DFLOW_SPECIAL_UNARY_FN("FresnelSin", "The Fresnel sine integral S(x).");
DFLOW_SPECIAL_UNARY_FN("Spence", "Spence's function (the dilogarithm).");

#undef DFLOW_SPECIAL_UNARY_FN

Output Call2(const Scope& scope, const char* op, const Input& a,
             const Input& b) {
  return shape_fn_util::FirstOutput(
      OpBuilder(scope, op).Input(a).Input(b).Finalize());
}

}  // namespace

namespace ops {

Output Igamma(const Scope& scope, Input a, Input x) {
  return Call2(scope, "Igamma", a, x);
}
Output Igammac(const Scope& scope, Input a, Input x) {
  return Call2(scope, "Igammac", a, x);
}
Output IgammaGradA(const Scope& scope, Input a, Input x) {
  return Call2(scope, "IgammaGradA", a, x);
}
Output RandomGammaGrad(const Scope& scope, Input alpha, Input sample) {
  return Call2(scope, "RandomGammaGrad", alpha, sample);
}
Output Zeta(const Scope& scope, Input x, Input q) {
  return Call2(scope, "Zeta", x, q);
}
Output Polygamma(const Scope& scope, Input a, Input x) {
  return Call2(scope, "Polygamma", a, x);
}
Output Betainc(const Scope& scope, Input a, Input b, Input x) {
  return shape_fn_util::FirstOutput(
      OpBuilder(scope, "Betainc").Input(a).Input(b).Input(x).Finalize());
}
Output SpecialUnary(const Scope& scope, const char* op, Input x) {
  return shape_fn_util::FirstOutput(OpBuilder(scope, op).Input(x).Finalize());
}

}  // namespace ops
}  // namespace dflow
