// Schemas and shape functions of the floor-division, comparison, logical and
// selection ops (TensorFlow 2.21's math_ops.cc OpDefs): Floor, FloorDiv,
// FloorMod, DivNoNan, GreaterEqual, LessEqual, NotEqual, LogicalNot,
// LogicalAnd, LogicalOr, Select and SelectV2. Their wrappers are in
// math_ops.cc with the other element-wise wrappers.
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "graph/op_registry.h"
#include "graph/ops/math_ops.h"
#include "graph/shape_inference.h"
#include "graph/tensor_shape.h"

namespace dflow {
namespace {

absl::Status NotEqualShape(InferenceContext* c) {
  bool incompatible_shape_error = true;
  if (absl::Status s =
          c->GetAttr("incompatible_shape_error", &incompatible_shape_error);
      !s.ok()) {
    return s;
  }
  TensorShape out;
  absl::Status s = c->BroadcastShapes(c->input(0), c->input(1), &out);
  if (!s.ok()) {
    if (incompatible_shape_error) return s;
    out = TensorShape();  // The kernel answers a scalar `true`.
  }
  c->set_output(0, out);
  return absl::OkStatus();
}

// Legacy Select: t and e have one shape; the condition has it too, or is a
// scalar, or is a vector matching t's first dimension.
absl::Status SelectShape(InferenceContext* c) {
  TensorShape out;
  if (absl::Status s =
          c->MergeShapes(c->input(1), c->input(2), "inputs 't' and 'e'", &out);
      !s.ok()) {
    return s;
  }
  const TensorShape& cond = c->input(0);
  if (cond.rank() > 0 && out.rank() >= 0) {
    if (cond.rank() == 1 && out.rank() >= 1) {
      int64_t d0 = 0;
      if (absl::Status s = c->MergeDim(
              cond.dim(0), out.dim(0),
              "the vector 'condition' and the first dimension of 't'", &d0);
          !s.ok()) {
        return s;
      }
      if (out.rank() > 1 || cond.dim(0) < 0) {
        c->set_output(0, out);
        return absl::OkStatus();
      }
    }
    TensorShape merged;
    if (absl::Status s =
            c->MergeShapes(cond, out, "'condition' and 't'", &merged);
        !s.ok()) {
      return s;
    }
    out = merged;
  }
  c->set_output(0, out);
  return absl::OkStatus();
}

// SelectV2: the broadcast of all three inputs.
absl::Status SelectV2Shape(InferenceContext* c) {
  TensorShape te, out;
  if (absl::Status s = c->BroadcastShapes(c->input(1), c->input(2), &te);
      !s.ok()) {
    return s;
  }
  if (absl::Status s = c->BroadcastShapes(c->input(0), te, &out); !s.ok()) {
    return s;
  }
  c->set_output(0, out);
  return absl::OkStatus();
}

DFLOW_REGISTER_OP("Floor")
    .Input("x: T")
    .Output("y: T")
    .Attr("T: {bfloat16, half, float, double}")
    .SetShapeFn(shape_fns::UnchangedShape)
    .Doc("Returns the largest integer not greater than x, element-wise.");

DFLOW_REGISTER_OP("FloorDiv")
    .Input("x: T")
    .Input("y: T")
    .Output("z: T")
    .Attr(
        "T: {bfloat16, half, float, double, uint8, int8, uint16, int16, "
        "int32, uint32, uint64, int64, complex64, complex128}")
    .SetShapeFn(shape_fns::BroadcastBinary)
    .Doc("Returns floor(x / y) element-wise (Python's //), broadcasting.");

DFLOW_REGISTER_OP("FloorMod")
    .Input("x: T")
    .Input("y: T")
    .Output("z: T")
    .Attr(
        "T: {int8, int16, int32, int64, uint8, uint16, uint32, uint64, "
        "bfloat16, half, float, double}")
    .SetShapeFn(shape_fns::BroadcastBinary)
    .Doc(
        "Returns x - floor(x / y) * y element-wise (Python's %): the result "
        "has the sign of y.");

DFLOW_REGISTER_OP("DivNoNan")
    .Input("x: T")
    .Input("y: T")
    .Output("z: T")
    .Attr("T: {half, float, bfloat16, double, complex64, complex128}")
    .SetShapeFn(shape_fns::BroadcastBinary)
    .Doc("Returns 0 where y is 0, else x / y, element-wise, broadcasting.");

DFLOW_REGISTER_OP("MulNoNan")
    .Input("x: T")
    .Input("y: T")
    .Output("z: T")
    .Attr("T: {bfloat16, half, float, double, complex64, complex128}")
    .SetShapeFn(shape_fns::BroadcastBinary)
    .Doc("Returns 0 where y is 0 (even if x is inf or nan), else x * y, "
         "element-wise, broadcasting.");

constexpr char kCompareTypes[] =
    "T: {float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, "
    "half, uint32, uint64}";

DFLOW_REGISTER_OP("GreaterEqual")
    .Input("x: T")
    .Input("y: T")
    .Output("z: bool")
    .Attr(kCompareTypes)
    .SetShapeFn(shape_fns::BroadcastBinary)
    .Doc("Returns x >= y element-wise, with broadcasting.");

DFLOW_REGISTER_OP("LessEqual")
    .Input("x: T")
    .Input("y: T")
    .Output("z: bool")
    .Attr(kCompareTypes)
    .SetShapeFn(shape_fns::BroadcastBinary)
    .Doc("Returns x <= y element-wise, with broadcasting.");

DFLOW_REGISTER_OP("NotEqual")
    .Input("x: T")
    .Input("y: T")
    .Output("z: bool")
    .Attr("T: type")
    .Attr("incompatible_shape_error: bool = true")
    .SetIsCommutative()
    .SetShapeFn(NotEqualShape)
    .Doc("Returns x != y element-wise, with broadcasting.");

DFLOW_REGISTER_OP("LogicalNot")
    .Input("x: bool")
    .Output("y: bool")
    .SetShapeFn(shape_fns::UnchangedShape)
    .Doc("Returns !x element-wise.");

DFLOW_REGISTER_OP("LogicalAnd")
    .Input("x: bool")
    .Input("y: bool")
    .Output("z: bool")
    .SetIsCommutative()
    .SetShapeFn(shape_fns::BroadcastBinary)
    .Doc("Returns x && y element-wise, with broadcasting.");

DFLOW_REGISTER_OP("LogicalOr")
    .Input("x: bool")
    .Input("y: bool")
    .Output("z: bool")
    .SetIsCommutative()
    .SetShapeFn(shape_fns::BroadcastBinary)
    .Doc("Returns x || y element-wise, with broadcasting.");

DFLOW_REGISTER_OP("Select")
    .Input("condition: bool")
    .Input("t: T")
    .Input("e: T")
    .Output("output: T")
    .Attr("T: type")
    .SetShapeFn(SelectShape)
    .Doc(
        "Picks t where condition is true, else e. condition has t's shape, "
        "or is a scalar, or a vector that picks whole rows of t.");

DFLOW_REGISTER_OP("SelectV2")
    .Input("condition: bool")
    .Input("t: T")
    .Input("e: T")
    .Output("output: T")
    .Attr("T: type")
    .SetShapeFn(SelectV2Shape)
    .Doc("Picks t where condition is true, else e, broadcasting all three.");

}  // namespace
}  // namespace dflow
