#include "graph/ops/slicing_ops.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "graph/op_registry.h"
#include "graph/ops/array_ops.h"
#include "graph/ops/shape_fn_util.h"
#include "graph/shape_inference.h"

namespace dflow {
namespace {

using shape_fn_util::AllOutputs;
using shape_fn_util::CanonicalAxis;
using shape_fn_util::CheckRank;
using shape_fn_util::FirstOutput;
using shape_fn_util::InputAsPartialShape;
using shape_fn_util::Ints;
using shape_fn_util::InvalidArgument;
using shape_fn_util::RankKnown;

// --- Joining and splitting. ---

// Merges dimension `i` of `shape` into `out` (both of the same rank), or
// says which inputs disagree.
absl::Status MergeDimOf(const TensorShape& shape, int i, absl::string_view what,
                        const TensorShape& first, absl::string_view first_what,
                        TensorShape* out) {
  const int64_t a = out->dim(i), b = shape.dim(i);
  if (a >= 0 && b >= 0 && a != b) {
    return InvalidArgument(
        "dimension ", i, " of ", first_what, " ", first.ToString(), " and ",
        what, " ", shape.ToString(), " must be equal, but are ", a, " and ", b);
  }
  if (a < 0) out->set_dim(i, b);
  return absl::OkStatus();
}

absl::Status ConcatV2Shape(InferenceContext* c) {
  const int n = c->num_inputs() - 1;
  TensorShape unused;
  DFLOW_RETURN_IF_ERROR(c->WithRank(c->input(n), 0, "input 'axis'", &unused));
  // The first input of known rank fixes the rank.
  int first = -1;
  for (int i = 0; i < n && first < 0; ++i) {
    if (RankKnown(c->input(i))) first = i;
  }
  if (first < 0) {
    c->set_output(0, TensorShape::Unknown());
    return absl::OkStatus();
  }
  const TensorShape& s0 = c->input(first);
  const std::string what0 = absl::StrCat("values[", first, "]");
  if (s0.rank() == 0) {
    return InvalidArgument("cannot concatenate scalars (", what0,
                           " has shape []); use Pack instead");
  }
  for (int i = 0; i < n; ++i) {
    const TensorShape& s = c->input(i);
    if (RankKnown(s) && s.rank() != s0.rank()) {
      return InvalidArgument("all values must have the same rank: ", what0, " ",
                             s0.ToString(), " vs values[", i, "] ",
                             s.ToString());
    }
  }
  std::vector<int64_t> axis_value;
  if (!c->ConstantInputAsInts(n, &axis_value) || axis_value.size() != 1) {
    c->set_output(0, TensorShape::UnknownWithRank(s0.rank()));
    return absl::OkStatus();
  }
  int64_t axis;
  DFLOW_RETURN_IF_ERROR(
      CanonicalAxis(axis_value[0], s0.rank(), "axis", s0, &axis));
  TensorShape out = TensorShape::UnknownWithRank(s0.rank());
  int64_t total = 0;
  for (int i = 0; i < n; ++i) {
    const TensorShape& s = c->input(i);
    if (!RankKnown(s)) {
      total = -1;
      continue;
    }
    for (int d = 0; d < s.rank(); ++d) {
      if (d == axis) {
        if (total < 0 || s.dim(d) < 0 ||
            __builtin_add_overflow(total, s.dim(d), &total)) {
          total = -1;
        }
      } else {
        DFLOW_RETURN_IF_ERROR(
            MergeDimOf(s, d, absl::StrCat("values[", i, "]"), s0, what0, &out));
      }
    }
  }
  out.set_dim(static_cast<int>(axis), total);
  c->set_output(0, out);
  // Concatenated shape vectors give a shape vector.
  if (s0.rank() == 1) {
    TensorShape value;
    for (int i = 0; i < n; ++i) {
      TensorShape part;
      if (!InputAsPartialShape(c, i, &part)) return absl::OkStatus();
      for (int64_t d : part.dims()) value.AddDim(d);
    }
    c->set_output_shape_value(0, value);
  }
  return absl::OkStatus();
}

// Split and SplitV: the outputs are `value` with the split dimension cut in
// equal parts (Split: `sizes` null, `equal`), in `sizes` (SplitV, one may be
// -1: the rest) or in unknown sizes (SplitV: `sizes` null, !`equal`).
// `axis_input` is the split_dim input.
absl::Status SplitOutputs(InferenceContext* c, int value_input, int axis_input,
                          const std::vector<int64_t>* sizes, bool equal) {
  const TensorShape& in = c->input(value_input);
  TensorShape unused;
  DFLOW_RETURN_IF_ERROR(
      c->WithRank(c->input(axis_input), 0, "input 'split_dim'", &unused));
  std::vector<int64_t> axis_value;
  const bool axis_known =
      c->ConstantInputAsInts(axis_input, &axis_value) && axis_value.size() == 1;
  for (int i = 0; i < c->num_outputs(); ++i) {
    c->set_output(i, RankKnown(in) ? TensorShape::UnknownWithRank(in.rank())
                                   : TensorShape::Unknown());
  }
  if (!axis_known || !RankKnown(in)) return absl::OkStatus();
  int64_t axis;
  DFLOW_RETURN_IF_ERROR(
      CanonicalAxis(axis_value[0], in.rank(), "split_dim", in, &axis));
  const int64_t dim = in.dim(static_cast<int>(axis));
  const int64_t n = c->num_outputs();
  std::vector<int64_t> out_sizes;
  if (sizes == nullptr && !equal) {
    out_sizes.assign(n, -1);
  } else if (sizes == nullptr) {
    if (dim >= 0 && dim % n != 0) {
      return InvalidArgument("dimension ", axis, " of value ", in.ToString(),
                             " (", dim,
                             ") is not evenly divisible by num_split ", n);
    }
    out_sizes.assign(n, dim < 0 ? -1 : dim / n);
  } else {  // SplitV.
    out_sizes = *sizes;
    int64_t known = 0;
    int unknown = -1;
    for (int i = 0; i < n; ++i) {
      if (out_sizes[i] == -1 && unknown < 0) {
        unknown = i;
      } else if (out_sizes[i] < 0) {
        return InvalidArgument("size_splits ", Ints(*sizes),
                               " may hold only one -1 and no other negative "
                               "size");
      } else if (__builtin_add_overflow(known, out_sizes[i], &known)) {
        return InvalidArgument("size_splits ", Ints(*sizes), " overflows");
      }
    }
    if (dim >= 0 && (unknown < 0 ? known != dim : known > dim)) {
      return InvalidArgument("size_splits ", Ints(*sizes), " do not add up to ",
                             "dimension ", axis, " of value ", in.ToString(),
                             " (", dim, ")");
    }
    if (unknown >= 0) out_sizes[unknown] = dim < 0 ? -1 : dim - known;
  }
  for (int i = 0; i < n; ++i) {
    TensorShape out = in;
    out.set_dim(static_cast<int>(axis), out_sizes[i]);
    c->set_output(i, out);
  }
  return absl::OkStatus();
}

absl::Status SplitShape(InferenceContext* c) {
  return SplitOutputs(c, /*value_input=*/1, /*axis_input=*/0, nullptr,
                      /*equal=*/true);
}

absl::Status SplitVShape(InferenceContext* c) {
  TensorShape sizes_shape;
  DFLOW_RETURN_IF_ERROR(
      c->WithRank(c->input(1), 1, "input 'size_splits'", &sizes_shape));
  if (sizes_shape.dim(0) >= 0 && sizes_shape.dim(0) != c->num_outputs()) {
    return InvalidArgument("size_splits of shape ", sizes_shape.ToString(),
                           " must have num_split = ", c->num_outputs(),
                           " entries");
  }
  std::vector<int64_t> sizes;
  if (!c->ConstantInputAsInts(1, &sizes)) {
    return SplitOutputs(c, 0, 2, nullptr, /*equal=*/false);
  }
  if (static_cast<int>(sizes.size()) != c->num_outputs()) {
    return InvalidArgument("size_splits ", Ints(sizes),
                           " must have num_split = ", c->num_outputs(),
                           " entries");
  }
  return SplitOutputs(c, 0, 2, &sizes, /*equal=*/false);
}

absl::Status TileShape(InferenceContext* c) {
  const TensorShape& in = c->input(0);
  TensorShape multiples_shape;
  DFLOW_RETURN_IF_ERROR(
      c->WithRank(c->input(1), 1, "input 'multiples'", &multiples_shape));
  const int64_t n = multiples_shape.dim(0);
  DFLOW_RETURN_IF_ERROR(CheckRank(n, "input 'multiples'"));
  if (RankKnown(in) && n >= 0 && n != in.rank()) {
    return InvalidArgument("multiples of shape ", multiples_shape.ToString(),
                           " must have one entry per dimension of the input ",
                           in.ToString());
  }
  std::vector<int64_t> multiples;
  TensorShape partial;
  if (c->ConstantInputAsInts(1, &multiples)) {
    for (int64_t m : multiples) {
      if (m < 0) {
        return InvalidArgument("multiples ", Ints(multiples),
                               " must be >= 0 (input ", in.ToString(), ")");
      }
    }
    partial = TensorShape(absl::MakeConstSpan(multiples));
  } else if (!InputAsPartialShape(c, 1, &partial)) {
    partial = RankKnown(in) ? TensorShape::UnknownWithRank(in.rank())
                            : TensorShape::Unknown();
  }
  if (RankKnown(in) && RankKnown(partial) && partial.rank() != in.rank()) {
    return InvalidArgument("multiples ", partial.ToString(),
                           " must have one entry per dimension of the input ",
                           in.ToString());
  }
  if (!RankKnown(partial)) {
    c->set_output(0, n >= 0 ? TensorShape::UnknownWithRank(static_cast<int>(n))
                            : TensorShape::Unknown());
    return absl::OkStatus();
  }
  TensorShape out = TensorShape::UnknownWithRank(partial.rank());
  for (int i = 0; i < partial.rank(); ++i) {
    const int64_t d = RankKnown(in) ? in.dim(i) : -1, m = partial.dim(i);
    int64_t product;
    if (d == 0 || m == 0) {
      out.set_dim(i, 0);
    } else if (d >= 0 && m >= 0 && !__builtin_mul_overflow(d, m, &product)) {
      out.set_dim(i, product);
    }
  }
  c->set_output(0, out);
  return absl::OkStatus();
}

absl::Status PackShape(InferenceContext* c) {
  int64_t axis;
  DFLOW_RETURN_IF_ERROR(c->GetAttr("axis", &axis));
  TensorShape merged = TensorShape::Unknown();
  int first = -1;
  for (int i = 0; i < c->num_inputs(); ++i) {
    const TensorShape& s = c->input(i);
    if (!s.IsCompatibleWith(merged)) {
      return InvalidArgument("shapes of all values must match: values[", first,
                             "] has shape ", c->input(first).ToString(),
                             " but values[", i, "] has shape ", s.ToString());
    }
    if (RankKnown(s) && first < 0) first = i;
    absl::StatusOr<TensorShape> m = merged.Merge(s);
    if (!m.ok()) return m.status();
    merged = *std::move(m);
  }
  if (!RankKnown(merged)) {
    c->set_output(0, TensorShape::Unknown());
    return absl::OkStatus();
  }
  int64_t canonical;
  DFLOW_RETURN_IF_ERROR(
      CanonicalAxis(axis, merged.rank() + 1, "axis", merged, &canonical));
  TensorShape out = merged;
  out.InsertDim(static_cast<int>(canonical), c->num_inputs());
  c->set_output(0, out);
  // Packed integer scalars make a shape vector (e.g. [batch, -1]).
  const DataType t = c->input_type(0);
  if (merged.rank() == 0 && (t == DT_INT32 || t == DT_INT64)) {
    TensorShape value;
    for (int i = 0; i < c->num_inputs(); ++i) {
      TensorShape v;
      value.AddDim(
          InputAsPartialShape(c, i, &v, /*allow_scalar=*/true) ? v.dim(0) : -1);
    }
    c->set_output_shape_value(0, value);
  }
  return absl::OkStatus();
}

absl::Status UnpackShape(InferenceContext* c) {
  const TensorShape& in = c->input(0);
  int64_t axis;
  DFLOW_RETURN_IF_ERROR(c->GetAttr("axis", &axis));
  TensorShape out = TensorShape::Unknown();
  if (RankKnown(in)) {
    int64_t canonical;
    DFLOW_RETURN_IF_ERROR(
        CanonicalAxis(axis, in.rank(), "axis", in, &canonical));
    const int64_t dim = in.dim(static_cast<int>(canonical));
    if (dim >= 0 && dim != c->num_outputs()) {
      return InvalidArgument("dimension ", canonical, " of value ",
                             in.ToString(), " is ", dim, " but num is ",
                             c->num_outputs());
    }
    out = in;
    out.RemoveDim(static_cast<int>(canonical));
  }
  for (int i = 0; i < c->num_outputs(); ++i) c->set_output(i, out);
  return absl::OkStatus();
}

// --- Padding. ---

absl::Status PadShape(InferenceContext* c) {
  const TensorShape& in = c->input(0);
  TensorShape paddings_shape;
  DFLOW_RETURN_IF_ERROR(
      c->WithRank(c->input(1), 2, "input 'paddings'", &paddings_shape));
  if (paddings_shape.dim(1) >= 0 && paddings_shape.dim(1) != 2) {
    return InvalidArgument("paddings of shape ", paddings_shape.ToString(),
                           " must have 2 columns (before, after)");
  }
  int64_t n = paddings_shape.dim(0);
  if (RankKnown(in)) {
    DFLOW_RETURN_IF_ERROR(c->MergeDim(
        n, in.rank(), "rows of 'paddings' and rank of 'input'", &n));
  }
  DFLOW_RETURN_IF_ERROR(CheckRank(n, "input 'paddings'"));
  std::vector<int64_t> paddings;
  if (!c->ConstantInputAsInts(1, &paddings)) {
    c->set_output(0, n >= 0 ? TensorShape::UnknownWithRank(static_cast<int>(n))
                            : TensorShape::Unknown());
    return absl::OkStatus();
  }
  n = static_cast<int64_t>(paddings.size()) / 2;
  TensorShape out = TensorShape::UnknownWithRank(static_cast<int>(n));
  for (int i = 0; i < n; ++i) {
    const int64_t before = paddings[2 * i], after = paddings[2 * i + 1];
    if (before < 0 || after < 0) {
      return InvalidArgument("paddings ", Ints(paddings),
                             " must be non-negative (input ", in.ToString(),
                             ")");
    }
    const int64_t d = RankKnown(in) ? in.dim(i) : -1;
    int64_t size;
    if (d >= 0 && !__builtin_add_overflow(d, before, &size) &&
        !__builtin_add_overflow(size, after, &size)) {
      out.set_dim(i, size);
    }
  }
  c->set_output(0, out);
  return absl::OkStatus();
}

// Pad's shape, and constant_values must be a scalar.
absl::Status PadV2Shape(InferenceContext* c) {
  TensorShape scalar;
  DFLOW_RETURN_IF_ERROR(
      c->WithRank(c->input(2), 0, "input 'constant_values'", &scalar));
  return PadShape(c);
}

// The padded input less the paddings; each dimension is unknown unless
// both it and the (constant) paddings are known.
absl::Status MirrorPadGradShape(InferenceContext* c) {
  const TensorShape& in = c->input(0);
  TensorShape paddings_shape;
  DFLOW_RETURN_IF_ERROR(
      c->WithRank(c->input(1), 2, "input 'paddings'", &paddings_shape));
  int64_t n = paddings_shape.dim(0);
  if (RankKnown(in)) {
    DFLOW_RETURN_IF_ERROR(c->MergeDim(
        n, in.rank(), "rows of 'paddings' and rank of 'input'", &n));
  }
  std::vector<int64_t> paddings;
  if (n < 0 || !c->ConstantInputAsInts(1, &paddings) ||
      static_cast<int64_t>(paddings.size()) != 2 * n) {
    c->set_output(0, n >= 0 ? TensorShape::UnknownWithRank(static_cast<int>(n))
                            : TensorShape::Unknown());
    return absl::OkStatus();
  }
  TensorShape out = TensorShape::UnknownWithRank(static_cast<int>(n));
  for (int i = 0; i < n; ++i) {
    const int64_t d = RankKnown(in) ? in.dim(i) : -1;
    const int64_t kept = d - paddings[2 * i] - paddings[2 * i + 1];
    if (paddings[2 * i] < 0 || paddings[2 * i + 1] < 0 ||
        (d >= 0 && kept < 0)) {
      return InvalidArgument("paddings ", Ints(paddings),
                             " must be non-negative and fit in the padded ",
                             "input ", in.ToString());
    }
    if (d >= 0) out.set_dim(i, kept);
  }
  c->set_output(0, out);
  return absl::OkStatus();
}

// --- Gradient helpers. ---

absl::Status ConcatOffsetShape(InferenceContext* c) {
  TensorShape unused;
  DFLOW_RETURN_IF_ERROR(
      c->WithRank(c->input(0), 0, "input 'concat_dim'", &unused));
  // Every offset vector has the length of its shape vector; they all agree.
  TensorShape merged = TensorShape({-1});
  for (int i = 1; i < c->num_inputs(); ++i) {
    TensorShape s;
    DFLOW_RETURN_IF_ERROR(c->WithRank(
        c->input(i), 1, absl::StrCat("input 'shape[", i - 1, "]'"), &s));
    TensorShape both;
    DFLOW_RETURN_IF_ERROR(
        c->MergeShapes(merged, s, "the lengths of the shape vectors", &both));
    merged = both;
  }
  for (int i = 0; i < c->num_outputs(); ++i) c->set_output(i, merged);
  return absl::OkStatus();
}

}  // namespace

// --- Registrations (TensorFlow's schemas). ---

DFLOW_REGISTER_OP("ConcatV2")
    .Input("values: N * T")
    .Input("axis: Tidx")
    .Output("output: T")
    .Attr("N: int >= 2")
    .Attr("T: type")
    .Attr("Tidx: {int32, int64} = DT_INT32")
    .SetShapeFn(ConcatV2Shape)
    .Doc("Concatenates `values` along `axis`.");

DFLOW_REGISTER_OP("Split")
    .Input("split_dim: int32")
    .Input("value: T")
    .Output("output: num_split * T")
    .Attr("num_split: int >= 1")
    .Attr("T: type")
    .SetShapeFn(SplitShape)
    .Doc("Splits `value` into `num_split` equal parts along `split_dim`.");

DFLOW_REGISTER_OP("SplitV")
    .Input("value: T")
    .Input("size_splits: Tlen")
    .Input("split_dim: int32")
    .Output("output: num_split * T")
    .Attr("num_split: int >= 1")
    .Attr("T: type")
    .Attr("Tlen: {int8, int32, int64} = DT_INT64")
    .SetShapeFn(SplitVShape)
    .Doc("Splits `value` into parts of sizes `size_splits` along `split_dim`.");

DFLOW_REGISTER_OP("Tile")
    .Input("input: T")
    .Input("multiples: Tmultiples")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tmultiples: {int32, int64} = DT_INT32")
    .SetShapeFn(TileShape)
    .Doc("Repeats `input` `multiples[i]` times along dimension i.");

DFLOW_REGISTER_OP("Pack")
    .Input("values: N * T")
    .Output("output: T")
    .Attr("N: int >= 1")
    .Attr("T: type")
    .Attr("axis: int = 0")
    .SetShapeFn(PackShape)
    .Doc("Stacks `values` along a new dimension `axis`.");

DFLOW_REGISTER_OP("Unpack")
    .Input("value: T")
    .Output("output: num * T")
    .Attr("num: int >= 0")
    .Attr("T: type")
    .Attr("axis: int = 0")
    .SetShapeFn(UnpackShape)
    .Doc("The slices of `value` along dimension `axis`.");

DFLOW_REGISTER_OP("Pad")
    .Input("input: T")
    .Input("paddings: Tpaddings")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tpaddings: {int32, int64} = DT_INT32")
    .SetShapeFn(PadShape)
    .Doc(
        "`input` with paddings[i] = [before, after] zeros around dimension i.");

DFLOW_REGISTER_OP("PadV2")
    .Input("input: T")
    .Input("paddings: Tpaddings")
    .Input("constant_values: T")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tpaddings: {int32, int64} = DT_INT32")
    .SetShapeFn(PadV2Shape)
    .Doc("Pad with the scalar `constant_values` instead of zeros.");

DFLOW_REGISTER_OP("MirrorPad")
    .Input("input: T")
    .Input("paddings: Tpaddings")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tpaddings: {int32, int64} = DT_INT32")
    .Attr("mode: {'REFLECT', 'SYMMETRIC'}")
    .SetShapeFn(PadShape)
    .Doc(
        "`input` padded with its own mirror image: REFLECT leaves out the "
        "edge element (paddings < dim), SYMMETRIC repeats it (<= dim).");

DFLOW_REGISTER_OP("MirrorPadGrad")
    .Input("input: T")
    .Input("paddings: Tpaddings")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tpaddings: {int32, int64} = DT_INT32")
    .Attr("mode: {'REFLECT', 'SYMMETRIC'}")
    .SetShapeFn(MirrorPadGradShape)
    .Doc(
        "The gradient of MirrorPad: each padded element's value added to "
        "the element it mirrors.");

DFLOW_REGISTER_OP("ConcatOffset")
    .Input("concat_dim: int32")
    .Input("shape: N * shape_type")
    .Output("offset: N * shape_type")
    .Attr("N: int >= 2")
    .Attr("shape_type: {int32, int64} = DT_INT32")
    .SetShapeFn(ConcatOffsetShape)
    .Doc(
        "Where each of the tensors of shapes `shape` starts in their "
        "concatenation along `concat_dim`.");

// --- Wrappers. ---

namespace ops {

Output ConcatV2(const Scope& scope, absl::Span<const Output> values,
                Input axis) {
  if (values.size() == 1) return Identity(scope, values[0]);
  return FirstOutput(
      OpBuilder(scope, "ConcatV2").InputList(values).Input(axis).Finalize());
}

OutputList Split(const Scope& scope, Input axis, Input value, int num_split) {
  return AllOutputs(OpBuilder(scope, "Split")
                        .Input(axis)
                        .Input(value)
                        .Attr("num_split", num_split)
                        .Finalize(),
                    num_split);
}

OutputList SplitV(const Scope& scope, Input value, Input size_splits,
                  Input axis, int num_split) {
  return AllOutputs(OpBuilder(scope, "SplitV")
                        .Input(value)
                        .Input(size_splits)
                        .Input(axis)
                        .Attr("num_split", num_split)
                        .Finalize(),
                    num_split);
}

Output Tile(const Scope& scope, Input input, Input multiples) {
  return FirstOutput(
      OpBuilder(scope, "Tile").Input(input).Input(multiples).Finalize());
}

Output Pack(const Scope& scope, absl::Span<const Output> values,
            const PackAttrs& attrs) {
  return FirstOutput(OpBuilder(scope, "Pack")
                         .InputList(values)
                         .Attr("axis", attrs.axis)
                         .Finalize());
}

OutputList Unpack(const Scope& scope, Input value, int num,
                  const UnpackAttrs& attrs) {
  return AllOutputs(OpBuilder(scope, "Unpack")
                        .Input(value)
                        .Attr("num", num)
                        .Attr("axis", attrs.axis)
                        .Finalize(),
                    num);
}

Output Pad(const Scope& scope, Input input, Input paddings) {
  return FirstOutput(
      OpBuilder(scope, "Pad").Input(input).Input(paddings).Finalize());
}

Output PadV2(const Scope& scope, Input input, Input paddings,
             Input constant_values) {
  return FirstOutput(OpBuilder(scope, "PadV2")
                         .Input(input)
                         .Input(paddings)
                         .Input(constant_values)
                         .Finalize());
}

Output MirrorPad(const Scope& scope, Input input, Input paddings,
                 const std::string& mode) {
  return FirstOutput(OpBuilder(scope, "MirrorPad")
                         .Input(input)
                         .Input(paddings)
                         .Attr("mode", mode)
                         .Finalize());
}

Output MirrorPadGrad(const Scope& scope, Input input, Input paddings,
                     const std::string& mode) {
  return FirstOutput(OpBuilder(scope, "MirrorPadGrad")
                         .Input(input)
                         .Input(paddings)
                         .Attr("mode", mode)
                         .Finalize());
}

OutputList ConcatOffset(const Scope& scope, Input concat_dim,
                        absl::Span<const Output> shapes) {
  return AllOutputs(OpBuilder(scope, "ConcatOffset")
                        .Input(concat_dim)
                        .InputList(shapes)
                        .Finalize(),
                    static_cast<int>(shapes.size()));
}

}  // namespace ops
}  // namespace dflow
