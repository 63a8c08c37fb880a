#include "tests/compiler/random_graph.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <numeric>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "google/protobuf/text_format.h"
#include "graph/ops/ops.h"
#include "graph/scope.h"
#include "graph/tensor_shape.h"
#include "graph/types.h"

namespace dflow {
namespace {

// Operands larger than these are squashed before they enter an op, so that
// products stay far from float overflow and int32 never wraps: every op's
// inputs are at most this large, and the largest op (a MatMul of inner size
// 4, or a Sum of 64 elements) stays below 2^24 (floats of integers stay
// exact) and 2^31.
constexpr double kFloatLimit = 50;
constexpr double kIntLimit = 200;
// Exp's input is squashed below this (e^4 = 55).
constexpr double kExpLimit = 4;

// A value in the graph being built, with what the generator knows of it.
struct Val {
  Output out;
  DataType dtype = DT_FLOAT;
  TensorShape shape;
  double bound = 1;      // |element| <= bound
  double scale = 1;      // bound of everything it was computed from
  bool integral = true;  // a float holding exact integers (castable to int)
  bool leaf = false;     // a Const or Placeholder
  // May be fed (any value in +-its bound): not a Placeholder (fed anyway)
  // nor a denominator (kept away from zero).
  bool feedable = true;
};

// The shape of a broadcasting element-wise op on `a` and `b`, or unknown
// rank when they do not broadcast.
TensorShape BroadcastShape(const TensorShape& a, const TensorShape& b) {
  const int rank = std::max(a.rank(), b.rank());
  std::vector<int64_t> dims(rank);
  for (int i = 0; i < rank; ++i) {
    const int ia = a.rank() - rank + i;
    const int ib = b.rank() - rank + i;
    const int64_t da = ia >= 0 ? a.dim(ia) : 1;
    const int64_t db = ib >= 0 ? b.dim(ib) : 1;
    if (da != db && da != 1 && db != 1) return TensorShape::Unknown();
    dims[i] = da == 1 ? db : da;
  }
  return TensorShape(absl::MakeConstSpan(dims));
}

bool IsFloat(const Val& v) { return v.dtype == DT_FLOAT; }

class Generator {
 public:
  Generator(uint64_t seed, const RandomGraphOptions& options,
            RandomGraph* result)
      : rng_(seed), options_(options), result_(result),
        root_(Scope::NewRootScope()) {}

  absl::Status Build() {
    result_->cpu_devices = Chance(options_.two_device_probability) ? 2 : 1;
    big_ = Chance(options_.big_probability);
    // A few leaves to start from, of both dtypes.
    for (int i = 0; i < 3; ++i) Leaf(DT_FLOAT, RandomShape());
    Leaf(DT_INT32, RandomShape());
    const int steps = Uniform(options_.min_steps, options_.max_steps);
    const int all_reduce_step =
        result_->cpu_devices == 2 && Chance(options_.all_reduce_probability)
            ? Uniform(0, steps - 1)
            : -1;
    const int training_step =
        Chance(options_.training_probability) ? Uniform(0, steps - 1) : -1;
    for (int step = 0; step < steps; ++step) {
      if (step == all_reduce_step) AllReduces();
      if (step == training_step) TrainingStep();
      Step();
      if (!root_.ok()) {
        return absl::InternalError(absl::StrCat(
            "random graph seed ", result_->seed, " step ", step,
            ": building failed: ", root_.status().message()));
      }
    }
    for (const Val& v : pool_) {
      if (!v.out.shape().IsCompatibleWith(v.shape)) {
        return absl::InternalError(absl::StrCat(
            "random graph seed ", result_->seed, ": ", v.out.name(),
            " infers shape ", v.out.shape().ToString(),
            " but the generator tracked ", v.shape.ToString()));
      }
    }
    ChooseFetches();
    return root_.ToGraphDef(&result_->graph);
  }

 private:
  // --- Randomness. ---
  int Uniform(int lo, int hi) {  // inclusive
    return std::uniform_int_distribution<int>(lo, hi)(rng_);
  }
  bool Chance(double p) { return std::bernoulli_distribution(p)(rng_); }
  template <typename T>
  const T& OneOf(const std::vector<T>& items) {
    return items[Uniform(0, static_cast<int>(items.size()) - 1)];
  }

  TensorShape RandomShape() {
    if (big_ && Chance(0.3)) {
      // Large enough for kernels' and fusions' blocking (and odd).
      TensorShape shape({Uniform(100, 2500)});
      if (Chance(0.5)) shape.InsertDim(Uniform(0, 1), Uniform(1, 3));
      return shape;
    }
    static const int kRankWeights[] = {1, 3, 5, 2};  // ranks 0..3
    const int rank = std::discrete_distribution<int>(
        std::begin(kRankWeights), std::end(kRankWeights))(rng_);
    TensorShape shape;
    for (int i = 0; i < rank; ++i) shape.AddDim(Uniform(1, 4));
    return shape;
  }

  // The scope for the next op: on two-device graphs, pinned to a random
  // CPU or left to the placer.
  Scope S() {
    if (result_->cpu_devices < 2) return root_;
    const int pick = Uniform(0, 4);
    if (pick == 4) return root_;
    return root_.WithDevice(absl::StrCat("/cpu:", pick % 2));
  }

  // --- Leaves. ---
  // kind: 0 any values, 1 positive (a denominator), 2 integer-valued floats.
  Val Leaf(DataType dtype, const TensorShape& shape, int kind = -1,
           bool constant = false) {
    if (kind < 0) kind = dtype == DT_FLOAT && Chance(0.3) ? 2 : 0;
    Tensor t(dtype, shape);
    Val v;
    v.dtype = dtype;
    v.shape = shape;
    v.leaf = true;
    if (dtype == DT_FLOAT) {
      std::uniform_real_distribution<float> any(-2.0f, 2.0f);
      std::uniform_real_distribution<float> positive(0.5f, 2.0f);
      for (float& x : t.flat<float>()) {
        x = kind == 1   ? positive(rng_)
            : kind == 2 ? static_cast<float>(Uniform(-3, 3))
                        : any(rng_);
      }
      v.bound = kind == 2 ? 3 : 2;
      v.integral = kind == 2;
    } else {
      for (int32_t& x : t.flat<int32_t>()) {
        x = kind == 1 ? Uniform(1, 5) : Uniform(-5, 5);
      }
      v.bound = 5;
    }
    v.scale = v.bound;
    v.feedable = kind != 1;
    if (constant || Chance(0.35)) {
      v.out = ops::Const(S(), t);
    } else {
      v.out = ops::Placeholder(S(), dtype,
                               ops::PlaceholderAttrs().Shape(shape));
      v.feedable = false;
      if (v.out.valid()) result_->feeds.emplace_back(v.out.op().name(), t);
    }
    pool_.push_back(v);
    return v;
  }

  // --- Picking operands. ---
  Val Pick() { return pool_[Uniform(0, static_cast<int>(pool_.size()) - 1)]; }
  // A value satisfying `want`, or a new leaf of `dtype` and `shape` when
  // none does (or sometimes anyway, so fresh inputs keep coming).
  Val PickWhere(const std::function<bool(const Val&)>& want, DataType dtype,
                const TensorShape& shape) {
    std::vector<int> matches;
    for (int i = 0; i < static_cast<int>(pool_.size()); ++i) {
      if (want(pool_[i])) matches.push_back(i);
    }
    if (matches.empty() || Chance(0.2)) return Leaf(dtype, shape);
    return pool_[OneOf(matches)];
  }
  Val PickLike(const Val& like) {
    return PickWhere(
        [&](const Val& v) {
          return v.dtype == like.dtype && v.shape == like.shape;
        },
        like.dtype, like.shape);
  }
  // An operand that broadcasts with `a`: its shape, a suffix of it (or a
  // scalar), its shape with a leading dimension more (the result grows), or
  // its shape with 1s on either side ([3,1] and [1,4] give [3,4]).
  Val PickBroadcastable(const Val& a) {
    const int rank = a.shape.rank();
    TensorShape shape;
    switch (Uniform(0, 9)) {
      case 0: case 1: case 2: case 3: case 4:
        return PickLike(a);
      case 5: case 6: {
        const int keep = Uniform(0, rank);
        for (int i = rank - keep; i < rank; ++i) shape.AddDim(a.shape.dim(i));
        break;
      }
      case 7:
        if (rank >= 3 || a.shape.num_elements() > 4096) return PickLike(a);
        shape = a.shape;
        shape.InsertDim(0, Uniform(2, 3));
        break;
      default:
        if (rank == 0 || a.shape.num_elements() > 4096) return PickLike(a);
        shape = a.shape;
        for (int i = 0; i < rank; ++i) {
          if (a.shape.dim(i) == 1) {
            shape.set_dim(i, Uniform(1, 3));
          } else if (Chance(0.5)) {
            shape.set_dim(i, 1);
          }
        }
        break;
    }
    return PickWhere(
        [&](const Val& v) { return v.dtype == a.dtype && v.shape == shape; },
        a.dtype, shape);
  }

  // `v` squashed below the limits (an op of its own when it was not).
  Val Tame(const Val& v, double limit = -1) {
    if (IsFloat(v)) {
      if (limit < 0) limit = kFloatLimit;
      if (v.bound <= limit) return v;
      Val t = v;
      t.out = ops::Tanh(S(), v.out);
      t.bound = 1;
      t.integral = false;
      t.leaf = false;
      return Add(t);
    }
    if (limit < 0) limit = kIntLimit;
    if (v.bound <= limit) return v;
    Val t = v;
    const int clamp = Uniform(3, 50);
    t.out = ops::Minimum(S(), ops::Maximum(S(), v.out, -clamp), clamp);
    t.bound = clamp;
    t.leaf = false;
    return Add(t);
  }

  Val Add(Val v) {
    v.scale = std::max(v.scale, v.bound);
    if (v.bound >= (1 << 20)) v.integral = false;
    pool_.push_back(v);
    return v;
  }

  // A result of `a`'s dtype from inputs `ins`.
  static Val Derived(const Val& a, std::initializer_list<const Val*> ins,
                     const TensorShape& shape, double bound) {
    Val r;
    r.dtype = a.dtype;
    r.shape = shape;
    r.bound = bound;
    r.scale = 1;
    r.integral = true;
    for (const Val* in : ins) {
      r.scale = std::max(r.scale, in->scale);
      r.integral = r.integral && in->integral;
    }
    return r;
  }

  // --- Ops. Each builds one op (or a short pattern) and adds results. ---
  using Recipe = std::function<Val()>;

  // An element-wise binary op of `a` and a broadcastable operand.
  Recipe Binary(const Val& a0) {
    const Val a = Tame(a0);
    const Val b = Tame(PickBroadcastable(a));
    const bool swap = Chance(0.3);
    std::vector<int> choices = {0, 1, 2, 3, 4};
    if (IsFloat(a)) choices.push_back(5);
    const int op = OneOf(choices);
    if (op == 5) {
      const Val d = Denominator(b);
      return [=, this] {
        Val r = Derived(a, {&a, &d}, BroadcastShape(a.shape, d.shape),
                        a.bound / 0.35);
        r.integral = false;
        r.scale = std::max(r.scale, a.scale / 0.35);
        r.out = ops::RealDiv(S(), a.out, d.out);
        return Add(r);
      };
    }
    return [=, this] {
      const Val& x = swap ? b : a;
      const Val& y = swap ? a : b;
      Val r = Derived(a, {&a, &b}, BroadcastShape(a.shape, b.shape),
                      a.bound + b.bound);
      switch (op) {
        case 0: r.out = ops::AddV2(S(), x.out, y.out); break;
        case 1: r.out = ops::Sub(S(), x.out, y.out); break;
        case 2:
          r.out = ops::Mul(S(), x.out, y.out);
          r.bound = a.bound * b.bound;
          r.scale = std::max(r.scale, a.scale * b.scale);
          break;
        case 3:
          r.out = ops::Maximum(S(), x.out, y.out);
          r.bound = std::max(a.bound, b.bound);
          break;
        default:
          r.out = ops::Minimum(S(), x.out, y.out);
          r.bound = std::max(a.bound, b.bound);
          break;
      }
      return Add(r);
    };
  }

  // A float value of `b`'s shape kept away from zero (|d| >= 0.35).
  Val Denominator(const Val& b) {
    switch (Uniform(0, 2)) {
      case 0:
        return Leaf(DT_FLOAT, b.shape, /*kind=*/1);
      case 1: {  // exp(tanh(b)) in [0.37, 2.72]
        Val r = Derived(b, {&b}, b.shape, 2.72);
        r.out = ops::Exp(S(), ops::Tanh(S(), b.out));
        r.integral = false;
        r.feedable = false;
        return Add(r);
      }
      default: {  // b^2 + 0.5
        const Val t = Tame(b, 5);
        Val r = Derived(t, {&t}, t.shape, t.bound * t.bound + 0.5);
        r.out = ops::AddV2(S(), ops::Square(S(), t.out), 0.5f);
        r.integral = false;
        r.feedable = false;
        return Add(r);
      }
    }
  }

  Recipe Unary(const Val& a0) {
    const Val a = Tame(a0);
    std::vector<int> choices = {0, 1, 2, 3};
    if (IsFloat(a)) choices.insert(choices.end(), {4, 5, 6});
    const int op = OneOf(choices);
    const Val e = op == 6 ? Tame(a, kExpLimit) : a;
    return [=, this] {
      Val r = Derived(e, {&e}, e.shape, e.bound);
      switch (op) {
        case 0: r.out = ops::Neg(S(), e.out); break;
        case 1:
          r.out = ops::Square(S(), e.out);
          r.bound = e.bound * e.bound;
          r.scale = std::max(r.scale, e.scale * e.scale);
          break;
        case 2: r.out = ops::Relu(S(), e.out); break;
        case 3: r.out = ops::Identity(S(), e.out); break;
        case 4:
          r.out = ops::Tanh(S(), e.out);
          r.bound = 1;
          r.integral = false;
          break;
        case 5:
          r.out = ops::Sigmoid(S(), e.out);
          r.bound = 1;
          r.integral = false;
          break;
        default:
          r.out = ops::Exp(S(), e.out);
          r.bound = std::exp(e.bound);
          r.scale = std::max(r.scale, e.scale * r.bound);
          r.integral = false;
          break;
      }
      return Add(r);
    };
  }

  // A rank-2 value of `dtype` (a new leaf when there is none).
  Val Matrix(DataType dtype) {
    return Tame(PickWhere(
        [&](const Val& v) { return v.dtype == dtype && v.shape.rank() == 2; },
        dtype, TensorShape({Uniform(1, 4), Uniform(1, 4)})));
  }

  Recipe MatMul(DataType dtype) {
    const Val a = Matrix(dtype);
    const bool ta = Chance(0.3);
    const int64_t k = a.shape.dim(ta ? 0 : 1);
    const int64_t m = a.shape.dim(ta ? 1 : 0);
    const Val b = Tame(PickWhere(
        [&](const Val& v) {
          return v.dtype == dtype && v.shape.rank() == 2 &&
                 (v.shape.dim(0) == k || v.shape.dim(1) == k);
        },
        dtype,
        Chance(0.5) ? TensorShape({k, Uniform(1, 4)})
                    : TensorShape({Uniform(1, 4), k})));
    // Prefer the layout that needs no transpose, but use both.
    bool tb = b.shape.dim(0) != k;
    if (b.shape.dim(0) == k && b.shape.dim(1) == k) tb = Chance(0.5);
    if (m * b.shape.dim(tb ? 0 : 1) > (1 << 16)) {
      // Two long matrices would make a huge product: a narrow one instead.
      return MatMulOf(a, ta, Leaf(dtype, TensorShape({k, Uniform(1, 4)})),
                      false);
    }
    return MatMulOf(a, ta, b, tb);
  }

  Recipe MatMulOf(const Val& a, bool ta, const Val& b, bool tb) {
    const int64_t k = a.shape.dim(ta ? 0 : 1);
    const int64_t m = a.shape.dim(ta ? 1 : 0);
    const int64_t n = b.shape.dim(tb ? 0 : 1);
    return [=, this] {
      Val r = Derived(a, {&a, &b}, TensorShape({m, n}),
                      a.bound * b.bound * static_cast<double>(k));
      r.scale = std::max(r.scale, r.bound);
      r.out = ops::MatMul(S(), a.out, b.out,
                          ops::MatMulAttrs().TransposeA(ta).TransposeB(tb));
      return Add(r);
    };
  }

  // A bias for the last dimension of `a`.
  Val Bias(const Val& a) {
    const TensorShape shape({a.shape.dim(a.shape.rank() - 1)});
    return Tame(PickWhere(
        [&](const Val& v) { return v.dtype == a.dtype && v.shape == shape; },
        a.dtype, shape));
  }

  Val BiasAdd(const Val& a0) {
    const Val a = Tame(a0);
    const Val b = Bias(a);
    Val r = Derived(a, {&a, &b}, a.shape, a.bound + b.bound);
    r.out = ops::BiasAdd(S(), a.out, b.out);
    return Add(r);
  }

  Val Transpose(const Val& a, std::vector<int32_t> perm = {}) {
    const int rank = a.shape.rank();
    if (perm.empty()) {
      perm.resize(rank);
      std::iota(perm.begin(), perm.end(), 0);
      std::shuffle(perm.begin(), perm.end(), rng_);
    }
    TensorShape shape;
    for (int i = 0; i < rank; ++i) shape.AddDim(a.shape.dim(perm[i]));
    Val r = Derived(a, {&a}, shape, a.bound);
    r.out = ops::Transpose(S(), a.out, Tensor::FromVector(perm));
    return Add(r);
  }

  // A random shape with `a`'s number of elements (sometimes written with a
  // -1).
  Val Reshape(const Val& a) {
    int64_t left = a.shape.num_elements();
    if (left == 0) return a;  // (Shape of a scalar) any shape is ambiguous
    std::vector<int32_t> dims;
    while (left > 1 && dims.size() < 3) {
      std::vector<int32_t> divisors;
      for (int d = 1; d <= left; ++d) {
        if (left % d == 0) divisors.push_back(d);
      }
      const int32_t d = OneOf(divisors);
      dims.push_back(d);
      left /= d;
    }
    if (left > 1) dims.back() *= static_cast<int32_t>(left);
    if (Chance(0.3)) dims.push_back(1);
    std::shuffle(dims.begin(), dims.end(), rng_);
    TensorShape shape;
    for (int32_t d : dims) shape.AddDim(d);
    std::vector<int32_t> written = dims;
    if (!written.empty() && Chance(0.3)) {
      written[Uniform(0, static_cast<int>(written.size()) - 1)] = -1;
    }
    Val r = Derived(a, {&a}, shape, a.bound);
    r.out = ops::Reshape(S(), a.out, Tensor::FromVector(written));
    return Add(r);
  }

  Val Cast(const Val& a) {
    DataType to = a.dtype;
    if (a.dtype == DT_INT32) {
      to = Chance(0.7) ? DT_FLOAT : DT_INT32;
    } else if (a.integral && Chance(0.7)) {
      to = DT_INT32;
    }
    Val r = Derived(a, {&a}, a.shape, a.bound);
    r.dtype = to;
    r.out = ops::Cast(S(), a.out, to);
    return Add(r);
  }

  Val AddN(const Val& a0, int n) {
    const Val a = Tame(a0);
    std::vector<Val> ins = {a};
    for (int i = 1; i < n; ++i) ins.push_back(Tame(PickLike(a)));
    std::vector<Output> outs;
    Val r = Derived(a, {}, a.shape, 0);
    for (const Val& v : ins) {
      outs.push_back(v.out);
      r.bound += v.bound;
      r.scale = std::max(r.scale, v.scale);
      r.integral = r.integral && v.integral;
    }
    r.out = ops::AddN(S(), outs);
    return Add(r);
  }

  // Shape, Size or Rank of any value: an int32 value known at build time.
  Val ShapeOp(const Val& a) {
    Val r;
    r.dtype = DT_INT32;
    switch (Uniform(0, 2)) {
      case 0:
        r.shape = TensorShape({a.shape.rank()});
        r.bound = 4;
        r.out = ops::Shape(S(), a.out);
        break;
      case 1:
        r.shape = TensorShape();
        r.bound = static_cast<double>(a.shape.num_elements());
        r.out = ops::Size(S(), a.out);
        break;
      default:
        r.shape = TensorShape();
        r.bound = 3;
        r.out = ops::Rank(S(), a.out);
        break;
    }
    return Add(r);
  }

  // Fill(dims, scalar), with dims a constant or the Shape of a value.
  Val Fill(const Val& like) {
    const Val s = Tame(PickWhere(
        [&](const Val& v) { return v.dtype == like.dtype && v.shape.rank() == 0; },
        like.dtype, TensorShape()));
    Val r = Derived(s, {&s}, like.shape, s.bound);
    Output dims;
    if (Chance(0.5)) {
      dims = ops::Shape(S(), like.out);
    } else {
      std::vector<int32_t> d(like.shape.dims().begin(),
                             like.shape.dims().end());
      dims = ops::Const(S(), Tensor::FromVector(d));
    }
    r.out = ops::Fill(S(), dims, s.out);
    return Add(r);
  }

  Val ZerosOrOnes(const Val& a) {
    Val r = Derived(a, {}, a.shape, 1);
    r.out = Chance(0.5) ? ops::ZerosLike(S(), a.out) : ops::OnesLike(S(), a.out);
    return Add(r);
  }

  Val Reduce(const Val& a0) {
    const Val a = Tame(a0);
    const int rank = a.shape.rank();
    std::vector<int32_t> axes;
    for (int i = 0; i < rank; ++i) {
      if (Chance(0.5)) axes.push_back(Chance(0.2) ? i - rank : i);
    }
    if (axes.empty()) axes.push_back(Uniform(0, rank - 1));
    const bool keep = Chance(0.4);
    TensorShape shape;
    double count = 1;
    for (int i = 0; i < rank; ++i) {
      const bool reduced = std::count(axes.begin(), axes.end(), i) > 0 ||
                           std::count(axes.begin(), axes.end(), i - rank) > 0;
      if (reduced) count *= static_cast<double>(a.shape.dim(i));
      if (!reduced) shape.AddDim(a.shape.dim(i));
      if (reduced && keep) shape.AddDim(1);
    }
    const bool mean = Chance(0.4);
    Val r = Derived(a, {&a}, shape, mean ? a.bound : a.bound * count);
    if (mean) r.integral = false;
    const Input axis = axes.size() == 1 && Chance(0.5)
                           ? Input(Tensor::Scalar<int32_t>(axes[0]))
                           : Input(Tensor::FromVector(axes));
    const ops::ReductionAttrs attrs = ops::ReductionAttrs().KeepDims(keep);
    r.out = mean ? ops::Mean(S(), a.out, axis, attrs)
                 : ops::Sum(S(), a.out, axis, attrs);
    return Add(r);
  }

  // `a` and 1-2 values of its shape, or of its shape but for the axis.
  Val Concat(const Val& a) {
    const int rank = a.shape.rank();
    const int axis = Uniform(0, rank - 1);
    std::vector<Val> ins = {a};
    const int n = Uniform(2, 3);
    for (int i = 1; i < n; ++i) {
      if (Chance(0.5)) {
        ins.push_back(PickLike(a));
      } else {
        TensorShape shape = a.shape;
        shape.set_dim(axis, Uniform(1, 3));
        ins.push_back(PickWhere(
            [&](const Val& v) { return v.dtype == a.dtype && v.shape == shape; },
            a.dtype, shape));
      }
    }
    TensorShape shape = a.shape;
    int64_t total = 0;
    std::vector<Output> outs;
    Val r = Derived(a, {}, shape, 0);
    for (const Val& v : ins) {
      total += v.shape.dim(axis);
      outs.push_back(v.out);
      r.bound = std::max(r.bound, v.bound);
      r.scale = std::max(r.scale, v.scale);
      r.integral = r.integral && v.integral;
    }
    r.shape.set_dim(axis, total);
    r.out = ops::ConcatV2(S(), outs, Chance(0.2) ? axis - rank : axis);
    return Add(r);
  }

  Val Softmax(const Val& a) {
    Val r = Derived(a, {&a}, a.shape, 1);
    r.integral = false;
    // Softmax's outputs depend on differences of its inputs.
    r.scale = std::max(r.scale, 2 * a.bound);
    r.out = ops::Softmax(S(), a.out);
    return Add(r);
  }

  // --- Patterns the passes look for. ---
  void Identities(const Val& a, int n) {
    Val v = a;
    for (int i = 0; i < n; ++i) {
      Val r = v;
      r.leaf = false;
      r.out = ops::Identity(S(), v.out);
      v = Add(r);
    }
  }

  // x*1, x+0, x-0, 1*x, 0+x, x/1, x-x (ints), with scalar or full-shaped
  // neutral constants.
  void Neutral(const Val& a) {
    const bool full = Chance(0.4);
    // A neutral constant of a larger shape makes the result larger than x:
    // x * ones([2] + shape(x)) is not x.
    TensorShape shape = a.shape;
    if (full && Chance(0.4) && shape.rank() < 3 && shape.num_elements() < 4096) {
      shape.InsertDim(0, Uniform(2, 3));
    }
    auto constant = [&](float f) -> Input {
      if (!full) {
        return IsFloat(a) ? Input(Tensor::Scalar<float>(f))
                          : Input(Tensor::Scalar<int32_t>(static_cast<int>(f)));
      }
      Tensor t(a.dtype, shape);
      if (IsFloat(a)) {
        for (float& x : t.flat<float>()) x = f;
      } else {
        for (int32_t& x : t.flat<int32_t>()) x = static_cast<int32_t>(f);
      }
      return Input(t);
    };
    Val r = a;
    r.leaf = false;
    r.feedable = true;
    r.shape = shape;
    int pick = Uniform(0, IsFloat(a) ? 5 : 6);
    switch (pick) {
      case 0: r.out = ops::Mul(S(), a.out, constant(1)); break;
      case 1: r.out = ops::Mul(S(), constant(1), a.out); break;
      case 2: r.out = ops::AddV2(S(), a.out, constant(0)); break;
      case 3: r.out = ops::AddV2(S(), constant(0), a.out); break;
      case 4: r.out = ops::Sub(S(), a.out, constant(0)); break;
      case 5:
        if (IsFloat(a)) {
          r.out = ops::RealDiv(S(), a.out, constant(1));
        } else {
          r.out = ops::Mul(S(), a.out, ops::OnesLike(S(), a.out));
          r.shape = a.shape;
        }
        break;
      default:  // x - x: exactly 0 for ints
        r.out = ops::Sub(S(), a.out, a.out);
        r.shape = a.shape;
        r.bound = 0;
        break;
    }
    Add(r);
  }

  // Transpose then undo it (or permute again).
  void DoubleTranspose(const Val& a) {
    std::vector<int32_t> perm(a.shape.rank());
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), rng_);
    const Val t = Transpose(a, perm);
    if (Chance(0.7)) {
      std::vector<int32_t> inverse(perm.size());
      for (size_t i = 0; i < perm.size(); ++i) inverse[perm[i]] = i;
      Transpose(t, inverse);
    } else {
      Transpose(t);
    }
  }

  void DoubleReshape(const Val& a) { Reshape(Reshape(a)); }

  // MatMul -> BiasAdd [-> Relu], as a dense layer.
  void Dense(DataType dtype) {
    const Val m = MatMul(dtype)();
    const Val b = BiasAdd(m);
    if (Chance(0.7)) {
      Val r = b;
      r.out = ops::Relu(S(), b.out);
      Add(r);
    }
  }

  // A few element-wise ops in a row, with scalar constants.
  void Chain(const Val& a0) {
    Val v = Tame(a0);
    const int n = Uniform(2, 5);
    for (int i = 0; i < n; ++i) {
      if (Chance(0.5)) {
        v = Unary(v)();
      } else {
        Val r = Derived(v, {&v}, v.shape, v.bound);
        const int c = Uniform(1, 3);
        const Input k = IsFloat(v) ? Input(Tensor::Scalar<float>(c * 0.5f))
                                   : Input(Tensor::Scalar<int32_t>(c));
        switch (Uniform(0, 2)) {
          case 0:
            r.out = ops::Mul(S(), v.out, k);
            r.bound = v.bound * c;
            if (IsFloat(v)) r.integral = false;
            break;
          case 1:
            r.out = ops::AddV2(S(), v.out, k);
            r.bound = v.bound + c;
            if (IsFloat(v)) r.integral = false;
            break;
          default:
            r.out = ops::Maximum(S(), v.out, k);
            r.bound = std::max<double>(v.bound, c);
            if (IsFloat(v)) r.integral = false;
            break;
        }
        v = Add(r);
      }
      v = Tame(v);
    }
  }

  // Ops on constants only: all of it can be folded.
  void ConstantSubgraph() {
    const DataType dtype = Chance(0.7) ? DT_FLOAT : DT_INT32;
    const TensorShape shape = RandomShape();
    const Val a = Leaf(dtype, shape, -1, /*constant=*/true);
    const Val b = Leaf(dtype, shape, -1, /*constant=*/true);
    Val r = Derived(a, {&a, &b}, shape, a.bound * b.bound);
    r.out = ops::Mul(S(), a.out, b.out);
    r = Add(r);
    Unary(r)();
    if (shape.rank() >= 1) Reduce(r);
    ShapeOp(r);
  }

  // 2-4 all-reduces of small tensors, one member on each CPU. Every member
  // is fetched, so every one runs (a member left out would leave the other
  // waiting).
  void AllReduces() {
    result_->has_collectives = true;
    const DataType dtype = Chance(0.7) ? DT_FLOAT : DT_INT32;
    const int n = Uniform(2, 4);
    for (int i = 0; i < n; ++i) {
      const int64_t instance = 100 + i;
      const TensorShape shape = RandomShape();
      const char* reduction = Chance(0.7) ? "sum" : "max";
      // Both inputs first: a member reading the other's result would wait
      // for itself.
      std::vector<Val> ins;
      for (int device = 0; device < 2; ++device) {
        ins.push_back(Tame(PickWhere(
            [&](const Val& v) { return v.dtype == dtype && v.shape == shape; },
            dtype, shape)));
      }
      for (int device = 0; device < 2; ++device) {
        const Val& in = ins[device];
        Val r = Derived(in, {&in}, shape, 2 * in.bound);
        r.scale = std::max(r.scale, r.bound);
        r.feedable = false;
        r.out = ops::CollectiveAllReduce(
            root_.WithDevice(absl::StrCat("/cpu:", device)), in.out,
            /*group_size=*/2, /*group_key=*/1, instance, reduction,
            ops::CollectiveAttrs().TimeoutSeconds(30));
        Add(r);
        result_->group_fetches.push_back(r.out.name());
        group_scales_.push_back(r.scale);
      }
    }
  }

  // A variable updated by ApplyGradientDescent(var, 0.1, MatMul(a, b)), the
  // MatMul used by nothing else; the update's value is fetched.
  void TrainingStep() {
    result_->stateful = true;
    const Scope scope = S();
    const Val a = Matrix(DT_FLOAT);
    const bool ta = Chance(0.3);
    const bool tb = Chance(0.3);
    const int64_t m = a.shape.dim(ta ? 1 : 0);
    const int64_t k = a.shape.dim(ta ? 0 : 1);
    const int64_t n = Uniform(1, 4);
    const Val b = Tame(Leaf(DT_FLOAT, tb ? TensorShape({n, k})
                                          : TensorShape({k, n})));
    const Output grad =
        ops::MatMul(scope, a.out, b.out,
                    ops::MatMulAttrs().TransposeA(ta).TransposeB(tb));
    const Output var = ops::Variable(scope, TensorShape({m, n}), DT_FLOAT);
    Tensor initial(DT_FLOAT, TensorShape({m, n}));
    std::uniform_real_distribution<float> any(-2.0f, 2.0f);
    for (float& x : initial.flat<float>()) x = any(rng_);
    const Output init = ops::Assign(scope, var, ops::Const(scope, initial));
    // Reads ordered by control edges only: one before the update, one
    // after. A pass that drops or moves a control edge (removing x*1 or an
    // Identity, merging equal reads) lets the read race the update.
    const bool reads = Chance(0.6);
    Output before;
    Scope update_scope = scope;
    if (reads) {
      before = ReadOf(scope, var);
      update_scope = scope.WithControlDependencies({before.op()});
    }
    const Output update =
        ops::ApplyGradientDescent(update_scope, var, 0.1f, grad);
    Output after;
    if (reads) after = ReadOf(scope.WithControlDependencies({update.op()}), var);
    if (!root_.ok()) return;
    result_->init_targets.push_back(init.op().name());
    // Each run subtracts up to 0.1 * |grad| more.
    const double scale = 2 + a.scale * b.scale * static_cast<double>(k);
    result_->group_fetches.push_back(update.name());
    group_scales_.push_back(scale);
    if (reads) {
      for (const Output& read : {before, after}) {
        result_->group_fetches.push_back(read.name());
        group_scales_.push_back(scale);
        // Later ops compute on the reads: a kernel forwarding a read's
        // buffer in place would write into the variable.
        Val r;
        r.out = read;
        r.shape = TensorShape({m, n});
        r.bound = 2 + 0.2 * a.bound * b.bound * static_cast<double>(k);
        r.scale = scale;
        r.integral = false;
        r.feedable = false;
        Add(r);
      }
    }
  }

  // The variable's value through an op a pass may remove: Identity, x*1,
  // x+0, or an Identity chain.
  Output ReadOf(const Scope& scope, const Output& var) {
    switch (Uniform(0, 3)) {
      case 0: return ops::Identity(scope, var);
      case 1: return ops::Mul(scope, var, 1.0f);
      case 2: return ops::AddV2(scope, var, 0.0f);
      default: return ops::Identity(scope, ops::Identity(scope, var));
    }
  }

  void Step() {
    const Val a = Pick();
    const int rank = a.shape.rank();
    switch (Uniform(0, 27)) {
      case 0: case 1: case 2: Binary(a)(); break;
      case 3: case 4: Unary(a)(); break;
      case 5: case 6: MatMul(Chance(0.75) ? DT_FLOAT : DT_INT32)(); break;
      case 7: if (rank >= 2) BiasAdd(a); break;
      case 8: if (rank >= 2) Transpose(a); break;
      case 9: Reshape(a); break;
      case 10: Cast(a); break;
      case 11: AddN(a, Uniform(2, 4)); break;
      case 12: ShapeOp(a); break;
      case 13: Fill(a); break;
      case 14: ZerosOrOnes(a); break;
      case 15: if (rank >= 1) Reduce(a); break;
      case 16: if (rank >= 1) Concat(a); break;
      case 17: if (rank == 2 && IsFloat(a)) Softmax(Tame(a)); break;
      // Patterns.
      case 18: {  // a duplicated subexpression
        Recipe r = Chance(0.5) ? Binary(a) : Unary(a);
        r();
        r();
        break;
      }
      case 19: Neutral(a); break;
      case 20: if (rank >= 2) DoubleTranspose(a); break;
      case 21: DoubleReshape(a); break;
      case 22: Identities(a, Uniform(2, 4)); break;
      case 23: AddN(a, 1); break;
      case 24: {  // a cast to the same type
        Val r = a;
        r.leaf = false;
        r.out = ops::Cast(S(), a.out, a.dtype);
        Add(r);
        break;
      }
      case 25: Dense(Chance(0.8) ? DT_FLOAT : DT_INT32); break;
      case 26: Chain(a); break;
      default: ConstantSubgraph(); break;
    }
  }

  // 4-10 distinct values, mostly intermediates (which a fusion would
  // otherwise consume), always the newest one; sometimes a target.
  void ChooseFetches() {
    std::vector<int> order(pool_.size());
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), rng_);
    std::vector<int> chosen = {static_cast<int>(pool_.size()) - 1};
    const int want = Uniform(4, 10);
    for (int i : order) {
      if (static_cast<int>(chosen.size()) >= want) break;
      if (pool_[i].leaf && Chance(0.8)) continue;
      chosen.push_back(i);
    }
    // Feeding a computed value (or a Const) replaces it: what a pass
    // folded, merged or fused from it must not survive.
    if (Chance(options_.feed_intermediate_probability)) {
      const int n = Uniform(1, 2);
      std::set<std::string> fed;
      for (int i : order) {
        if (static_cast<int>(fed.size()) >= n) break;
        const Val& v = pool_[i];
        if (!v.feedable || !v.out.valid() || !fed.insert(v.out.name()).second) {
          continue;
        }
        Tensor t(v.dtype, v.shape);
        if (IsFloat(v)) {
          const double b = std::min(v.bound, 2.0);
          std::uniform_real_distribution<float> any(-b, b);
          for (float& x : t.flat<float>()) {
            x = v.integral ? static_cast<float>(
                                 Uniform(-static_cast<int>(b), static_cast<int>(b)))
                           : any(rng_);
          }
        } else {
          const int b = static_cast<int>(std::min(v.bound, 5.0));
          for (int32_t& x : t.flat<int32_t>()) x = Uniform(-b, b);
        }
        result_->feeds.emplace_back(v.out.name(), t);
      }
    }
    std::set<std::string> names;
    std::set<std::string> fetched_nodes;
    for (size_t i = 0; i < result_->group_fetches.size(); ++i) {
      const std::string& name = result_->group_fetches[i];
      names.insert(name);
      result_->fetches.push_back(name);
      result_->fetch_scales.push_back(group_scales_[i]);
      fetched_nodes.insert(name.substr(0, name.find(':')));
    }
    for (int i : chosen) {
      const std::string name = pool_[i].out.name();
      if (!names.insert(name).second) continue;
      result_->fetches.push_back(name);
      result_->fetch_scales.push_back(IsFloat(pool_[i]) ? pool_[i].scale : 1);
      fetched_nodes.insert(pool_[i].out.op().name());
    }
    // The same tensor fetched twice ("x" and "x:0", or "x" again): both
    // results must be right, whatever buffer they share.
    if (!result_->fetches.empty() && Chance(0.15)) {
      const size_t i = Uniform(0, static_cast<int>(result_->fetches.size()) - 1);
      const std::string name = result_->fetches[i];
      const bool plain = name.find(':') == std::string::npos;
      result_->fetches.push_back(plain && Chance(0.5) ? name + ":0" : name);
      result_->fetch_scales.push_back(result_->fetch_scales[i]);
    }
    if (Chance(options_.target_probability)) {
      for (int i : order) {
        const std::string node = pool_[i].out.op().name();
        bool fed = false;
        for (const auto& feed : result_->feeds) fed = fed || feed.first == node;
        if (!pool_[i].leaf && !fetched_nodes.count(node) && !fed) {
          result_->targets.push_back(node);
          break;
        }
      }
    }
  }

  std::mt19937_64 rng_;
  RandomGraphOptions options_;
  RandomGraph* result_;
  Scope root_;
  std::vector<Val> pool_;
  bool big_ = false;  // some shapes of this graph have thousands of elements
  std::vector<double> group_scales_;  // fetch_scales of group_fetches
};

}  // namespace

std::string RandomGraph::DebugString() const {
  std::string text;
  google::protobuf::TextFormat::PrintToString(graph, &text);
  std::vector<std::string> fed;
  for (const auto& [name, tensor] : feeds) {
    fed.push_back(absl::StrCat(name, " ", DataTypeName(tensor.dtype()),
                               tensor.shape().ToString()));
  }
  return absl::StrCat("# random graph seed ", seed, ", ", cpu_devices,
                      " CPU device(s)\n# feeds: ", absl::StrJoin(fed, ", "),
                      "\n# fetches: ", absl::StrJoin(fetches, ", "),
                      "\n# targets: ", absl::StrJoin(targets, ", "),
                      "\n# run once first: ", absl::StrJoin(init_targets, ", "),
                      "\n",
                      text);
}

absl::StatusOr<RandomGraph> GenerateRandomGraph(
    uint64_t seed, const RandomGraphOptions& options) {
  RandomGraph result;
  result.seed = seed;
  Generator generator(seed, options, &result);
  if (absl::Status s = generator.Build(); !s.ok()) return s;
  return result;
}


absl::StatusOr<RandomGraph> GenerateBatchGraph(uint64_t seed) {
  RandomGraph result;
  result.seed = seed;
  std::mt19937_64 rng(seed ^ 0x9e3779b97f4a7c15ull);
  auto uniform = [&](int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng);
  };
  auto chance = [&](double p) { return std::bernoulli_distribution(p)(rng); };
  auto random_tensor = [&](const TensorShape& shape, float lo, float hi) {
    Tensor t(DT_FLOAT, shape);
    std::uniform_real_distribution<float> u(lo, hi);
    for (float& x : t.flat<float>()) x = u(rng);
    return t;
  };
  Scope root = Scope::NewRootScope();
  int64_t width = uniform(1, 6);
  const int64_t input_width = width;
  const Output x = ops::Placeholder(
      root, DT_FLOAT, ops::PlaceholderAttrs().Shape(TensorShape({-1, width})));
  struct Layer {
    Output out;
    int64_t width;
  };
  std::vector<Layer> layers = {{x, width}};
  Output v = x;
  double bound = 2;
  double scale = 2;  // the largest bound so far: every fetch's scale
  const int steps = uniform(3, 9);
  for (int step = 0; step < steps; ++step) {
    if (bound > kFloatLimit) {
      v = ops::Tanh(root, v);
      bound = 1;
    }
    switch (uniform(0, 7)) {
      case 0: case 1: {  // a dense layer
        const int64_t next = uniform(1, 6);
        const bool tb = chance(0.3);
        const Output w = ops::Const(
            root, random_tensor(tb ? TensorShape({next, width})
                                   : TensorShape({width, next}),
                                -1, 1));
        v = ops::MatMul(root, v, w, ops::MatMulAttrs().TransposeB(tb));
        bound *= static_cast<double>(width);
        width = next;
        if (chance(0.7)) {
          v = ops::BiasAdd(root, v,
                           ops::Const(root, random_tensor({width}, -1, 1)));
          bound += 1;
        }
        switch (uniform(0, 3)) {
          case 0: v = ops::Relu(root, v); break;
          case 1: v = ops::Tanh(root, v); bound = 1; break;
          case 2: v = ops::Sigmoid(root, v); bound = 1; break;
          default: break;
        }
        break;
      }
      case 2: {  // with a [d] vector, or an earlier value of this width
        Output other = ops::Const(root, random_tensor({width}, -2, 2));
        for (const Layer& l : layers) {
          if (l.width == width && chance(0.3)) other = l.out;
        }
        switch (uniform(0, 2)) {
          case 0: v = ops::AddV2(root, v, other); bound += 2 + bound; break;
          case 1: v = ops::Mul(root, v, other); bound *= std::max(2.0, bound); break;
          default: v = ops::Maximum(root, v, other); bound = std::max(2.0, bound); break;
        }
        break;
      }
      case 3:
        v = chance(0.5) ? ops::Mul(root, v, 1.0f) : ops::AddV2(root, v, 0.0f);
        break;
      case 4:
        v = ops::AddN(root, {v, v});
        bound *= 2;
        break;
      case 5:
        v = ops::Identity(root, ops::Identity(root, v));
        break;
      case 6:
        v = ops::Softmax(root, v);
        bound = 1;
        break;
      default:
        v = ops::Square(root, ops::Tanh(root, v));
        bound = 1;
        break;
    }
    layers.push_back({v, width});
    scale = std::max(scale, bound);
  }
  // The last value and up to two earlier ones (not the input).
  std::set<std::string> names;
  for (size_t i = layers.size(); i-- > 1;) {
    if (i + 1 != layers.size() && !chance(0.3)) continue;
    if (names.insert(layers[i].out.name()).second) {
      result.fetches.push_back(layers[i].out.name());
      result.fetch_scales.push_back(scale);
    }
    if (names.size() >= 3) break;
  }
  const std::string feed = x.op().name();
  const int first = uniform(1, 9);
  result.feeds = {{feed, random_tensor({first, input_width}, -2, 2)}};
  for (int i = 0, n = uniform(2, 3); i < n; ++i) {
    result.later_feeds.push_back(
        {{feed, random_tensor({uniform(1, 9), input_width}, -2, 2)}});
  }
  if (absl::Status s = root.ToGraphDef(&result.graph); !s.ok()) return s;
  return result;
}

}  // namespace dflow
