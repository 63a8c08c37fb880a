// Schemas and builder wrappers of tf.bitwise (TensorFlow 2.21's
// bitwise_ops.cc OpDefs): and, or, xor and left/right shifts of integers
// with broadcasting, Invert (~x) and PopulationCount (the set bits of
// each element, as uint8). Kernels:
// kernels/cpu/cwise_ops_bitwise.cc.
#include "graph/op_registry.h"
#include "graph/ops/math_ops.h"
#include "graph/ops/shape_fn_util.h"
#include "graph/shape_inference.h"

namespace dflow {
namespace {

constexpr char kIntegerTypes[] =
    "T: {int8, int16, int32, int64, uint8, uint16, uint32, uint64}";

// The shifts are not commutative; and, or and xor are.
#define DFLOW_BITWISE_OP(name, doc)           \
  DFLOW_REGISTER_OP(name)                     \
      .Input("x: T")                          \
      .Input("y: T")                          \
      .Output("z: T")                         \
      .Attr(kIntegerTypes)                    \
      .SetShapeFn(shape_fns::BroadcastBinary) \
      .Doc(doc)

DFLOW_BITWISE_OP("BitwiseAnd", "Returns x & y, broadcasting.")
    .SetIsCommutative();
DFLOW_BITWISE_OP("BitwiseOr", "Returns x | y, broadcasting.")
    .SetIsCommutative();
DFLOW_BITWISE_OP("BitwiseXor", "Returns x ^ y, broadcasting.")
    .SetIsCommutative();
DFLOW_BITWISE_OP(
    "LeftShift",
    "Returns x << y (y clamped to [0, bits - 1]; signed results wrap).");
DFLOW_BITWISE_OP(
    "RightShift",
    "Returns x >> y (y clamped to [0, bits - 1]; arithmetic for signed x).");

#undef DFLOW_BITWISE_OP

DFLOW_REGISTER_OP("Invert")
    .Input("x: T")
    .Output("y: T")
    .Attr(kIntegerTypes)
    .SetShapeFn(shape_fns::UnchangedShape)
    .Doc("Returns ~x, every bit flipped.");

DFLOW_REGISTER_OP("PopulationCount")
    .Input("x: T")
    .Output("y: uint8")
    .Attr(kIntegerTypes)
    .SetShapeFn(shape_fns::UnchangedShape)
    .Doc("Returns the number of bits set in each element of x (uint8).");

Output Call(const Scope& scope, const char* op, const Input& x,
            const Input& y) {
  return shape_fn_util::FirstOutput(
      OpBuilder(scope, op).Input(x).Input(y).Finalize());
}

}  // namespace

namespace ops {

Output BitwiseAnd(const Scope& scope, Input x, Input y) {
  return Call(scope, "BitwiseAnd", x, y);
}
Output BitwiseOr(const Scope& scope, Input x, Input y) {
  return Call(scope, "BitwiseOr", x, y);
}
Output BitwiseXor(const Scope& scope, Input x, Input y) {
  return Call(scope, "BitwiseXor", x, y);
}
Output LeftShift(const Scope& scope, Input x, Input y) {
  return Call(scope, "LeftShift", x, y);
}
Output RightShift(const Scope& scope, Input x, Input y) {
  return Call(scope, "RightShift", x, y);
}
Output Invert(const Scope& scope, Input x) {
  return shape_fn_util::FirstOutput(
      OpBuilder(scope, "Invert").Input(x).Finalize());
}
Output PopulationCount(const Scope& scope, Input x) {
  return shape_fn_util::FirstOutput(
      OpBuilder(scope, "PopulationCount").Input(x).Finalize());
}

}  // namespace ops
}  // namespace dflow
