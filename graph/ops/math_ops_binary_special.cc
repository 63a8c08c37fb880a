// Schemas and builder wrappers of the element-wise binary math beyond the
// core set (TensorFlow 2.21's math_ops.cc OpDefs): truncating division and
// remainder (C's / and %), x/y, x*log(y) and x*log1p(y) that are 0 where
// x is 0 (the forms TensorFlow's gradients and losses write), atan2, and
// ApproximateEqual (|x - y| < tolerance; one shape, no broadcasting, as in
// TensorFlow). Kernels: kernels/cpu/cwise_ops_binary_special.cc.
#include "absl/status/status.h"
#include "graph/op_registry.h"
#include "graph/ops/math_ops.h"
#include "graph/ops/shape_fn_util.h"
#include "graph/shape_inference.h"
#include "graph/tensor_shape.h"

namespace dflow {
namespace {

constexpr char kXlogyTypes[] =
    "T: {half, bfloat16, float, double, complex64, complex128}";

// x and y have one shape, which is the output's.
absl::Status SameShapeBinary(InferenceContext* c) {
  TensorShape merged;
  DFLOW_RETURN_IF_ERROR(
      c->MergeShapes(c->input(0), c->input(1), "inputs 'x' and 'y'", &merged));
  c->set_output(0, merged);
  return absl::OkStatus();
}

#define DFLOW_BINARY_SPECIAL_OP(name, types, doc) \
  DFLOW_REGISTER_OP(name)                         \
      .Input("x: T")                              \
      .Input("y: T")                              \
      .Output("z: T")                             \
      .Attr(types)                                \
      .SetShapeFn(shape_fns::BroadcastBinary)     \
      .Doc(doc)

DFLOW_BINARY_SPECIAL_OP(
    "TruncateDiv",
    "T: {bfloat16, half, float, double, uint8, int8, uint16, int16, int32, "
    "uint32, uint64, int64, complex64, complex128}",
    "Returns x / y rounded toward zero (C's integer division), broadcasting.");
DFLOW_BINARY_SPECIAL_OP(
    "TruncateMod", "T: {int32, int64, bfloat16, half, float, double}",
    "Returns the remainder of x / y rounded toward zero (C's %, fmod): the "
    "result has the sign of x.");
// Mod: TensorFlow's older name of TruncateMod (C's % for integers, fmod for
// floats); tf.math.mod writes FloorMod, raw_ops and older graphs Mod.
DFLOW_BINARY_SPECIAL_OP(
    "Mod", "T: {int32, int64, half, bfloat16, float, double}",
    "Returns the remainder of x / y rounded toward zero (C's %, fmod), as "
    "TruncateMod.");
DFLOW_BINARY_SPECIAL_OP("Xdivy", kXlogyTypes,
                        "Returns 0 where x is 0, else x / y, broadcasting.");
DFLOW_BINARY_SPECIAL_OP("Xlogy", kXlogyTypes,
                        "Returns 0 where x is 0, else x * log(y).");
DFLOW_BINARY_SPECIAL_OP("Xlog1py", kXlogyTypes,
                        "Returns 0 where x is 0, else x * log1p(y).");

#undef DFLOW_BINARY_SPECIAL_OP

DFLOW_REGISTER_OP("Atan2")
    .Input("y: T")
    .Input("x: T")
    .Output("z: T")
    .Attr("T: {bfloat16, half, float, double}")
    .SetShapeFn(shape_fns::BroadcastBinary)
    .Doc("Returns the angle of the point (x, y), in [-pi, pi], broadcasting.");

DFLOW_REGISTER_OP("NextAfter")
    .Input("x1: T")
    .Input("x2: T")
    .Output("output: T")
    .Attr("T: {double, float} = DT_FLOAT")
    .SetShapeFn(shape_fns::BroadcastBinary)
    .Doc("The next representable value after x1 toward x2, broadcasting.");

DFLOW_REGISTER_OP("ApproximateEqual")
    .Input("x: T")
    .Input("y: T")
    .Output("z: bool")
    .Attr(
        "T: {float, double, int32, uint8, int16, int8, complex64, int64, "
        "qint8, quint8, qint32, bfloat16, qint16, quint16, uint16, "
        "complex128, half, uint32, uint64}")
    .Attr("tolerance: float = 1e-05")
    .SetIsCommutative()
    .SetShapeFn(SameShapeBinary)
    .Doc("Returns |x - y| < tolerance element-wise; x and y have one shape.");

Output Call(const Scope& scope, const char* op, const Input& x,
            const Input& y) {
  return shape_fn_util::FirstOutput(
      OpBuilder(scope, op).Input(x).Input(y).Finalize());
}

}  // namespace

namespace ops {

Output TruncateDiv(const Scope& scope, Input x, Input y) {
  return Call(scope, "TruncateDiv", x, y);
}
Output TruncateMod(const Scope& scope, Input x, Input y) {
  return Call(scope, "TruncateMod", x, y);
}
Output Mod(const Scope& scope, Input x, Input y) {
  return Call(scope, "Mod", x, y);
}
Output Xdivy(const Scope& scope, Input x, Input y) {
  return Call(scope, "Xdivy", x, y);
}
Output Xlogy(const Scope& scope, Input x, Input y) {
  return Call(scope, "Xlogy", x, y);
}
Output Xlog1py(const Scope& scope, Input x, Input y) {
  return Call(scope, "Xlog1py", x, y);
}
Output Atan2(const Scope& scope, Input y, Input x) {
  return Call(scope, "Atan2", y, x);
}
Output NextAfter(const Scope& scope, Input x1, Input x2) {
  return Call(scope, "NextAfter", x1, x2);
}
Output ApproximateEqual(const Scope& scope, Input x, Input y, float tolerance) {
  return shape_fn_util::FirstOutput(OpBuilder(scope, "ApproximateEqual")
                                        .Input(x)
                                        .Input(y)
                                        .Attr("tolerance", tolerance)
                                        .Finalize());
}

}  // namespace ops
}  // namespace dflow
