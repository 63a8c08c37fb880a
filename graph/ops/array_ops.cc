#include "graph/ops/array_ops.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "graph/attr_value_util.h"
#include "graph/op_registry.h"
#include "graph/ops/shape_fn_util.h"
#include "graph/shape_inference.h"

namespace dflow {
namespace {

using shape_fn_util::AllOutputs;
using shape_fn_util::CheckRank;
using shape_fn_util::FirstOutput;
using shape_fn_util::InputAsPartialShape;
using shape_fn_util::Ints;
using shape_fn_util::InvalidArgument;
using shape_fn_util::RankKnown;

// The scalar value of input `i` when it is known at build time.
bool ScalarInput(InferenceContext* c, int i, double* as_double, int64_t* as_int,
                 bool* is_integer) {
  const Tensor* t = c->input_tensor(i);
  if (t == nullptr || t->NumElements() != 1 || !t->IsInitialized()) {
    return false;
  }
  bool ok = false;
  VisitStorageType(t->dtype(), [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    if constexpr (std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>) {
      *as_double = t->data<T>()[0].ToFloat();
      *is_integer = false;
      ok = true;
    } else if constexpr (std::is_floating_point_v<T>) {
      *as_double = static_cast<double>(t->data<T>()[0]);
      *is_integer = false;
      ok = true;
    } else if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool> &&
                         sizeof(T) <= 4) {
      *as_int = static_cast<int64_t>(t->data<T>()[0]);
      *is_integer = true;
      ok = true;
    } else if constexpr (std::is_same_v<T, int64_t>) {
      *as_int = t->data<T>()[0];
      *is_integer = true;
      ok = true;
    }
  });
  if (ok && *is_integer) *as_double = static_cast<double>(*as_int);
  return ok;
}

// --- Constants, placeholders and identities. ---

absl::Status ConstShape(InferenceContext* c) {
  const AttrValue* value = FindAttr(c->node(), &c->op_def(), "value");
  if (value == nullptr || value->value_case() != AttrValue::kTensor) {
    return InvalidArgument("attr 'value' must hold a tensor");
  }
  DataType dtype;
  DFLOW_RETURN_IF_ERROR(c->GetAttr("dtype", &dtype));
  const TensorProto& proto = value->tensor();
  if (proto.dtype() != dtype) {
    return InvalidArgument("attr 'value' holds a ", DataTypeName(proto.dtype()),
                           " tensor but attr 'dtype' is ", DataTypeName(dtype),
                           "; they must agree");
  }
  absl::StatusOr<TensorShape> shape =
      TensorShape::FromProto(proto.tensor_shape());
  if (!shape.ok()) return shape.status();
  if (!shape->IsFullyDefined() || shape->num_elements() < 0) {
    return InvalidArgument("attr 'value' has shape ", shape->ToString(),
                           ", which is not fully defined or too large");
  }
  const int64_t elem_size = DataTypeSize(dtype);
  int64_t bytes = 0;
  if (!proto.tensor_content().empty() && elem_size > 0 &&
      (__builtin_mul_overflow(shape->num_elements(), elem_size, &bytes) ||
       static_cast<int64_t>(proto.tensor_content().size()) != bytes)) {
    return InvalidArgument(
        "attr 'value' of shape ", shape->ToString(), " holds ",
        proto.tensor_content().size(), " bytes of tensor_content; expected ",
        shape->num_elements(), " elements of ", elem_size, " bytes");
  }
  c->set_output(0, *std::move(shape));
  return absl::OkStatus();
}

absl::Status PlaceholderWithDefaultShape(InferenceContext* c) {
  TensorShape shape;
  DFLOW_RETURN_IF_ERROR(c->GetAttr("shape", &shape));
  if (!c->input(0).IsCompatibleWith(shape)) {
    return InvalidArgument(
        "the default input has shape ", c->input(0).ToString(),
        ", which is not compatible with attr 'shape' ", shape.ToString());
  }
  c->set_output(0, shape);
  return absl::OkStatus();
}

// Identity & co: same shape, and the same known shape value.
absl::Status IdentityShape(InferenceContext* c) {
  c->set_output(0, c->input(0));
  if (c->input_type(0) == DT_RESOURCE) {
    // A handle keeps telling which shape of variable it refers to.
    c->set_output_shape_value(0, c->input_shape_value(0));
    return absl::OkStatus();
  }
  TensorShape value;
  if (InputAsPartialShape(c, 0, &value, /*allow_scalar=*/true)) {
    c->set_output_shape_value(0, value);
  }
  return absl::OkStatus();
}

absl::Status NoOutputs(InferenceContext*) { return absl::OkStatus(); }

// --- Creating tensors. ---

absl::Status FillShape(InferenceContext* c) {
  TensorShape unused;
  DFLOW_RETURN_IF_ERROR(c->WithRank(c->input(0), 1, "input 'dims'", &unused));
  DFLOW_RETURN_IF_ERROR(CheckRank(unused.dim(0), "input 'dims'"));
  DFLOW_RETURN_IF_ERROR(c->WithRank(c->input(1), 0, "input 'value'", &unused));
  std::vector<int64_t> dims;
  if (c->ConstantInputAsInts(0, &dims) &&
      std::any_of(dims.begin(), dims.end(), [](int64_t d) { return d < 0; })) {
    return InvalidArgument("Fill dimensions must be >= 0, got ", Ints(dims));
  }
  TensorShape out;
  DFLOW_RETURN_IF_ERROR(c->ShapeFromShapeTensor(0, &out));
  c->set_output(0, out);
  return absl::OkStatus();
}

absl::Status RangeShape(InferenceContext* c) {
  TensorShape unused;
  const char* names[] = {"start", "limit", "delta"};
  double v[3] = {0, 0, 0};
  int64_t iv[3] = {0, 0, 0};
  bool known = true, is_int = true;
  for (int i = 0; i < 3; ++i) {
    DFLOW_RETURN_IF_ERROR(c->WithRank(
        c->input(i), 0, absl::StrCat("input '", names[i], "'"), &unused));
    bool int_i = false;
    known = known && ScalarInput(c, i, &v[i], &iv[i], &int_i);
    is_int = is_int && int_i;
  }
  if (!known) {
    c->set_output(0, TensorShape({-1}));
    return absl::OkStatus();
  }
  const std::string values =
      absl::StrCat("start = ", v[0], ", limit = ", v[1], ", delta = ", v[2]);
  if (v[2] == 0)
    return InvalidArgument("Range requires delta != 0 (", values, ")");
  if (v[2] > 0 ? v[0] > v[1] : v[0] < v[1]) {
    return InvalidArgument("Range requires start ",
                           v[2] > 0 ? "<=" : ">=", " limit when delta is ",
                           v[2] > 0 ? "positive" : "negative", " (", values,
                           ")");
  }
  int64_t size;
  if (is_int) {
    const __int128 span = static_cast<__int128>(iv[1]) - iv[0];
    const __int128 step = iv[2];
    const __int128 abs_span = span < 0 ? -span : span;
    const __int128 abs_step = step < 0 ? -step : step;
    const __int128 n = (abs_span + abs_step - 1) / abs_step;
    if (n > std::numeric_limits<int64_t>::max()) {
      return InvalidArgument("Range would have too many elements (", values,
                             ")");
    }
    size = static_cast<int64_t>(n);
  } else {
    const double n = std::ceil(std::abs((v[1] - v[0]) / v[2]));
    if (!std::isfinite(n) || n > 9.0e18) {
      return InvalidArgument("Range would have too many elements (", values,
                             ")");
    }
    size = static_cast<int64_t>(n);
  }
  c->set_output(0, TensorShape({size}));
  return absl::OkStatus();
}

absl::Status OneHotShape(InferenceContext* c) {
  int64_t axis;
  DFLOW_RETURN_IF_ERROR(c->GetAttr("axis", &axis));
  if (axis < -1)
    return InvalidArgument("attr 'axis' must be >= -1, got ", axis);
  TensorShape unused;
  DFLOW_RETURN_IF_ERROR(c->WithRank(c->input(1), 0, "input 'depth'", &unused));
  DFLOW_RETURN_IF_ERROR(
      c->WithRank(c->input(2), 0, "input 'on_value'", &unused));
  DFLOW_RETURN_IF_ERROR(
      c->WithRank(c->input(3), 0, "input 'off_value'", &unused));
  std::vector<int64_t> depth_value;
  int64_t depth = -1;
  if (c->ConstantInputAsInts(1, &depth_value) && depth_value.size() == 1) {
    depth = depth_value[0];
    if (depth < 0) return InvalidArgument("depth must be >= 0, got ", depth);
  }
  const TensorShape& indices = c->input(0);
  if (!RankKnown(indices)) {
    c->set_output(0, TensorShape::Unknown());
    return absl::OkStatus();
  }
  if (axis > indices.rank()) {
    return InvalidArgument(
        "axis ", axis, " is out of range for indices of shape ",
        indices.ToString(), ": it must be in [-1, ", indices.rank(), "]");
  }
  TensorShape out = indices;
  out.InsertDim(axis == -1 ? indices.rank() : static_cast<int>(axis), depth);
  c->set_output(0, out);
  return absl::OkStatus();
}

absl::Status PassThrough(InferenceContext* c) { return c->PassThrough(); }

}  // namespace

// --- Registrations (TensorFlow's schemas). ---

DFLOW_REGISTER_OP("Const")
    .Output("output: dtype")
    .Attr("value: tensor")
    .Attr("dtype: type")
    .SetShapeFn(ConstShape)
    .Doc("A constant tensor.");

DFLOW_REGISTER_OP("Placeholder")
    .Output("output: dtype")
    .Attr("dtype: type")
    .Attr("shape: shape = { unknown_rank: true }")
    .SetShapeFn(shape_fns::ShapeFromAttr)
    .Doc("A value that must be fed.");

DFLOW_REGISTER_OP("PlaceholderWithDefault")
    .Input("input: dtype")
    .Output("output: dtype")
    .Attr("dtype: type")
    .Attr("shape: shape")
    .SetShapeFn(PlaceholderWithDefaultShape)
    .Doc("Passes its input through unless the output is fed.");

DFLOW_REGISTER_OP("Identity")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: type")
    .SetShapeFn(IdentityShape)
    .Doc("Returns its input.");

DFLOW_REGISTER_OP("IdentityN")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: list(type) >= 1")
    .SetShapeFn(PassThrough)
    .Doc("Returns its inputs.");

DFLOW_REGISTER_OP("NoOp").SetShapeFn(NoOutputs).Doc("Does nothing.");

DFLOW_REGISTER_OP("PreventGradient")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: type")
    .Attr("message: string = ''")
    .SetShapeFn(shape_fns::UnchangedShape)
    .Doc("Identity whose gradient is an error carrying `message`.");

DFLOW_REGISTER_OP("StopGradient")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: type")
    .SetShapeFn(IdentityShape)
    .Doc("Returns its input; gradients do not flow through it.");

DFLOW_REGISTER_OP("Fill")
    .Input("dims: index_type")
    .Input("value: T")
    .Output("output: T")
    .Attr("T: type")
    .Attr("index_type: {int32, int64} = DT_INT32")
    .SetShapeFn(FillShape)
    .Doc("A tensor of shape `dims` filled with `value`.");

DFLOW_REGISTER_OP("ZerosLike")
    .Input("x: T")
    .Output("y: T")
    .Attr("T: type")
    .SetShapeFn(shape_fns::UnchangedShape)
    .Doc("Zeros of the shape and type of `x`.");

DFLOW_REGISTER_OP("OnesLike")
    .Input("x: T")
    .Output("y: T")
    .Attr(
        "T: {bfloat16, half, float, double, int8, uint8, int16, uint16, "
        "int32, uint32, int64, uint64, complex64, complex128, bool}")
    .SetShapeFn(shape_fns::UnchangedShape)
    .Doc("Ones of the shape and type of `x`.");

DFLOW_REGISTER_OP("Range")
    .Input("start: Tidx")
    .Input("limit: Tidx")
    .Input("delta: Tidx")
    .Output("output: Tidx")
    .Attr(
        "Tidx: {bfloat16, half, float, double, int8, int16, int32, int64, "
        "uint16, uint32, uint64} = DT_INT32")
    .SetShapeFn(RangeShape)
    .Doc("[start, limit) in steps of delta.");

DFLOW_REGISTER_OP("OneHot")
    .Input("indices: TI")
    .Input("depth: int32")
    .Input("on_value: T")
    .Input("off_value: T")
    .Attr("axis: int = -1")
    .Output("output: T")
    .Attr("T: type")
    .Attr("TI: {uint8, int8, int32, int64} = DT_INT64")
    .SetShapeFn(OneHotShape)
    .Doc("One-hot encoding of `indices` along a new dimension `axis`.");

// --- Wrappers. ---

namespace {

template <typename T>
Output ConstFromValues(const Scope& scope, std::initializer_list<T> values,
                       const TensorShape& shape) {
  absl::StatusOr<Tensor> t =
      Tensor::FromVectorChecked(std::vector<T>(values), shape);
  if (!t.ok()) {
    scope.UpdateStatus(absl::InvalidArgumentError(
        absl::StrCat("ops::Const: ", t.status().message())));
    return Output();
  }
  return ops::Const(scope, *t);
}

template <typename T>
TensorShape VectorShape(std::initializer_list<T> values) {
  return TensorShape({static_cast<int64_t>(values.size())});
}

}  // namespace

namespace ops {

Output Const(const Scope& scope, const Tensor& value) {
  if (value.dtype() == DT_INVALID) {
    scope.UpdateStatus(absl::InvalidArgumentError(
        "ops::Const: the tensor is uninitialized (DT_INVALID); build it with "
        "a dtype and shape first"));
    return Output();
  }
  return FirstOutput(OpBuilder(scope, "Const")
                         .Attr("value", value)
                         .Attr("dtype", value.dtype())
                         .Finalize());
}
Output Const(const Scope& scope, float value) {
  return Const(scope, Tensor::Scalar<float>(value));
}
Output Const(const Scope& scope, double value) {
  return Const(scope, Tensor::Scalar<double>(value));
}
Output Const(const Scope& scope, int value) {
  return Const(scope, Tensor::Scalar<int32_t>(value));
}
Output Const(const Scope& scope, int64_t value) {
  return Const(scope, Tensor::Scalar<int64_t>(value));
}
Output Const(const Scope& scope, bool value) {
  return Const(scope, Tensor::Scalar<bool>(value));
}
Output Const(const Scope& scope, absl::string_view value) {
  return Const(scope, Tensor::Scalar<std::string>(std::string(value)));
}
Output Const(const Scope& scope, const char* value) {
  return Const(scope, absl::string_view(value));
}
Output Const(const Scope& scope, std::initializer_list<float> values) {
  return ConstFromValues(scope, values, VectorShape(values));
}
Output Const(const Scope& scope, std::initializer_list<int> values) {
  return Const(scope, values, VectorShape(values));
}
Output Const(const Scope& scope, std::initializer_list<int64_t> values) {
  return ConstFromValues(scope, values, VectorShape(values));
}
Output Const(const Scope& scope, std::initializer_list<float> values,
             const TensorShape& shape) {
  return ConstFromValues(scope, values, shape);
}
Output Const(const Scope& scope, std::initializer_list<int> values,
             const TensorShape& shape) {
  std::vector<int32_t> v(values.begin(), values.end());
  absl::StatusOr<Tensor> t = Tensor::FromVectorChecked(v, shape);
  if (!t.ok()) {
    scope.UpdateStatus(absl::InvalidArgumentError(
        absl::StrCat("ops::Const: ", t.status().message())));
    return Output();
  }
  return Const(scope, *t);
}
Output Const(const Scope& scope, std::initializer_list<int64_t> values,
             const TensorShape& shape) {
  return ConstFromValues(scope, values, shape);
}

Output Placeholder(const Scope& scope, DataType dtype,
                   const PlaceholderAttrs& attrs) {
  return FirstOutput(OpBuilder(scope, "Placeholder")
                         .Attr("dtype", dtype)
                         .Attr("shape", attrs.shape)
                         .Finalize());
}

Output PlaceholderWithDefault(const Scope& scope, Input input,
                              const TensorShape& shape) {
  return FirstOutput(OpBuilder(scope, "PlaceholderWithDefault")
                         .Input(input)
                         .Attr("shape", shape)
                         .Finalize());
}

Output Identity(const Scope& scope, Input input) {
  return FirstOutput(OpBuilder(scope, "Identity").Input(input).Finalize());
}

OutputList IdentityN(const Scope& scope, absl::Span<const Output> inputs) {
  return AllOutputs(OpBuilder(scope, "IdentityN").InputList(inputs).Finalize(),
                    static_cast<int>(inputs.size()));
}

Operation NoOp(const Scope& scope) {
  return OpBuilder(scope, "NoOp").Finalize();
}

Output PreventGradient(const Scope& scope, Input input,
                       absl::string_view message) {
  return FirstOutput(OpBuilder(scope, "PreventGradient")
                         .Input(input)
                         .Attr("message", std::string(message))
                         .Finalize());
}

Output StopGradient(const Scope& scope, Input input) {
  return FirstOutput(OpBuilder(scope, "StopGradient").Input(input).Finalize());
}

Output Fill(const Scope& scope, Input dims, Input value) {
  return FirstOutput(
      OpBuilder(scope, "Fill").Input(dims).Input(value).Finalize());
}

Output ZerosLike(const Scope& scope, Input x) {
  return FirstOutput(OpBuilder(scope, "ZerosLike").Input(x).Finalize());
}

Output OnesLike(const Scope& scope, Input x) {
  return FirstOutput(OpBuilder(scope, "OnesLike").Input(x).Finalize());
}

Output Range(const Scope& scope, Input start, Input limit, Input delta) {
  return FirstOutput(OpBuilder(scope, "Range")
                         .Input(start)
                         .Input(limit)
                         .Input(delta)
                         .Finalize());
}

Output OneHot(const Scope& scope, Input indices, Input depth, Input on_value,
              Input off_value, const OneHotAttrs& attrs) {
  return FirstOutput(OpBuilder(scope, "OneHot")
                         .Input(indices)
                         .Input(depth)
                         .Input(on_value)
                         .Input(off_value)
                         .Attr("axis", attrs.axis)
                         .Finalize());
}

}  // namespace ops
}  // namespace dflow
