// Schemas, shape functions and builder wrappers of the variable ops, as in
// TensorFlow's `core/ops/state_ops.cc` and `resource_variable_ops.cc`.
//
// Ops with resource inputs or outputs are marked stateful explicitly, as
// TensorFlow's op builder does implicitly: a read must never be merged with
// another read or folded into a constant.
#include "graph/ops/state_ops.h"

#include <cstdint>
#include <utility>
#include <vector>

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

DFLOW_REGISTER_OP("IsVariableInitialized")
    .Input("ref: Ref(dtype)")
    .Output("is_initialized: bool")
    .Attr("dtype: type")
    .SetAllowsUninitializedInput()
    .SetShapeFn(shape_fns::ScalarShape)
    .Doc("Whether the reference variable has been assigned a value.");

DFLOW_REGISTER_OP("CountUpTo")
    .Input("ref: Ref(T)")
    .Output("output: T")
    .Attr("limit: int")
    .Attr("T: {int32, int64}")
    .SetIsStateful()
    .SetShapeFn(shape_fns::ScalarShape)
    .Doc(
        "Increments the scalar variable until it reaches `limit`; outputs "
        "the value before the increment. At the limit: OutOfRange "
        "(string_input_producer's num_epochs ends its input this way).");

DFLOW_REGISTER_OP("ResourceCountUpTo")
    .Input("resource: resource")
    .Output("output: T")
    .Attr("limit: int")
    .Attr("T: {int32, int64}")
    .SetIsStateful()
    .SetShapeFn(shape_fns::ScalarShape)
    .Doc("CountUpTo on a resource variable.");

DFLOW_REGISTER_OP("VarIsInitializedOp")
    .Input("resource: resource")
    .Output("is_initialized: bool")
    .SetIsStateful()
    .SetShapeFn(shape_fns::ScalarShape)
    .Doc("Whether the resource variable has been assigned a value.");

DFLOW_REGISTER_OP("VariableShape")
    .Input("input: resource")
    .Output("output: out_type")
    .Attr("out_type: {int32, int64} = DT_INT32")
    .SetIsStateful()
    .SetShapeFn([](InferenceContext* c) {
      // One entry per dimension of the value the handle declares.
      const TensorShape& value = c->input_shape_value(0);
      c->set_output(0, TensorShape({value.unknown_rank() ? -1 : value.rank()}));
      return absl::OkStatus();
    })
    .Doc("The shape of the resource variable's value (TensorFlow 2's "
         "gradients of a variable captured in a loop or cond read it).");

// --- Gather and scatter on variables. ---

// The variable's shape: a reference input's own, a resource handle's value.
const TensorShape& VariableShape(const InferenceContext& c, int i) {
  return c.input_type(i) == DT_RESOURCE ? c.input_shape_value(i) : c.input(i);
}

// ResourceGather: indices.shape + params.shape[batch_dims + 1:], with the
// leading batch_dims dimensions shared by both.
absl::Status ResourceGatherShape(InferenceContext* c) {
  int64_t batch_dims = 0;
  if (absl::Status s = c->GetAttr("batch_dims", &batch_dims); !s.ok()) {
    return s;
  }
  const TensorShape& params = VariableShape(*c, 0);
  const TensorShape& indices = c->input(1);
  if (batch_dims < 0) {
    // Counted from the back of indices, as TensorFlow allows.
    if (indices.unknown_rank()) {
      c->set_output(0, TensorShape::Unknown());
      return absl::OkStatus();
    }
    if (batch_dims + indices.rank() < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("batch_dims ", batch_dims,
                       " is out of range for indices ", indices.ToString()));
    }
    batch_dims += indices.rank();
  }
  if (!indices.unknown_rank() && indices.rank() < batch_dims) {
    return absl::InvalidArgumentError(
        absl::StrCat("batch_dims (", batch_dims, ") must be at most the rank ",
                     "of indices ", indices.ToString()));
  }
  if (!params.unknown_rank() && params.rank() < batch_dims + 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the variable of shape ", params.ToString(),
        " has no dimension to gather after batch_dims (", batch_dims, ")"));
  }
  if (params.unknown_rank() || indices.unknown_rank()) {
    c->set_output(0, TensorShape::Unknown());
    return absl::OkStatus();
  }
  std::vector<int64_t> dims;
  for (int i = 0; i < indices.rank(); ++i) {
    int64_t d = indices.dim(i);
    if (i < batch_dims) {
      const int64_t p = params.dim(i);
      if (d >= 0 && p >= 0 && d != p) {
        return absl::InvalidArgumentError(absl::StrCat(
            "batch dimension ", i, " of indices ", indices.ToString(),
            " and of the variable ", params.ToString(), " differ"));
      }
      if (d < 0) d = p;
    }
    dims.push_back(d);
  }
  for (int i = static_cast<int>(batch_dims) + 1; i < params.rank(); ++i) {
    dims.push_back(params.dim(i));
  }
  c->set_output(0, TensorShape(dims));
  return absl::OkStatus();
}

// Scatter*: updates.shape == indices.shape + var.shape[1:] (or a scalar for
// the resource forms, which broadcast it). A reference form returns the
// variable.
absl::Status ScatterShape(InferenceContext* c) {
  const TensorShape& var = VariableShape(*c, 0);
  const TensorShape& indices = c->input(1);
  const TensorShape& updates = c->input(2);
  const bool resource = c->input_type(0) == DT_RESOURCE;
  if (!var.unknown_rank() && var.rank() == 0) {
    return absl::InvalidArgumentError(
        "the variable must have at least one dimension to scatter into");
  }
  if (!(resource && updates.rank() == 0) && !var.unknown_rank() &&
      !indices.unknown_rank() && !updates.unknown_rank()) {
    std::vector<int64_t> want;
    for (int i = 0; i < indices.rank(); ++i) want.push_back(indices.dim(i));
    for (int i = 1; i < var.rank(); ++i) want.push_back(var.dim(i));
    if (!TensorShape(want).IsCompatibleWith(updates)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "updates ", updates.ToString(), " must have shape indices.shape + ",
          "var.shape[1:] = ", TensorShape(want).ToString(), " (indices ",
          indices.ToString(), ", var ", var.ToString(), ")"));
    }
  }
  if (c->num_outputs() > 0) c->set_output(0, c->input(0));
  return absl::OkStatus();
}

DFLOW_REGISTER_OP("ResourceGather")
    .Input("resource: resource")
    .Input("indices: Tindices")
    .Output("output: dtype")
    .Attr("batch_dims: int = 0")
    .Attr("validate_indices: bool = true")
    .Attr("dtype: type")
    .Attr("Tindices: {int32, int64}")
    .SetIsStateful()
    .SetShapeFn(ResourceGatherShape)
    .Doc("Rows of a resource variable: params[indices] along batch_dims.");

// `type` constrains the resource form's dtype, `ref_type` the reference
// form's T (they differ for ScatterMax/Min, as in TensorFlow).
#define DFLOW_SCATTER_OPS(op, type, ref_type, locking, what) \
  DFLOW_REGISTER_OP("Resource" op)                           \
      .Input("resource: resource")                           \
      .Input("indices: Tindices")                            \
      .Input("updates: dtype")                               \
      .Attr("dtype: " type)                                  \
      .Attr("Tindices: {int32, int64}")                      \
      .SetIsStateful()                                       \
      .SetShapeFn(ScatterShape)                              \
      .Doc(what " (resource variable).");                    \
  DFLOW_REGISTER_OP(op)                                      \
      .Input("ref: Ref(T)")                                  \
      .Input("indices: Tindices")                            \
      .Input("updates: T")                                   \
      .Output("output_ref: Ref(T)")                          \
      .Attr("T: " ref_type)                                  \
      .Attr("Tindices: {int32, int64}")                      \
      .Attr("use_locking: bool = " locking)                  \
      .SetShapeFn(ScatterShape)                              \
      .Doc(what " (reference variable).")

DFLOW_SCATTER_OPS("ScatterAdd", "numbertype", "numbertype", "false",
                  "ref[indices[i], ...] += updates[i, ...]");
DFLOW_SCATTER_OPS("ScatterSub", "numbertype", "numbertype", "false",
                  "ref[indices[i], ...] -= updates[i, ...]");
DFLOW_SCATTER_OPS("ScatterUpdate", "type", "type", "true",
                  "ref[indices[i], ...] = updates[i, ...]");
DFLOW_SCATTER_OPS("ScatterMul", "numbertype", "numbertype", "false",
                  "ref[indices[i], ...] *= updates[i, ...]");
DFLOW_SCATTER_OPS("ScatterDiv", "numbertype", "numbertype", "false",
                  "ref[indices[i], ...] /= updates[i, ...]");
DFLOW_SCATTER_OPS("ScatterMax", "numbertype",
                  "{half, bfloat16, float, double, int32, int64}", "false",
                  "ref[indices[i], ...] = max(ref[...], updates[i, ...])");
DFLOW_SCATTER_OPS("ScatterMin", "numbertype",
                  "{half, bfloat16, float, double, int32, int64}", "false",
                  "ref[indices[i], ...] = min(ref[...], updates[i, ...])");
#undef DFLOW_SCATTER_OPS

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

Output IsVariableInitialized(const Scope& scope, Input ref) {
  return FirstOutput(
      OpBuilder(scope, "IsVariableInitialized").Input(ref).Finalize());
}

Output CountUpTo(const Scope& scope, Input ref, int64_t limit) {
  return FirstOutput(
      OpBuilder(scope, "CountUpTo").Input(ref).Attr("limit", limit).Finalize());
}

Output ResourceCountUpTo(const Scope& scope, Input resource, int64_t limit,
                         DataType dtype) {
  return FirstOutput(OpBuilder(scope, "ResourceCountUpTo")
                         .Input(resource)
                         .Attr("limit", limit)
                         .Attr("T", dtype)
                         .Finalize());
}

Output VarIsInitializedOp(const Scope& scope, Input resource) {
  return FirstOutput(
      OpBuilder(scope, "VarIsInitializedOp").Input(resource).Finalize());
}

Output VariableShape(const Scope& scope, Input resource) {
  return FirstOutput(
      OpBuilder(scope, "VariableShape").Input(resource).Finalize());
}

Output ResourceGather(const Scope& scope, Input resource, Input indices,
                      DataType dtype, const ResourceGatherAttrs& attrs) {
  return FirstOutput(OpBuilder(scope, "ResourceGather")
                         .Input(resource)
                         .Input(indices)
                         .Attr("dtype", dtype)
                         .Attr("batch_dims", attrs.batch_dims)
                         .Attr("validate_indices", attrs.validate_indices)
                         .Finalize());
}

Operation ResourceScatterAdd(const Scope& scope, Input resource, Input indices,
                             Input updates) {
  return OpBuilder(scope, "ResourceScatterAdd")
      .Input(resource)
      .Input(indices)
      .Input(updates)
      .Finalize();
}

Operation ResourceScatterSub(const Scope& scope, Input resource, Input indices,
                             Input updates) {
  return OpBuilder(scope, "ResourceScatterSub")
      .Input(resource)
      .Input(indices)
      .Input(updates)
      .Finalize();
}

Operation ResourceScatterUpdate(const Scope& scope, Input resource,
                                Input indices, Input updates) {
  return OpBuilder(scope, "ResourceScatterUpdate")
      .Input(resource)
      .Input(indices)
      .Input(updates)
      .Finalize();
}

Output ScatterAdd(const Scope& scope, Input ref, Input indices, Input updates,
                  const ScatterAttrs& attrs) {
  return FirstOutput(OpBuilder(scope, "ScatterAdd")
                         .Input(ref)
                         .Input(indices)
                         .Input(updates)
                         .Attr("use_locking", attrs.use_locking.value_or(false))
                         .Finalize());
}

Output ScatterSub(const Scope& scope, Input ref, Input indices, Input updates,
                  const ScatterAttrs& attrs) {
  return FirstOutput(OpBuilder(scope, "ScatterSub")
                         .Input(ref)
                         .Input(indices)
                         .Input(updates)
                         .Attr("use_locking", attrs.use_locking.value_or(false))
                         .Finalize());
}

Output ScatterUpdate(const Scope& scope, Input ref, Input indices,
                     Input updates, const ScatterAttrs& attrs) {
  return FirstOutput(OpBuilder(scope, "ScatterUpdate")
                         .Input(ref)
                         .Input(indices)
                         .Input(updates)
                         .Attr("use_locking", attrs.use_locking.value_or(true))
                         .Finalize());
}

namespace {

Operation ResourceScatter(const Scope& scope, const char* op, Input resource,
                          Input indices, Input updates) {
  return OpBuilder(scope, op)
      .Input(resource)
      .Input(indices)
      .Input(updates)
      .Finalize();
}

Output RefScatter(const Scope& scope, const char* op, Input ref, Input indices,
                  Input updates, const ScatterAttrs& attrs) {
  return FirstOutput(OpBuilder(scope, op)
                         .Input(ref)
                         .Input(indices)
                         .Input(updates)
                         .Attr("use_locking", attrs.use_locking.value_or(false))
                         .Finalize());
}

}  // namespace

Operation ResourceScatterMul(const Scope& scope, Input resource, Input indices,
                             Input updates) {
  return ResourceScatter(scope, "ResourceScatterMul", resource, indices,
                         updates);
}
Operation ResourceScatterDiv(const Scope& scope, Input resource, Input indices,
                             Input updates) {
  return ResourceScatter(scope, "ResourceScatterDiv", resource, indices,
                         updates);
}
Operation ResourceScatterMax(const Scope& scope, Input resource, Input indices,
                             Input updates) {
  return ResourceScatter(scope, "ResourceScatterMax", resource, indices,
                         updates);
}
Operation ResourceScatterMin(const Scope& scope, Input resource, Input indices,
                             Input updates) {
  return ResourceScatter(scope, "ResourceScatterMin", resource, indices,
                         updates);
}
Output ScatterMul(const Scope& scope, Input ref, Input indices, Input updates,
                  const ScatterAttrs& attrs) {
  return RefScatter(scope, "ScatterMul", ref, indices, updates, attrs);
}
Output ScatterDiv(const Scope& scope, Input ref, Input indices, Input updates,
                  const ScatterAttrs& attrs) {
  return RefScatter(scope, "ScatterDiv", ref, indices, updates, attrs);
}
Output ScatterMax(const Scope& scope, Input ref, Input indices, Input updates,
                  const ScatterAttrs& attrs) {
  return RefScatter(scope, "ScatterMax", ref, indices, updates, attrs);
}
Output ScatterMin(const Scope& scope, Input ref, Input indices, Input updates,
                  const ScatterAttrs& attrs) {
  return RefScatter(scope, "ScatterMin", ref, indices, updates, attrs);
}

}  // namespace ops
}  // namespace dflow
