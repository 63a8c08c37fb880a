// Schemas, shape functions and builder wrappers of the math ops. Specs follow
// TensorFlow's `core/ops/math_ops.cc` (TensorFlow 2.x attrs included) so
// GraphDefs validate in both directions.
#include "graph/ops/math_ops.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "graph/graph.h"
#include "graph/op_registry.h"
#include "graph/shape_inference.h"
#include "graph/tensor.h"
#include "graph/tensor_shape.h"

namespace dflow {
namespace {

// --- Type lists shared by several ops (TensorFlow's, newest versions). ---

constexpr char kUnaryTypes[] =
    "T: {bfloat16, half, float, double, int8, int16, int32, int64, complex64, "
    "complex128}";
constexpr char kUnaryComplexTypes[] =
    "T: {bfloat16, half, float, double, complex64, complex128}";
constexpr char kBinaryMoreTypes[] =
    "T: {bfloat16, half, float, double, uint8, int8, uint16, int16, int32, "
    "int64, complex64, complex128, uint32, uint64}";
constexpr char kBinaryFewerTypes[] =
    "T: {bfloat16, half, float, double, int32, int64, complex64, complex128}";
constexpr char kMinMaxTypes[] =
    "T: {bfloat16, half, float, double, int8, uint8, int16, uint16, int32, "
    "uint32, int64, uint64}";

// --- Shape functions. ---

absl::Status EqualityShape(InferenceContext* c) {
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
    // The kernel answers a scalar `false` (Equal) for shapes that do not
    // broadcast.
    out = TensorShape();
  }
  c->set_output(0, out);
  return absl::OkStatus();
}

absl::Status MatMulShape(InferenceContext* c) {
  const TensorShape& a = c->input(0);
  const TensorShape& b = c->input(1);
  for (int i = 0; i < 2; ++i) {
    const TensorShape& m = c->input(i);
    if (m.rank() >= 0 && m.rank() != 2) {
      return absl::InvalidArgumentError(
          absl::StrCat("input '", i == 0 ? "a" : "b",
                       "' must be a matrix (rank 2) but has shape ",
                       m.ToString(), " (shapes of 'a' and 'b': ", a.ToString(),
                       " and ", b.ToString(), ")"));
    }
  }
  bool transpose_a = false, transpose_b = false;
  if (absl::Status s = c->GetAttr("transpose_a", &transpose_a); !s.ok()) {
    return s;
  }
  if (absl::Status s = c->GetAttr("transpose_b", &transpose_b); !s.ok()) {
    return s;
  }
  auto dim = [](const TensorShape& m, int i) {
    return m.rank() == 2 ? m.dim(i) : TensorShape::kUnknownDim;
  };
  const int a_inner = transpose_a ? 0 : 1;
  const int b_inner = transpose_b ? 1 : 0;
  const int64_t rows = dim(a, 1 - a_inner);
  const int64_t cols = dim(b, 1 - b_inner);
  const int64_t inner_a = dim(a, a_inner);
  const int64_t inner_b = dim(b, b_inner);
  if (inner_a >= 0 && inner_b >= 0 && inner_a != inner_b) {
    return absl::InvalidArgumentError(absl::StrCat(
        "shapes ", a.ToString(), " and ", b.ToString(),
        " are incompatible: dimension ", a_inner, " of 'a' (", inner_a,
        ") must equal dimension ", b_inner, " of 'b' (", inner_b, ")",
        (transpose_a || transpose_b)
            ? absl::StrCat(" (transpose_a=", transpose_a ? "true" : "false",
                           ", transpose_b=", transpose_b ? "true" : "false",
                           ")")
            : ""));
  }
  c->set_output(0, TensorShape({rows, cols}));
  return absl::OkStatus();
}

// --- Registrations. ---

DFLOW_REGISTER_OP("AddN")
    .Input("inputs: N * T")
    .Output("sum: T")
    .Attr("N: int >= 1")
    .Attr("T: {numbertype, variant}")
    .SetIsCommutative()
    .SetIsAggregate()
    .SetShapeFn(shape_fns::AllInputsSameShape)
    .Doc("Adds all input tensors element-wise.");

DFLOW_REGISTER_OP("Add")
    .Input("x: T")
    .Input("y: T")
    .Output("z: T")
    .Attr(
        "T: {bfloat16, half, float, double, uint8, int8, int16, int32, "
        "int64, complex64, complex128, string}")
    .SetShapeFn(shape_fns::BroadcastBinary)
    .Doc("Returns x + y element-wise, with broadcasting.");

DFLOW_REGISTER_OP("AddV2")
    .Input("x: T")
    .Input("y: T")
    .Output("z: T")
    .Attr(
        "T: {bfloat16, half, float, double, uint8, uint16, uint32, uint64, "
        "int8, int16, int32, int64, complex64, complex128}")
    .SetIsAggregate()
    .SetIsCommutative()
    .SetShapeFn(shape_fns::BroadcastBinary)
    .Doc("Returns x + y element-wise, with broadcasting.");

DFLOW_REGISTER_OP("Sub")
    .Input("x: T")
    .Input("y: T")
    .Output("z: T")
    .Attr(kBinaryMoreTypes)
    .SetShapeFn(shape_fns::BroadcastBinary)
    .Doc("Returns x - y element-wise, with broadcasting.");

DFLOW_REGISTER_OP("Mul")
    .Input("x: T")
    .Input("y: T")
    .Output("z: T")
    .Attr(kBinaryMoreTypes)
    .SetIsCommutative()
    .SetShapeFn(shape_fns::BroadcastBinary)
    .Doc("Returns x * y element-wise, with broadcasting.");

DFLOW_REGISTER_OP("RealDiv")
    .Input("x: T")
    .Input("y: T")
    .Output("z: T")
    .Attr(kBinaryMoreTypes)
    .SetShapeFn(shape_fns::BroadcastBinary)
    .Doc("Returns x / y element-wise for real types, with broadcasting.");

DFLOW_REGISTER_OP("Maximum")
    .Input("x: T")
    .Input("y: T")
    .Output("z: T")
    .Attr(kMinMaxTypes)
    .SetShapeFn(shape_fns::BroadcastBinary)
    .Doc("Returns max(x, y) element-wise, with broadcasting.");

DFLOW_REGISTER_OP("Minimum")
    .Input("x: T")
    .Input("y: T")
    .Output("z: T")
    .Attr(kMinMaxTypes)
    .SetShapeFn(shape_fns::BroadcastBinary)
    .Doc("Returns min(x, y) element-wise, with broadcasting.");

DFLOW_REGISTER_OP("Pow")
    .Input("x: T")
    .Input("y: T")
    .Output("z: T")
    .Attr(
        "T: {bfloat16, float, half, double, int8, int16, int32, int64, "
        "complex64, complex128}")
    .SetShapeFn(shape_fns::BroadcastBinary)
    .Doc("Returns x ^ y element-wise, with broadcasting.");

DFLOW_REGISTER_OP("SquaredDifference")
    .Input("x: T")
    .Input("y: T")
    .Output("z: T")
    .Attr(kBinaryFewerTypes)
    .SetIsCommutative()
    .SetShapeFn(shape_fns::BroadcastBinary)
    .Doc("Returns (x - y)(x - y) element-wise, with broadcasting.");

DFLOW_REGISTER_OP("Less")
    .Input("x: T")
    .Input("y: T")
    .Output("z: bool")
    .Attr("T: realnumbertype")
    .SetShapeFn(shape_fns::BroadcastBinary)
    .Doc("Returns x < y element-wise, with broadcasting.");

DFLOW_REGISTER_OP("Greater")
    .Input("x: T")
    .Input("y: T")
    .Output("z: bool")
    .Attr("T: realnumbertype")
    .SetShapeFn(shape_fns::BroadcastBinary)
    .Doc("Returns x > y element-wise, with broadcasting.");

DFLOW_REGISTER_OP("Equal")
    .Input("x: T")
    .Input("y: T")
    .Output("z: bool")
    .SetIsCommutative()
    .Attr("T: type")
    .Attr("incompatible_shape_error: bool = true")
    .SetShapeFn(EqualityShape)
    .Doc("Returns x == y element-wise, with broadcasting.");

#define DFLOW_UNARY_OP(name, types, doc)     \
  DFLOW_REGISTER_OP(name)                    \
      .Input("x: T")                         \
      .Output("y: T")                        \
      .Attr(types)                           \
      .SetShapeFn(shape_fns::UnchangedShape) \
      .Doc(doc)

DFLOW_UNARY_OP("Neg", kUnaryTypes, "Returns -x element-wise.");
DFLOW_UNARY_OP("Square",
               "T: {bfloat16, half, float, double, int8, int16, int32, int64, "
               "uint8, uint16, uint32, uint64, complex64, complex128}",
               "Returns x * x element-wise.");
DFLOW_UNARY_OP("Sqrt", kUnaryComplexTypes, "Returns sqrt(x) element-wise.");
DFLOW_UNARY_OP("Rsqrt", kUnaryComplexTypes,
               "Returns 1 / sqrt(x) element-wise.");
DFLOW_UNARY_OP("Exp", kUnaryComplexTypes, "Returns e^x element-wise.");
DFLOW_UNARY_OP("Log", kUnaryComplexTypes, "Returns ln(x) element-wise.");
DFLOW_UNARY_OP("Sigmoid", kUnaryComplexTypes,
               "Returns 1 / (1 + exp(-x)) element-wise.");
DFLOW_UNARY_OP("Tanh", kUnaryComplexTypes, "Returns tanh(x) element-wise.");

#undef DFLOW_UNARY_OP

DFLOW_REGISTER_OP("SigmoidGrad")
    .Input("y: T")
    .Input("dy: T")
    .Output("z: T")
    .Attr(kUnaryComplexTypes)
    .SetShapeFn(shape_fns::UnchangedShape)
    .Doc("Returns dy * y * (1 - y), where y = sigmoid(x).");

DFLOW_REGISTER_OP("TanhGrad")
    .Input("y: T")
    .Input("dy: T")
    .Output("z: T")
    .Attr(kUnaryComplexTypes)
    .SetShapeFn(shape_fns::UnchangedShape)
    .Doc("Returns dy * (1 - y * y), where y = tanh(x).");

DFLOW_REGISTER_OP("MatMul")
    .Input("a: T")
    .Input("b: T")
    .Output("product: T")
    .Attr("transpose_a: bool = false")
    .Attr("transpose_b: bool = false")
    .Attr(
        "T: {bfloat16, half, float, double, int32, int64, uint8, uint16, "
        "uint32, uint64, complex64, complex128}")
    .Attr("grad_a: bool = false")
    .Attr("grad_b: bool = false")
    .SetShapeFn(MatMulShape)
    .Doc("Multiplies matrix a by matrix b.");

DFLOW_REGISTER_OP("Cast")
    .Input("x: SrcT")
    .Output("y: DstT")
    .Attr("SrcT: type")
    .Attr("DstT: type")
    .Attr("Truncate: bool = false")
    .SetShapeFn(shape_fns::UnchangedShape)
    .Doc("Casts x of type SrcT to y of type DstT.");

// --- Constant conversion for binary wrappers. ---

template <typename Dst>
bool ConvertScalar(long double v, Dst* out) {
  if constexpr (std::is_same_v<Dst, float16> || std::is_same_v<Dst, bfloat16>) {
    float f;
    if (!ConvertScalar(v, &f)) return false;
    *out = Dst::FromFloat(f);
    return out->ToFloat() == f || (std::isnan(f) && std::isnan(out->ToFloat()));
  } else if constexpr (std::is_floating_point_v<Dst>) {
    if (std::isnan(v) || std::isinf(v)) {
      *out = static_cast<Dst>(v);
      return true;
    }
    if (std::fabs(v) >
        static_cast<long double>(std::numeric_limits<Dst>::max())) {
      return false;
    }
    *out = static_cast<Dst>(v);
    return static_cast<long double>(*out) == v;
  } else {
    if (!(v >= static_cast<long double>(std::numeric_limits<Dst>::lowest()) &&
          v <= static_cast<long double>(std::numeric_limits<Dst>::max()))) {
      return false;
    }
    *out = static_cast<Dst>(v);
    return static_cast<long double>(*out) == v;
  }
}

// The elements of a float/double/int32/int64 tensor, widened exactly.
bool ReadWidened(const Tensor& t, std::vector<long double>* values) {
  auto read = [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    for (T v : t.flat<T>()) values->push_back(static_cast<long double>(v));
  };
  switch (t.dtype()) {
    case DT_FLOAT:
      read(static_cast<float*>(nullptr));
      return true;
    case DT_DOUBLE:
      read(static_cast<double*>(nullptr));
      return true;
    case DT_INT32:
      read(static_cast<int32_t*>(nullptr));
      return true;
    case DT_INT64:
      read(static_cast<int64_t*>(nullptr));
      return true;
    default:
      return false;
  }
}

template <typename Dst>
bool WriteAll(const std::vector<long double>& values, Tensor* out) {
  Dst* data = out->data<Dst>();
  for (size_t i = 0; i < values.size(); ++i) {
    if (!ConvertScalar(values[i], &data[i])) return false;
  }
  return true;
}

// `t` as a tensor of `dtype` when every element converts exactly (2 -> 2.0f,
// but not 1.5 -> int32), so that an operand's dtype decides a literal's.
bool ConvertConstant(const Tensor& t, DataType dtype, Tensor* out) {
  std::vector<long double> values;
  if (!t.IsInitialized() || !ReadWidened(t, &values)) return false;
  Tensor converted(dtype, t.shape());
  if (!converted.IsInitialized() && t.NumElements() > 0) return false;
  bool ok = false;
  switch (dtype) {
    case DT_FLOAT:
      ok = WriteAll<float>(values, &converted);
      break;
    case DT_DOUBLE:
      ok = WriteAll<double>(values, &converted);
      break;
    case DT_HALF:
      ok = WriteAll<float16>(values, &converted);
      break;
    case DT_BFLOAT16:
      ok = WriteAll<bfloat16>(values, &converted);
      break;
    case DT_INT8:
      ok = WriteAll<int8_t>(values, &converted);
      break;
    case DT_INT16:
      ok = WriteAll<int16_t>(values, &converted);
      break;
    case DT_INT32:
      ok = WriteAll<int32_t>(values, &converted);
      break;
    case DT_INT64:
      ok = WriteAll<int64_t>(values, &converted);
      break;
    case DT_UINT8:
      ok = WriteAll<uint8_t>(values, &converted);
      break;
    case DT_UINT16:
      ok = WriteAll<uint16_t>(values, &converted);
      break;
    case DT_UINT32:
      ok = WriteAll<uint32_t>(values, &converted);
      break;
    case DT_UINT64:
      ok = WriteAll<uint64_t>(values, &converted);
      break;
    default:
      break;
  }
  if (ok) *out = converted;
  return ok;
}

// Gives a constant operand the dtype of the other, symbolic operand.
void MatchConstantDType(Input* constant, const Input& other) {
  if (!constant->is_const() || other.is_const() || !other.output().valid()) {
    return;
  }
  const DataType want = BaseType(other.output().dtype());
  if (constant->tensor().dtype() == want) return;
  Tensor converted;
  if (ConvertConstant(constant->tensor(), want, &converted)) {
    *constant = Input(converted);
  }
}

Output FirstOutput(const Operation& op) {
  return op.valid() ? op.output(0) : Output();
}

Output Binary(const Scope& scope, const char* op, Input x, Input y) {
  MatchConstantDType(&x, y);
  MatchConstantDType(&y, x);
  return FirstOutput(OpBuilder(scope, op).Input(x).Input(y).Finalize());
}

Output Unary(const Scope& scope, const char* op, const Input& x) {
  return FirstOutput(OpBuilder(scope, op).Input(x).Finalize());
}

}  // namespace

namespace ops {

Output Add(const Scope& scope, Input x, Input y) {
  return Binary(scope, "Add", x, y);
}
Output AddV2(const Scope& scope, Input x, Input y) {
  return Binary(scope, "AddV2", x, y);
}
Output Sub(const Scope& scope, Input x, Input y) {
  return Binary(scope, "Sub", x, y);
}
Output Mul(const Scope& scope, Input x, Input y) {
  return Binary(scope, "Mul", x, y);
}
Output RealDiv(const Scope& scope, Input x, Input y) {
  return Binary(scope, "RealDiv", x, y);
}
Output Maximum(const Scope& scope, Input x, Input y) {
  return Binary(scope, "Maximum", x, y);
}
Output Minimum(const Scope& scope, Input x, Input y) {
  return Binary(scope, "Minimum", x, y);
}
Output Pow(const Scope& scope, Input x, Input y) {
  return Binary(scope, "Pow", x, y);
}
Output SquaredDifference(const Scope& scope, Input x, Input y) {
  return Binary(scope, "SquaredDifference", x, y);
}
Output Less(const Scope& scope, Input x, Input y) {
  return Binary(scope, "Less", x, y);
}
Output Greater(const Scope& scope, Input x, Input y) {
  return Binary(scope, "Greater", x, y);
}

Output Equal(const Scope& scope, Input x, Input y, const EqualAttrs& attrs) {
  MatchConstantDType(&x, y);
  MatchConstantDType(&y, x);
  return FirstOutput(
      OpBuilder(scope, "Equal")
          .Input(x)
          .Input(y)
          .Attr("incompatible_shape_error", attrs.incompatible_shape_error)
          .Finalize());
}

Output FloorDiv(const Scope& scope, Input x, Input y) {
  return Binary(scope, "FloorDiv", x, y);
}
Output FloorMod(const Scope& scope, Input x, Input y) {
  return Binary(scope, "FloorMod", x, y);
}
Output DivNoNan(const Scope& scope, Input x, Input y) {
  return Binary(scope, "DivNoNan", x, y);
}
Output MulNoNan(const Scope& scope, Input x, Input y) {
  return Binary(scope, "MulNoNan", x, y);
}
Output GreaterEqual(const Scope& scope, Input x, Input y) {
  return Binary(scope, "GreaterEqual", x, y);
}
Output LessEqual(const Scope& scope, Input x, Input y) {
  return Binary(scope, "LessEqual", x, y);
}
Output NotEqual(const Scope& scope, Input x, Input y, const EqualAttrs& attrs) {
  MatchConstantDType(&x, y);
  MatchConstantDType(&y, x);
  return FirstOutput(
      OpBuilder(scope, "NotEqual")
          .Input(x)
          .Input(y)
          .Attr("incompatible_shape_error", attrs.incompatible_shape_error)
          .Finalize());
}
Output LogicalAnd(const Scope& scope, Input x, Input y) {
  return Binary(scope, "LogicalAnd", x, y);
}
Output LogicalOr(const Scope& scope, Input x, Input y) {
  return Binary(scope, "LogicalOr", x, y);
}
Output LogicalNot(const Scope& scope, Input x) {
  return Unary(scope, "LogicalNot", x);
}
Output Floor(const Scope& scope, Input x) { return Unary(scope, "Floor", x); }

Output Select(const Scope& scope, Input condition, Input t, Input e) {
  MatchConstantDType(&t, e);
  MatchConstantDType(&e, t);
  return FirstOutput(
      OpBuilder(scope, "Select").Input(condition).Input(t).Input(e).Finalize());
}
Output SelectV2(const Scope& scope, Input condition, Input t, Input e) {
  MatchConstantDType(&t, e);
  MatchConstantDType(&e, t);
  return FirstOutput(OpBuilder(scope, "SelectV2")
                         .Input(condition)
                         .Input(t)
                         .Input(e)
                         .Finalize());
}

Output AddN(const Scope& scope, absl::Span<const Output> inputs) {
  return FirstOutput(OpBuilder(scope, "AddN").InputList(inputs).Finalize());
}

Output Neg(const Scope& scope, Input x) { return Unary(scope, "Neg", x); }
Output Square(const Scope& scope, Input x) { return Unary(scope, "Square", x); }
Output Sqrt(const Scope& scope, Input x) { return Unary(scope, "Sqrt", x); }
Output Rsqrt(const Scope& scope, Input x) { return Unary(scope, "Rsqrt", x); }
Output Exp(const Scope& scope, Input x) { return Unary(scope, "Exp", x); }
Output Log(const Scope& scope, Input x) { return Unary(scope, "Log", x); }
Output Sigmoid(const Scope& scope, Input x) {
  return Unary(scope, "Sigmoid", x);
}
Output Tanh(const Scope& scope, Input x) { return Unary(scope, "Tanh", x); }

Output SigmoidGrad(const Scope& scope, Input y, Input dy) {
  return Binary(scope, "SigmoidGrad", y, dy);
}
Output TanhGrad(const Scope& scope, Input y, Input dy) {
  return Binary(scope, "TanhGrad", y, dy);
}

Output MatMul(const Scope& scope, Input a, Input b, const MatMulAttrs& attrs) {
  return FirstOutput(OpBuilder(scope, "MatMul")
                         .Input(a)
                         .Input(b)
                         .Attr("transpose_a", attrs.transpose_a)
                         .Attr("transpose_b", attrs.transpose_b)
                         .Attr("grad_a", attrs.grad_a)
                         .Attr("grad_b", attrs.grad_b)
                         .Finalize());
}

Output Cast(const Scope& scope, Input x, DataType DstT,
            const CastAttrs& attrs) {
  return FirstOutput(OpBuilder(scope, "Cast")
                         .Input(x)
                         .Attr("DstT", DstT)
                         .Attr("Truncate", attrs.truncate)
                         .Finalize());
}

}  // namespace ops

// --- Operators. ---

namespace {

// The scope operators build in, or null after recording why there is none on
// the operands' graph.
const Scope* OperatorScope(const char* symbol, const char* op, const Input& x,
                           const Input* y) {
  const Scope* scope = ActiveScope::Current();
  if (scope != nullptr) return scope;
  std::string operands;
  Graph* graph = nullptr;
  for (const Input* in : {&x, y}) {
    if (in == nullptr) continue;
    if (!operands.empty()) operands += " and ";
    if (in->is_const()) {
      operands += "a constant";
    } else {
      operands += absl::StrCat("'", in->output().name(), "'");
      if (in->output().valid() && graph == nullptr) {
        graph = in->output().node()->graph();
      }
    }
  }
  if (graph != nullptr) {
    graph->RecordBuildError(absl::FailedPreconditionError(absl::StrCat(
        "operator", symbol, " (", op, ") on ", operands,
        " was used with no ActiveScope on this thread; declare "
        "`ActiveScope active(scope);` around the code, or call ops::",
        op, "(scope, ...)")));
  }
  return nullptr;
}

Output BinaryOperator(const char* symbol, const char* op, const Input& x,
                      const Input& y) {
  const Scope* scope = OperatorScope(symbol, op, x, &y);
  return scope != nullptr ? Binary(*scope, op, x, y) : Output();
}

}  // namespace

Output operator+(const Output& x, const Output& y) {
  return BinaryOperator("+", "AddV2", x, y);
}
Output operator+(const Output& x, const Input& y) {
  return BinaryOperator("+", "AddV2", x, y);
}
Output operator+(const Input& x, const Output& y) {
  return BinaryOperator("+", "AddV2", x, y);
}
Output operator-(const Output& x, const Output& y) {
  return BinaryOperator("-", "Sub", x, y);
}
Output operator-(const Output& x, const Input& y) {
  return BinaryOperator("-", "Sub", x, y);
}
Output operator-(const Input& x, const Output& y) {
  return BinaryOperator("-", "Sub", x, y);
}
Output operator*(const Output& x, const Output& y) {
  return BinaryOperator("*", "Mul", x, y);
}
Output operator*(const Output& x, const Input& y) {
  return BinaryOperator("*", "Mul", x, y);
}
Output operator*(const Input& x, const Output& y) {
  return BinaryOperator("*", "Mul", x, y);
}
Output operator/(const Output& x, const Output& y) {
  return BinaryOperator("/", "RealDiv", x, y);
}
Output operator/(const Output& x, const Input& y) {
  return BinaryOperator("/", "RealDiv", x, y);
}
Output operator/(const Input& x, const Output& y) {
  return BinaryOperator("/", "RealDiv", x, y);
}
Output operator-(const Output& x) {
  const Scope* scope = OperatorScope("-", "Neg", x, nullptr);
  return scope != nullptr ? ops::Neg(*scope, x) : Output();
}

}  // namespace dflow
