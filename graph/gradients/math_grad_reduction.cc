// Gradients of the reductions (graph/ops/math_ops_reduction.cc): Sum,
// Mean, Max, Min and Prod, following TensorFlow's math_grad.py. ArgMax
// carries no gradient.
//
// They use what the graph knows at build time: with constant axes and
// known dimensions the gradient is a Tile or Fill of constant shape (Mean
// of a [?] vector: four ops), and only what is unknown is computed at run
// time (see Reduction below).
#include <algorithm>
#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "graph/gradients/grad_helpers.h"
#include "graph/gradients/grad_registry.h"
#include "graph/ops/ops.h"
#include "graph/tensor.h"
#include "graph/tensor_shape.h"

namespace dflow {
namespace {

// A reduction op = Sum/Mean/Max/Min/Prod(x, axes) and what the graph tells
// about it at build time: x's static shape and, when x's rank is known and
// the axes are a constant, which dimensions are reduced. The methods build
// the shape plumbing of the gradients from constants where that knowledge
// suffices and from Shape ops where it does not (an unknown batch
// dimension, axes computed at run time, unknown rank).
class Reduction {
 public:
  Reduction(const Scope& scope, const Operation& op)
      : scope_(scope), op_(op), x_(op.input(0)), axes_(op.input(1)) {}

  absl::Status Init() {
    if (absl::Status s = op_.node()->GetAttr("keep_dims", &keep_dims_);
        !s.ok()) {
      return s;
    }
    shape_ = x_.shape();
    rank_ = shape_.rank();
    std::vector<int64_t> axes;
    if (rank_ < 0 || !ConstantInts(axes_, &axes)) return absl::OkStatus();
    reduced_.assign(rank_, false);
    for (int64_t a : axes) {
      // Out-of-range axes fail in the forward op; keep to run-time shapes.
      if (a < -rank_ || a >= rank_) return absl::OkStatus();
      reduced_[a < 0 ? a + rank_ : a] = true;
    }
    axes_known_ = true;
    return absl::OkStatus();
  }

  const Output& x() const { return x_; }
  const Output& axes() const { return axes_; }
  int rank() const { return rank_; }

  // Every dimension is reduced (statically known).
  bool AllReduced() const {
    return axes_known_ && std::all_of(reduced_.begin(), reduced_.end(),
                                      [](bool r) { return r; });
  }
  // The size of every reduced (kept) dimension is known.
  bool ReducedDimsKnown() const { return DimsKnown(true); }
  bool KeptDimsKnown() const { return DimsKnown(false); }
  // The product of the reduced (kept) dimensions; requires *DimsKnown().
  int64_t ReducedCount() const { return Count(true); }
  int64_t KeptCount() const { return Count(false); }

  // x's shape as an int32 vector: a constant when fully known, else one
  // Shape op shared by every use.
  Output XShape() {
    if (!x_shape_.valid()) {
      if (shape_.IsFullyDefined()) {
        x_shape_ = Int32Vector(
            scope_,
            std::vector<int64_t>(shape_.dims().begin(), shape_.dims().end()));
      } else {
        x_shape_ = ops::Shape(scope_, x_);
      }
    }
    return x_shape_;
  }

  // The output's shape with keep_dims: x's with 1 for each reduced
  // dimension. A constant when the static shape allows one (a single
  // unknown kept dimension becomes -1 for Reshape), else computed once.
  Output KeptShape() {
    if (!kept_shape_.valid()) kept_shape_ = BuildKeptShape();
    return kept_shape_;
  }

  // `t`, shaped like the op's output, in a shape that broadcasts against x:
  // as is with keep_dims or when the reduced dimensions lead (NumPy
  // broadcasting adds them back), else reshaped to KeptShape().
  Output Broadcastable(const Output& t) {
    if (keep_dims_) return t;
    if (axes_known_) {
      int i = 0;
      while (i < rank_ && reduced_[i]) ++i;
      while (i < rank_ && !reduced_[i]) ++i;
      if (i == rank_) return t;
    }
    return ops::Reshape(scope_, t, KeptShape());
  }

  // `t`, shaped like the op's output, with x's rank (for Tile).
  Output WithKeptDims(const Output& t) {
    if (keep_dims_) return t;
    if (axes_known_ && std::none_of(reduced_.begin(), reduced_.end(),
                                    [](bool r) { return r; })) {
      return t;
    }
    return ops::Reshape(scope_, t, KeptShape());
  }

  // `t`, shaped like the op's output, repeated along the reduced
  // dimensions to x's shape: the gradient of Sum.
  Output ToInputShape(const Output& t) {
    if (axes_known_ && ReducedDimsKnown()) {
      std::vector<int64_t> multiples(rank_, 1);
      bool repeats = false;
      for (int i = 0; i < rank_; ++i) {
        if (reduced_[i]) multiples[i] = shape_.dim(i);
        repeats |= multiples[i] != 1;
      }
      if (!repeats) return WithKeptDims(t);
      if (AllReduced()) return FillOrTile(t);  // x's shape is a constant
      return ops::Tile(scope_, WithKeptDims(t), Int32Vector(scope_, multiples));
    }
    if (AllReduced()) return FillOrTile(t);
    // Some reduced dimension's size is known only at run time: broadcast
    // against zeros of x's shape (two ops, whatever is unknown).
    return ops::AddV2(scope_, Broadcastable(t), ops::ZerosLike(scope_, x_));
  }

 private:
  Output BuildKeptShape() {
    if (axes_known_) {
      std::vector<int64_t> dims(rank_);
      int unknown = 0;
      bool has_zero = false;
      for (int i = 0; i < rank_; ++i) {
        dims[i] = reduced_[i] ? 1 : shape_.dim(i);
        unknown += dims[i] < 0;
        has_zero |= dims[i] == 0;
      }
      // Reshape cannot infer a -1 next to a 0.
      if (unknown == 0 || (unknown == 1 && !has_zero)) {
        return Int32Vector(scope_, dims);
      }
      std::vector<int64_t> mask(rank_), unmask(rank_);
      for (int i = 0; i < rank_; ++i) {
        mask[i] = reduced_[i] ? 1 : 0;
        unmask[i] = 1 - mask[i];
      }
      // shape * (1 - mask) + mask.
      return ops::AddV2(scope_,
                        ops::Mul(scope_, XShape(), Int32Vector(scope_, unmask)),
                        Int32Vector(scope_, mask));
    }
    // The mask at run time: axes normalized to [0, rank), compared with
    // every dimension index.
    const Output r =
        rank_ >= 0 ? ops::Const(scope_, rank_) : ops::Rank(scope_, x_);
    Output dims_index;
    if (rank_ >= 0) {
      std::vector<int64_t> index(rank_);
      for (int i = 0; i < rank_; ++i) index[i] = i;
      dims_index = Int32Vector(scope_, index);
    } else {
      dims_index = ops::Range(scope_, 0, r, 1);
    }
    Output axes = axes_;
    if (BaseType(axes.dtype()) != DT_INT32) {
      axes = ops::Cast(scope_, axes, DT_INT32);
    }
    axes = ops::Reshape(scope_, axes, {-1, 1});
    axes = ops::AddV2(
        scope_, axes,
        ops::Mul(scope_,
                 ops::Cast(scope_, ops::Less(scope_, axes, 0), DT_INT32), r));
    const Output mask = ops::Sum(
        scope_,
        ops::Cast(scope_, ops::Equal(scope_, axes, dims_index), DT_INT32), 0);
    return ops::AddV2(
        scope_, ops::Mul(scope_, XShape(), ops::Sub(scope_, 1, mask)), mask);
  }

  bool DimsKnown(bool of_reduced) const {
    if (!axes_known_) return false;
    for (int i = 0; i < rank_; ++i) {
      if (reduced_[i] == of_reduced && shape_.dim(i) < 0) return false;
    }
    return true;
  }
  int64_t Count(bool of_reduced) const {
    int64_t n = 1;
    for (int i = 0; i < rank_; ++i) {
      if (reduced_[i] == of_reduced) n *= shape_.dim(i);
    }
    return n;
  }
  // All dimensions reduced: the scalar (or all-1s with keep_dims) `t`
  // spread over x's shape in one op.
  Output FillOrTile(const Output& t) {
    return keep_dims_ ? ops::Tile(scope_, t, XShape())
                      : ops::Fill(scope_, XShape(), t);
  }

  const Scope& scope_;
  const Operation& op_;
  const Output x_, axes_;
  bool keep_dims_ = false;
  TensorShape shape_;
  int rank_ = -1;
  bool axes_known_ = false;
  std::vector<bool> reduced_;
  Output x_shape_;     // XShape(), once built
  Output kept_shape_;  // KeptShape(), once built
};

absl::Status SumGrad(const Scope& scope, const Operation& op,
                     absl::Span<const Output> grad_outputs,
                     std::vector<Output>* grad_inputs) {
  Reduction r(scope, op);
  if (absl::Status s = r.Init(); !s.ok()) return s;
  *grad_inputs = {r.ToInputShape(grad_outputs[0]), NoGradient()};
  return absl::OkStatus();
}
DFLOW_REGISTER_GRADIENT("Sum", SumGrad);

// Sum's gradient divided by the number of reduced elements: a constant
// when their sizes are known, else counted at run time. The division
// happens before the gradient is spread over x's shape (fewer elements).
absl::Status MeanGrad(const Scope& scope, const Operation& op,
                      absl::Span<const Output> grad_outputs,
                      std::vector<Output>* grad_inputs) {
  Reduction r(scope, op);
  if (absl::Status s = r.Init(); !s.ok()) return s;
  const Output g = grad_outputs[0];
  const DataType type = GradType(op);
  auto size_of = [&](const Output& t) {
    return ops::Cast(
        scope, ops::Size(scope, t, ops::SizeAttrs().OutType(DT_INT64)), type);
  };
  Output grad;
  if (r.ReducedDimsKnown()) {
    const int64_t n = r.ReducedCount();
    grad = r.ToInputShape(
        n == 1
            ? g
            : ops::RealDiv(scope, g,
                           ScalarOfType(scope, static_cast<double>(n), type)));
  } else if (r.AllReduced() && r.rank() == 1) {
    // The mean of a [?] vector (the per-example loss): its one dimension
    // is both the count and the shape to tile the [1] quotient to.
    const Output shape = r.XShape();
    grad = ops::Tile(
        scope, ops::RealDiv(scope, g, ops::Cast(scope, shape, type)), shape);
  } else if (r.KeptDimsKnown()) {
    // count = size(x) / k, with k the known product of the kept dims.
    const int64_t k = r.KeptCount();
    const Output scaled =
        k == 1 ? g
               : ops::Mul(scope, g,
                          ScalarOfType(scope, static_cast<double>(k), type));
    grad = r.ToInputShape(ops::RealDiv(scope, scaled, size_of(r.x())));
  } else {
    // size(y) is 0 only when x is empty too, and then so is the gradient.
    const Output count =
        ops::RealDiv(scope, size_of(r.x()), size_of(op.output(0)));
    grad = r.ToInputShape(ops::RealDiv(scope, g, count));
  }
  *grad_inputs = {grad, NoGradient()};
  return absl::OkStatus();
}
DFLOW_REGISTER_GRADIENT("Mean", MeanGrad);

// The gradient goes to the elements equal to the result, split evenly
// among ties (TensorFlow's rule): g / count where x == y, else 0.
absl::Status MinOrMaxGrad(const Scope& scope, const Operation& op,
                          absl::Span<const Output> grad_outputs,
                          std::vector<Output>* grad_inputs) {
  Reduction r(scope, op);
  if (absl::Status s = r.Init(); !s.ok()) return s;
  const Output y = r.Broadcastable(op.output(0));
  const Output g = r.Broadcastable(grad_outputs[0]);
  const Output selected =
      ops::Cast(scope, ops::Equal(scope, y, r.x()), GradType(op));
  const Output count =
      ops::Sum(scope, selected, r.axes(), ops::ReductionAttrs().KeepDims(true));
  *grad_inputs = {ops::Mul(scope, selected, ops::RealDiv(scope, g, count)),
                  NoGradient()};
  return absl::OkStatus();
}
DFLOW_REGISTER_GRADIENT("Max", MinOrMaxGrad);
DFLOW_REGISTER_GRADIENT("Min", MinOrMaxGrad);

// d prod / d x_i is the product of the other reduced elements, computed
// without dividing by x_i (so zeros are fine) from exclusive cumulative
// products. Along one axis a it is Cumprod(x, a, exclusive) *
// Cumprod(x, a, exclusive, reverse). For axes {a} + B the product of the
// others is (the product of the others within x_i's slice along B) times
// (the product of the other slices along a): E(x; {a} + B) = E(x; B) *
// E_a(Prod(x, B, keep_dims)), so each further axis costs one Prod and two
// Cumprods, with no transposes. The axes may be computed at run time as
// long as their count is known.
absl::Status ProdGrad(const Scope& scope, const Operation& op,
                      absl::Span<const Output> grad_outputs,
                      std::vector<Output>* grad_inputs) {
  Reduction r(scope, op);
  if (absl::Status s = r.Init(); !s.ok()) return s;
  std::vector<Input> axes;
  std::vector<int64_t> values;
  if (ConstantInts(r.axes(), &values)) {
    std::vector<int64_t> seen;
    for (int64_t a : values) {
      if (r.rank() >= 0 && a < 0) a += r.rank();
      if (std::find(seen.begin(), seen.end(), a) != seen.end()) continue;
      seen.push_back(a);
      axes.emplace_back(static_cast<int>(a));
    }
  } else {
    const TensorShape axes_shape = r.axes().shape();
    if (axes_shape.rank() == 0) {
      axes.emplace_back(r.axes());
    } else if (axes_shape.rank() == 1 && axes_shape.dim(0) >= 0) {
      for (int i = 0; i < axes_shape.dim(0); ++i) {
        axes.emplace_back(
            ops::Reshape(scope, ops::Slice(scope, r.axes(), {i}, {1}),
                         Int32Vector(scope, std::vector<int64_t>{})));
      }
    } else {
      return absl::UnimplementedError(absl::StrCat(
          "the gradient of Prod needs the number of reduction axes at build "
          "time, but reduction_indices '",
          r.axes().name(), "' has shape ", axes_shape.ToString(),
          "; give it a static shape (a scalar or a vector of known length)"));
    }
  }
  const Output g = grad_outputs[0];
  if (axes.empty()) {
    *grad_inputs = {g, NoGradient()};
    return absl::OkStatus();
  }
  auto others_along = [&](const Output& v, const Input& axis) {
    return ops::Mul(
        scope, ops::Cumprod(scope, v, axis, ops::ScanAttrs().Exclusive(true)),
        ops::Cumprod(scope, v, axis,
                     ops::ScanAttrs().Exclusive(true).Reverse(true)));
  };
  const int m = static_cast<int>(axes.size());
  Output others = others_along(r.x(), axes[m - 1]);
  Output partial = r.x();
  for (int i = m - 2; i >= 0; --i) {
    partial = ops::Prod(scope, partial, axes[i + 1],
                        ops::ReductionAttrs().KeepDims(true));
    others = ops::Mul(scope, others, others_along(partial, axes[i]));
  }
  *grad_inputs = {ops::Mul(scope, r.Broadcastable(g), others), NoGradient()};
  return absl::OkStatus();
}
DFLOW_REGISTER_GRADIENT("Prod", ProdGrad);

DFLOW_REGISTER_NO_GRADIENT("ArgMax");

}  // namespace
}  // namespace dflow
