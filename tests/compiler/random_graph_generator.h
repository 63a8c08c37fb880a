// The random graph generator of differential_passes_test: the class, with
// its core (randomness, leaves, picking and taming operands) defined here;
// random_graph_ops.cc defines its ops (one each), random_graph_patterns.cc
// the patterns the passes look for, a construction step and the fetches.
// Test-only internals: the API is random_graph.h (random_graph.cc).
#ifndef DFLOW_TESTS_COMPILER_RANDOM_GRAPH_GENERATOR_H_
#define DFLOW_TESTS_COMPILER_RANDOM_GRAPH_GENERATOR_H_

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
#include "tests/compiler/random_graph.h"

namespace dflow {
namespace random_graph_internal {

// Operands larger than these are squashed before they enter an op, so that
// products stay far from float overflow and int32 never wraps: every op's
// inputs are at most this large, and the largest op (a MatMul of inner size
// 4, or a Sum of 64 elements) stays below 2^24 (floats of integers stay
// exact) and 2^31.
inline constexpr double kFloatLimit = 50;
inline constexpr double kIntLimit = 200;
// Exp's input is squashed below this (e^4 = 55).
inline constexpr double kExpLimit = 4;

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
  // nor a denominator (kept away from zero), nor a value inside a loop or a
  // branch.
  bool feedable = true;
  // How many loop bodies or branches deep it was built (0: outside all).
  int depth = 0;
};

// The shape of a broadcasting element-wise op on `a` and `b`, or unknown
// rank when they do not broadcast.
inline TensorShape BroadcastShape(const TensorShape& a, const TensorShape& b) {
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

inline bool IsFloat(const Val& v) { return v.dtype == DT_FLOAT; }

class Generator {
 public:
  Generator(uint64_t seed, const RandomGraphOptions& options,
            RandomGraph* result)
      : rng_(seed),
        options_(options),
        result_(result),
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
    const int loop_step =
        Chance(options_.loop_probability) ? Uniform(0, steps - 1) : -1;
    const int cond_step =
        Chance(options_.cond_probability) ? Uniform(0, steps - 1) : -1;
    for (int step = 0; step < steps; ++step) {
      if (step == all_reduce_step) AllReduces();
      if (step == training_step) TrainingStep();
      if (step == loop_step) Loop();
      if (step == cond_step) Conditional();
      Step();
      if (!root_.ok()) {
        return absl::InternalError(
            absl::StrCat("random graph seed ", result_->seed, " step ", step,
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
    v.feedable = kind != 1 && depth_ == 0;
    v.depth = depth_;
    // Inside a loop or a branch only Consts: a Placeholder there would be
    // fed once for every iteration.
    if (constant || depth_ > 0 || Chance(0.35)) {
      v.out = ops::Const(S(), t);
    } else {
      v.out =
          ops::Placeholder(S(), dtype, ops::PlaceholderAttrs().Shape(shape));
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
      case 0:
      case 1:
      case 2:
      case 3:
      case 4:
        return PickLike(a);
      case 5:
      case 6: {
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
    v.depth = depth_;
    if (depth_ > 0) v.feedable = false;
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
  Recipe Binary(const Val& a0);

  // A float value of `b`'s shape kept away from zero (|d| >= 0.35).
  Val Denominator(const Val& b);

  Recipe Unary(const Val& a0);

  // A rank-2 value of `dtype` (a new leaf when there is none).
  Val Matrix(DataType dtype);

  Recipe MatMul(DataType dtype);

  Recipe MatMulOf(const Val& a, bool ta, const Val& b, bool tb);

  // A bias for the last dimension of `a`.
  Val Bias(const Val& a);

  Val BiasAdd(const Val& a0);

  Val Transpose(const Val& a, std::vector<int32_t> perm = {});

  // A random shape with `a`'s number of elements (sometimes written with a
  // -1).
  Val Reshape(const Val& a);

  Val Cast(const Val& a);

  Val AddN(const Val& a0, int n);

  // Shape, Size or Rank of any value: an int32 value known at build time.
  Val ShapeOp(const Val& a);

  // Fill(dims, scalar), with dims a constant or the Shape of a value.
  Val Fill(const Val& like);

  Val ZerosOrOnes(const Val& a);

  Val Reduce(const Val& a0);

  // `a` and 1-2 values of its shape, or of its shape but for the axis.
  Val Concat(const Val& a);

  Val Softmax(const Val& a);

  // --- Patterns the passes look for. ---
  void Identities(const Val& a, int n);

  // x*1, x+0, x-0, 1*x, 0+x, x/1, x-x (ints), with scalar or full-shaped
  // neutral constants.
  void Neutral(const Val& a);

  // Transpose then undo it (or permute again).
  void DoubleTranspose(const Val& a);

  void DoubleReshape(const Val& a) { Reshape(Reshape(a)); }

  // MatMul -> BiasAdd [-> Relu], as a dense layer.
  void Dense(DataType dtype);

  // A few element-wise ops in a row, with scalar constants.
  void Chain(const Val& a0);

  // Ops on constants only: all of it can be folded.
  void ConstantSubgraph();

  // 2-4 all-reduces of small tensors, one member on each CPU. Every member
  // is fetched, so every one runs (a member left out would leave the other
  // waiting).
  void AllReduces();

  // TensorFlow's gradient `tuple`: a value nobody reads and `a`, both
  // gated by one NoOp, and an Identity of `a` after the NoOp (what
  // remove_unread_values looks for).
  void GradientTuple(const Val& a);

  // A variable updated by ApplyGradientDescent(var, 0.1, MatMul(a, b)), the
  // MatMul used by nothing else; the update's value is fetched.
  void TrainingStep();

  // The variable's value through an op a pass may remove: Identity, x*1,
  // x+0, or an Identity chain.
  Output ReadOf(const Scope& scope, const Output& var);

  void Step();

  // A while loop: a counter and 1-2 float variables from the pool, 0-3
  // iterations of 2-5 random steps (which read outer values through the
  // builder's captures), each variable's next value a Tanh of a body value
  // of its shape. The results join the pool; the body's values do not.
  void Loop();

  // ops::Cond on an int32 value's sum (exact, so no pass can flip it):
  // each branch 1-3 random steps returning a value of one shape.
  void Conditional();

  // Runs `steps` random steps in `scope` (a loop body or a branch) on the
  // pool plus `vars`, and returns, per template in `want`, a value built
  // there of its dtype and shape (the template itself when none was).
  // Restores the pool and the scope; `scale` grows to the largest scale
  // of what was built.
  std::vector<Val> Nested(const Scope& scope, const std::vector<Val>& vars,
                          int steps, const std::vector<Val>& want,
                          double* scale);

  // 4-10 distinct values, mostly intermediates (which a fusion would
  // otherwise consume), always the newest one; sometimes a target.
  void ChooseFetches();

  std::mt19937_64 rng_;
  RandomGraphOptions options_;
  RandomGraph* result_;
  Scope root_;
  std::vector<Val> pool_;
  int depth_ = 0;     // loop bodies and branches being built around us
  bool big_ = false;  // some shapes of this graph have thousands of elements
  std::vector<double> group_scales_;  // fetch_scales of group_fetches
};

}  // namespace random_graph_internal
}  // namespace dflow

#endif  // DFLOW_TESTS_COMPILER_RANDOM_GRAPH_GENERATOR_H_
