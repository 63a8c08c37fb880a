// The generator's ops: each builds one op (or a short pattern) of random
// operands and adds its results to the pool.
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

Generator::Recipe Generator::Binary(const Val& a0) {
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
      case 0:
        r.out = ops::AddV2(S(), x.out, y.out);
        break;
      case 1:
        r.out = ops::Sub(S(), x.out, y.out);
        break;
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

Val Generator::Denominator(const Val& b) {
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

Generator::Recipe Generator::Unary(const Val& a0) {
  const Val a = Tame(a0);
  std::vector<int> choices = {0, 1, 2, 3};
  if (IsFloat(a)) choices.insert(choices.end(), {4, 5, 6});
  const int op = OneOf(choices);
  const Val e = op == 6 ? Tame(a, kExpLimit) : a;
  return [=, this] {
    Val r = Derived(e, {&e}, e.shape, e.bound);
    switch (op) {
      case 0:
        r.out = ops::Neg(S(), e.out);
        break;
      case 1:
        r.out = ops::Square(S(), e.out);
        r.bound = e.bound * e.bound;
        r.scale = std::max(r.scale, e.scale * e.scale);
        break;
      case 2:
        r.out = ops::Relu(S(), e.out);
        break;
      case 3:
        r.out = ops::Identity(S(), e.out);
        break;
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

Val Generator::Matrix(DataType dtype) {
  return Tame(PickWhere(
      [&](const Val& v) { return v.dtype == dtype && v.shape.rank() == 2; },
      dtype, TensorShape({Uniform(1, 4), Uniform(1, 4)})));
}

Generator::Recipe Generator::MatMul(DataType dtype) {
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
    return MatMulOf(a, ta, Leaf(dtype, TensorShape({k, Uniform(1, 4)})), false);
  }
  return MatMulOf(a, ta, b, tb);
}

Generator::Recipe Generator::MatMulOf(const Val& a, bool ta, const Val& b,
                                      bool tb) {
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

Val Generator::Bias(const Val& a) {
  const TensorShape shape({a.shape.dim(a.shape.rank() - 1)});
  return Tame(PickWhere(
      [&](const Val& v) { return v.dtype == a.dtype && v.shape == shape; },
      a.dtype, shape));
}

Val Generator::BiasAdd(const Val& a0) {
  const Val a = Tame(a0);
  const Val b = Bias(a);
  Val r = Derived(a, {&a, &b}, a.shape, a.bound + b.bound);
  r.out = ops::BiasAdd(S(), a.out, b.out);
  return Add(r);
}

Val Generator::Transpose(const Val& a, std::vector<int32_t> perm) {
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

Val Generator::Reshape(const Val& a) {
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

Val Generator::Cast(const Val& a) {
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

Val Generator::AddN(const Val& a0, int n) {
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

Val Generator::ShapeOp(const Val& a) {
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

Val Generator::Fill(const Val& like) {
  const Val s = Tame(PickWhere(
      [&](const Val& v) {
        return v.dtype == like.dtype && v.shape.rank() == 0;
      },
      like.dtype, TensorShape()));
  Val r = Derived(s, {&s}, like.shape, s.bound);
  Output dims;
  if (Chance(0.5)) {
    dims = ops::Shape(S(), like.out);
  } else {
    std::vector<int32_t> d(like.shape.dims().begin(), like.shape.dims().end());
    dims = ops::Const(S(), Tensor::FromVector(d));
  }
  r.out = ops::Fill(S(), dims, s.out);
  return Add(r);
}

Val Generator::ZerosOrOnes(const Val& a) {
  Val r = Derived(a, {}, a.shape, 1);
  r.out = Chance(0.5) ? ops::ZerosLike(S(), a.out) : ops::OnesLike(S(), a.out);
  return Add(r);
}

Val Generator::Reduce(const Val& a0) {
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

Val Generator::Concat(const Val& a) {
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

Val Generator::Softmax(const Val& a) {
  Val r = Derived(a, {&a}, a.shape, 1);
  r.integral = false;
  // Softmax's outputs depend on differences of its inputs.
  r.scale = std::max(r.scale, 2 * a.bound);
  r.out = ops::Softmax(S(), a.out);
  return Add(r);
}

}  // namespace random_graph_internal
}  // namespace dflow
