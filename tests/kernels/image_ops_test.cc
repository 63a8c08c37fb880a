// The CPU kernels of tf.image's ops, one node at a time, for what the
// TensorFlow-written graphs of tests/runtime/tf_images_test.cc do not
// cover: ReverseV2 on every copy width (strings and bools too) and its
// errors; AdjustContrastv2 on half and on one-pixel images; ResizeBilinear
// on uint8 images and to the same size; RandomUniformInt's range,
// determinism per seed and errors.
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "graph/ops/ops.h"
#include "gtest/gtest.h"
#include "tests/kernels/kernel_test_util.h"

namespace dflow {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

absl::StatusOr<Tensor> Reverse(const Tensor& x, std::vector<int32_t> axis) {
  Scope root = Scope::NewRootScope();
  Output in = ops::Placeholder(root, x.dtype());
  Output a = ops::Placeholder(root, DT_INT32);
  Output y = ops::ReverseV2(root, in, a);
  if (!root.ok()) return root.status();
  auto out = RunKernel(y.node(), {x, Tensor::FromVector<int32_t>(axis)});
  if (!out.ok()) return out.status();
  return (*out)[0];
}

TEST(ReverseV2Test, ReversesTheNamedAxesOfEveryType) {
  const Tensor f =
      Tensor::FromVector<float>({1, 2, 3, 4, 5, 6}, TensorShape({2, 3}));
  auto r = Reverse(f, {1});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(r->flat<float>(), ElementsAre(3, 2, 1, 6, 5, 4));
  r = Reverse(f, {0, -1});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(r->flat<float>(), ElementsAre(6, 5, 4, 3, 2, 1));
  const Tensor s = Tensor::FromVector<std::string>({"a", "b", "c"});
  r = Reverse(s, {0});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(r->flat<std::string>(), ElementsAre("c", "b", "a"));
  const Tensor b = Tensor::FromVector<bool>({true, false}, TensorShape({1, 2}));
  r = Reverse(b, {0, 1});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(r->flat<bool>(), ElementsAre(false, true));
  const Tensor d = Tensor::FromVector<double>({1, 2}, TensorShape({2, 1}));
  r = Reverse(d, {1});  // a dimension of 1: unchanged
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(r->flat<double>(), ElementsAre(1, 2));
}

TEST(ReverseV2Test, BadAxesAreErrors) {
  const Tensor f = Tensor::FromVector<float>({1, 2, 3, 4}, TensorShape({2, 2}));
  auto r = Reverse(f, {1, -1});
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(r.status().message(), HasSubstr("twice"));
  r = Reverse(f, {2});
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(r.status().message(), HasSubstr("axis"));
}

TEST(AdjustContrastTest, HalfAndOnePixelImages) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root, DT_HALF);
  Output y = ops::AdjustContrastv2(root, x, 2.0f);
  ASSERT_TRUE(root.ok()) << root.status();
  Tensor h(DT_HALF, TensorShape({1, 2, 1, 1}));
  h.data<float16>()[0] = float16::FromFloat(1.0f);
  h.data<float16>()[1] = float16::FromFloat(3.0f);
  auto out = RunKernel(y.node(), {h, Tensor::Scalar<float>(2.0f)});
  ASSERT_TRUE(out.ok()) << out.status();
  // Mean 2: 2 + 2 * (1 - 2) = 0 and 2 + 2 * (3 - 2) = 4.
  EXPECT_EQ((*out)[0].data<float16>()[0].ToFloat(), 0.0f);
  EXPECT_EQ((*out)[0].data<float16>()[1].ToFloat(), 4.0f);

  Scope root2 = Scope::NewRootScope();
  Output x2 = ops::Placeholder(root2, DT_FLOAT);
  Output f2 = ops::Placeholder(root2, DT_FLOAT);
  Output y2 = ops::AdjustContrastv2(root2, x2, f2);
  const Tensor pixel =
      Tensor::FromVector<float>({5, 7, 9}, TensorShape({1, 1, 3}));
  out = RunKernel(y2.node(), {pixel, Tensor::Scalar<float>(3.0f)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT((*out)[0].flat<float>(), ElementsAre(5, 7, 9));
  out = RunKernel(y2.node(), {pixel, Tensor::FromVector<float>({1, 2})});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(out.status().message(), HasSubstr("contrast_factor"));
}

TEST(ResizeBilinearTest, Uint8ImagesAndTheSameSize) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root, DT_UINT8);
  Output size = ops::Placeholder(root, DT_INT32);
  Output y = ops::ResizeBilinear(root, x, size);
  ASSERT_TRUE(root.ok()) << root.status();
  const Tensor img =
      Tensor::FromVector<uint8_t>({0, 10, 20, 30}, TensorShape({1, 2, 2, 1}));
  auto out = RunKernel(y.node(), {img, Tensor::FromVector<int32_t>({2, 2})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT((*out)[0].flat<float>(), ElementsAre(0, 10, 20, 30));
  out = RunKernel(y.node(), {img, Tensor::FromVector<int32_t>({1, 4})});
  ASSERT_TRUE(out.ok()) << out.status();
  // Legacy sampling: x = 0, 0.5, 1, 1.5 (clamped to 1) of row 0.
  EXPECT_THAT((*out)[0].flat<float>(), ElementsAre(0, 5, 10, 10));
  out = RunKernel(y.node(), {img, Tensor::FromVector<int32_t>({0, 4})});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(out.status().message(), HasSubstr("positive"));
}

TEST(ResizeBilinearTest, AlignCornersWithHalfPixelCentersIsAnError) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root, DT_FLOAT);
  Output y = ops::ResizeBilinear(
      root, x, {2, 2},
      ops::ResizeAttrs().AlignCorners(true).HalfPixelCenters(true));
  ASSERT_TRUE(root.ok()) << root.status();
  auto out = RunKernel(
      y.node(), {Tensor::FromVector<float>({1}, TensorShape({1, 1, 1, 1})),
                 Tensor::FromVector<int32_t>({2, 2})});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(out.status().message(), HasSubstr("align_corners"));
}

absl::StatusOr<Tensor> UniformInt(int64_t seed, Tensor lo, Tensor hi,
                                  int n = 1000) {
  Scope root = Scope::NewRootScope();
  Output shape = ops::Placeholder(root, DT_INT32);
  Output l = ops::Placeholder(root, lo.dtype());
  Output h = ops::Placeholder(root, hi.dtype());
  Output y = ops::RandomUniformInt(root, shape, l, h,
                                   ops::RandomAttrs().Seed(seed).Seed2(3));
  if (!root.ok()) return root.status();
  auto out = RunKernel(y.node(), {Tensor::FromVector<int32_t>({n}), lo, hi});
  if (!out.ok()) return out.status();
  return (*out)[0];
}

TEST(RandomUniformIntTest, CoversTheRangeAndRepeatsPerSeed) {
  auto a =
      UniformInt(7, Tensor::Scalar<int32_t>(-3), Tensor::Scalar<int32_t>(4));
  ASSERT_TRUE(a.ok()) << a.status();
  std::set<int32_t> seen(a->flat<int32_t>().begin(), a->flat<int32_t>().end());
  EXPECT_EQ(seen, (std::set<int32_t>{-3, -2, -1, 0, 1, 2, 3}));
  auto b =
      UniformInt(7, Tensor::Scalar<int32_t>(-3), Tensor::Scalar<int32_t>(4));
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(a->flat<int32_t>(), b->flat<int32_t>());
  auto wide = UniformInt(8, Tensor::Scalar<int64_t>(int64_t{1} << 40),
                         Tensor::Scalar<int64_t>(int64_t{1} << 42));
  ASSERT_TRUE(wide.ok()) << wide.status();
  for (int64_t v : wide->flat<int64_t>()) {
    EXPECT_GE(v, int64_t{1} << 40);
    EXPECT_LT(v, int64_t{1} << 42);
  }
}

TEST(RandomUniformIntTest, EmptyRangeIsAnErrorUnlessNothingIsDrawn) {
  auto r =
      UniformInt(1, Tensor::Scalar<int32_t>(5), Tensor::Scalar<int32_t>(5));
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(r.status().message(), HasSubstr("minval (5)"));
  r = UniformInt(1, Tensor::Scalar<int32_t>(5), Tensor::Scalar<int32_t>(5), 0);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->NumElements(), 0);
  r = UniformInt(1, Tensor::FromVector<int32_t>({0}),
                 Tensor::Scalar<int32_t>(5));
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(r.status().message(), HasSubstr("scalars"));
}

}  // namespace
}  // namespace dflow
