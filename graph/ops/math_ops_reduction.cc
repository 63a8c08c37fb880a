// Math ops, the reductions and scans: Sum, Mean, Max, Min, Prod, ArgMax,
// ArgMin, Cumsum and Cumprod, with their shape functions and builder
// wrappers. Specs follow TensorFlow's `core/ops/math_ops.cc`. Part of the
// math_ops family declared in graph/ops/math_ops.h (the family's BUILD rule
// globs math_ops*.cc); split from math_ops.cc, which keeps the element-wise
// ops, MatMul, Cast and the operators, only to keep each file to one concept.
#include <cstdint>
#include <set>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/op_registry.h"
#include "graph/ops/math_ops.h"
#include "graph/ops/shape_fn_util.h"
#include "graph/shape_inference.h"
#include "graph/tensor_shape.h"

namespace dflow {
namespace {

using shape_fn_util::FirstOutput;

// --- Shape functions. ---

// Sum, Mean, Max, Min, Prod: input 0 reduced over the axes in input 1.
absl::Status ReductionShape(InferenceContext* c) {
  const TensorShape& input = c->input(0);
  const TensorShape& axes_shape = c->input(1);
  if (axes_shape.rank() > 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "reduction_indices must be a scalar or a vector but has shape ",
        axes_shape.ToString(), " (input shape ", input.ToString(), ")"));
  }
  bool keep_dims = false;
  if (absl::Status s = c->GetAttr("keep_dims", &keep_dims); !s.ok()) return s;
  std::vector<int64_t> axes;
  const bool axes_known = c->ConstantInputAsInts(1, &axes);
  if (!axes_known || input.unknown_rank()) {
    c->set_output(0, keep_dims && !input.unknown_rank()
                         ? TensorShape::UnknownWithRank(input.rank())
                         : TensorShape::Unknown());
    return absl::OkStatus();
  }
  const int rank = input.rank();
  std::set<int> reduced;
  for (int64_t axis : axes) {
    if (axis < -rank || axis >= rank) {
      return absl::InvalidArgumentError(absl::StrCat(
          "invalid reduction axis ", axis, " for input of shape ",
          input.ToString(), " (rank ", rank, "; axes must be in [", -rank, ", ",
          rank, "); reduction_indices [", absl::StrJoin(axes, ","), "])"));
    }
    reduced.insert(static_cast<int>(axis < 0 ? axis + rank : axis));
  }
  TensorShape out;
  for (int i = 0; i < rank; ++i) {
    if (reduced.count(i) == 0) {
      out.AddDim(input.dim(i));
    } else if (keep_dims) {
      out.AddDim(1);
    }
  }
  c->set_output(0, out);
  return absl::OkStatus();
}

absl::Status ArgMaxShape(InferenceContext* c) {
  const TensorShape& input = c->input(0);
  const TensorShape& dimension = c->input(1);
  if (dimension.rank() > 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "dimension must be a scalar but has shape ", dimension.ToString(),
        " (input shape ", input.ToString(), ")"));
  }
  if (input.unknown_rank()) {
    c->set_output(0, TensorShape::Unknown());
    return absl::OkStatus();
  }
  const int rank = input.rank();
  if (rank <= 1) {
    c->set_output(0, TensorShape());
    return absl::OkStatus();
  }
  std::vector<int64_t> value;
  if (!c->ConstantInputAsInts(1, &value) || value.size() != 1) {
    c->set_output(0, TensorShape::UnknownWithRank(rank - 1));
    return absl::OkStatus();
  }
  const int64_t axis = value[0];
  if (axis < -rank || axis >= rank) {
    return absl::InvalidArgumentError(absl::StrCat(
        "dimension ", axis, " is out of range for input of shape ",
        input.ToString(), " (must be in [", -rank, ", ", rank, "))"));
  }
  TensorShape out = input;
  out.RemoveDim(static_cast<int>(axis < 0 ? axis + rank : axis));
  c->set_output(0, out);
  return absl::OkStatus();
}

// Cumsum, Cumprod: the input's shape; the axis must be a scalar.
absl::Status ScanShape(InferenceContext* c) {
  const TensorShape& axis = c->input(1);
  if (axis.rank() > 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("axis must be a scalar but has shape ", axis.ToString(),
                     " (input shape ", c->input(0).ToString(), ")"));
  }
  std::vector<int64_t> value;
  const TensorShape& input = c->input(0);
  if (!input.unknown_rank() && c->ConstantInputAsInts(1, &value) &&
      value.size() == 1) {
    const int64_t rank = input.rank();
    if (value[0] < -rank || value[0] >= rank) {
      return absl::InvalidArgumentError(absl::StrCat(
          "axis ", value[0], " is out of range for input of shape ",
          input.ToString(), " (must be in [", -rank, ", ", rank, "))"));
    }
  }
  c->set_output(0, input);
  return absl::OkStatus();
}

Output Reduction(const Scope& scope, const char* op, const Input& input,
                 const Input& axis, const ops::ReductionAttrs& attrs) {
  return FirstOutput(OpBuilder(scope, op)
                         .Input(input)
                         .Input(axis)
                         .Attr("keep_dims", attrs.keep_dims)
                         .Finalize());
}
}  // namespace

// --- Registrations. ---

#define DFLOW_REDUCTION_OP(name, types, doc)   \
  DFLOW_REGISTER_OP(name)                      \
      .Input("input: T")                       \
      .Input("reduction_indices: Tidx")        \
      .Output("output: T")                     \
      .Attr("keep_dims: bool = false")         \
      .Attr(types)                             \
      .Attr("Tidx: {int32, int64} = DT_INT32") \
      .SetShapeFn(ReductionShape)              \
      .Doc(doc)

// Max and Min have no complex types in TensorFlow (realnumbertype plus the
// quantized ones).
constexpr char kMinMaxReductionTypes[] =
    "T: {float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, "
    "half, uint32, uint64, qint8, quint8, qint32, qint16, quint16}";

DFLOW_REDUCTION_OP("Sum", "T: numbertype",
                   "Sum of elements across the given axes.");
DFLOW_REDUCTION_OP("Mean", "T: numbertype",
                   "Mean of elements across the given axes.");
DFLOW_REDUCTION_OP("Max", kMinMaxReductionTypes,
                   "Maximum of elements across the given axes.");
DFLOW_REDUCTION_OP("Min", kMinMaxReductionTypes,
                   "Minimum of elements across the given axes.");
DFLOW_REDUCTION_OP("Prod", "T: numbertype",
                   "Product of elements across the given axes.");
DFLOW_REDUCTION_OP("EuclideanNorm", "T: numbertype",
                   "The square root of the sum of squares across the axes.");

// Logical reductions of bools (tf.reduce_all, tf.reduce_any; TensorFlow's
// assert_* helpers reduce their conditions with All).
#define DFLOW_LOGICAL_REDUCTION_OP(name, doc)  \
  DFLOW_REGISTER_OP(name)                      \
      .Input("input: bool")                    \
      .Input("reduction_indices: Tidx")        \
      .Output("output: bool")                  \
      .Attr("keep_dims: bool = false")         \
      .Attr("Tidx: {int32, int64} = DT_INT32") \
      .SetShapeFn(ReductionShape)              \
      .Doc(doc)

DFLOW_LOGICAL_REDUCTION_OP("All",
                           "Whether every element across the axes is "
                           "true (true over none).");
DFLOW_LOGICAL_REDUCTION_OP("Any",
                           "Whether some element across the axes is "
                           "true (false over none).");

#undef DFLOW_LOGICAL_REDUCTION_OP

#undef DFLOW_REDUCTION_OP

#define DFLOW_SCAN_OP(name, doc)               \
  DFLOW_REGISTER_OP(name)                      \
      .Input("x: T")                           \
      .Input("axis: Tidx")                     \
      .Attr("exclusive: bool = false")         \
      .Attr("reverse: bool = false")           \
      .Output("out: T")                        \
      .Attr("T: numbertype")                   \
      .Attr("Tidx: {int32, int64} = DT_INT32") \
      .SetShapeFn(ScanShape)                   \
      .Doc(doc)

DFLOW_SCAN_OP("Cumsum", "Cumulative sum of x along axis.");
DFLOW_SCAN_OP("Cumprod", "Cumulative product of x along axis.");

#undef DFLOW_SCAN_OP

DFLOW_REGISTER_OP("CumulativeLogsumexp")
    .Input("x: T")
    .Input("axis: Tidx")
    .Output("out: T")
    .Attr("exclusive: bool = false")
    .Attr("reverse: bool = false")
    .Attr("T: {bfloat16, half, float, double}")
    .Attr("Tidx: {int32, int64} = DT_INT32")
    .SetShapeFn(ScanShape)
    .Doc("Cumulative log(sum(exp(x))) of x along axis, without overflow.");

DFLOW_REGISTER_OP("ArgMax")
    .Input("input: T")
    .Input("dimension: Tidx")
    .Output("output: output_type")
    .Attr(
        "T: {float, double, int32, uint8, int16, int8, int64, bfloat16, "
        "uint16, half, uint32, uint64, qint8, quint8, qint32, qint16, "
        "quint16, bool}")
    .Attr("Tidx: {int16, int32, int64} = DT_INT32")
    .Attr("output_type: {int16, uint16, int32, int64} = DT_INT64")
    .SetShapeFn(ArgMaxShape)
    .Doc("Index of the largest value across an axis.");

DFLOW_REGISTER_OP("ArgMin")
    .Input("input: T")
    .Input("dimension: Tidx")
    .Output("output: output_type")
    .Attr(
        "T: {float, double, int32, uint8, int16, int8, int64, bfloat16, "
        "uint16, half, uint32, uint64, qint8, quint8, qint32, qint16, "
        "quint16, bool}")
    .Attr("Tidx: {int32, int64} = DT_INT32")
    .Attr("output_type: {int32, int64} = DT_INT64")
    .SetShapeFn(ArgMaxShape)
    .Doc("Index of the smallest value across an axis.");

// --- Wrappers. ---

namespace ops {

Output Sum(const Scope& scope, Input input, Input axis,
           const ReductionAttrs& attrs) {
  return Reduction(scope, "Sum", input, axis, attrs);
}
Output Mean(const Scope& scope, Input input, Input axis,
            const ReductionAttrs& attrs) {
  return Reduction(scope, "Mean", input, axis, attrs);
}
Output Max(const Scope& scope, Input input, Input axis,
           const ReductionAttrs& attrs) {
  return Reduction(scope, "Max", input, axis, attrs);
}
Output All(const Scope& scope, Input input, Input axis,
           const ReductionAttrs& attrs) {
  return Reduction(scope, "All", input, axis, attrs);
}
Output Any(const Scope& scope, Input input, Input axis,
           const ReductionAttrs& attrs) {
  return Reduction(scope, "Any", input, axis, attrs);
}
Output Min(const Scope& scope, Input input, Input axis,
           const ReductionAttrs& attrs) {
  return Reduction(scope, "Min", input, axis, attrs);
}
Output Prod(const Scope& scope, Input input, Input axis,
            const ReductionAttrs& attrs) {
  return Reduction(scope, "Prod", input, axis, attrs);
}

Output EuclideanNorm(const Scope& scope, Input input, Input axis,
                     const ReductionAttrs& attrs) {
  return Reduction(scope, "EuclideanNorm", input, axis, attrs);
}

Output Cumsum(const Scope& scope, Input x, Input axis, const ScanAttrs& attrs) {
  return FirstOutput(OpBuilder(scope, "Cumsum")
                         .Input(x)
                         .Input(axis)
                         .Attr("exclusive", attrs.exclusive)
                         .Attr("reverse", attrs.reverse)
                         .Finalize());
}
Output Cumprod(const Scope& scope, Input x, Input axis,
               const ScanAttrs& attrs) {
  return FirstOutput(OpBuilder(scope, "Cumprod")
                         .Input(x)
                         .Input(axis)
                         .Attr("exclusive", attrs.exclusive)
                         .Attr("reverse", attrs.reverse)
                         .Finalize());
}

Output CumulativeLogsumexp(const Scope& scope, Input x, Input axis,
                           const ScanAttrs& attrs) {
  return FirstOutput(OpBuilder(scope, "CumulativeLogsumexp")
                         .Input(x)
                         .Input(axis)
                         .Attr("exclusive", attrs.exclusive)
                         .Attr("reverse", attrs.reverse)
                         .Finalize());
}

Output ArgMax(const Scope& scope, Input input, Input dimension,
              const ArgMaxAttrs& attrs) {
  return FirstOutput(OpBuilder(scope, "ArgMax")
                         .Input(input)
                         .Input(dimension)
                         .Attr("output_type", attrs.output_type)
                         .Finalize());
}
Output ArgMin(const Scope& scope, Input input, Input dimension,
              const ArgMaxAttrs& attrs) {
  return FirstOutput(OpBuilder(scope, "ArgMin")
                         .Input(input)
                         .Input(dimension)
                         .Attr("output_type", attrs.output_type)
                         .Finalize());
}

}  // namespace ops
}  // namespace dflow
