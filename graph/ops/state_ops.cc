// Schemas, shape functions and builder wrappers of the variable ops, as in
// TensorFlow's `core/ops/state_ops.cc` and `resource_variable_ops.cc`.
//
// Ops with resource inputs or outputs are marked stateful explicitly, as
// TensorFlow's op builder does implicitly: a read must never be merged with
// another read or folded into a constant.
#include "graph/ops/state_ops.h"

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "graph/op_registry.h"
#include "graph/shape_inference.h"

namespace dflow {
namespace {

// The updated variable keeps its shape, which `value` must match.
absl::Status MergeRefAndValue(InferenceContext* c, absl::string_view hint) {
  absl::StatusOr<TensorShape> merged = c->input(0).Merge(c->input(1));
  if (!merged.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "shapes of 'ref' ", c->input(0).ToString(), " and 'value' ",
        c->input(1).ToString(), " are incompatible", hint));
  }
  c->set_output(0, *merged);
  return absl::OkStatus();
}

absl::Status AssignShape(InferenceContext* c) {
  bool validate_shape = true;
  if (absl::Status s = c->GetAttr("validate_shape", &validate_shape); !s.ok()) {
    return s;
  }
  if (!validate_shape) {
    c->set_output(0, c->input(1));
    return absl::OkStatus();
  }
  return MergeRefAndValue(
      c, "; pass validate_shape=false to give the variable the value's shape");
}

absl::Status AssignUpdateShape(InferenceContext* c) {
  return MergeRefAndValue(c, "");
}

absl::Status VarHandleShape(InferenceContext* c) {
  // Validates the attrs even though the handle itself is a scalar.
  TensorShape shape;
  if (absl::Status s = c->GetAttr("shape", &shape); !s.ok()) return s;
  c->set_output(0, TensorShape());
  // The handle carries its variable's shape to readers and assigners.
  c->set_output_shape_value(0, shape);
  return absl::OkStatus();
}

absl::Status ReadVariableShape(InferenceContext* c) {
  c->set_output(0, c->input_shape_value(0));
  return absl::OkStatus();
}

// Assign*VariableOp: the value must fit the variable's declared shape.
absl::Status AssignVariableShape(InferenceContext* c) {
  const TensorShape& variable = c->input_shape_value(0);
  if (!variable.IsCompatibleWith(c->input(1))) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the value of shape ", c->input(1).ToString(),
        " does not fit the variable of shape ", variable.ToString()));
  }
  return absl::OkStatus();
}

DFLOW_REGISTER_OP("VariableV2")
    .Output("ref: Ref(dtype)")
    .Attr("shape: shape")
    .Attr("dtype: type")
    .Attr("container: string = ''")
    .Attr("shared_name: string = ''")
    .SetIsStateful()
    .SetShapeFn(shape_fns::ShapeFromAttr)
    .Doc("A tensor that keeps its value across steps, used by reference.");

DFLOW_REGISTER_OP("Assign")
    .Input("ref: Ref(T)")
    .Input("value: T")
    .Output("output_ref: Ref(T)")
    .Attr("T: type")
    .Attr("validate_shape: bool = true")
    .Attr("use_locking: bool = true")
    .SetAllowsUninitializedInput()
    .SetShapeFn(AssignShape)
    .Doc("Stores value in the variable ref.");

DFLOW_REGISTER_OP("AssignAdd")
    .Input("ref: Ref(T)")
    .Input("value: T")
    .Output("output_ref: Ref(T)")
    .Attr("T: numbertype")
    .Attr("use_locking: bool = false")
    .SetShapeFn(AssignUpdateShape)
    .Doc("Adds value to the variable ref.");

DFLOW_REGISTER_OP("AssignSub")
    .Input("ref: Ref(T)")
    .Input("value: T")
    .Output("output_ref: Ref(T)")
    .Attr("T: numbertype")
    .Attr("use_locking: bool = false")
    .SetShapeFn(AssignUpdateShape)
    .Doc("Subtracts value from the variable ref.");

DFLOW_REGISTER_OP("VarHandleOp")
    .Attr("container: string = ''")
    .Attr("shared_name: string = ''")
    .Attr("debug_name: string = ''")
    .Attr("dtype: type")
    .Attr("shape: shape")
    .Attr("allowed_devices: list(string) = []")
    .Output("resource: resource")
    .SetIsStateful()
    .SetShapeFn(VarHandleShape)
    .Doc("A handle to a resource variable.");

DFLOW_REGISTER_OP("ReadVariableOp")
    .Input("resource: resource")
    .Output("value: dtype")
    .Attr("dtype: type")
    .SetIsStateful()
    .SetShapeFn(ReadVariableShape)
    .Doc("Reads the value of a resource variable.");

DFLOW_REGISTER_OP("VarIsInitializedOp")
    .Input("resource: resource")
    .Output("is_initialized: bool")
    .SetIsStateful()
    .SetShapeFn(shape_fns::ScalarShape)
    .Doc("Whether a resource variable has been initialized.");

DFLOW_REGISTER_OP("AssignVariableOp")
    .Input("resource: resource")
    .Input("value: dtype")
    .Attr("dtype: type")
    .Attr("validate_shape: bool = false")
    .SetIsStateful()
    .SetShapeFn(AssignVariableShape)
    .Doc("Stores value in a resource variable.");

DFLOW_REGISTER_OP("AssignAddVariableOp")
    .Input("resource: resource")
    .Input("value: dtype")
    .Attr("dtype: type")
    .SetIsStateful()
    .SetShapeFn(AssignVariableShape)
    .Doc("Adds value to a resource variable.");

DFLOW_REGISTER_OP("AssignSubVariableOp")
    .Input("resource: resource")
    .Input("value: dtype")
    .Attr("dtype: type")
    .SetIsStateful()
    .SetShapeFn(AssignVariableShape)
    .Doc("Subtracts value from a resource variable.");

Output FirstOutput(const Operation& op) {
  return op.valid() ? op.output(0) : Output();
}

}  // namespace

namespace ops {

Output Variable(const Scope& scope, const TensorShape& shape, DataType dtype,
                const VariableAttrs& attrs) {
  return FirstOutput(OpBuilder(scope, "VariableV2", "Variable")
                         .Attr("shape", shape)
                         .Attr("dtype", dtype)
                         .Attr("container", attrs.container)
                         .Attr("shared_name", attrs.shared_name)
                         .Finalize());
}

Output Assign(const Scope& scope, Input ref, Input value,
              const AssignAttrs& attrs) {
  return FirstOutput(OpBuilder(scope, "Assign")
                         .Input(ref)
                         .Input(value)
                         .Attr("validate_shape", attrs.validate_shape)
                         .Attr("use_locking", attrs.use_locking)
                         .Finalize());
}

Output AssignAdd(const Scope& scope, Input ref, Input value,
                 const AssignAddAttrs& attrs) {
  return FirstOutput(OpBuilder(scope, "AssignAdd")
                         .Input(ref)
                         .Input(value)
                         .Attr("use_locking", attrs.use_locking)
                         .Finalize());
}

Output AssignSub(const Scope& scope, Input ref, Input value,
                 const AssignSubAttrs& attrs) {
  return FirstOutput(OpBuilder(scope, "AssignSub")
                         .Input(ref)
                         .Input(value)
                         .Attr("use_locking", attrs.use_locking)
                         .Finalize());
}

Output VarHandleOp(const Scope& scope, DataType dtype, const TensorShape& shape,
                   const VarHandleOpAttrs& attrs) {
  return FirstOutput(
      OpBuilder(scope, "VarHandleOp")
          .Attr("container", attrs.container)
          .Attr("shared_name", attrs.shared_name)
          .Attr("debug_name", attrs.debug_name)
          .Attr("dtype", dtype)
          .Attr("shape", shape)
          .Attr("allowed_devices",
                MakeAttr(absl::Span<const std::string>(attrs.allowed_devices)))
          .Finalize());
}

Output ReadVariableOp(const Scope& scope, Input resource, DataType dtype) {
  return FirstOutput(OpBuilder(scope, "ReadVariableOp")
                         .Input(resource)
                         .Attr("dtype", dtype)
                         .Finalize());
}

Operation AssignVariableOp(const Scope& scope, Input resource, Input value,
                           const AssignVariableOpAttrs& attrs) {
  return OpBuilder(scope, "AssignVariableOp")
      .Input(resource)
      .Input(value)
      .Attr("validate_shape", attrs.validate_shape)
      .Finalize();
}

Operation AssignAddVariableOp(const Scope& scope, Input resource, Input value) {
  return OpBuilder(scope, "AssignAddVariableOp")
      .Input(resource)
      .Input(value)
      .Finalize();
}

Operation AssignSubVariableOp(const Scope& scope, Input resource, Input value) {
  return OpBuilder(scope, "AssignSubVariableOp")
      .Input(resource)
      .Input(value)
      .Finalize();
}

}  // namespace ops
}  // namespace dflow
