// Gradients of the array, shape and slicing ops (graph/ops/array_ops.h,
// shape_ops.h, slicing_ops.h): data movement, whose gradient moves the
// gradient back.
//
// Shapes the gradient needs (x's shape to reshape to, paddings, split
// sizes) are Consts when the static shapes and index inputs are known, so
// a graph of known shapes gets no Shape ops; otherwise they are computed
// at run time from Shape, which handles an unknown batch dimension.
#include <cstdint>
#include <limits>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/gradients/grad_helpers.h"
#include "graph/gradients/grad_registry.h"
#include "graph/ops/ops.h"

namespace dflow {
namespace {

// An int32 or int64 Const of `values` in `shape` (a vector by default).
Output IntConst(const Scope& scope, const std::vector<int64_t>& values,
                DataType type, TensorShape shape = TensorShape::Unknown()) {
  if (shape.unknown_rank()) shape = TensorShape({int64_t(values.size())});
  if (type == DT_INT64)
    return ops::Const(scope, Tensor::FromVector(values, shape));
  std::vector<int32_t> narrow(values.begin(), values.end());
  return ops::Const(scope, Tensor::FromVector(narrow, shape));
}

bool FitsInt32(const std::vector<int64_t>& values) {
  for (int64_t v : values) {
    if (v > std::numeric_limits<int32_t>::max() ||
        v < std::numeric_limits<int32_t>::min()) {
      return false;
    }
  }
  return true;
}

// x's shape as a `type` vector: a Const when it is statically known, else
// Shape(x).
Output ShapeOf(const Scope& scope, const Output& x, DataType type = DT_INT32) {
  const TensorShape s = x.shape();
  if (s.IsFullyDefined()) {
    std::vector<int64_t> dims(s.dims().begin(), s.dims().end());
    if (type == DT_INT64 || FitsInt32(dims)) {
      return IntConst(scope, dims, type);
    }
  }
  return ops::Shape(scope, x, ops::ShapeAttrs().OutType(type));
}

// The sum of every element of `g`, as a scalar.
Output SumAll(const Scope& scope, const Output& g) {
  const int rank = g.shape().rank();
  if (rank == 0) return g;
  if (rank < 0) {
    return ops::Sum(scope, ops::Reshape(scope, g, {-1}), 0);
  }
  std::vector<int64_t> axes(rank);
  std::iota(axes.begin(), axes.end(), 0);
  return ops::Sum(scope, g, IntConst(scope, axes, DT_INT32));
}

// Every grad_outputs entry holds a gradient (false for dtypes that carry
// none, such as int32 pieces of a Split).
bool AllValid(absl::Span<const Output> grads) {
  for (const Output& g : grads) {
    if (!g.valid()) return false;
  }
  return true;
}

// Maps a build-time axis to [0, rank), or returns false when it is out of
// range (the forward op reports that).
bool Canonical(int64_t axis, int64_t rank, int64_t* out) {
  if (axis < -rank || axis >= rank) return false;
  *out = axis < 0 ? axis + rank : axis;
  return true;
}

// --- Identities. ---

absl::Status IdentityGrad(const Scope& /*scope*/, const Operation& /*op*/,
                          absl::Span<const Output> grad_outputs,
                          std::vector<Output>* grad_inputs) {
  *grad_inputs = {grad_outputs[0]};
  return absl::OkStatus();
}
DFLOW_REGISTER_GRADIENT("Identity", IdentityGrad);
DFLOW_REGISTER_GRADIENT("PlaceholderWithDefault", IdentityGrad);

absl::Status IdentityNGrad(const Scope& /*scope*/, const Operation& /*op*/,
                           absl::Span<const Output> grad_outputs,
                           std::vector<Output>* grad_inputs) {
  grad_inputs->assign(grad_outputs.begin(), grad_outputs.end());
  return absl::OkStatus();
}
DFLOW_REGISTER_GRADIENT("IdentityN", IdentityNGrad);

// StopGradient ends every path through it.
DFLOW_REGISTER_NO_GRADIENT("StopGradient");

// --- Creating tensors. ---

// Every element of the output is `value`: its gradient is the sum of g.
absl::Status FillGrad(const Scope& scope, const Operation& /*op*/,
                      absl::Span<const Output> grad_outputs,
                      std::vector<Output>* grad_inputs) {
  *grad_inputs = {NoGradient(), SumAll(scope, grad_outputs[0])};
  return absl::OkStatus();
}
DFLOW_REGISTER_GRADIENT("Fill", FillGrad);

// Outputs that do not depend on the input's values, or are integers.
DFLOW_REGISTER_NO_GRADIENT("ZerosLike");
DFLOW_REGISTER_NO_GRADIENT("OnesLike");
DFLOW_REGISTER_NO_GRADIENT("Range");
DFLOW_REGISTER_NO_GRADIENT("OneHot");

// --- Shapes. ---

DFLOW_REGISTER_NO_GRADIENT("Shape");
DFLOW_REGISTER_NO_GRADIENT("Size");
DFLOW_REGISTER_NO_GRADIENT("Rank");
DFLOW_REGISTER_NO_GRADIENT("BroadcastGradientArgs");
DFLOW_REGISTER_NO_GRADIENT("InvertPermutation");
DFLOW_REGISTER_NO_GRADIENT("ConcatOffset");
DFLOW_REGISTER_NO_GRADIENT("ShapeN");

// BroadcastTo: the gradient summed over the broadcast dimensions, back in
// the input's shape.
absl::Status BroadcastToGrad(const Scope& scope, const Operation& op,
                             absl::Span<const Output> grad_outputs,
                             std::vector<Output>* grad_inputs) {
  const Output x = op.input(0);
  grad_inputs->assign(2, NoGradient());
  const TensorShape xs = x.shape();
  if (xs.IsFullyDefined() && xs == op.output(0).shape()) {
    (*grad_inputs)[0] = grad_outputs[0];
    return absl::OkStatus();
  }
  const Output x_shape = ops::Shape(scope, x, ops::ShapeAttrs().OutType(
                                                  BaseType(op.input(1).dtype())));
  const Output axes =
      ops::BroadcastGradientArgs(scope, op.input(1), x_shape).r1;
  (*grad_inputs)[0] = ops::Reshape(
      scope,
      ops::Sum(scope, grad_outputs[0], axes,
               ops::ReductionAttrs().KeepDims(true)),
      x_shape);
  return absl::OkStatus();
}
DFLOW_REGISTER_GRADIENT("BroadcastTo", BroadcastToGrad);

// PreventGradient: differentiating through it is the error its message
// explains (TensorFlow raises LookupError there).
absl::Status PreventGradientGrad(const Scope&, const Operation& op,
                                 absl::Span<const Output>,
                                 std::vector<Output>*) {
  std::string message;
  op.node()->GetAttr("message", &message).IgnoreError();
  return absl::InvalidArgumentError(absl::StrCat(
      "node '", op.name(), "' (PreventGradient): Gradient explicitly "
      "disabled. Reason: ", message));
}
DFLOW_REGISTER_GRADIENT("PreventGradient", PreventGradientGrad);

// Reshape, ExpandDims, Squeeze: the same elements in another shape; the
// gradient takes x's shape back. The other inputs are shapes and axes.
absl::Status ReshapeGrad(const Scope& scope, const Operation& op,
                         absl::Span<const Output> grad_outputs,
                         std::vector<Output>* grad_inputs) {
  const Output x = op.input(0);
  grad_inputs->assign(op.node()->num_inputs(), NoGradient());
  (*grad_inputs)[0] = ops::Reshape(scope, grad_outputs[0], ShapeOf(scope, x));
  return absl::OkStatus();
}
DFLOW_REGISTER_GRADIENT("Reshape", ReshapeGrad);
DFLOW_REGISTER_GRADIENT("ExpandDims", ReshapeGrad);
DFLOW_REGISTER_GRADIENT("Squeeze", ReshapeGrad);

// y = transpose(x, perm): dx = transpose(dy, inverse(perm)). A Const perm
// is inverted here; any other at run time.
absl::Status TransposeGrad(const Scope& scope, const Operation& op,
                           absl::Span<const Output> grad_outputs,
                           std::vector<Output>* grad_inputs) {
  const Output perm = op.input(1);
  std::vector<int64_t> p;
  Output inverse;
  if (ConstantInts(perm, &p)) {
    std::vector<int64_t> inv(p.size(), -1);
    bool valid = true;
    for (size_t i = 0; i < p.size() && valid; ++i) {
      valid =
          p[i] >= 0 && p[i] < static_cast<int64_t>(p.size()) && inv[p[i]] < 0;
      if (valid) inv[p[i]] = static_cast<int64_t>(i);
    }
    if (valid) inverse = IntConst(scope, inv, DT_INT32);
  }
  if (!inverse.valid()) inverse = ops::InvertPermutation(scope, perm);
  *grad_inputs = {ops::Transpose(scope, grad_outputs[0], inverse),
                  NoGradient()};
  return absl::OkStatus();
}
DFLOW_REGISTER_GRADIENT("Transpose", TransposeGrad);

// --- Joining and splitting. ---

// Each input gets its part of g back. When the axis is a Const and the
// sizes along it are known (all but one at most: SplitV infers a -1), one
// SplitV cuts g; otherwise ConcatOffset finds where each input starts and
// a Slice per input takes it (any axis, negative too, any shapes).
absl::Status ConcatV2Grad(const Scope& scope, const Operation& op,
                          absl::Span<const Output> grad_outputs,
                          std::vector<Output>* grad_inputs) {
  const int n = op.node()->num_inputs() - 1;
  const Output axis = op.input(n), g = grad_outputs[0];
  grad_inputs->assign(n + 1, NoGradient());
  std::vector<Output> xs;
  int rank = -1;
  for (int i = 0; i < n; ++i) {
    xs.push_back(op.input(i));
    if (xs.back().shape().rank() >= 0) rank = xs.back().shape().rank();
  }
  std::vector<int64_t> axis_value;
  int64_t a = 0;
  if (ConstantInts(axis, &axis_value) && axis_value.size() == 1 && rank >= 0 &&
      Canonical(axis_value[0], rank, &a)) {
    std::vector<int64_t> sizes;
    int unknown = 0;
    for (const Output& x : xs) {
      const TensorShape s = x.shape();
      sizes.push_back(s.rank() == rank ? s.dim(static_cast<int>(a)) : -1);
      unknown += sizes.back() < 0;
    }
    if (unknown <= 1 && FitsInt32(sizes)) {
      OutputList parts = ops::SplitV(scope, g, IntConst(scope, sizes, DT_INT32),
                                     static_cast<int>(a), n);
      for (int i = 0; i < n; ++i) (*grad_inputs)[i] = parts[i];
      return absl::OkStatus();
    }
  }
  std::vector<Output> shapes;
  for (const Output& x : xs) shapes.push_back(ShapeOf(scope, x));
  const Output axis32 =
      axis.dtype() == DT_INT32 ? axis : ops::Cast(scope, axis, DT_INT32);
  OutputList offsets = ops::ConcatOffset(scope, axis32, shapes);
  for (int i = 0; i < n; ++i) {
    (*grad_inputs)[i] = ops::Slice(scope, g, offsets[i], shapes[i]);
  }
  return absl::OkStatus();
}
DFLOW_REGISTER_GRADIENT("ConcatV2", ConcatV2Grad);

// The pieces' gradients joined back along the split axis (an output that
// got no gradient has zeros there: see grad_registry.h).
absl::Status SplitGrad(const Scope& scope, const Operation& op,
                       absl::Span<const Output> grad_outputs,
                       std::vector<Output>* grad_inputs) {
  const Output axis = op.input(0);
  const std::vector<Output> grads(grad_outputs.begin(), grad_outputs.end());
  *grad_inputs = {NoGradient(), AllValid(grad_outputs)
                                    ? ops::Concat(scope, grads, axis)
                                    : NoGradient()};
  return absl::OkStatus();
}
DFLOW_REGISTER_GRADIENT("Split", SplitGrad);

absl::Status SplitVGrad(const Scope& scope, const Operation& op,
                        absl::Span<const Output> grad_outputs,
                        std::vector<Output>* grad_inputs) {
  const Output axis = op.input(2);
  const std::vector<Output> grads(grad_outputs.begin(), grad_outputs.end());
  *grad_inputs = {
      AllValid(grad_outputs) ? ops::Concat(scope, grads, axis) : NoGradient(),
      NoGradient(), NoGradient()};
  return absl::OkStatus();
}
DFLOW_REGISTER_GRADIENT("SplitV", SplitVGrad);

absl::Status PackGrad(const Scope& scope, const Operation& op,
                      absl::Span<const Output> grad_outputs,
                      std::vector<Output>* grad_inputs) {
  int64_t axis = 0;
  if (absl::Status s = op.node()->GetAttr("axis", &axis); !s.ok()) return s;
  const int n = op.node()->num_inputs();
  if (!grad_outputs[0].valid()) {
    grad_inputs->assign(n, NoGradient());
    return absl::OkStatus();
  }
  *grad_inputs =
      ops::Unpack(scope, grad_outputs[0], n, ops::UnpackAttrs().Axis(axis));
  return absl::OkStatus();
}
DFLOW_REGISTER_GRADIENT("Pack", PackGrad);

absl::Status UnpackGrad(const Scope& scope, const Operation& op,
                        absl::Span<const Output> grad_outputs,
                        std::vector<Output>* grad_inputs) {
  int64_t axis = 0;
  if (absl::Status s = op.node()->GetAttr("axis", &axis); !s.ok()) return s;
  if (!AllValid(grad_outputs) || grad_outputs.empty()) {
    *grad_inputs = {NoGradient()};
    return absl::OkStatus();
  }
  *grad_inputs = {ops::Pack(scope, grad_outputs, ops::PackAttrs().Axis(axis))};
  return absl::OkStatus();
}
DFLOW_REGISTER_GRADIENT("Unpack", UnpackGrad);

// y = tile(x, m): y viewed as [m0, d0, m1, d1, ...] holds m0*m1*... copies
// of x, so dx is g reshaped that way and summed over the m axes. With a
// Const m and x's dims known (one may be unknown: Reshape infers a -1) the
// shape and axes are Consts, and dimensions with m == 1 are not split.
absl::Status TileGrad(const Scope& scope, const Operation& op,
                      absl::Span<const Output> grad_outputs,
                      std::vector<Output>* grad_inputs) {
  const Output x = op.input(0), multiples = op.input(1), g = grad_outputs[0];
  const TensorShape xs = x.shape();
  const int rank = xs.rank();
  std::vector<int64_t> m;
  if (ConstantInts(multiples, &m) && rank >= 0 &&
      static_cast<int>(m.size()) == rank) {
    std::vector<int64_t> split_shape, axes;
    int unknown = 0;
    bool zero = false;
    for (int i = 0; i < rank; ++i) {
      if (m[i] != 1) {
        axes.push_back(static_cast<int64_t>(split_shape.size()));
        split_shape.push_back(m[i]);
      }
      split_shape.push_back(xs.dim(i));
      unknown += xs.dim(i) < 0;
      zero = zero || m[i] == 0 || xs.dim(i) == 0;
    }
    // A -1 next to a zero-sized dimension would be ambiguous.
    if (unknown == 0 || (unknown == 1 && !zero)) {
      Output dx = g;
      if (!axes.empty()) {
        dx = ops::Sum(
            scope,
            ops::Reshape(scope, g, IntConst(scope, split_shape, DT_INT64)),
            IntConst(scope, axes, DT_INT32));
      }
      *grad_inputs = {dx, NoGradient()};
      return absl::OkStatus();
    }
  }
  // split_shape = [m0, d0, m1, d1, ...] at run time.
  const DataType type = multiples.dtype();
  const Output split_shape = ops::Reshape(
      scope,
      ops::Pack(
          scope,
          {multiples, ops::Shape(scope, x, ops::ShapeAttrs().OutType(type))},
          ops::PackAttrs().Axis(1)),
      {-1});
  Output axes;
  if (rank >= 0) {
    std::vector<int64_t> even(rank);
    for (int i = 0; i < rank; ++i) even[i] = 2 * i;
    axes = IntConst(scope, even, DT_INT32);
  } else {
    axes = ops::Range(scope, 0, ops::Size(scope, split_shape), 2);
  }
  *grad_inputs = {ops::Sum(scope, ops::Reshape(scope, g, split_shape), axes),
                  NoGradient()};
  return absl::OkStatus();
}
DFLOW_REGISTER_GRADIENT("Tile", TileGrad);

// y = reverse(x, axis): reversing again along the same axes brings the
// gradient back.
absl::Status ReverseV2Grad(const Scope& scope, const Operation& op,
                           absl::Span<const Output> grad_outputs,
                           std::vector<Output>* grad_inputs) {
  *grad_inputs = {ops::ReverseV2(scope, grad_outputs[0], op.input(1)),
                  NoGradient()};
  return absl::OkStatus();
}
DFLOW_REGISTER_GRADIENT("ReverseV2", ReverseV2Grad);

// --- Slicing and padding. ---

// y = x[begin : begin + size]: dx is g padded with zeros back to x's
// shape, [begin, x - begin - size] in each dimension. The paddings are a
// Const when begin and size are (a size of -1 pads nothing after, whatever
// x's dimension) and x's dims are known where size is not -1.
absl::Status SliceGrad(const Scope& scope, const Operation& op,
                       absl::Span<const Output> grad_outputs,
                       std::vector<Output>* grad_inputs) {
  const Output x = op.input(0), begin = op.input(1), size = op.input(2);
  const Output g = grad_outputs[0];
  const TensorShape xs = x.shape();
  std::vector<int64_t> b, sz;
  Output paddings;
  if (ConstantInts(begin, &b) && ConstantInts(size, &sz) && b.size() == sz.size() &&
      xs.rank() == static_cast<int>(b.size())) {
    std::vector<int64_t> pads;
    bool known = true, none = true;
    for (size_t i = 0; i < b.size() && known; ++i) {
      const int64_t d = xs.dim(static_cast<int>(i));
      const int64_t after = sz[i] == -1 ? 0 : d - b[i] - sz[i];
      known = d >= 0 || sz[i] == -1;
      pads.push_back(b[i]);
      pads.push_back(after);
      none = none && b[i] == 0 && after == 0;
    }
    if (known && none) {
      *grad_inputs = {g, NoGradient(), NoGradient()};
      return absl::OkStatus();
    }
    if (known && FitsInt32(pads)) {
      paddings =
          IntConst(scope, pads, DT_INT32, TensorShape({int64_t(b.size()), 2}));
    }
  }
  if (!paddings.valid()) {
    const DataType type = begin.dtype();
    const Output after = ops::Sub(scope,
                                  ops::Sub(scope, ShapeOf(scope, x, type),
                                           ShapeOf(scope, op.output(0), type)),
                                  begin);
    paddings = ops::Pack(scope, {begin, after}, ops::PackAttrs().Axis(1));
  }
  *grad_inputs = {ops::Pad(scope, g, paddings), NoGradient(), NoGradient()};
  return absl::OkStatus();
}
DFLOW_REGISTER_GRADIENT("Slice", SliceGrad);

ops::StridedSliceAttrs MasksOf(const Operation& op, absl::Status* status) {
  ops::StridedSliceAttrs attrs;
  for (auto [name, field] :
       {std::pair<const char*, int64_t*>{"begin_mask", &attrs.begin_mask},
        {"end_mask", &attrs.end_mask},
        {"ellipsis_mask", &attrs.ellipsis_mask},
        {"new_axis_mask", &attrs.new_axis_mask},
        {"shrink_axis_mask", &attrs.shrink_axis_mask}}) {
    if (status->ok()) *status = op.node()->GetAttr(name, field);
  }
  return attrs;
}

// StridedSliceGrad writes g back where the slice read, with the same spec.
absl::Status StridedSliceGradient(const Scope& scope, const Operation& op,
                                  absl::Span<const Output> grad_outputs,
                                  std::vector<Output>* grad_inputs) {
  absl::Status status;
  const ops::StridedSliceAttrs attrs = MasksOf(op, &status);
  if (!status.ok()) return status;
  Output begin = op.input(1), end = op.input(2), strides = op.input(3);
  if (begin.dtype() != DT_INT32 && begin.dtype() != DT_INT64) {
    // int16 indices: StridedSliceGrad takes int32 or int64.
    begin = ops::Cast(scope, begin, DT_INT32);
    end = ops::Cast(scope, end, DT_INT32);
    strides = ops::Cast(scope, strides, DT_INT32);
  }
  const Output dx =
      ops::StridedSliceGrad(scope, ShapeOf(scope, op.input(0), begin.dtype()),
                            begin, end, strides, grad_outputs[0], attrs);
  *grad_inputs = {dx, NoGradient(), NoGradient(), NoGradient()};
  return absl::OkStatus();
}
DFLOW_REGISTER_GRADIENT("StridedSlice", StridedSliceGradient);

// StridedSliceGrad is linear in dy: its gradient is the slice itself.
absl::Status StridedSliceGradGradient(const Scope& scope, const Operation& op,
                                      absl::Span<const Output> grad_outputs,
                                      std::vector<Output>* grad_inputs) {
  absl::Status status;
  const ops::StridedSliceAttrs attrs = MasksOf(op, &status);
  if (!status.ok()) return status;
  *grad_inputs = {NoGradient(), NoGradient(), NoGradient(), NoGradient(),
                  ops::StridedSlice(scope, grad_outputs[0], op.input(1),
                                    op.input(2), op.input(3), attrs)};
  return absl::OkStatus();
}
DFLOW_REGISTER_GRADIENT("StridedSliceGrad", StridedSliceGradGradient);

// y = pad(x, paddings): dx is the box of g where x was written.
absl::Status PadGrad(const Scope& scope, const Operation& op,
                     absl::Span<const Output> grad_outputs,
                     std::vector<Output>* grad_inputs) {
  const Output x = op.input(0), paddings = op.input(1);
  std::vector<int64_t> p;
  Output begin, size;
  if (ConstantInts(paddings, &p) && FitsInt32(p)) {
    std::vector<int64_t> before;
    for (size_t i = 0; i < p.size(); i += 2) before.push_back(p[i]);
    begin = IntConst(scope, before, DT_INT32);
    size = ShapeOf(scope, x, DT_INT32);
  } else {
    // The first column of paddings, whatever the rank.
    begin =
        ops::Reshape(scope, ops::Slice(scope, paddings, {0, 0}, {-1, 1}), {-1});
    size = ShapeOf(scope, x, paddings.dtype());
  }
  *grad_inputs = {ops::Slice(scope, grad_outputs[0], begin, size),
                  NoGradient()};
  // PadV2: constant_values has none either (TensorFlow's array_grad.py).
  if (op.num_inputs() == 3) grad_inputs->push_back(NoGradient());
  return absl::OkStatus();
}
DFLOW_REGISTER_GRADIENT("Pad", PadGrad);
DFLOW_REGISTER_GRADIENT("PadV2", PadGrad);

// MirrorPad and MirrorPadGrad are each other's transpose (same paddings and
// mode): each is the other's gradient.
absl::Status MirrorPadGradient(const Scope& scope, const Operation& op,
                               absl::Span<const Output> grad_outputs,
                               std::vector<Output>* grad_inputs) {
  std::string mode;
  if (absl::Status s = op.node()->GetAttr("mode", &mode); !s.ok()) return s;
  const Output paddings = op.input(1);
  *grad_inputs = {
      op.node()->op() == "MirrorPad"
          ? ops::MirrorPadGrad(scope, grad_outputs[0], paddings, mode)
          : ops::MirrorPad(scope, grad_outputs[0], paddings, mode),
      NoGradient()};
  return absl::OkStatus();
}
DFLOW_REGISTER_GRADIENT("MirrorPad", MirrorPadGradient);
DFLOW_REGISTER_GRADIENT("MirrorPadGrad", MirrorPadGradient);

// SpaceToBatchND and BatchToSpaceND (same block_shape, paddings as crops)
// only move elements and undo each other: each is the other's gradient.
absl::Status SpaceBatchGradient(const Scope& scope, const Operation& op,
                                absl::Span<const Output> grad_outputs,
                                std::vector<Output>* grad_inputs) {
  const Output block_shape = op.input(1), pads = op.input(2);
  *grad_inputs = {
      op.node()->op() == "SpaceToBatchND"
          ? ops::BatchToSpaceND(scope, grad_outputs[0], block_shape, pads)
          : ops::SpaceToBatchND(scope, grad_outputs[0], block_shape, pads),
      NoGradient(), NoGradient()};
  return absl::OkStatus();
}
DFLOW_REGISTER_GRADIENT("SpaceToBatchND", SpaceBatchGradient);
DFLOW_REGISTER_GRADIENT("BatchToSpaceND", SpaceBatchGradient);

}  // namespace
}  // namespace dflow
