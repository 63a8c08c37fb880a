// Numeric checks of the math gradients (graph/gradients/math_grad.cc):
// every gradient against central finite differences, over broadcasting
// shapes, keep_dims, negative/several/int64 axes, an unknown batch
// dimension, an unknown rank and axes known only at run time; plus exact
// values where the rule is a convention (ties, x <= 0 in Pow, zeros in
// Prod) and the op counts of the training fast paths.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "graph/gradients/grad_registry.h"
#include "graph/gradients/gradients.h"
#include "graph/ops/ops.h"
#include "gtest/gtest.h"
#include "runtime/session.h"
#include "tests/gradients/gradient_checker.h"

namespace dflow {
namespace {

using ::testing::ElementsAre;
using ::testing::UnorderedElementsAre;

// --- Helpers. ---

// How much of a placeholder's shape the graph knows.
enum class Known { kAll, kBatchUnknown, kRankUnknown };

const char* KnownName(Known k) {
  switch (k) {
    case Known::kAll:
      return "known shape";
    case Known::kBatchUnknown:
      return "unknown batch";
    case Known::kRankUnknown:
      return "unknown rank";
  }
  return "";
}

constexpr Known kAllKnowns[] = {Known::kAll, Known::kBatchUnknown,
                                Known::kRankUnknown};

TensorShape StaticShape(const TensorShape& shape, Known known) {
  if (known == Known::kRankUnknown) return TensorShape::Unknown();
  TensorShape s = shape;
  if (known == Known::kBatchUnknown && s.rank() > 0) {
    s.set_dim(0, TensorShape::kUnknownDim);
  }
  return s;
}

Output Ph(const Scope& s, const TensorShape& shape, Known known = Known::kAll,
          DataType dtype = DT_DOUBLE) {
  return ops::Placeholder(
      s, dtype, ops::PlaceholderAttrs().Shape(StaticShape(shape, known)));
}

Tensor Doubles(const std::vector<double>& v, const TensorShape& shape) {
  return Tensor::FromVector<double>(v, shape);
}

// Deterministic values in [lo, hi), distinct with probability ~1.
Tensor Uniform(const TensorShape& shape, double lo, double hi,
               uint32_t seed = 1) {
  std::vector<double> v(shape.num_elements());
  uint64_t state = 0x9E3779B97F4A7C15ull * (seed + 1);
  for (double& x : v) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    x = lo + (hi - lo) * static_cast<double>(state >> 11) / 9007199254740992.0;
  }
  return Doubles(v, shape);
}

std::vector<double> Values(const Tensor& t) {
  std::vector<double> out;
  if (t.dtype() == DT_FLOAT) {
    for (float v : t.flat<float>()) out.push_back(v);
  } else {
    for (double v : t.flat<double>()) out.push_back(v);
  }
  return out;
}

// Symbolic against numeric Jacobians of ys with respect to the
// placeholders xs.
testing::AssertionResult GradientsMatch(const Scope& root,
                                        const std::vector<Output>& xs,
                                        const std::vector<Tensor>& values,
                                        const std::vector<Output>& ys,
                                        double tolerance = 1e-7,
                                        double delta = 0) {
  if (!root.ok()) return testing::AssertionFailure() << root.status();
  GradientCheckOptions options;
  options.delta = delta;
  absl::StatusOr<GradientCheckResult> r =
      CheckGradients(root, xs, values, ys, options);
  if (!r.ok()) return testing::AssertionFailure() << r.status();
  if (!(r->max_error < tolerance)) {
    return testing::AssertionFailure()
           << "max error " << r->max_error << " at " << r->worst_entry;
  }
  return testing::AssertionSuccess();
}

// dy/dxs (seeded with ones) evaluated at `feeds`.
std::vector<std::vector<double>> Gradients(const Scope& root, const Output& y,
                                           const std::vector<Output>& xs,
                                           const FeedList& feeds) {
  auto grads = AddSymbolicGradients(root, {y}, xs);
  EXPECT_TRUE(grads.ok()) << grads.status();
  if (!grads.ok()) return {};
  GraphDef def;
  EXPECT_TRUE(root.ToGraphDef(&def).ok()) << root.status();
  auto session = Session::Create(def);
  EXPECT_TRUE(session.ok()) << session.status();
  if (!session.ok()) return {};
  std::vector<std::string> names;
  for (const Output& g : *grads) names.push_back(g.name());
  std::vector<Tensor> out;
  absl::Status s = (*session)->Run(feeds, names, {}, &out);
  EXPECT_TRUE(s.ok()) << s;
  std::vector<std::vector<double>> values;
  for (const Tensor& t : out) values.push_back(Values(t));
  return values;
}

// The op types of the nodes built under "gradients/", except the seed and
// constants: what a gradient costs per step.
std::multiset<std::string> GradientOps(const Scope& root) {
  std::multiset<std::string> ops;
  for (Node* n : root.graph()->nodes()) {
    if (!absl::StartsWith(n->name(), "gradients/")) continue;
    if (n->op() == "Const" || n->name() == "gradients/OnesLike") continue;
    ops.insert(n->op());
  }
  return ops;
}

// --- Element-wise binary ops. ---

using BinaryFn = std::function<Output(const Scope&, Input, Input)>;

struct BinaryCase {
  const char* name;
  BinaryFn fn;
  double x_lo, x_hi, y_lo, y_hi;
};

std::vector<BinaryCase> BinaryCases() {
  return {
      {"Add", ops::Add, -2, 2, -2, 2},
      {"AddV2", ops::AddV2, -2, 2, -2, 2},
      {"Sub", ops::Sub, -2, 2, -2, 2},
      {"Mul", ops::Mul, -2, 2, -2, 2},
      {"RealDiv", ops::RealDiv, -2, 2, 0.5, 2},
      {"Maximum", ops::Maximum, -2, 2, -2, 2},
      {"Minimum", ops::Minimum, -2, 2, -2, 2},
      {"Pow", ops::Pow, 0.5, 2, -1.5, 2},
      {"SquaredDifference", ops::SquaredDifference, -2, 2, -2, 2},
  };
}

struct ShapePair {
  TensorShape x, y;
};

// Same shapes, a row against a matrix (both ways), a column against a row,
// a scalar against a matrix (both ways), and a rank-3 broadcast.
std::vector<ShapePair> BroadcastShapes() {
  return {{{2, 3}, {2, 3}}, {{2, 3}, {3}}, {{3}, {2, 3}},      {{2, 1}, {1, 3}},
          {{}, {2, 3}},     {{2, 3}, {}},  {{2, 1, 3}, {4, 1}}};
}

TEST(MathGradTest, BinaryOpsWithBroadcasting) {
  for (const BinaryCase& c : BinaryCases()) {
    for (const ShapePair& p : BroadcastShapes()) {
      for (Known known : kAllKnowns) {
        Scope root = Scope::NewRootScope();
        Output x = Ph(root, p.x, known);
        Output y = Ph(root, p.y, known);
        Output z = c.fn(root, x, y);
        EXPECT_TRUE(GradientsMatch(
            root, {x, y},
            {Uniform(p.x, c.x_lo, c.x_hi, 1), Uniform(p.y, c.y_lo, c.y_hi, 2)},
            {z}))
            << c.name << " " << p.x.ToString() << " with " << p.y.ToString()
            << ", " << KnownName(known);
      }
    }
  }
}

// A batch-unknown input against a fully known one (the bias add): each
// side's static analysis is independent.
TEST(MathGradTest, BinaryOpsWithAnUnknownBatchAgainstAKnownShape) {
  for (const BinaryCase& c : BinaryCases()) {
    for (const ShapePair& p : std::vector<ShapePair>{{{2, 3}, {3}},
                                                     {{2, 3}, {1, 3}},
                                                     {{2, 1}, {1, 3}},
                                                     {{2, 3}, {}},
                                                     {{4, 2, 3}, {2, 1}}}) {
      Scope root = Scope::NewRootScope();
      Output x = Ph(root, p.x, Known::kBatchUnknown);
      Output y = Ph(root, p.y, Known::kAll);
      Output z = c.fn(root, x, y);
      EXPECT_TRUE(GradientsMatch(
          root, {x, y},
          {Uniform(p.x, c.x_lo, c.x_hi, 3), Uniform(p.y, c.y_lo, c.y_hi, 4)},
          {z}))
          << c.name << " [?...] " << p.x.ToString() << " with "
          << p.y.ToString();
    }
  }
}

// The training hot path: a bias [N] added to [?,N] costs one Sum for the
// bias and nothing for the activations.
TEST(MathGradTest, BiasAddWithAnUnknownBatchIsOneSum) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT,
                              ops::PlaceholderAttrs().Shape({-1, 3}));
  Output b = ops::Placeholder(root.WithOpName("b"), DT_FLOAT,
                              ops::PlaceholderAttrs().Shape({3}));
  Output y = ops::AddV2(root, x, b);
  auto grads = AddSymbolicGradients(root, {y}, {x, b});
  ASSERT_TRUE(grads.ok()) << grads.status();
  EXPECT_THAT(GradientOps(root), UnorderedElementsAre("Sum"));
  EXPECT_EQ((*grads)[0].name(), "gradients/OnesLike");
  EXPECT_EQ((*grads)[1].node()->op(), "Sum");
  EXPECT_EQ((*grads)[1].shape().ToString(), "[3]");
}

TEST(MathGradTest, EqualKnownShapesBuildNoReduction) {
  Scope root = Scope::NewRootScope();
  Output x = Ph(root, {2, 3});
  Output y = Ph(root, {2, 3});
  Output z = ops::Mul(root, x, y);
  ASSERT_TRUE(AddSymbolicGradients(root, {z}, {x, y}).ok());
  EXPECT_THAT(GradientOps(root), UnorderedElementsAre("Mul", "Mul"));
}

TEST(MathGradTest, MaximumTiesGoToX) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_DOUBLE);
  Output y = ops::Placeholder(root.WithOpName("y"), DT_DOUBLE);
  Output z = ops::Maximum(root, x, y);
  auto g = Gradients(
      root, z, {x, y},
      {{"x", Doubles({1, 2, 3, -1}, {4})}, {"y", Doubles({1, 5, 0, -1}, {4})}});
  ASSERT_EQ(g.size(), 2u);
  EXPECT_THAT(g[0], ElementsAre(1, 0, 1, 1));
  EXPECT_THAT(g[1], ElementsAre(0, 1, 0, 0));
}

TEST(MathGradTest, MinimumTiesGoToX) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_DOUBLE);
  Output y = ops::Placeholder(root.WithOpName("y"), DT_DOUBLE);
  Output z = ops::Minimum(root, x, y);
  auto g = Gradients(
      root, z, {x, y},
      {{"x", Doubles({1, 2, 3, -1}, {4})}, {"y", Doubles({1, 5, 0, -1}, {4})}});
  ASSERT_EQ(g.size(), 2u);
  EXPECT_THAT(g[0], ElementsAre(1, 1, 0, 1));
  EXPECT_THAT(g[1], ElementsAre(0, 0, 1, 0));
}

// A scalar y broadcast against ties: its gradient sums where it won.
TEST(MathGradTest, MaximumWithABroadcastScalar) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_DOUBLE,
                              ops::PlaceholderAttrs().Shape({2, 2}));
  Output y = ops::Placeholder(root.WithOpName("y"), DT_DOUBLE,
                              ops::PlaceholderAttrs().Shape({}));
  Output z = ops::Maximum(root, x, y);  // ReLU-like clamp at y
  auto g = Gradients(root, z, {x, y},
                     {{"x", Doubles({-1, 0, 2, 0.5}, {2, 2})},
                      {"y", Tensor::Scalar<double>(0)}});
  ASSERT_EQ(g.size(), 2u);
  EXPECT_THAT(g[0], ElementsAre(0, 1, 1, 1));
  EXPECT_THAT(g[1], ElementsAre(1));
}

// TensorFlow's convention: the exponent's gradient is 0 where x <= 0
// (log x is undefined there), and x's gradient is y x^(y-1) as usual.
TEST(MathGradTest, PowAtZeroAndNegativeBases) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_DOUBLE);
  Output y = ops::Placeholder(root.WithOpName("y"), DT_DOUBLE);
  Output z = ops::Pow(root, x, y);
  auto g = Gradients(root, z, {x, y},
                     {{"x", Doubles({0, -2, 0, 2}, {4})},
                      {"y", Doubles({2, 3, 0.5, 3}, {4})}});
  ASSERT_EQ(g.size(), 2u);
  EXPECT_DOUBLE_EQ(g[0][0], 0);      // 2 * 0^1
  EXPECT_DOUBLE_EQ(g[0][1], 12);     // 3 * (-2)^2
  EXPECT_TRUE(std::isinf(g[0][2]));  // 0.5 * 0^-0.5
  EXPECT_DOUBLE_EQ(g[0][3], 12);     // 3 * 2^2
  EXPECT_DOUBLE_EQ(g[1][0], 0);
  EXPECT_DOUBLE_EQ(g[1][1], 0);
  EXPECT_DOUBLE_EQ(g[1][2], 0);
  EXPECT_NEAR(g[1][3], 8 * std::log(2.0), 1e-12);
}

TEST(MathGradTest, PowOfANegativeBaseToAnIntegerPower) {
  Scope root = Scope::NewRootScope();
  Output x = Ph(root, {2, 2});
  Output z = ops::Pow(root, x, ops::Const(root, Doubles({2, 3}, {2})));
  EXPECT_TRUE(
      GradientsMatch(root, {x}, {Doubles({-1.5, -0.5, 0.7, -2}, {2, 2})}, {z}));
}

// --- Element-wise unary ops. ---

struct UnaryCase {
  const char* name;
  std::function<Output(const Scope&, Input)> fn;
  double lo, hi;
};

TEST(MathGradTest, UnaryOps) {
  const std::vector<UnaryCase> cases = {
      {"Neg", ops::Neg, -2, 2},         {"Square", ops::Square, -2, 2},
      {"Sqrt", ops::Sqrt, 0.5, 3},      {"Rsqrt", ops::Rsqrt, 0.5, 3},
      {"Exp", ops::Exp, -2, 2},         {"Log", ops::Log, 0.5, 3},
      {"Sigmoid", ops::Sigmoid, -3, 3}, {"Tanh", ops::Tanh, -2, 2},
  };
  for (const UnaryCase& c : cases) {
    for (Known known : kAllKnowns) {
      for (const TensorShape& shape : {TensorShape({}), TensorShape({2, 3})}) {
        Scope root = Scope::NewRootScope();
        Output x = Ph(root, shape, known);
        EXPECT_TRUE(GradientsMatch(root, {x}, {Uniform(shape, c.lo, c.hi)},
                                   {c.fn(root, x)}))
            << c.name << " " << shape.ToString() << ", " << KnownName(known);
      }
    }
  }
}

TEST(MathGradTest, UnaryOpsInFloat) {
  const std::vector<UnaryCase> cases = {
      {"Sqrt", ops::Sqrt, 0.5, 3}, {"Rsqrt", ops::Rsqrt, 0.5, 3},
      {"Log", ops::Log, 0.5, 3},   {"Sigmoid", ops::Sigmoid, -3, 3},
      {"Tanh", ops::Tanh, -2, 2},  {"Exp", ops::Exp, -2, 2},
  };
  for (const UnaryCase& c : cases) {
    Scope root = Scope::NewRootScope();
    Output x = Ph(root, {2, 3}, Known::kAll, DT_FLOAT);
    Output y = c.fn(root, x);
    Tensor v = Uniform({2, 3}, c.lo, c.hi);
    Tensor f(DT_FLOAT, v.shape());
    for (int i = 0; i < 6; ++i) f.flat<float>()[i] = v.flat<double>()[i];
    EXPECT_TRUE(GradientsMatch(root, {x}, {f}, {y}, 5e-3)) << c.name;
  }
}

// The activation gradient ops themselves, in both inputs.
TEST(MathGradTest, SigmoidGradAndTanhGrad) {
  for (bool sigmoid : {true, false}) {
    Scope root = Scope::NewRootScope();
    Output y = Ph(root, {2, 3});
    Output dy = Ph(root, {2, 3});
    Output z =
        sigmoid ? ops::SigmoidGrad(root, y, dy) : ops::TanhGrad(root, y, dy);
    EXPECT_TRUE(GradientsMatch(
        root, {y, dy},
        {Uniform({2, 3}, -0.9, 0.9, 5), Uniform({2, 3}, -2, 2, 6)}, {z}))
        << (sigmoid ? "SigmoidGrad" : "TanhGrad");
  }
}

// Second derivatives of Sigmoid and Tanh go through their *Grad ops.
TEST(MathGradTest, SecondDerivativesOfSigmoidAndTanh) {
  for (bool sigmoid : {true, false}) {
    Scope root = Scope::NewRootScope();
    Output x = Ph(root, {5});
    Output y = sigmoid ? ops::Sigmoid(root, x) : ops::Tanh(root, x);
    auto first = AddSymbolicGradients(root, {y}, {x});
    ASSERT_TRUE(first.ok()) << first.status();
    EXPECT_TRUE(GradientsMatch(root, {x}, {Uniform({5}, -2, 2)}, {(*first)[0]}))
        << (sigmoid ? "Sigmoid" : "Tanh");
  }
}

// --- MatMul. ---

TEST(MathGradTest, MatMulWithAnUnknownBatch) {
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      Scope root = Scope::NewRootScope();
      // The batch is a's rows: dimension 0, or 1 when a is transposed.
      Output a = ops::Placeholder(
          root, DT_DOUBLE,
          ops::PlaceholderAttrs().Shape(ta ? TensorShape({3, -1})
                                           : TensorShape({-1, 3})));
      Output b = Ph(root, tb ? TensorShape({4, 3}) : TensorShape({3, 4}));
      Output c = ops::MatMul(root, a, b,
                             ops::MatMulAttrs().TransposeA(ta).TransposeB(tb));
      EXPECT_TRUE(GradientsMatch(
          root, {a, b},
          {Uniform(ta ? TensorShape({3, 2}) : TensorShape({2, 3}), -2, 2, 7),
           Uniform(tb ? TensorShape({4, 3}) : TensorShape({3, 4}), -2, 2, 8)},
          {c}))
          << "transpose_a=" << ta << " transpose_b=" << tb;
    }
  }
}

// --- Reductions. ---

enum class Red { kSum, kMean, kMax, kMin, kProd };

const char* RedName(Red r) {
  switch (r) {
    case Red::kSum:
      return "Sum";
    case Red::kMean:
      return "Mean";
    case Red::kMax:
      return "Max";
    case Red::kMin:
      return "Min";
    case Red::kProd:
      return "Prod";
  }
  return "";
}

Output Reduce(const Scope& s, Red r, Input x, Input axes, bool keep) {
  const auto attrs = ops::ReductionAttrs().KeepDims(keep);
  switch (r) {
    case Red::kSum:
      return ops::Sum(s, x, axes, attrs);
    case Red::kMean:
      return ops::Mean(s, x, axes, attrs);
    case Red::kMax:
      return ops::Max(s, x, axes, attrs);
    case Red::kMin:
      return ops::Min(s, x, axes, attrs);
    case Red::kProd:
      return ops::Prod(s, x, axes, attrs);
  }
  return Output();
}

constexpr Red kAllReductions[] = {Red::kSum, Red::kMean, Red::kMax, Red::kMin,
                                  Red::kProd};

// How the axes reach the op.
enum class AxesAs { kInt32, kInt64, kRuntime };

const char* AxesName(AxesAs a) {
  switch (a) {
    case AxesAs::kInt32:
      return "int32 axes";
    case AxesAs::kInt64:
      return "int64 axes";
    case AxesAs::kRuntime:
      return "run-time axes";
  }
  return "";
}

Output Axes(const Scope& s, const std::vector<int64_t>& axes, bool scalar,
            AxesAs as) {
  Tensor t;
  if (as == AxesAs::kInt64) {
    t = scalar ? Tensor::Scalar<int64_t>(axes[0])
               : Tensor::FromVector<int64_t>(axes);
  } else {
    std::vector<int32_t> v(axes.begin(), axes.end());
    t = scalar ? Tensor::Scalar<int32_t>(v[0]) : Tensor::FromVector<int32_t>(v);
  }
  Output c = ops::Const(s, t);
  // An Identity hides the value from the gradient's build-time analysis.
  return as == AxesAs::kRuntime ? ops::Identity(s, c) : c;
}

struct AxesCase {
  std::vector<int64_t> axes;
  bool scalar;
};

std::string AxesString(const AxesCase& a) {
  std::string s = a.scalar ? "axis " : "axes [";
  for (size_t i = 0; i < a.axes.size(); ++i) {
    absl::StrAppend(&s, i ? "," : "", a.axes[i]);
  }
  return a.scalar ? s : s + "]";
}

// Every reduction, over [3,2,4], with every combination of: one axis
// (scalar or vector, negative), several axes (in any order), all axes, no
// axes; keep_dims on and off; int32, int64 and run-time axes; and a known
// shape, an unknown batch or an unknown rank.
TEST(MathGradTest, Reductions) {
  const TensorShape shape = {3, 2, 4};
  const std::vector<AxesCase> axes_cases = {
      {{1}, true},      {{0}, false},       {{-1}, true}, {{2, 0}, false},
      {{0, -2}, false}, {{0, 1, 2}, false}, {{}, false},
  };
  for (Red red : kAllReductions) {
    for (const AxesCase& a : axes_cases) {
      for (bool keep : {false, true}) {
        for (AxesAs as : {AxesAs::kInt32, AxesAs::kInt64, AxesAs::kRuntime}) {
          for (Known known : kAllKnowns) {
            Scope root = Scope::NewRootScope();
            Output x = Ph(root, shape, known);
            Output y =
                Reduce(root, red, x, Axes(root, a.axes, a.scalar, as), keep);
            // Max/Min: distinct values (no ties); Prod: away from 0.
            const double lo = red == Red::kProd ? 0.5 : -2;
            EXPECT_TRUE(
                GradientsMatch(root, {x}, {Uniform(shape, lo, 1.5, 9)}, {y}))
                << RedName(red) << " over " << AxesString(a)
                << " keep_dims=" << keep << ", " << AxesName(as) << ", "
                << KnownName(known);
          }
        }
      }
    }
  }
}

// The gradients build their constants (counts, shapes) in the op's dtype:
// float inputs, fully known and batch-unknown.
TEST(MathGradTest, ReductionsInFloat) {
  const TensorShape shape = {3, 4};
  Tensor v(DT_FLOAT, shape);
  const Tensor d = Uniform(shape, 0.5, 1.5, 11);
  for (int i = 0; i < 12; ++i) v.flat<float>()[i] = d.flat<double>()[i];
  for (Red red : kAllReductions) {
    for (const AxesCase& a :
         std::vector<AxesCase>{{{0}, true}, {{1}, true}, {{0, 1}, false}}) {
      for (Known known : {Known::kAll, Known::kBatchUnknown}) {
        Scope root = Scope::NewRootScope();
        Output x = Ph(root, shape, known, DT_FLOAT);
        Output y = Reduce(root, red, x,
                          Axes(root, a.axes, a.scalar, AxesAs::kInt32), false);
        EXPECT_TRUE(GradientsMatch(root, {x}, {v}, {y}, 5e-3))
            << RedName(red) << " over " << AxesString(a) << ", "
            << KnownName(known);
      }
    }
  }
}

// The per-example loss: the mean of a [?] vector, and the fully known
// [N] one.
TEST(MathGradTest, MeanOfAVector) {
  for (Known known : {Known::kAll, Known::kBatchUnknown}) {
    for (bool keep : {false, true}) {
      Scope root = Scope::NewRootScope();
      Output x = Ph(root, {5}, known);
      Output y = ops::Mean(root, x, 0, ops::ReductionAttrs().KeepDims(keep));
      EXPECT_TRUE(GradientsMatch(root, {x}, {Uniform({5}, -2, 2)}, {y}))
          << KnownName(known) << " keep_dims=" << keep;
    }
  }
}

TEST(MathGradTest, MeanOfAnUnknownBatchVectorIsFourOps) {
  Scope root = Scope::NewRootScope();
  Output x =
      ops::Placeholder(root, DT_FLOAT, ops::PlaceholderAttrs().Shape({-1}));
  Output y = ops::Mean(root, x, 0);
  ASSERT_TRUE(AddSymbolicGradients(root, {y}, {x}).ok());
  EXPECT_THAT(GradientOps(root),
              UnorderedElementsAre("Shape", "Cast", "RealDiv", "Tile"));
}

TEST(MathGradTest, MeanOfAKnownVectorIsTwoOps) {
  Scope root = Scope::NewRootScope();
  Output x =
      ops::Placeholder(root, DT_FLOAT, ops::PlaceholderAttrs().Shape({8}));
  Output y = ops::Mean(root, x, 0);
  ASSERT_TRUE(AddSymbolicGradients(root, {y}, {x}).ok());
  EXPECT_THAT(GradientOps(root), UnorderedElementsAre("RealDiv", "Fill"));
}

// Sum over the batch of a [?,N] matrix: the gradient is broadcast back in
// two ops, with no shape arithmetic.
TEST(MathGradTest, SumOverTheBatchOfAMatrix) {
  for (bool keep : {false, true}) {
    Scope root = Scope::NewRootScope();
    Output x = Ph(root, {4, 3}, Known::kBatchUnknown);
    Output y = ops::Sum(root, x, 0, ops::ReductionAttrs().KeepDims(keep));
    EXPECT_TRUE(GradientsMatch(root, {x}, {Uniform({4, 3}, -2, 2)}, {y}))
        << "keep_dims=" << keep;
    EXPECT_THAT(GradientOps(root), UnorderedElementsAre("AddV2", "ZerosLike"));
  }
}

// With known dimensions the gradient of a reduction is a Tile or a Fill of
// constant shape.
TEST(MathGradTest, ReductionsOfKnownShapesUseConstantShapes) {
  Scope root = Scope::NewRootScope();
  Output x = Ph(root, {3, 4}, Known::kBatchUnknown);
  Output y = ops::Sum(root, x, 1);  // [?,4] -> [?]
  ASSERT_TRUE(AddSymbolicGradients(root, {y}, {x}).ok());
  EXPECT_THAT(GradientOps(root), UnorderedElementsAre("Reshape", "Tile"));
}

TEST(MathGradTest, MaxAndMinSplitTiesEvenly) {
  for (bool is_max : {true, false}) {
    Scope root = Scope::NewRootScope();
    Output x = ops::Placeholder(root.WithOpName("x"), DT_DOUBLE);
    Output y = is_max ? ops::Max(root, x, 1) : ops::Min(root, x, 1);
    const double s = is_max ? 1 : -1;
    auto g = Gradients(root, y, {x},
                       {{"x", Doubles({s * 1, s * 3, s * 3, s * 2, s * 0, s * 2,
                                       s * 5, s * 5, s * 5},
                                      {3, 3})}});
    ASSERT_EQ(g.size(), 1u);
    const double t = 1.0 / 3;
    EXPECT_THAT(g[0], ElementsAre(0, 0.5, 0.5, 0.5, 0, 0.5, t, t, t))
        << (is_max ? "Max" : "Min");
  }
}

// The product of the others, with no division: exact with one zero (the
// zero's gradient is the product of the rest) and with two (all zero).
TEST(MathGradTest, ProdWithZeros) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_DOUBLE);
  Output y = ops::Prod(root, x, 1);
  auto g = Gradients(root, y, {x},
                     {{"x", Doubles({2, 3, 4, 2, 0, 5, 0, 3, 0}, {3, 3})}});
  ASSERT_EQ(g.size(), 1u);
  EXPECT_THAT(g[0], ElementsAre(12, 8, 6, 0, 10, 0, 0, 0, 0));
}

TEST(MathGradTest, ProdWithZerosOverSeveralAxes) {
  for (Known known : kAllKnowns) {
    for (AxesAs as : {AxesAs::kInt32, AxesAs::kRuntime}) {
      Scope root = Scope::NewRootScope();
      Output x = Ph(root, {2, 3, 2}, known);
      Output y = ops::Prod(root, x, Axes(root, {0, 2}, false, as));
      // Column 0 has one zero, column 1 two, column 2 none.
      Tensor v = Doubles({0, 2, 0.5, 0, 1.5, 1.2,  //
                          0.7, 3, 0, 0.8, 2, 0.9},
                         {2, 3, 2});
      EXPECT_TRUE(GradientsMatch(root, {x}, {v}, {y}))
          << KnownName(known) << ", " << AxesName(as);
    }
  }
}

TEST(MathGradTest, ProdNeedsTheNumberOfAxes) {
  Scope root = Scope::NewRootScope();
  Output x = Ph(root, {2, 3});
  Output axes = ops::Placeholder(root, DT_INT32);  // shape unknown
  Output y = ops::Prod(root, x, axes);
  auto grads = AddSymbolicGradients(root, {y}, {x});
  ASSERT_FALSE(grads.ok());
  EXPECT_EQ(grads.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(grads.status().message(),
              testing::HasSubstr("number of reduction axes"));
}

// --- Cumulative sums and products. ---

TEST(MathGradTest, CumsumAndCumprod) {
  for (bool prod : {false, true}) {
    for (bool exclusive : {false, true}) {
      for (bool reverse : {false, true}) {
        for (int axis : {0, 1, -1}) {
          Scope root = Scope::NewRootScope();
          Output x = Ph(root, {3, 4});
          const auto attrs =
              ops::ScanAttrs().Exclusive(exclusive).Reverse(reverse);
          Output y = prod ? ops::Cumprod(root, x, axis, attrs)
                          : ops::Cumsum(root, x, axis, attrs);
          EXPECT_TRUE(GradientsMatch(root, {x}, {Uniform({3, 4}, 0.5, 2)}, {y}))
              << (prod ? "Cumprod" : "Cumsum") << " exclusive=" << exclusive
              << " reverse=" << reverse << " axis=" << axis;
        }
      }
    }
  }
}

// --- Cast. ---

TEST(MathGradTest, CastBetweenFloatTypesCastsTheGradientBack) {
  for (bool to_float : {true, false}) {
    Scope root = Scope::NewRootScope();
    const DataType src = to_float ? DT_DOUBLE : DT_FLOAT;
    const DataType dst = to_float ? DT_FLOAT : DT_DOUBLE;
    Output x = Ph(root, {3}, Known::kAll, src);
    Output y = ops::Square(root, ops::Cast(root, x, dst));
    auto grads = AddSymbolicGradients(root, {y}, {x});
    ASSERT_TRUE(grads.ok()) << grads.status();
    EXPECT_EQ((*grads)[0].dtype(), src);
    Tensor v(src, {3});
    for (int i = 0; i < 3; ++i) {
      if (src == DT_FLOAT) {
        v.flat<float>()[i] = 0.5f + i;
      } else {
        v.flat<double>()[i] = 0.5 + i;
      }
    }
    // A step large enough for the float side's rounding.
    EXPECT_TRUE(GradientsMatch(root, {x}, {v}, {y}, 5e-3, 1e-3))
        << DataTypeName(src) << " -> " << DataTypeName(dst);
  }
}

TEST(MathGradTest, CastThroughAnIntegerCarriesNoGradient) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_DOUBLE);
  Output rounded = ops::Cast(root, ops::Cast(root, x, DT_INT32), DT_DOUBLE);
  Output y = ops::Mul(root, x, rounded);  // x * trunc(x)
  auto g = Gradients(root, y, {x}, {{"x", Doubles({2.7, -1.5}, {2})}});
  ASSERT_EQ(g.size(), 1u);
  EXPECT_THAT(g[0], ElementsAre(2, -1));  // trunc(x) only
}

// --- Ops without gradients. ---

TEST(MathGradTest, ComparisonsAndArgMaxEndThePath) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_DOUBLE);
  Output c = ops::Const(root, 0.5);
  Output mask = ops::Cast(
      root,
      ops::Equal(root, ops::Cast(root, ops::Less(root, x, c), DT_INT32),
                 ops::Cast(root, ops::Greater(root, c, x), DT_INT32)),
      DT_DOUBLE);
  Output index = ops::Cast(root, ops::ArgMax(root, x, 1), DT_DOUBLE);
  Output y = ops::Mul(root, ops::Mul(root, x, mask), ops::Add(root, index, 1));
  auto g = Gradients(root, y, {x}, {{"x", Doubles({0.25, 2}, {1, 2})}});
  ASSERT_EQ(g.size(), 1u);
  EXPECT_THAT(g[0], ElementsAre(2, 2));  // mask 1, index 1
}

// Every op of graph/ops/math_ops.h has a gradient or is marked as having
// none.
TEST(MathGradTest, EveryMathOpIsRegistered) {
  for (const char* op : {"Add",         "AddV2",    "Sub",
                         "Mul",         "RealDiv",  "Maximum",
                         "Minimum",     "Pow",      "SquaredDifference",
                         "AddN",        "Neg",      "Square",
                         "Sqrt",        "Rsqrt",    "Exp",
                         "Log",         "Sigmoid",  "Tanh",
                         "SigmoidGrad", "TanhGrad", "MatMul",
                         "Sum",         "Mean",     "Max",
                         "Min",         "Prod",     "Cumsum",
                         "Cumprod",     "Cast"}) {
    const GradFunc* fn = nullptr;
    EXPECT_EQ(GradRegistry::Global()->Lookup(op, &fn),
              GradRegistry::Kind::kGradient)
        << op;
  }
  for (const char* op : {"Less", "Greater", "Equal", "ArgMax"}) {
    const GradFunc* fn = nullptr;
    EXPECT_EQ(GradRegistry::Global()->Lookup(op, &fn),
              GradRegistry::Kind::kNoGradient)
        << op;
  }
}

TEST(MathGradTest, AddNSpreadsTheGradient) {
  Scope root = Scope::NewRootScope();
  Output a = Ph(root, {2, 2});
  Output b = Ph(root, {2, 2});
  Output y = ops::AddN(root, {a, ops::Square(root, b), a});
  EXPECT_TRUE(GradientsMatch(
      root, {a, b}, {Uniform({2, 2}, -1, 1, 1), Uniform({2, 2}, -1, 1, 2)},
      {y}));
}

}  // namespace
}  // namespace dflow
