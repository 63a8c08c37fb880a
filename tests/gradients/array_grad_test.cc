// Numeric checks of the array, shape and slicing gradients
// (graph/gradients/array_grad.cc): every gradient against central
// differences in float64, over several shapes and axes (negative ones
// too), with unknown batch dimensions, and with index inputs that are not
// Consts (so the run-time shape path is taken). Where a fast path should
// build no run-time shape ops, the gradient's ops are checked too.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gmock/gmock.h"
#include "graph/gradients/grad_registry.h"
#include "graph/ops/ops.h"
#include "gtest/gtest.h"
#include "tests/gradients/gradient_checker.h"

namespace dflow {
namespace {

using ::testing::Contains;
using ::testing::Not;

// Distinct, irregular values (no two entries equal, no symmetry a wrong
// index mapping could hide behind).
Tensor Doubles(const TensorShape& shape) {
  std::vector<double> v(static_cast<size_t>(shape.num_elements()));
  for (size_t i = 0; i < v.size(); ++i) {
    v[i] = 0.3 + 0.7 * static_cast<double>(i) + 0.1 * std::sin(3.0 * i);
  }
  return Tensor::FromVector<double>(v, shape);
}

Output DoublePlaceholder(const Scope& root,
                         TensorShape shape = TensorShape::Unknown()) {
  return ops::Placeholder(root, DT_DOUBLE,
                          ops::PlaceholderAttrs().Shape(shape));
}

// Checks the gradients of `ys` with respect to `xs` fed `values`.
void ExpectGradientsMatch(const Scope& root, const std::vector<Output>& xs,
                          const std::vector<Tensor>& values,
                          const std::vector<Output>& ys,
                          const std::string& what) {
  ASSERT_TRUE(root.ok()) << what << ": " << root.status();
  auto result = CheckGradients(root, xs, values, ys);
  ASSERT_TRUE(result.ok()) << what << ": " << result.status();
  EXPECT_LT(result->max_error, 1e-7) << what << ": " << result->worst_entry;
  // Every gradient must really have been checked against something.
  EXPECT_GT(result->max_numeric, 0.5) << what;
}

// The op types of the gradient ops the check left in the graph.
std::vector<std::string> GradientOps(const Scope& root) {
  std::vector<std::string> ops;
  for (Node* n : root.graph()->nodes()) {
    if (absl::StartsWith(n->name(), "gradients/")) ops.push_back(n->op());
  }
  return ops;
}

// A non-Const integer input (Identity of a Const), so gradient functions
// cannot read it at build time.
Output Opaque(const Scope& root, std::initializer_list<int> values) {
  return ops::Identity(root, ops::Const(root, values));
}

// --- Identities and Fill. ---

TEST(ArrayGradTest, IdentityPlaceholderWithDefaultAndIdentityN) {
  Scope root = Scope::NewRootScope();
  Output x = DoublePlaceholder(root);
  Output z = DoublePlaceholder(root);
  Output a = ops::Identity(root, x);
  Output b = ops::PlaceholderWithDefault(root, x, TensorShape({-1, 3}));
  OutputList n = ops::IdentityN(root, {x, z});
  ExpectGradientsMatch(
      root, {x, z}, {Doubles(TensorShape({2, 3})), Doubles(TensorShape({4}))},
      {a, b, n[0], n[1]}, "identities");
}

TEST(ArrayGradTest, FillSumsTheGradientIntoTheValue) {
  {
    Scope root = Scope::NewRootScope();
    Output v = DoublePlaceholder(root, TensorShape({}));
    ExpectGradientsMatch(root, {v}, {Tensor::Scalar<double>(1.5)},
                         {ops::Fill(root, {2, 3}, v)}, "known dims");
  }
  {
    // dims from an unknown-rank tensor: the output's rank is unknown.
    Scope root = Scope::NewRootScope();
    Output v = DoublePlaceholder(root);
    Output z = DoublePlaceholder(root);
    Output y = ops::Fill(root, ops::Shape(root, z), v);
    ExpectGradientsMatch(
        root, {v, z},
        {Tensor::Scalar<double>(-0.5), Doubles(TensorShape({2, 1, 3}))}, {y, z},
        "unknown rank");
  }
}

// --- Shapes. ---

TEST(ArrayGradTest, ReshapeKnownShapesUseAConstShape) {
  for (auto [in, out] :
       std::vector<std::pair<TensorShape, Output (*)(const Scope&, Output)>>{
           {TensorShape({2, 3}),
            [](const Scope&s, Output x) {
              return ops::Reshape(s, x, {3, 2});
            }},
           {TensorShape({2, 3, 4}),
            [](const Scope&s, Output x) { return ops::Reshape(s, x, {-1}); }},
           {TensorShape({6}), [](const Scope&s, Output x) {
              return ops::Reshape(s, x, {1, 2, 1, 3});
            }}}) {
    Scope root = Scope::NewRootScope();
    Output x = DoublePlaceholder(root, in);
    ExpectGradientsMatch(root, {x}, {Doubles(in)}, {out(root, x)},
                         "reshape of " + in.ToString());
    EXPECT_THAT(GradientOps(root), Not(Contains("Shape")));
  }
}

TEST(ArrayGradTest, ReshapeWithUnknownBatch) {
  Scope root = Scope::NewRootScope();
  Output x = DoublePlaceholder(root, TensorShape({-1, 6}));
  Output y = ops::Reshape(root, x, {-1, 2, 3});
  ExpectGradientsMatch(root, {x}, {Doubles(TensorShape({4, 6}))}, {y},
                       "[?,6] -> [?,2,3]");
  EXPECT_THAT(GradientOps(root), Contains("Shape"));
}

TEST(ArrayGradTest, ExpandDimsAtEveryAxis) {
  for (int axis : {0, 1, 2, -1, -3}) {
    Scope root = Scope::NewRootScope();
    Output x = DoublePlaceholder(root, TensorShape({2, 3}));
    ExpectGradientsMatch(root, {x}, {Doubles(TensorShape({2, 3}))},
                         {ops::ExpandDims(root, x, axis)},
                         "axis " + std::to_string(axis));
  }
  Scope root = Scope::NewRootScope();
  Output x = DoublePlaceholder(root, TensorShape({-1, 3}));
  ExpectGradientsMatch(root, {x}, {Doubles(TensorShape({5, 3}))},
                       {ops::ExpandDims(root, x, -1)}, "unknown batch");
}

TEST(ArrayGradTest, Squeeze) {
  {
    Scope root = Scope::NewRootScope();
    Output x = DoublePlaceholder(root, TensorShape({1, 3, 1, 2}));
    ExpectGradientsMatch(root, {x}, {Doubles(TensorShape({1, 3, 1, 2}))},
                         {ops::Squeeze(root, x)}, "all size-1 dims");
  }
  {
    Scope root = Scope::NewRootScope();
    Output x = DoublePlaceholder(root, TensorShape({1, 3, 1}));
    ExpectGradientsMatch(
        root, {x}, {Doubles(TensorShape({1, 3, 1}))},
        {ops::Squeeze(root, x, ops::SqueezeAttrs().Axis({-1}))}, "axis -1");
  }
  {
    Scope root = Scope::NewRootScope();
    Output x = DoublePlaceholder(root, TensorShape({-1, 1, 3}));
    ExpectGradientsMatch(root, {x}, {Doubles(TensorShape({4, 1, 3}))},
                         {ops::Squeeze(root, x, ops::SqueezeAttrs().Axis({1}))},
                         "unknown batch");
  }
}

TEST(ArrayGradTest, TransposeByConstPermutations) {
  const std::vector<std::pair<TensorShape, std::vector<int>>> cases = {
      {TensorShape({2, 3}), {1, 0}},
      {TensorShape({2, 3, 4}), {2, 0, 1}},
      {TensorShape({2, 3, 4}), {1, 2, 0}},
      {TensorShape({2, 1, 3, 2}), {0, 2, 3, 1}},
  };
  for (const auto& [shape, perm] : cases) {
    Scope root = Scope::NewRootScope();
    Output x = DoublePlaceholder(root, shape);
    Tensor p = Tensor::FromVector<int32_t>(
        std::vector<int32_t>(perm.begin(), perm.end()));
    ExpectGradientsMatch(root, {x}, {Doubles(shape)},
                         {ops::Transpose(root, x, ops::Const(root, p))},
                         "perm of " + shape.ToString());
    // The inverse is computed at build time.
    EXPECT_THAT(GradientOps(root), Not(Contains("InvertPermutation")));
  }
}

TEST(ArrayGradTest, TransposeByARunTimePermutation) {
  Scope root = Scope::NewRootScope();
  Output x = DoublePlaceholder(root, TensorShape({-1, 3, 4}));
  Output y = ops::Transpose(root, x, Opaque(root, {1, 2, 0}));
  ExpectGradientsMatch(root, {x}, {Doubles(TensorShape({2, 3, 4}))}, {y},
                       "run-time perm");
  EXPECT_THAT(GradientOps(root), Contains("InvertPermutation"));
}

// --- Joining and splitting. ---

TEST(ArrayGradTest, ConcatOfThreeAlongEveryAxis) {
  for (int axis : {0, 1, 2, -1, -2, -3}) {
    const int a = axis < 0 ? axis + 3 : axis;
    std::vector<TensorShape> shapes(3, TensorShape({2, 3, 2}));
    shapes[0].set_dim(a, 1);
    shapes[2].set_dim(a, 4);
    Scope root = Scope::NewRootScope();
    std::vector<Output> xs;
    std::vector<Tensor> values;
    for (const TensorShape& s : shapes) {
      xs.push_back(DoublePlaceholder(root, s));
      values.push_back(Doubles(s));
    }
    ExpectGradientsMatch(root, xs, values, {ops::Concat(root, xs, axis)},
                         "axis " + std::to_string(axis));
    // Known sizes along the axis: one SplitV, no shape ops.
    EXPECT_THAT(GradientOps(root), Contains("SplitV"));
    EXPECT_THAT(GradientOps(root), Not(Contains("Shape")));
  }
}

TEST(ArrayGradTest, ConcatWithUnknownBatch) {
  {
    // Along the features: the sizes are known, the batch is not.
    Scope root = Scope::NewRootScope();
    Output a = DoublePlaceholder(root, TensorShape({-1, 2}));
    Output b = DoublePlaceholder(root, TensorShape({-1, 3}));
    Output c = DoublePlaceholder(root, TensorShape({-1, 1}));
    ExpectGradientsMatch(
        root, {a, b, c},
        {Doubles(TensorShape({3, 2})), Doubles(TensorShape({3, 3})),
         Doubles(TensorShape({3, 1}))},
        {ops::Concat(root, {a, b, c}, -1)}, "features");
    EXPECT_THAT(GradientOps(root), Contains("SplitV"));
  }
  {
    // Along the batch: sizes known only at run time.
    Scope root = Scope::NewRootScope();
    Output a = DoublePlaceholder(root, TensorShape({-1, 2}));
    Output b = DoublePlaceholder(root, TensorShape({-1, 2}));
    Output c = DoublePlaceholder(root, TensorShape({2, 2}));
    ExpectGradientsMatch(
        root, {a, b, c},
        {Doubles(TensorShape({1, 2})), Doubles(TensorShape({3, 2})),
         Doubles(TensorShape({2, 2}))},
        {ops::Concat(root, {a, b, c}, 0)}, "batch");
    EXPECT_THAT(GradientOps(root), Contains("ConcatOffset"));
  }
  {
    // One unknown size along the axis: SplitV infers it.
    Scope root = Scope::NewRootScope();
    Output a = DoublePlaceholder(root, TensorShape({-1, 2}));
    Output b = DoublePlaceholder(root, TensorShape({2, 2}));
    ExpectGradientsMatch(
        root, {a, b},
        {Doubles(TensorShape({3, 2})), Doubles(TensorShape({2, 2}))},
        {ops::Concat(root, {a, b}, 0)}, "one unknown");
    EXPECT_THAT(GradientOps(root), Contains("SplitV"));
  }
}

TEST(ArrayGradTest, ConcatAlongARunTimeNegativeAxis) {
  Scope root = Scope::NewRootScope();
  Output a = DoublePlaceholder(root);
  Output b = DoublePlaceholder(root);
  Output c = DoublePlaceholder(root);
  Output axis = ops::Identity(root, ops::Const(root, -2));
  ExpectGradientsMatch(
      root, {a, b, c},
      {Doubles(TensorShape({2, 1, 3})), Doubles(TensorShape({2, 2, 3})),
       Doubles(TensorShape({2, 3, 3}))},
      {ops::Concat(root, {a, b, c}, axis)}, "axis -2");
  EXPECT_THAT(GradientOps(root), Contains("ConcatOffset"));
}

TEST(ArrayGradTest, SplitWithAnOutputUnused) {
  for (int axis : {0, 1, -1}) {
    Scope root = Scope::NewRootScope();
    Output x = DoublePlaceholder(root, TensorShape({3, 6}));
    OutputList parts = ops::Split(root, axis, x, 3);
    // parts[1] is not used: its gradient is zeros.
    ExpectGradientsMatch(root, {x}, {Doubles(TensorShape({3, 6}))},
                         {parts[0], parts[2]}, "axis " + std::to_string(axis));
  }
  Scope root = Scope::NewRootScope();
  Output x = DoublePlaceholder(root, TensorShape({-1, 4}));
  OutputList parts = ops::Split(root, 1, x, 2);
  ExpectGradientsMatch(root, {x}, {Doubles(TensorShape({3, 4}))}, {parts[1]},
                       "unknown batch");
}

TEST(ArrayGradTest, SplitVWithAnOutputUnused) {
  for (int axis : {0, -1}) {
    Scope root = Scope::NewRootScope();
    Output x = DoublePlaceholder(root, TensorShape({6, 6}));
    OutputList parts = ops::SplitV(root, x, {1, -1, 2}, axis, 3);
    ExpectGradientsMatch(root, {x}, {Doubles(TensorShape({6, 6}))},
                         {parts[0], parts[1]}, "axis " + std::to_string(axis));
  }
}

TEST(ArrayGradTest, PackAndUnpackAlongEveryAxis) {
  for (int axis : {0, 1, 2, -1, -3}) {
    Scope root = Scope::NewRootScope();
    std::vector<Output> xs;
    std::vector<Tensor> values;
    for (int i = 0; i < 3; ++i) {
      xs.push_back(DoublePlaceholder(root, TensorShape({2, 3})));
      values.push_back(Doubles(TensorShape({2, 3})));
    }
    ExpectGradientsMatch(root, xs, values,
                         {ops::Pack(root, xs, ops::PackAttrs().Axis(axis))},
                         "pack axis " + std::to_string(axis));
  }
  for (int axis : {0, 1, -1}) {
    Scope root = Scope::NewRootScope();
    TensorShape shape({3, 3, 3});
    Output x = DoublePlaceholder(root, shape);
    OutputList parts = ops::Unpack(root, x, 3, ops::UnpackAttrs().Axis(axis));
    // parts[1] unused.
    ExpectGradientsMatch(root, {x}, {Doubles(shape)}, {parts[0], parts[2]},
                         "unpack axis " + std::to_string(axis));
  }
  Scope root = Scope::NewRootScope();
  Output x = DoublePlaceholder(root, TensorShape({-1, 2}));
  OutputList parts = ops::Unpack(root, x, 2, ops::UnpackAttrs().Axis(-1));
  ExpectGradientsMatch(root, {x}, {Doubles(TensorShape({4, 2}))}, {parts[1]},
                       "unpack unknown batch");
}

TEST(ArrayGradTest, TileWithSeveralMultiples) {
  const std::vector<std::pair<TensorShape, std::vector<int>>> cases = {
      {TensorShape({2, 3}), {2, 1}},       {TensorShape({2, 3}), {1, 3}},
      {TensorShape({2, 3}), {2, 2}},       {TensorShape({2, 3}), {1, 1}},
      {TensorShape({3, 1, 2}), {3, 4, 2}}, {TensorShape({4}), {3}},
  };
  for (const auto& [shape, m] : cases) {
    Scope root = Scope::NewRootScope();
    Output x = DoublePlaceholder(root, shape);
    Tensor mt =
        Tensor::FromVector<int32_t>(std::vector<int32_t>(m.begin(), m.end()));
    ExpectGradientsMatch(root, {x}, {Doubles(shape)},
                         {ops::Tile(root, x, ops::Const(root, mt))},
                         "tile of " + shape.ToString());
    EXPECT_THAT(GradientOps(root), Not(Contains("Shape")));
  }
}

TEST(ArrayGradTest, TileWithUnknownShapes) {
  {
    // The batch becomes the one -1 of a Const shape.
    Scope root = Scope::NewRootScope();
    Output x = DoublePlaceholder(root, TensorShape({-1, 3}));
    ExpectGradientsMatch(root, {x}, {Doubles(TensorShape({2, 3}))},
                         {ops::Tile(root, x, {3, 2})}, "unknown batch");
    EXPECT_THAT(GradientOps(root), Not(Contains("Shape")));
  }
  {
    // Unknown rank and run-time multiples: everything at run time.
    Scope root = Scope::NewRootScope();
    Output x = DoublePlaceholder(root);
    Output y = ops::Tile(root, x, Opaque(root, {2, 1, 3}));
    ExpectGradientsMatch(root, {x}, {Doubles(TensorShape({2, 2, 2}))}, {y},
                         "unknown rank");
    EXPECT_THAT(GradientOps(root), Contains("Range"));
  }
  {
    // Two unknown dims: no Const shape possible.
    Scope root = Scope::NewRootScope();
    Output x = DoublePlaceholder(root, TensorShape({-1, -1}));
    ExpectGradientsMatch(root, {x}, {Doubles(TensorShape({2, 3}))},
                         {ops::Tile(root, x, {2, 2})}, "two unknown dims");
  }
}

// --- Slicing and padding. ---

TEST(ArrayGradTest, SliceKnownShapes) {
  struct Case {
    TensorShape shape;
    std::vector<int> begin, size;
  };
  for (const Case& c : std::vector<Case>{
           {TensorShape({3, 4}), {1, 1}, {2, 2}},
           {TensorShape({3, 4}), {0, 2}, {-1, -1}},
           {TensorShape({2, 3, 4}), {1, 0, 1}, {1, -1, 2}},
           {TensorShape({5}), {2}, {3}},
       }) {
    Scope root = Scope::NewRootScope();
    Output x = DoublePlaceholder(root, c.shape);
    Output y = ops::Slice(
        root, x,
        ops::Const(root, Tensor::FromVector<int32_t>(std::vector<int32_t>(
                             c.begin.begin(), c.begin.end()))),
        ops::Const(root, Tensor::FromVector<int32_t>(std::vector<int32_t>(
                             c.size.begin(), c.size.end()))));
    ExpectGradientsMatch(root, {x}, {Doubles(c.shape)}, {y},
                         "slice of " + c.shape.ToString());
    EXPECT_THAT(GradientOps(root), Contains("Pad"));
    EXPECT_THAT(GradientOps(root), Not(Contains("Shape")));
  }
}

TEST(ArrayGradTest, SliceWithUnknownShapesAndRunTimeBegin) {
  {
    // size -1 on the unknown batch: the paddings are still a Const.
    Scope root = Scope::NewRootScope();
    Output x = DoublePlaceholder(root, TensorShape({-1, 5}));
    ExpectGradientsMatch(root, {x}, {Doubles(TensorShape({3, 5}))},
                         {ops::Slice(root, x, {1, 1}, {-1, 3})},
                         "size -1 on the batch");
    EXPECT_THAT(GradientOps(root), Not(Contains("Shape")));
  }
  {
    Scope root = Scope::NewRootScope();
    Output x = DoublePlaceholder(root, TensorShape({-1, 5}));
    ExpectGradientsMatch(root, {x}, {Doubles(TensorShape({4, 5}))},
                         {ops::Slice(root, x, {1, 0}, {2, 4})},
                         "fixed size on the batch");
  }
  {
    Scope root = Scope::NewRootScope();
    Output x = DoublePlaceholder(root);
    Output y =
        ops::Slice(root, x, Opaque(root, {0, 1, 1}), Opaque(root, {2, -1, 2}));
    ExpectGradientsMatch(root, {x}, {Doubles(TensorShape({3, 3, 4}))}, {y},
                         "run-time begin and size");
  }
}

struct StridedCase {
  const char* numpy;  // what it means, for failure messages
  TensorShape shape;
  std::vector<int> begin, end, strides;
  ops::StridedSliceAttrs attrs;
};

void CheckStridedSlice(const StridedCase& c, bool unknown_batch) {
  Scope root = Scope::NewRootScope();
  TensorShape declared = c.shape;
  if (unknown_batch) declared.set_dim(0, -1);
  Output x = DoublePlaceholder(root, declared);
  auto ints = [&](const std::vector<int>& v) {
    return ops::Const(root, Tensor::FromVector<int32_t>(
                                std::vector<int32_t>(v.begin(), v.end())));
  };
  Output y = ops::StridedSlice(root, x, ints(c.begin), ints(c.end),
                               ints(c.strides), c.attrs);
  ExpectGradientsMatch(
      root, {x}, {Doubles(c.shape)}, {y},
      std::string(c.numpy) + (unknown_batch ? " (unknown batch)" : ""));
  EXPECT_THAT(GradientOps(root), Contains("StridedSliceGrad"));
}

TEST(ArrayGradTest, StridedSliceWithEveryMask) {
  using A = ops::StridedSliceAttrs;
  const TensorShape s({4, 5, 6});
  const std::vector<StridedCase> cases = {
      {"x[1:3, 0:5:2, 2:6:3]", s, {1, 0, 2}, {3, 5, 6}, {1, 2, 3}, A()},
      {"x[3:0:-1]", s, {3}, {0}, {-1}, A()},
      {"x[::-2, 1]",
       s,
       {0, 1},
       {0, 2},
       {-2, 1},
       A().BeginMask(1).EndMask(1).ShrinkAxisMask(2)},
      {"x[-3:-1, :, ::-1]",
       s,
       {-3, 0, 0},
       {-1, 0, 0},
       {1, 1, -1},
       A().BeginMask(6).EndMask(6)},
      {"x[:2, 3:]", s, {0, 3}, {2, 0}, {1, 1}, A().BeginMask(1).EndMask(2)},
      {"x[..., 1:3]", s, {0, 1}, {0, 3}, {1, 1}, A().EllipsisMask(1)},
      {"x[1, ..., ::-2]",
       s,
       {1, 0, 0},
       {2, 0, 0},
       {1, 1, -2},
       A().EllipsisMask(2).ShrinkAxisMask(1).BeginMask(4).EndMask(4)},
      {"x[:, newaxis, 1:4]",
       s,
       {0, 0, 1},
       {0, 0, 4},
       {1, 1, 1},
       A().BeginMask(1).EndMask(1).NewAxisMask(2)},
      {"x[newaxis, ..., 2, newaxis]",
       s,
       {0, 0, 2, 0},
       {0, 0, 3, 0},
       {1, 1, 1, 1},
       A().NewAxisMask(9).EllipsisMask(2).ShrinkAxisMask(4)},
      {"x[2, 4, -1]",
       s,
       {2, 4, -1},
       {3, 5, 0},
       {1, 1, 1},
       A().ShrinkAxisMask(7)},
      {"x[5:1:-2, -1:0:-3]", s, {5, -1}, {1, 0}, {-2, -3}, A()},
  };
  for (const StridedCase& c : cases) CheckStridedSlice(c, false);
  // The shape StridedSliceGrad fills comes from Shape at run time.
  for (const StridedCase& c : {cases[0], cases[2], cases[5], cases[8]}) {
    CheckStridedSlice(c, true);
  }
}

TEST(ArrayGradTest, PadGradientSlicesTheInputBack) {
  {
    Scope root = Scope::NewRootScope();
    Output x = DoublePlaceholder(root, TensorShape({2, 3}));
    Output y =
        ops::Pad(root, x, ops::Const(root, {1, 0, 2, 1}, TensorShape({2, 2})));
    ExpectGradientsMatch(root, {x}, {Doubles(TensorShape({2, 3}))}, {y},
                         "const paddings");
  }
  {
    Scope root = Scope::NewRootScope();
    Output x = DoublePlaceholder(root, TensorShape({-1, 2, 2}));
    Output paddings = ops::Identity(
        root, ops::Const(root, {0, 2, 1, 1, 3, 0}, TensorShape({3, 2})));
    Output y = ops::Pad(root, x, paddings);
    ExpectGradientsMatch(root, {x}, {Doubles(TensorShape({2, 2, 2}))}, {y},
                         "run-time paddings");
  }
}

TEST(ArrayGradTest, StridedSliceGradGradientIsTheSlice) {
  Scope root = Scope::NewRootScope();
  Output dy = DoublePlaceholder(root, TensorShape({2, 3}));
  Output y = ops::StridedSliceGrad(root, {4, 6}, {0, 5}, {4, 0}, {2, -2}, dy);
  ExpectGradientsMatch(root, {dy}, {Doubles(TensorShape({2, 3}))}, {y},
                       "x[::2, 5:0:-2]");
}

// --- Ops without gradients. ---

TEST(ArrayGradTest, IntegerAndShapeOpsHaveNoGradient) {
  for (const char* op : {"Shape", "Size", "Rank", "ZerosLike", "OnesLike",
                         "Range", "OneHot", "BroadcastGradientArgs",
                         "InvertPermutation", "ConcatOffset", "StopGradient"}) {
    const GradFunc* fn = nullptr;
    EXPECT_EQ(GradRegistry::Global()->Lookup(op, &fn),
              GradRegistry::Kind::kNoGradient)
        << op;
  }
  for (const char* op :
       {"Identity", "IdentityN", "PlaceholderWithDefault", "Fill", "Reshape",
        "ExpandDims", "Squeeze", "Transpose", "ConcatV2", "Split", "SplitV",
        "Tile", "Pack", "Unpack", "Slice", "StridedSlice", "StridedSliceGrad",
        "Pad"}) {
    const GradFunc* fn = nullptr;
    EXPECT_EQ(GradRegistry::Global()->Lookup(op, &fn),
              GradRegistry::Kind::kGradient)
        << op;
  }
}

TEST(ArrayGradTest, ZerosLikeAndShapeEndThePathWithoutError) {
  // y = x * 2 + zeros_like(x) + fill(shape(x), 1): only the first term
  // depends on x's values.
  Scope root = Scope::NewRootScope();
  Output x = DoublePlaceholder(root, TensorShape({-1, 3}));
  Output y = ops::AddN(root, {ops::Mul(root, x, 2.0), ops::ZerosLike(root, x),
                              ops::Fill(root, ops::Shape(root, x), 1.0)});
  ExpectGradientsMatch(root, {x}, {Doubles(TensorShape({2, 3}))}, {y},
                       "zeros_like and shape");
}

// --- PadV2, MirrorPad, MirrorPadGrad, SpaceToBatchND, BatchToSpaceND. ---

TEST(ArrayGradTest, PadV2AndMirrorPadInBothModes) {
  Scope root = Scope::NewRootScope();
  Output x = DoublePlaceholder(root, TensorShape({2, 3, 4}));
  Output paddings = ops::Const(root, {1, 0, 2, 1, 3, 3}, TensorShape({3, 2}));
  Output padded = ops::PadV2(root, x, paddings, 0.5);
  Output reflected = ops::MirrorPad(root, x, paddings, "REFLECT");
  Output symmetric = ops::MirrorPad(root, x, paddings, "SYMMETRIC");
  ExpectGradientsMatch(root, {x}, {Doubles(TensorShape({2, 3, 4}))},
                       {padded, reflected, symmetric}, "pads");
  EXPECT_THAT(GradientOps(root), Contains("MirrorPadGrad"));
}

TEST(ArrayGradTest, MirrorPadGradIsMirrorPadsTranspose) {
  Scope root = Scope::NewRootScope();
  Output g = DoublePlaceholder(root, TensorShape({4, 9}));
  Output y = ops::MirrorPadGrad(
      root, g, ops::Const(root, {1, 1, 2, 3}, TensorShape({2, 2})),
      "SYMMETRIC");
  ExpectGradientsMatch(root, {g}, {Doubles(TensorShape({4, 9}))}, {y},
                       "MirrorPadGrad");
}

TEST(ArrayGradTest, SpaceToBatchAndBatchToSpace) {
  Scope root = Scope::NewRootScope();
  Output x = DoublePlaceholder(root, TensorShape({2, 3, 4, 2}));
  Output block = ops::Const(root, {2, 3});
  Output y = ops::SpaceToBatchND(
      root, x, block, ops::Const(root, {1, 0, 1, 1}, TensorShape({2, 2})));
  Output b = DoublePlaceholder(root, TensorShape({12, 2, 2, 1}));
  Output z = ops::BatchToSpaceND(
      root, b, block, ops::Const(root, {1, 0, 2, 1}, TensorShape({2, 2})));
  ExpectGradientsMatch(root, {x, b},
                       {Doubles(TensorShape({2, 3, 4, 2})),
                        Doubles(TensorShape({12, 2, 2, 1}))},
                       {y, z}, "space/batch");
}

}  // namespace
}  // namespace dflow
