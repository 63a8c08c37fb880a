// Numeric checks of the gradients tf.image's ops have: ReverseV2 (along
// one, several and negative axes, and an axis that is not a Const) and
// ResizeBilinear in its three sampling modes (its gradient is the
// ResizeBilinearGrad kernel). ResizeBilinear is linear in its images, so a
// large finite-difference step is exact and keeps the float output's
// rounding small against it.
#include <cmath>
#include <string>
#include <vector>

#include "graph/ops/ops.h"
#include "gtest/gtest.h"
#include "tests/gradients/gradient_checker.h"

namespace dflow {
namespace {

Tensor Doubles(const TensorShape& shape) {
  std::vector<double> v(static_cast<size_t>(shape.num_elements()));
  for (size_t i = 0; i < v.size(); ++i) {
    v[i] = 0.3 + 0.7 * static_cast<double>(i % 13) + 0.1 * std::sin(3.0 * i);
  }
  return Tensor::FromVector<double>(v, shape);
}

TEST(ImageGradTest, ReverseV2AlongAxes) {
  const std::vector<std::vector<int>> axes = {{0}, {1}, {0, 2}, {-1}, {}};
  for (const std::vector<int>& axis : axes) {
    Scope root = Scope::NewRootScope();
    Output x = ops::Placeholder(root, DT_DOUBLE,
                                ops::PlaceholderAttrs().Shape({2, 3, 4}));
    Output y = ops::ReverseV2(
        root, x,
        ops::Const(root, Tensor::FromVector<int32_t>(
                             std::vector<int32_t>(axis.begin(), axis.end()))));
    ASSERT_TRUE(root.ok()) << root.status();
    auto result =
        CheckGradients(root, {x}, {Doubles(TensorShape({2, 3, 4}))}, {y});
    ASSERT_TRUE(result.ok()) << result.status();
    EXPECT_LT(result->max_error, 1e-7) << result->worst_entry;
    EXPECT_GT(result->max_numeric, 0.5);
  }
}

TEST(ImageGradTest, ReverseV2WithARunTimeAxis) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root, DT_DOUBLE);
  Output axis = ops::Identity(root, ops::Const(root, {1}));
  Output y = ops::ReverseV2(root, x, axis);
  auto result = CheckGradients(root, {x}, {Doubles(TensorShape({3, 5}))}, {y});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_LT(result->max_error, 1e-7) << result->worst_entry;
}

TEST(ImageGradTest, ResizeBilinearInEveryMode) {
  for (int mode = 0; mode < 3; ++mode) {
    for (const std::vector<int>& size :
         std::vector<std::vector<int>>{{5, 7}, {2, 3}}) {
      SCOPED_TRACE(::testing::Message()
                   << "mode " << mode << " size " << size[0] << "x" << size[1]);
      Scope root = Scope::NewRootScope();
      Output x = ops::Placeholder(root, DT_DOUBLE,
                                  ops::PlaceholderAttrs().Shape({2, 3, 4, 2}));
      Output y = ops::ResizeBilinear(
          root, x, ops::Const(root, {size[0], size[1]}),
          ops::ResizeAttrs().AlignCorners(mode == 1).HalfPixelCenters(mode ==
                                                                      2));
      ASSERT_TRUE(root.ok()) << root.status();
      GradientCheckOptions options;
      options.delta = 0.5;
      auto result = CheckGradients(
          root, {x}, {Doubles(TensorShape({2, 3, 4, 2}))}, {y}, options);
      ASSERT_TRUE(result.ok()) << result.status();
      EXPECT_LT(result->max_error, 1e-5) << result->worst_entry;
      EXPECT_GT(result->max_numeric, 0.2);
    }
  }
}

TEST(ImageGradTest, ResizeNearestNeighborInEveryMode) {
  for (int mode = 0; mode < 3; ++mode) {
    for (const std::vector<int>& size :
         std::vector<std::vector<int>>{{5, 7}, {2, 3}}) {
      SCOPED_TRACE(::testing::Message()
                   << "mode " << mode << " size " << size[0] << "x" << size[1]);
      Scope root = Scope::NewRootScope();
      Output x = ops::Placeholder(root, DT_DOUBLE,
                                  ops::PlaceholderAttrs().Shape({2, 3, 4, 2}));
      Output y = ops::ResizeNearestNeighbor(
          root, x, ops::Const(root, {size[0], size[1]}),
          ops::ResizeAttrs().AlignCorners(mode == 1).HalfPixelCenters(mode ==
                                                                      2));
      ASSERT_TRUE(root.ok()) << root.status();
      auto result = CheckGradients(
          root, {x}, {Doubles(TensorShape({2, 3, 4, 2}))}, {y});
      ASSERT_TRUE(result.ok()) << result.status();
      EXPECT_LT(result->max_error, 1e-7) << result->worst_entry;
      EXPECT_GT(result->max_numeric, 0.5);
    }
  }
}

}  // namespace
}  // namespace dflow
