// The generator's patterns (what each pass looks for), one construction
// step, and the choice of fetches.
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
#include "tests/compiler/random_graph_generator.h"

namespace dflow {
namespace random_graph_internal {

void Generator::Identities(const Val& a, int n) {
  Val v = a;
  for (int i = 0; i < n; ++i) {
    Val r = v;
    r.leaf = false;
    r.out = ops::Identity(S(), v.out);
    v = Add(r);
  }
}

void Generator::Neutral(const Val& a) {
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
    case 0:
      r.out = ops::Mul(S(), a.out, constant(1));
      break;
    case 1:
      r.out = ops::Mul(S(), constant(1), a.out);
      break;
    case 2:
      r.out = ops::AddV2(S(), a.out, constant(0));
      break;
    case 3:
      r.out = ops::AddV2(S(), constant(0), a.out);
      break;
    case 4:
      r.out = ops::Sub(S(), a.out, constant(0));
      break;
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

void Generator::DoubleTranspose(const Val& a) {
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

void Generator::Dense(DataType dtype) {
  const Val m = MatMul(dtype)();
  const Val b = BiasAdd(m);
  if (Chance(0.7)) {
    Val r = b;
    r.out = ops::Relu(S(), b.out);
    Add(r);
  }
}

void Generator::Chain(const Val& a0) {
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

void Generator::ConstantSubgraph() {
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

void Generator::AllReduces() {
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

void Generator::TrainingStep() {
  result_->stateful = true;
  const Scope scope = S();
  const Val a = Matrix(DT_FLOAT);
  const bool ta = Chance(0.3);
  const bool tb = Chance(0.3);
  const int64_t m = a.shape.dim(ta ? 1 : 0);
  const int64_t k = a.shape.dim(ta ? 0 : 1);
  const int64_t n = Uniform(1, 4);
  const Val b =
      Tame(Leaf(DT_FLOAT, tb ? TensorShape({n, k}) : TensorShape({k, n})));
  const Output grad = ops::MatMul(
      scope, a.out, b.out, ops::MatMulAttrs().TransposeA(ta).TransposeB(tb));
  const Output var = ops::Variable(scope, TensorShape({m, n}), DT_FLOAT);
  Tensor initial(DT_FLOAT, TensorShape({m, n}));
  std::uniform_real_distribution<float> any(-2.0f, 2.0f);
  for (float& x : initial.flat<float>()) x = any(rng_);
  const Output init = ops::Assign(scope, var, ops::Const(scope, initial));
  // Reads ordered by control edges only: one before the update, one
  // after. A pass that drops or moves a control edge (removing x*1 or an
  // Identity, merging equal reads) lets the read race the update. The read
  // before is a computed copy (x*1, x+0): an Identity of a reference
  // variable shares its buffer, which the update changes in place, so its
  // later consumers would see the update as TensorFlow's do.
  const bool reads = Chance(0.6);
  Output before;
  Scope update_scope = scope;
  if (reads) {
    before = Chance(0.5) ? ops::Mul(scope, var, 1.0f)
                         : ops::AddV2(scope, var, 0.0f);
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

Output Generator::ReadOf(const Scope& scope, const Output& var) {
  switch (Uniform(0, 3)) {
    case 0:
      return ops::Identity(scope, var);
    case 1:
      return ops::Mul(scope, var, 1.0f);
    case 2:
      return ops::AddV2(scope, var, 0.0f);
    default:
      return ops::Identity(scope, ops::Identity(scope, var));
  }
}

void Generator::GradientTuple(const Val& a) {
  Output unread = ops::Neg(S(), a.out);
  if (Chance(0.5)) unread = ops::Neg(S(), unread);
  // A control edge from a fed placeholder would still run it (and fail, as
  // in TensorFlow): gate only computed values.
  std::vector<Operation> gated = {unread.op()};
  // Nor a value from outside the loop or branch being built: a control
  // edge cannot enter a frame.
  if (a.out.op().node()->op() != "Placeholder" && a.depth == depth_) {
    gated.push_back(a.out.op());
  }
  const Operation group = ops::NoOp(S().WithControlDependencies(gated));
  Val r = a;
  r.leaf = false;
  r.out = ops::Identity(S().WithControlDependencies({group}), a.out);
  Add(r);
}

void Generator::Step() {
  const Val a = Pick();
  const int rank = a.shape.rank();
  switch (Uniform(0, 28)) {
    case 0:
    case 1:
    case 2:
      Binary(a)();
      break;
    case 3:
    case 4:
      Unary(a)();
      break;
    case 5:
    case 6:
      MatMul(Chance(0.75) ? DT_FLOAT : DT_INT32)();
      break;
    case 7:
      if (rank >= 2) BiasAdd(a);
      break;
    case 8:
      if (rank >= 2) Transpose(a);
      break;
    case 9:
      Reshape(a);
      break;
    case 10:
      Cast(a);
      break;
    case 11:
      AddN(a, Uniform(2, 4));
      break;
    case 12:
      ShapeOp(a);
      break;
    case 13:
      Fill(a);
      break;
    case 14:
      ZerosOrOnes(a);
      break;
    case 15:
      if (rank >= 1) Reduce(a);
      break;
    case 16:
      if (rank >= 1) Concat(a);
      break;
    case 17:
      if (rank == 2 && IsFloat(a)) Softmax(Tame(a));
      break;
    // Patterns.
    case 18: {  // a duplicated subexpression
      Recipe r = Chance(0.5) ? Binary(a) : Unary(a);
      r();
      r();
      break;
    }
    case 19:
      Neutral(a);
      break;
    case 20:
      if (rank >= 2) DoubleTranspose(a);
      break;
    case 21:
      DoubleReshape(a);
      break;
    case 22:
      Identities(a, Uniform(2, 4));
      break;
    case 23:
      AddN(a, 1);
      break;
    case 24: {  // a cast to the same type
      Val r = a;
      r.leaf = false;
      r.out = ops::Cast(S(), a.out, a.dtype);
      Add(r);
      break;
    }
    case 25:
      Dense(Chance(0.8) ? DT_FLOAT : DT_INT32);
      break;
    case 26:
      Chain(a);
      break;
    case 27:
      GradientTuple(a);
      break;
    default:
      ConstantSubgraph();
      break;
  }
}

void Generator::ChooseFetches() {
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
          x = v.integral ? static_cast<float>(Uniform(-static_cast<int>(b),
                                                      static_cast<int>(b)))
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

}  // namespace random_graph_internal
}  // namespace dflow
