// Schemas and builder wrappers of the complex-number ops TensorFlow 2.21
// graphs carry (tf.complex, tf.math.real/imag/angle/conj, tf.abs of a
// complex tensor): Complex builds complex64/complex128 from two real
// tensors (broadcasting), Real/Imag/Angle/ComplexAbs take one apart into
// float/double, Conj flips the sign of the imaginary part. The type lists
// are TensorFlow's (tests/graph/tf_op_defs_test compares them); Conj of a
// variant is declared but has no kernel in dflow. Kernels:
// kernels/cpu/cwise_ops_complex.cc.
#include "absl/strings/str_cat.h"
#include "graph/op_registry.h"
#include "graph/ops/math_ops.h"
#include "graph/ops/shape_fn_util.h"
#include "graph/shape_inference.h"

namespace dflow {
namespace {

DFLOW_REGISTER_OP("Complex")
    .Input("real: T")
    .Input("imag: T")
    .Output("out: Tout")
    .Attr("T: {float, double} = float")
    .Attr("Tout: {complex64, complex128} = complex64")
    .SetShapeFn(shape_fns::BroadcastBinary)
    .Doc("Returns real + i * imag element-wise, broadcasting.");

#define DFLOW_COMPLEX_PART_OP(name, doc)                    \
  DFLOW_REGISTER_OP(name)                                   \
      .Input("input: T")                                    \
      .Output("output: Tout")                               \
      .Attr("T: {complex64, complex128} = complex64")       \
      .Attr("Tout: {float, double} = float")                \
      .SetShapeFn(shape_fns::UnchangedShape)                \
      .Doc(doc)

DFLOW_COMPLEX_PART_OP("Real", "Returns the real part of each element.");
DFLOW_COMPLEX_PART_OP("Imag", "Returns the imaginary part of each element.");
DFLOW_COMPLEX_PART_OP("Angle",
                      "Returns the argument atan2(imag, real) of each "
                      "element, in [-pi, pi].");

#undef DFLOW_COMPLEX_PART_OP

DFLOW_REGISTER_OP("ComplexAbs")
    .Input("x: T")
    .Output("y: Tout")
    .Attr("T: {complex64, complex128} = complex64")
    .Attr("Tout: {float, double} = float")
    .SetShapeFn(shape_fns::UnchangedShape)
    .Doc("Returns |x| = sqrt(real^2 + imag^2) element-wise (without "
         "overflow for large parts).");

DFLOW_REGISTER_OP("Conj")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: {complex64, complex128, variant} = complex64")
    .SetShapeFn(shape_fns::UnchangedShape)
    .Doc("Returns the complex conjugate of each element.");

DataType DtypeOf(const Input& x) {
  return x.is_const() ? x.tensor().dtype() : x.output().dtype();
}

// The real type of a complex one and back; DT_INVALID for the rest (the
// op's type check then names the problem).
DataType RealPartType(DataType complex) {
  switch (BaseType(complex)) {
    case DT_COMPLEX64:
      return DT_FLOAT;
    case DT_COMPLEX128:
      return DT_DOUBLE;
    default:
      return DT_INVALID;
  }
}

Output PartOf(const Scope& scope, const char* op, const Input& x) {
  OpBuilder b(scope, op);
  b.Input(x);
  // Tout follows T (complex128 -> double); left at its default otherwise,
  // so a wrong input dtype is reported by the T check.
  if (RealPartType(DtypeOf(x)) == DT_DOUBLE) b.Attr("Tout", DT_DOUBLE);
  return shape_fn_util::FirstOutput(b.Finalize());
}

}  // namespace

namespace ops {

Output Complex(const Scope& scope, Input real, Input imag) {
  OpBuilder b(scope, "Complex");
  b.Input(real).Input(imag);
  if (BaseType(DtypeOf(real)) == DT_DOUBLE) b.Attr("Tout", DT_COMPLEX128);
  return shape_fn_util::FirstOutput(b.Finalize());
}

Output Real(const Scope& scope, Input x) { return PartOf(scope, "Real", x); }
Output Imag(const Scope& scope, Input x) { return PartOf(scope, "Imag", x); }
Output Angle(const Scope& scope, Input x) { return PartOf(scope, "Angle", x); }
Output ComplexAbs(const Scope& scope, Input x) {
  return PartOf(scope, "ComplexAbs", x);
}
Output Conj(const Scope& scope, Input x) {
  return shape_fn_util::FirstOutput(OpBuilder(scope, "Conj").Input(x).Finalize());
}

}  // namespace ops
}  // namespace dflow
