// The misc family's everyday ops (LinSpace, UnravelIndex, UniqueV2 and
// UniqueWithCountsV2, NthElement and its gradient, the v1 TopK and InTopK,
// Mod, ImageProjectiveTransformV2/V3 and their gradients, ExtractGlimpse /
// V2, MaxPoolV2, MaxPoolGradV2 and MaxPoolGradGrad / V2) on a graph TensorFlow 2.21 wrote, against TensorFlow's values
// (tools/tf_reference/make_misc_more_reference.py); then their bad inputs,
// each an InvalidArgument saying what is wrong.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gmock/gmock.h"
#include "graph/ops/ops.h"
#include "graph/tensor.h"
#include "gtest/gtest.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/kernels/tf_value_cases.h"

namespace dflow {
namespace {

using ::testing::HasSubstr;

constexpr char kDir[] = "tests/testdata/tf_misc_more/";

using testing_tf_values::DtypeOf;
using testing_tf_values::Element;
using testing_tf_values::Line;

TEST(MiscMoreOpsTest, TensorFlowsGraphGivesTensorFlowsValues) {
  const std::vector<Line> lines =
      testing_tf_values::ReadLines(std::string(kDir) + "cases.txt");
  ASSERT_GT(lines.size(), 50u);
  std::vector<const Line*> fetched;
  std::vector<Tensor> outputs;
  testing_tf_values::RunGraph(kDir, lines, &fetched, &outputs);
  ASSERT_EQ(outputs.size(), fetched.size());
  for (size_t f = 0; f < fetched.size(); ++f) {
    const Line& want = *fetched[f];
    const Tensor& got = outputs[f];
    SCOPED_TRACE(want.name);
    ASSERT_EQ(got.dtype(), DtypeOf(want.dtype));
    EXPECT_EQ(got.shape(), TensorShape(want.shape));
    ASSERT_EQ(got.NumElements(), static_cast<int64_t>(want.values.size()));
    // Every value is exact (LinSpace and the projective transforms follow
    // TensorFlow's float arithmetic in its order, the rest selects or
    // counts; the sign of a zero counts too: Mod's -0), but for the
    // transforms' gradients: their inverse matrices (MatrixInverse) may
    // differ from TensorFlow's in the last bits.
    const bool inexact = absl::StartsWith(want.name, "out_ipt_grad");
    for (int64_t i = 0; i < got.NumElements(); ++i) {
      double w = want.values[i];
      const double g = Element(got, i);
      // cases.txt holds each float32 as its shortest decimal: parsed as a
      // double it is that decimal, not the float; round it back.
      if (got.dtype() == DT_FLOAT) w = static_cast<float>(w);
      if (inexact) {
        EXPECT_NEAR(g, w, 1e-5 * std::max(1.0, std::fabs(w)))
            << "element " << i;
        continue;
      }
      EXPECT_EQ(g, w) << "element " << i;
      EXPECT_EQ(std::signbit(g), std::signbit(w)) << "element " << i;
    }
  }
}

absl::Status RunError(const Output& out, const std::vector<Tensor>& in) {
  return RunKernel(out.node(), in).status();
}

void ExpectInvalid(const absl::Status& s, const std::string& text) {
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr(text));
}

TEST(MiscMoreOpsTest, BadInputsSayWhat) {
  Scope root = Scope::NewRootScope();
  Output f = ops::Placeholder(root, DT_FLOAT);
  Output f2 = ops::Placeholder(root, DT_FLOAT);
  Output i = ops::Placeholder(root, DT_INT32);
  Output i2 = ops::Placeholder(root, DT_INT32);
  Output i64 = ops::Placeholder(root, DT_INT64);

  ExpectInvalid(RunError(ops::LinSpace(root, f, f2, i),
                         {Tensor::Scalar<float>(0), Tensor::Scalar<float>(1),
                          Tensor::Scalar<int32_t>(0)}),
                "LinSpace requires num > 0, got 0");
  ExpectInvalid(RunError(ops::LinSpace(root, f, f2, i),
                         {Tensor::FromVector<float>({0, 1}),
                          Tensor::Scalar<float>(1),
                          Tensor::Scalar<int32_t>(3)}),
                "start must be a scalar");

  ExpectInvalid(RunError(ops::UnravelIndex(root, i, i2),
                         {Tensor::FromVector<int32_t>({1}),
                          Tensor::FromVector<int32_t>({2, 0})}),
                "dims cannot contain a dim of zero");
  ExpectInvalid(RunError(ops::UnravelIndex(root, i, i2),
                         {Tensor::FromVector<int32_t>({1}),
                          Tensor::FromVector<int32_t>({2, -3})}),
                "dims cannot be negative");
  ExpectInvalid(RunError(ops::UnravelIndex(root, i, i2),
                         {Tensor::FromVector<int32_t>({6}),
                          Tensor::FromVector<int32_t>({2, 3})}),
                "index 6 is out of bound");
  ExpectInvalid(RunError(ops::UnravelIndex(root, i, i2),
                         {Tensor(DT_INT32, TensorShape({1, 1})),
                          Tensor::FromVector<int32_t>({2, 3})}),
                "indices can only be scalar or vector");
  ExpectInvalid(RunError(ops::UnravelIndex(root, i, i2),
                         {Tensor::FromVector<int32_t>({1}),
                          Tensor::FromVector<int32_t>({65536, 65536})}),
                "integer overflow");

  ExpectInvalid(RunError(ops::UniqueV2(root, f, i64).y,
                         {Tensor(DT_FLOAT, TensorShape({2, 2})),
                          Tensor::FromVector<int64_t>({2})}),
                "axis 2 is out of range");
  ExpectInvalid(RunError(ops::UniqueV2(root, f, i64).y,
                         {Tensor(DT_FLOAT, TensorShape({2, 2})),
                          Tensor::FromVector<int64_t>({0, 1})}),
                "axis does not support input tensors larger than 1");
  ExpectInvalid(RunError(ops::UniqueWithCountsV2(root, f, i64).y,
                         {Tensor(DT_FLOAT, TensorShape({2, 2})),
                          Tensor(DT_INT64, TensorShape({0}))}),
                "expects a 1D vector");

  ExpectInvalid(RunError(ops::NthElement(root, f, i),
                         {Tensor(DT_FLOAT, TensorShape({2, 3})),
                          Tensor::Scalar<int32_t>(3)}),
                "Input must have last dimension > n = 3");
  ExpectInvalid(RunError(ops::NthElement(root, f, i),
                         {Tensor(DT_FLOAT, TensorShape({2, 3})),
                          Tensor::Scalar<int32_t>(-1)}),
                "n must be non-negative");
  ExpectInvalid(RunError(ops::NthElement(root, f, i),
                         {Tensor::Scalar<float>(1), Tensor::Scalar<int32_t>(0)}),
                "Input must be at least rank 1");

  ExpectInvalid(RunError(ops::TopK(root, f, 4).values,
                         {Tensor(DT_FLOAT, TensorShape({2, 3}))}),
                "input must have at least k columns. Had 3, needs 4");
  ExpectInvalid(RunError(ops::InTopK(root, f, i, 1),
                         {Tensor(DT_FLOAT, TensorShape({2, 3})),
                          Tensor::FromVector<int32_t>({0, 1, 2})}),
                "must match length of targets");

  Output img = ops::Placeholder(root, DT_FLOAT);
  const Tensor tr = Tensor(DT_FLOAT, TensorShape({1, 8}));
  const Tensor size = Tensor::FromVector<int32_t>({2, 2});
  ExpectInvalid(RunError(ops::ImageProjectiveTransformV2(root, img, f, i,
                                                         "BILINEAR"),
                         {Tensor(DT_FLOAT, TensorShape({2, 2, 1})), tr, size}),
                "Input images must have rank 4");
  ExpectInvalid(RunError(ops::ImageProjectiveTransformV2(root, img, f, i,
                                                         "BILINEAR"),
                         {Tensor(DT_FLOAT, TensorShape({3, 2, 2, 1})),
                          Tensor(DT_FLOAT, TensorShape({2, 8})), size}),
                "Input transform should be num_images x 8 or 1 x 8");
  ExpectInvalid(RunError(ops::ImageProjectiveTransformV2(root, img, f, i,
                                                         "BILINEAR"),
                         {Tensor(DT_FLOAT, TensorShape({1, 2, 2, 1})), tr,
                          Tensor::FromVector<int32_t>({2, 0})}),
                "output dimensions must be positive");
  ExpectInvalid(RunError(ops::ImageProjectiveTransformV2(root, img, f, i,
                                                         "BICUBIC"),
                         {Tensor(DT_FLOAT, TensorShape({1, 2, 2, 1})), tr,
                          size}),
                "interpolation must be NEAREST or BILINEAR, got 'BICUBIC'");
  ExpectInvalid(RunError(ops::ImageProjectiveTransformV3(
                             root, img, f, i, f2, "NEAREST", "MIRROR"),
                         {Tensor(DT_FLOAT, TensorShape({1, 2, 2, 1})), tr,
                          size, Tensor::Scalar<float>(0)}),
                "fill_mode must be REFLECT, WRAP, CONSTANT or NEAREST");
  ExpectInvalid(RunError(ops::ImageProjectiveTransformV3(root, img, f, i, f2,
                                                         "NEAREST"),
                         {Tensor(DT_FLOAT, TensorShape({1, 2, 2, 1})), tr,
                          size, Tensor::FromVector<float>({0, 1})}),
                "fill_value must be a scalar");

  const ops::ExtractGlimpseAttrs zero =
      ops::ExtractGlimpseAttrs().UniformNoise(false).Noise("zero");
  ExpectInvalid(RunError(ops::ExtractGlimpseV2(root, img, i, f, zero),
                         {Tensor(DT_FLOAT, TensorShape({2, 4, 4, 1})), size,
                          Tensor(DT_FLOAT, TensorShape({3, 2}))}),
                "offsets must be [batch, 2] (y, x) with batch 2");
  ExpectInvalid(RunError(ops::ExtractGlimpseV2(root, img, i, f, zero),
                         {Tensor(DT_FLOAT, TensorShape({2, 4, 4})), size,
                          Tensor(DT_FLOAT, TensorShape({2, 2}))}),
                "input must be 4-dimensional");
  ExpectInvalid(RunError(ops::ExtractGlimpse(root, img, i, f, zero),
                         {Tensor(DT_FLOAT, TensorShape({2, 4, 4, 1})),
                          Tensor::FromVector<int32_t>({2, 2, 2}),
                          Tensor(DT_FLOAT, TensorShape({2, 2}))}),
                "size must be a vector of size 2");
  ExpectInvalid(
      RunError(ops::ExtractGlimpseV2(
                   root, img, i, f,
                   ops::ExtractGlimpseAttrs().UniformNoise(false).Noise("pink")),
               {Tensor(DT_FLOAT, TensorShape({1, 4, 4, 1})), size,
                Tensor(DT_FLOAT, TensorShape({1, 2}))}),
      "noise could only be uniform, gaussian, or zero, got 'pink'");

  const Tensor image(DT_FLOAT, TensorShape({1, 4, 4, 1}));
  ExpectInvalid(RunError(ops::MaxPoolV2(root, img, i, i2, "VALID"),
                         {image, Tensor::FromVector<int32_t>({1, 2, 2}),
                          Tensor::FromVector<int32_t>({1, 1, 1, 1})}),
                "ksize [1,2,2] (shape [3]) must have 4 entries >= 1");
  ExpectInvalid(RunError(ops::MaxPoolV2(root, img, i, i2, "VALID"),
                         {image, Tensor::FromVector<int32_t>({2, 2, 2, 1}),
                          Tensor::FromVector<int32_t>({1, 1, 1, 1})}),
                "its batch entry must be 1");
  ExpectInvalid(RunError(ops::MaxPoolV2(root, img, i, i2, "VALID"),
                         {image, Tensor::FromVector<int32_t>({1, 5, 2, 1}),
                          Tensor::FromVector<int32_t>({1, 1, 1, 1})}),
                "input [1,4,4,1] (NHWC) with ksize [1,5,2,1]");
  Output pooled = ops::Placeholder(root, DT_FLOAT);
  Output dpool = ops::Placeholder(root, DT_FLOAT);
  ExpectInvalid(
      RunError(ops::MaxPoolGradGrad(root, img, pooled, dpool, {1, 2, 2, 1},
                                    {1, 2, 2, 1}, "VALID"),
               {image, Tensor(DT_FLOAT, TensorShape({1, 2, 2, 1})),
                Tensor(DT_FLOAT, TensorShape({1, 2, 2, 1}))}),
      "grad [1,2,2,1] must have the shape of orig_input [1,4,4,1]");
  ExpectInvalid(
      RunError(ops::MaxPoolGradGradV2(root, img, pooled, dpool, i, i2,
                                      "VALID"),
               {image, Tensor(DT_FLOAT, TensorShape({1, 3, 2, 1})), image,
                Tensor::FromVector<int32_t>({1, 2, 2, 1}),
                Tensor::FromVector<int32_t>({1, 2, 2, 1})}),
      "orig_output [1,3,2,1] must match the pool output [1,2,2,1]");

  ExpectInvalid(RunError(ops::InplaceAdd(root, f, i, f2),
                         {Tensor(DT_FLOAT, TensorShape({3, 2})),
                          Tensor::FromVector<int32_t>({3}),
                          Tensor(DT_FLOAT, TensorShape({1, 2}))}),
                "i[0] = 3 is not in [0, 3)");
  ExpectInvalid(RunError(ops::InplaceUpdate(root, f, i, f2),
                         {Tensor(DT_FLOAT, TensorShape({3, 2})),
                          Tensor::FromVector<int32_t>({0}),
                          Tensor(DT_FLOAT, TensorShape({1, 3}))}),
                "x and v shape doesn't match at index 1");
  ExpectInvalid(RunError(ops::InplaceSub(root, f, i, f2),
                         {Tensor(DT_FLOAT, TensorShape({3, 2})),
                          Tensor::FromVector<int32_t>({0, 1}),
                          Tensor(DT_FLOAT, TensorShape({1, 2}))}),
                "i and v shape doesn't match at index 0");
  ExpectInvalid(RunError(ops::ParallelConcat(root, {f, f2}, TensorShape({2, 2})),
                         {Tensor(DT_FLOAT, TensorShape({1, 2})),
                          Tensor(DT_FLOAT, TensorShape({2, 2}))}),
                "must have size 1 in dimension 0, got input 1 of shape [2,2]");
  {
    Tensor bad = Tensor::FromVector<float>({1.0f, -INFINITY, NAN, INFINITY});
    ExpectInvalid(RunError(ops::CheckNumericsV2(root, f, "look"), {bad}),
                  "look : Tensor had -Inf, +Inf, and NaN values");
    ExpectInvalid(RunError(ops::CheckNumericsV2(root, f, "look"),
                           {Tensor::FromVector<float>({-INFINITY, 0.0f})}),
                  "look : Tensor had -Inf values");
    ExpectInvalid(RunError(ops::CheckNumerics(root, f, "old"), {bad}),
                  "old : Tensor had Inf and NaN values");
  }

  ExpectInvalid(RunError(ops::Mod(root, i, i2),
                         {Tensor::FromVector<int32_t>({3, 4}),
                          Tensor::FromVector<int32_t>({1, 0})}),
                "Integer division by zero");
}

// NonDeterministicInts draws from the OS: only its shape and type can be
// checked (and that two draws of 64 words differ).
TEST(MiscMoreOpsTest, NonDeterministicIntsHaveTheShapeAsked) {
  Scope root = Scope::NewRootScope();
  Output shape = ops::Placeholder(root, DT_INT64);
  Output ints = ops::NonDeterministicInts(root, shape, DT_INT64);
  absl::StatusOr<std::vector<Tensor>> a =
      RunKernel(ints.node(), {Tensor::FromVector<int64_t>({8, 8})});
  ASSERT_TRUE(a.ok()) << a.status();
  absl::StatusOr<std::vector<Tensor>> b =
      RunKernel(ints.node(), {Tensor::FromVector<int64_t>({8, 8})});
  ASSERT_TRUE(b.ok()) << b.status();
  ASSERT_EQ((*a)[0].dtype(), DT_INT64);
  EXPECT_EQ((*a)[0].shape(), TensorShape({8, 8}));
  bool differ = false;
  for (int i = 0; i < 64; ++i) {
    differ |= (*a)[0].data<int64_t>()[i] != (*b)[0].data<int64_t>()[i];
  }
  EXPECT_TRUE(differ);
  ExpectInvalid(RunError(ints, {Tensor::FromVector<int64_t>({2, -1})}),
                "shape");
}

// Timestamp is the wall clock: a float64 scalar of seconds since 1970 that
// does not go back between runs (its value cannot be compared with
// TensorFlow's).
TEST(MiscMoreOpsTest, TimestampIsAMonotonicScalarOfSeconds) {
  Scope root = Scope::NewRootScope();
  Output ts = ops::Timestamp(root);
  absl::StatusOr<std::vector<Tensor>> a = RunKernel(ts.node(), {});
  ASSERT_TRUE(a.ok()) << a.status();
  absl::StatusOr<std::vector<Tensor>> b = RunKernel(ts.node(), {});
  ASSERT_TRUE(b.ok()) << b.status();
  const Tensor& ta = (*a)[0];
  ASSERT_EQ(ta.dtype(), DT_DOUBLE);
  EXPECT_EQ(ta.shape(), TensorShape({}));
  const double first = ta.data<double>()[0];
  const double second = (*b)[0].data<double>()[0];
  EXPECT_GT(first, 1.6e9);  // After September 2020.
  EXPECT_LE(first, second);
}

}  // namespace
}  // namespace dflow
