// Slicing ops, the slice half: Slice, StridedSlice and the gradient
// StridedSliceGrad, with their shape functions (TensorFlow's schemas) and
// builder wrappers. Part of the slicing_ops family declared in
// graph/ops/slicing_ops.h (the family's BUILD rule globs slicing_ops*.cc); it
// is split from slicing_ops.cc, which keeps the joining, splitting, tiling,
// packing and padding ops, only to keep each file to one concept.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "graph/op_registry.h"
#include "graph/ops/shape_fn_util.h"
#include "graph/ops/slicing_ops.h"
#include "graph/shape_inference.h"

namespace dflow {
namespace {

using shape_fn_util::CheckRank;
using shape_fn_util::FirstOutput;
using shape_fn_util::InputAsPartialShape;
using shape_fn_util::Ints;
using shape_fn_util::InvalidArgument;
using shape_fn_util::RankKnown;

// --- Slicing. ---

absl::Status SliceShape(InferenceContext* c) {
  const TensorShape& in = c->input(0);
  TensorShape begin_shape, size_shape;
  DFLOW_RETURN_IF_ERROR(
      c->WithRank(c->input(1), 1, "input 'begin'", &begin_shape));
  DFLOW_RETURN_IF_ERROR(
      c->WithRank(c->input(2), 1, "input 'size'", &size_shape));
  int64_t n;
  DFLOW_RETURN_IF_ERROR(c->MergeDim(begin_shape.dim(0), size_shape.dim(0),
                                    "lengths of 'begin' and 'size'", &n));
  DFLOW_RETURN_IF_ERROR(CheckRank(n, "input 'begin'"));
  if (RankKnown(in) && n >= 0 && n != in.rank()) {
    return InvalidArgument("begin and size of shape [", n,
                           "] must have one entry ",
                           "per dimension of the input ", in.ToString());
  }
  std::vector<int64_t> begin, size;
  const bool begin_known = c->ConstantInputAsInts(1, &begin);
  const bool size_known = c->ConstantInputAsInts(2, &size);
  TensorShape out;
  if (size_known) {
    out = TensorShape::UnknownWithRank(static_cast<int>(size.size()));
  } else if (!InputAsPartialShape(c, 2, &out)) {
    out = RankKnown(in) ? TensorShape::UnknownWithRank(in.rank())
          : n >= 0      ? TensorShape::UnknownWithRank(static_cast<int>(n))
                        : TensorShape::Unknown();
  }
  if (RankKnown(in) && RankKnown(out) && out.rank() != in.rank()) {
    return InvalidArgument("size ", out.ToString(), " must have one entry per ",
                           "dimension of the input ", in.ToString());
  }
  if (begin_known && size_known && begin.size() != size.size()) {
    return InvalidArgument("begin ", Ints(begin), " and size ", Ints(size),
                           " must have the same length");
  }
  const std::string args = absl::StrCat(
      "input ", in.ToString(), ", begin ", begin_known ? Ints(begin) : "?",
      ", size ", size_known ? Ints(size) : "?");
  for (int i = 0; i < out.rank() && size_known; ++i) {
    const int64_t dim = RankKnown(in) ? in.dim(i) : -1;
    if (size[i] < -1) {
      return InvalidArgument("size[", i, "] = ", size[i], " must be >= -1 (",
                             args, ")");
    }
    if (begin_known && (begin[i] < 0 || (dim >= 0 && begin[i] > dim))) {
      return InvalidArgument("begin[", i, "] = ", begin[i], " must be in [0, ",
                             dim, "] (", args, ")");
    }
    if (size[i] >= 0) {
      if (begin_known && dim >= 0 && size[i] > dim - begin[i]) {
        return InvalidArgument("begin[", i, "] + size[", i,
                               "] exceeds dimension ", i, " (", args, ")");
      }
      out.set_dim(i, size[i]);
    } else if (begin_known && dim >= 0) {
      out.set_dim(i, dim - begin[i]);
    }
  }
  c->set_output(0, out);
  return absl::OkStatus();
}

// One dimension of the input as a strided slice sees it.
struct DenseSliceDim {
  int64_t begin = 0, end = 0, stride = 1;
  bool begin_known = true, end_known = true;
  bool begin_masked = true, end_masked = true, shrink = false;
};

absl::Status StridedSliceShape(InferenceContext* c) {
  const TensorShape& in = c->input(0);
  const char* names[] = {"begin", "end", "strides"};
  int64_t n = -1;
  for (int i = 1; i <= 3; ++i) {
    TensorShape s;
    DFLOW_RETURN_IF_ERROR(c->WithRank(
        c->input(i), 1, absl::StrCat("input '", names[i - 1], "'"), &s));
    DFLOW_RETURN_IF_ERROR(c->MergeDim(
        n, s.dim(0), "lengths of 'begin', 'end' and 'strides'", &n));
  }
  std::vector<int64_t> strides, begin, end;
  if (!RankKnown(in) || !c->ConstantInputAsInts(3, &strides)) {
    c->set_output(0, TensorShape::Unknown());
    return absl::OkStatus();
  }
  const bool begin_known = c->ConstantInputAsInts(1, &begin);
  const bool end_known = c->ConstantInputAsInts(2, &end);
  const int sparse = static_cast<int>(strides.size());
  if ((begin_known && begin.size() != strides.size()) ||
      (end_known && end.size() != strides.size())) {
    return InvalidArgument("begin ", begin_known ? Ints(begin) : "?", ", end ",
                           end_known ? Ints(end) : "?", " and strides ",
                           Ints(strides), " must have the same length");
  }
  if (sparse > 62) {
    return InvalidArgument("a strided slice may have at most 62 entries, got ",
                           sparse);
  }
  int64_t masks[5];
  const char* mask_names[] = {"begin_mask", "end_mask", "ellipsis_mask",
                              "new_axis_mask", "shrink_axis_mask"};
  for (int i = 0; i < 5; ++i) {
    DFLOW_RETURN_IF_ERROR(c->GetAttr(mask_names[i], &masks[i]));
  }
  auto bit = [&](int mask, int i) { return ((masks[mask] >> i) & 1) != 0; };
  const std::string spec = absl::StrCat(
      "input ", in.ToString(), ", begin ", begin_known ? Ints(begin) : "?",
      ", end ", end_known ? Ints(end) : "?", ", strides ", Ints(strides));
  // Where the ellipsis is (one at the end if there is none), and how many new
  // axes follow it: the ellipsis covers the dims the other entries leave.
  int ellipsis = -1, new_after_ellipsis = 0;
  for (int i = 0; i < sparse; ++i) {
    if (bit(2, i)) {
      if (ellipsis >= 0) {
        return InvalidArgument("a slice may have only one ellipsis (",
                               "ellipsis_mask ", masks[2], ")");
      }
      ellipsis = i;
    } else if (ellipsis >= 0 && bit(3, i)) {
      ++new_after_ellipsis;
    }
  }
  const int total = ellipsis >= 0 ? sparse : sparse + 1;
  if (ellipsis < 0) ellipsis = sparse;
  const int rank = in.rank();
  std::vector<DenseSliceDim> dense(rank);
  constexpr int kNewAxis = -1, kShrinkAxis = -2;
  std::vector<int> gather;  // Per output dim: a dense dim or kNewAxis.
  int full = 0;
  for (int i = 0; i < total; ++i) {
    if (i == ellipsis) {
      const int next =
          std::min(rank - (total - i) + 1 + new_after_ellipsis, rank);
      for (; full < next; ++full) gather.push_back(full);
      continue;
    }
    if (bit(3, i)) {
      gather.push_back(kNewAxis);
      continue;
    }
    if (full >= rank) {
      return InvalidArgument("the slice has more entries than the input has ",
                             "dimensions (", spec, ")");
    }
    DenseSliceDim& d = dense[full];
    d.stride = strides[i];
    d.begin_known = begin_known;
    d.end_known = end_known;
    d.begin = begin_known ? begin[i] : 0;
    d.end = end_known ? end[i] : 0;
    d.begin_masked = bit(0, i);
    d.end_masked = bit(1, i);
    d.shrink = bit(4, i);
    gather.push_back(d.shrink ? kShrinkAxis : full);
    ++full;
  }
  std::vector<int64_t> sizes(rank, -1);
  for (int i = 0; i < rank; ++i) {
    const DenseSliceDim& d = dense[i];
    const int64_t dim = in.dim(i);
    if (d.stride == 0)
      return InvalidArgument("strides must be non-zero (", spec, ")");
    if (d.shrink && d.stride < 0) {
      return InvalidArgument("only stride 1 is allowed on an index that ",
                             "removes a dimension (", spec, ")");
    }
    if (d.shrink) {
      const int64_t index = d.begin < 0 && dim >= 0 ? dim + d.begin : d.begin;
      if (d.begin_known && dim >= 0 && (index < 0 || index >= dim)) {
        return InvalidArgument("index ", d.begin, " is out of bounds for ",
                               "dimension ", i, " of size ", dim, " (", spec,
                               ")");
      }
      sizes[i] = 1;
      continue;
    }
    if (dim < 0) continue;
    const bool fwd = d.stride > 0;
    auto canonical = [&](int64_t x, bool masked, bool is_begin) -> int64_t {
      if (masked) return fwd ? (is_begin ? 0 : dim) : (is_begin ? dim - 1 : -1);
      const int64_t x_fwd = x < 0 ? dim + x : x;
      return fwd ? std::clamp<int64_t>(x_fwd, 0, dim)
                 : std::clamp<int64_t>(x_fwd, -1, dim - 1);
    };
    if (!(d.begin_known || d.begin_masked) || !(d.end_known || d.end_masked)) {
      continue;
    }
    const int64_t b = canonical(d.begin, d.begin_masked, true);
    const int64_t e = canonical(d.end, d.end_masked, false);
    const int64_t interval = e - b;
    if (interval == 0 || (interval < 0) != (d.stride < 0)) {
      sizes[i] = 0;
    } else {
      sizes[i] = interval / d.stride + (interval % d.stride != 0 ? 1 : 0);
    }
  }
  TensorShape out;
  for (int g : gather) {
    if (g == kNewAxis) out.AddDim(1);
    if (g >= 0) out.AddDim(sizes[g]);
  }
  c->set_output(0, out);
  // A slice of a shape vector is a shape vector (or, with a shrink, one dim
  // kept as a one-dimensional shape value; see InputAsPartialShape).
  TensorShape value;
  if (rank == 1 && gather.size() == 1 && sizes[0] >= 0 &&
      InputAsPartialShape(c, 0, &value) && value.rank() == in.dim(0)) {
    const DenseSliceDim& d = dense[0];
    const int64_t dim = in.dim(0);
    int64_t pos = d.begin_masked && !d.shrink
                      ? (d.stride > 0 ? 0 : dim - 1)
                      : (d.begin < 0 ? dim + d.begin : d.begin);
    pos = d.stride > 0 ? std::clamp<int64_t>(pos, 0, dim)
                       : std::clamp<int64_t>(pos, -1, dim - 1);
    TensorShape sliced;
    const bool start_known = d.begin_known || (d.begin_masked && !d.shrink);
    for (int64_t k = 0; k < sizes[0] && start_known; ++k, pos += d.stride) {
      sliced.AddDim(value.dim(static_cast<int>(pos)));
    }
    if (sliced.rank() == sizes[0]) c->set_output_shape_value(0, sliced);
  }
  return absl::OkStatus();
}

// --- Slicing gradients. ---

// The output has the shape `shape` holds: that of StridedSlice's input.
absl::Status StridedSliceGradShape(InferenceContext* c) {
  const char* names[] = {"shape", "begin", "end", "strides"};
  int64_t n = -1;
  for (int i = 0; i < 4; ++i) {
    TensorShape s;
    DFLOW_RETURN_IF_ERROR(c->WithRank(
        c->input(i), 1, absl::StrCat("input '", names[i], "'"), &s));
    if (i > 0) {
      DFLOW_RETURN_IF_ERROR(c->MergeDim(
          n, s.dim(0), "lengths of 'begin', 'end' and 'strides'", &n));
    }
  }
  TensorShape out;
  DFLOW_RETURN_IF_ERROR(c->ShapeFromShapeTensor(0, &out));
  c->set_output(0, out);
  return absl::OkStatus();
}

}  // namespace

// --- Registrations (TensorFlow's schemas). ---

DFLOW_REGISTER_OP("Slice")
    .Input("input: T")
    .Input("begin: Index")
    .Input("size: Index")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Index: {int32, int64}")
    .SetShapeFn(SliceShape)
    .Doc("`size` elements from `begin` in each dimension (-1: the rest).");

DFLOW_REGISTER_OP("StridedSlice")
    .Input("input: T")
    .Input("begin: Index")
    .Input("end: Index")
    .Input("strides: Index")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Index: {int16, int32, int64}")
    .Attr("begin_mask: int = 0")
    .Attr("end_mask: int = 0")
    .Attr("ellipsis_mask: int = 0")
    .Attr("new_axis_mask: int = 0")
    .Attr("shrink_axis_mask: int = 0")
    .SetShapeFn(StridedSliceShape)
    .Doc("NumPy-style `input[begin:end:strides]`.");

DFLOW_REGISTER_OP("StridedSliceGrad")
    .Input("shape: Index")
    .Input("begin: Index")
    .Input("end: Index")
    .Input("strides: Index")
    .Input("dy: T")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Index: {int32, int64}")
    .Attr("begin_mask: int = 0")
    .Attr("end_mask: int = 0")
    .Attr("ellipsis_mask: int = 0")
    .Attr("new_axis_mask: int = 0")
    .Attr("shrink_axis_mask: int = 0")
    .SetShapeFn(StridedSliceGradShape)
    .Doc("The gradient of StridedSlice: `dy` scattered into zeros of `shape`.");

// `var[begin:end:strides] = value` on a reference variable (returned) or
// a resource variable (no output); the value's shape is checked when the
// kernel knows the variable's (TensorFlow's shape functions check nothing
// more).
DFLOW_REGISTER_OP("StridedSliceAssign")
    .Input("ref: Ref(T)")
    .Input("begin: Index")
    .Input("end: Index")
    .Input("strides: Index")
    .Input("value: T")
    .Output("output_ref: Ref(T)")
    .Attr("T: type")
    .Attr("Index: {int32, int64}")
    .Attr("begin_mask: int = 0")
    .Attr("end_mask: int = 0")
    .Attr("ellipsis_mask: int = 0")
    .Attr("new_axis_mask: int = 0")
    .Attr("shrink_axis_mask: int = 0")
    .SetShapeFn([](InferenceContext* c) {
      c->set_output(0, c->input(0));
      return absl::OkStatus();
    })
    .Doc("`ref[begin:end:strides] = value` (a reference variable).");

DFLOW_REGISTER_OP("ResourceStridedSliceAssign")
    .Input("ref: resource")
    .Input("begin: Index")
    .Input("end: Index")
    .Input("strides: Index")
    .Input("value: T")
    .Attr("T: type")
    .Attr("Index: {int32, int64}")
    .Attr("begin_mask: int = 0")
    .Attr("end_mask: int = 0")
    .Attr("ellipsis_mask: int = 0")
    .Attr("new_axis_mask: int = 0")
    .Attr("shrink_axis_mask: int = 0")
    .SetIsStateful()
    .SetShapeFn([](InferenceContext*) { return absl::OkStatus(); })
    .Doc("`ref[begin:end:strides] = value` (a resource variable).");

// --- Wrappers. ---

namespace ops {

Output Slice(const Scope& scope, Input input, Input begin, Input size) {
  return FirstOutput(OpBuilder(scope, "Slice")
                         .Input(input)
                         .Input(begin)
                         .Input(size)
                         .Finalize());
}

namespace {

// The five mask attrs every strided slice op carries.
OpBuilder& WithMasks(OpBuilder& b, const StridedSliceAttrs& attrs) {
  return b.Attr("begin_mask", attrs.begin_mask)
      .Attr("end_mask", attrs.end_mask)
      .Attr("ellipsis_mask", attrs.ellipsis_mask)
      .Attr("new_axis_mask", attrs.new_axis_mask)
      .Attr("shrink_axis_mask", attrs.shrink_axis_mask);
}

}  // namespace

Output StridedSlice(const Scope& scope, Input input, Input begin, Input end,
                    Input strides, const StridedSliceAttrs& attrs) {
  OpBuilder b(scope, "StridedSlice");
  b.Input(input).Input(begin).Input(end).Input(strides);
  return FirstOutput(WithMasks(b, attrs).Finalize());
}

Output StridedSliceGrad(const Scope& scope, Input shape, Input begin, Input end,
                        Input strides, Input dy,
                        const StridedSliceAttrs& attrs) {
  OpBuilder b(scope, "StridedSliceGrad");
  b.Input(shape).Input(begin).Input(end).Input(strides).Input(dy);
  return FirstOutput(WithMasks(b, attrs).Finalize());
}

namespace {

Operation BuildStridedSliceAssign(const Scope& scope, const char* op,
                                  Input ref, Input begin, Input end,
                                  Input strides, Input value,
                                  const StridedSliceAttrs& attrs) {
  OpBuilder b(scope, op);
  b.Input(ref).Input(begin).Input(end).Input(strides).Input(value);
  return WithMasks(b, attrs).Finalize();
}

}  // namespace

Output StridedSliceAssign(const Scope& scope, Input ref, Input begin,
                          Input end, Input strides, Input value,
                          const StridedSliceAttrs& attrs) {
  Operation op = BuildStridedSliceAssign(scope, "StridedSliceAssign", ref,
                                         begin, end, strides, value, attrs);
  return op.valid() ? op.output(0) : Output();
}

Operation ResourceStridedSliceAssign(const Scope& scope, Input ref,
                                     Input begin, Input end, Input strides,
                                     Input value,
                                     const StridedSliceAttrs& attrs) {
  return BuildStridedSliceAssign(scope, "ResourceStridedSliceAssign", ref,
                                 begin, end, strides, value, attrs);
}

}  // namespace ops
}  // namespace dflow
