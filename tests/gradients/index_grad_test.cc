// Numeric checks of the gradients of the index ops and of the floor
// division, DivNoNan and selection ops (graph/gradients/index_grad.cc,
// math_grad.cc, array_grad.cc): each against central differences in
// float64, with broadcasting where the op broadcasts; and PreventGradient's
// gradient is the error its message explains.
#include <cmath>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "graph/gradients/gradients.h"
#include "graph/ops/ops.h"
#include "gtest/gtest.h"
#include "tests/gradients/gradient_checker.h"

namespace dflow {
namespace {

using ::testing::HasSubstr;

// Distinct, irregular values away from integers (FloorMod's kinks).
Tensor Doubles(const TensorShape& shape, double scale = 0.7,
               double offset = 0.3) {
  std::vector<double> v(static_cast<size_t>(shape.num_elements()));
  for (size_t i = 0; i < v.size(); ++i) {
    v[i] = offset + scale * static_cast<double>(i) + 0.1 * std::sin(3.0 * i);
  }
  return Tensor::FromVector<double>(v, shape);
}

Output DoublePlaceholder(const Scope& root,
                         TensorShape shape = TensorShape::Unknown()) {
  return ops::Placeholder(root, DT_DOUBLE,
                          ops::PlaceholderAttrs().Shape(shape));
}

void ExpectGradientsMatch(const Scope& root, const std::vector<Output>& xs,
                          const std::vector<Tensor>& values,
                          const std::vector<Output>& ys,
                          const std::string& what) {
  ASSERT_TRUE(root.ok()) << what << ": " << root.status();
  auto result = CheckGradients(root, xs, values, ys);
  ASSERT_TRUE(result.ok()) << what << ": " << result.status();
  EXPECT_LT(result->max_error, 1e-7) << what << ": " << result->worst_entry;
  EXPECT_GT(result->max_numeric, 0.5) << what;
}

TEST(IndexGradTest, GatherV2AlongEachAxis) {
  for (int axis : {0, 1, 2, -1}) {
    Scope root = Scope::NewRootScope();
    Output p = DoublePlaceholder(root, TensorShape({3, 4, 5}));
    // Repeated indices: their gradients add up.
    Output y = ops::GatherV2(root, p, ops::Const(root, {2, 0, 2}, {1, 3}),
                             axis);
    ExpectGradientsMatch(root, {p}, {Doubles(TensorShape({3, 4, 5}))}, {y},
                         "axis " + std::to_string(axis));
  }
  {
    // Unknown shapes: everything from Shape at run time.
    Scope root = Scope::NewRootScope();
    Output p = DoublePlaceholder(root);
    Output y = ops::Gather(root, p, ops::Const(root, {1, 1, 0}));
    ExpectGradientsMatch(root, {p}, {Doubles(TensorShape({2, 3}))}, {y},
                         "legacy Gather, unknown shape");
  }
}

TEST(IndexGradTest, UnsortedSegmentSumDropsNegativeIds) {
  Scope root = Scope::NewRootScope();
  Output d = DoublePlaceholder(root, TensorShape({4, 3}));
  Output y = ops::UnsortedSegmentSum(root, d, ops::Const(root, {2, 0, -1, 2}),
                                     3);
  ExpectGradientsMatch(root, {d}, {Doubles(TensorShape({4, 3}))}, {y},
                       "segment sum");
}

TEST(IndexGradTest, DynamicStitch) {
  Scope root = Scope::NewRootScope();
  Output a = DoublePlaceholder(root, TensorShape({2, 2}));
  Output b = DoublePlaceholder(root, TensorShape({2, 2, 2}));
  Output y = ops::DynamicStitch(
      root, {ops::Const(root, {0, 4}), ops::Const(root, {1, 3, 2, 5}, {2, 2})},
      {a, b});
  ExpectGradientsMatch(
      root, {a, b},
      {Doubles(TensorShape({2, 2})), Doubles(TensorShape({2, 2, 2}), 0.9)},
      {y}, "stitch");
}

TEST(IndexGradTest, TopKV2SendsTheGradientBack) {
  Scope root = Scope::NewRootScope();
  Output x = DoublePlaceholder(root, TensorShape({3, 5}));
  ops::TopKOutputs top = ops::TopKV2(root, x, 2);
  // Values distinct, so the top-k set is stable under the finite
  // differences.
  ExpectGradientsMatch(root, {x}, {Doubles(TensorShape({3, 5}))},
                       {top.values}, "top k");
}

TEST(MathGradTest, SelectAndSelectV2) {
  {
    Scope root = Scope::NewRootScope();
    Output t = DoublePlaceholder(root, TensorShape({3, 2}));
    Output e = DoublePlaceholder(root, TensorShape({3, 2}));
    Output y = ops::Select(
        root,
        ops::Const(root, Tensor::FromVector<bool>({true, false, true})), t, e);
    ExpectGradientsMatch(
        root, {t, e},
        {Doubles(TensorShape({3, 2})), Doubles(TensorShape({3, 2}), 1.1)}, {y},
        "Select rows");
  }
  {
    // The condition is the largest: t and e both broadcast.
    Scope root = Scope::NewRootScope();
    Output t = DoublePlaceholder(root, TensorShape({3}));
    Output e = DoublePlaceholder(root, TensorShape({2, 1}));
    Output c = ops::Const(
        root, Tensor::FromVector<bool>({true, false, true, false, false, true,
                                        true, true, false, true, false, false},
                                       {2, 2, 3}));
    Output y = ops::SelectV2(root, c, t, e);
    ExpectGradientsMatch(
        root, {t, e},
        {Doubles(TensorShape({3})), Doubles(TensorShape({2, 1}), 1.3)}, {y},
        "SelectV2 broadcast");
  }
  {
    Scope root = Scope::NewRootScope();
    Output t = DoublePlaceholder(root);
    Output y = ops::SelectV2(
        root, ops::Const(root, Tensor::FromVector<bool>({true, false})), t,
        0.0);
    ExpectGradientsMatch(root, {t}, {Doubles(TensorShape({2, 2}))}, {y},
                         "SelectV2 unknown shape");
  }
}

TEST(MathGradTest, DivNoNanAndFloorMod) {
  Scope root = Scope::NewRootScope();
  Output x = DoublePlaceholder(root, TensorShape({2, 3}));
  Output y = DoublePlaceholder(root, TensorShape({3}));
  ExpectGradientsMatch(
      root, {x, y}, {Doubles(TensorShape({2, 3}), 1.3, 0.45), Doubles(TensorShape({3}))},
      {ops::DivNoNan(root, x, y), ops::FloorMod(root, x, y)}, "div no nan");
}

TEST(ArrayGradTest2, BroadcastToSumsOverBroadcastDims) {
  Scope root = Scope::NewRootScope();
  Output x = DoublePlaceholder(root, TensorShape({2, 1}));
  Output y = ops::BroadcastTo(root, x, {3, 2, 4});
  ExpectGradientsMatch(root, {x}, {Doubles(TensorShape({2, 1}))}, {y},
                       "broadcast to");
}

TEST(ArrayGradTest2, PreventGradientIsAnErrorWithItsMessage) {
  Scope root = Scope::NewRootScope();
  Output x = DoublePlaceholder(root, TensorShape({2}));
  Output y = ops::PreventGradient(root.WithOpName("guard"), x,
                                  "second derivative not implemented");
  auto grads = AddSymbolicGradients(root, {ops::Sum(root, y, {0})}, {x});
  ASSERT_FALSE(grads.ok());
  EXPECT_THAT(grads.status().message(), HasSubstr("guard"));
  EXPECT_THAT(grads.status().message(),
              HasSubstr("second derivative not implemented"));
}

}  // namespace
}  // namespace dflow
