// SpaceToBatchND, BatchToSpaceND, DepthwiseConv2dNative with its two
// gradients, MirrorPad, MirrorPadGrad, PadV2, ResizeNearestNeighbor and
// ResizeNearestNeighborGrad on a graph TensorFlow 2.21 wrote, against
// TensorFlow's values (tools/tf_reference/make_spatial_ops_reference.py):
// dilated conv1d and convolution (SpaceToBatchND around Conv2D), depthwise
// SAME/VALID/EXPLICIT with strides, dilations and multipliers, both mirror
// modes, fed and constant pad values, every resize mode up and down, and
// the gradients tf.gradients writes through all of them. Then the bad
// inputs: each is an InvalidArgument saying what is wrong, never a crash.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "graph/ops/ops.h"
#include "graph/tensor.h"
#include "gtest/gtest.h"
#include "runtime/session.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/kernels/tf_value_cases.h"

namespace dflow {
namespace {

using ::testing::HasSubstr;
using testing_tf_values::DtypeOf;
using testing_tf_values::Element;
using testing_tf_values::Line;

constexpr char kDir[] = "tests/testdata/tf_spatial_ops/";

TEST(SpatialOpsTest, TensorFlowsGraphGivesTensorFlowsValues) {
  const std::vector<Line> lines =
      testing_tf_values::ReadLines(std::string(kDir) + "cases.txt");
  ASSERT_GT(lines.size(), 60u);
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
    // Convolutions and gradients sum in another order than TensorFlow's:
    // 1e-5 relative (absolute below 1). Moved and int values are exact.
    const bool is_float = want.dtype == "float32" || want.dtype == "float64";
    for (int64_t i = 0; i < got.NumElements(); ++i) {
      const double w = want.values[i];
      const double tol = is_float ? 1e-5 * std::max(1.0, std::fabs(w)) : 0;
      EXPECT_NEAR(Element(got, i), w, tol) << "element " << i;
    }
  }
}

// --- Bad inputs. ---

Output Ph(const Scope& s, DataType dtype) { return ops::Placeholder(s, dtype); }

template <typename T>
Tensor Vec(const std::vector<T>& v, TensorShape shape) {
  return Tensor::FromVector<T>(v, shape);
}

absl::Status RunError(const Output& out, const std::vector<Tensor>& in) {
  return RunKernel(out.node(), in).status();
}

void ExpectInvalid(const absl::Status& s, const std::string& text) {
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr(text));
}

TEST(SpatialOpsTest, SpaceToBatchAndBackSayWhatDoesNotFit) {
  Scope root = Scope::NewRootScope();
  Output x = Ph(root, DT_FLOAT), block = Ph(root, DT_INT32),
         pads = Ph(root, DT_INT32);
  Output s2b = ops::SpaceToBatchND(root, x, block, pads);
  Output b2s = ops::BatchToSpaceND(root, x, block, pads);
  const Tensor x2453(DT_FLOAT, TensorShape({2, 4, 5, 3}));
  const Tensor block22 = Vec<int32_t>({2, 2}, TensorShape({2}));
  ExpectInvalid(
      RunError(s2b, {x2453, block22,
                     Vec<int32_t>({0, 0, 0, 0}, TensorShape({2, 2}))}),
      "dimension 2 of input [2,4,5,3] padded by 0+0 is 5, which is "
      "not divisible by block_shape[1] = 2");
  ExpectInvalid(RunError(s2b, {x2453, block22,
                               Vec<int32_t>({0, 0, 0, 1}, TensorShape({4}))}),
                "paddings must be a matrix of shape [2, 2]");
  ExpectInvalid(
      RunError(s2b, {x2453, block22,
                     Vec<int32_t>({0, 0, -1, 2}, TensorShape({2, 2}))}),
      "must be non-negative");
  ExpectInvalid(
      RunError(s2b, {x2453, Vec<int32_t>({0, 2}, TensorShape({2})),
                     Vec<int32_t>({0, 0, 0, 1}, TensorShape({2, 2}))}),
      "block_shape [0,2] must be positive");
  ExpectInvalid(
      RunError(s2b, {Tensor(DT_FLOAT, TensorShape({4, 2})), block22,
                     Vec<int32_t>({0, 0, 0, 0}, TensorShape({2, 2}))}),
      "must have rank >= 3");
  ExpectInvalid(
      RunError(b2s, {Tensor(DT_FLOAT, TensorShape({6, 2, 2, 1})), block22,
                     Vec<int32_t>({0, 0, 0, 0}, TensorShape({2, 2}))}),
      "the batch 6 of input [6,2,2,1] must be divisible by the "
      "product of block_shape [2,2] (4)");
  ExpectInvalid(
      RunError(b2s, {Tensor(DT_FLOAT, TensorShape({8, 2, 2, 1})), block22,
                     Vec<int32_t>({3, 2, 0, 0}, TensorShape({2, 2}))}),
      "crops 3+2 of dimension 1 exceed its size 4");
}

// An empty dimension padded up to a block is all padding: zeros.
TEST(SpatialOpsTest, SpaceToBatchOfAnEmptyDimensionIsPadding) {
  Scope root = Scope::NewRootScope();
  Output x = Ph(root, DT_FLOAT), block = Ph(root, DT_INT64),
         pads = Ph(root, DT_INT64);
  absl::StatusOr<std::vector<Tensor>> out =
      RunKernel(ops::SpaceToBatchND(root, x, block, pads).node(),
                {Tensor(DT_FLOAT, TensorShape({1, 0, 2})),
                 Vec<int64_t>({2}, TensorShape({1})),
                 Vec<int64_t>({1, 1}, TensorShape({1, 2}))});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ((*out)[0].shape(), TensorShape({2, 1, 2}));
  for (int i = 0; i < 4; ++i) EXPECT_EQ((*out)[0].data<float>()[i], 0.0f);
}

TEST(SpatialOpsTest, DepthwiseShapeErrorsSayWhat) {
  Scope root = Scope::NewRootScope();
  Output x = Ph(root, DT_FLOAT), w = Ph(root, DT_FLOAT),
         sizes = Ph(root, DT_INT32);
  Output conv = ops::DepthwiseConv2dNative(root, x, w, {1, 1, 1, 1}, "VALID");
  const Tensor x1553(DT_FLOAT, TensorShape({1, 5, 5, 3}));
  ExpectInvalid(
      RunError(conv, {x1553, Tensor(DT_FLOAT, TensorShape({3, 3, 2, 1}))}),
      "the input has 3 channels but the filter expects 2");
  ExpectInvalid(RunError(conv, {Tensor(DT_FLOAT, TensorShape({5, 5, 3})),
                                Tensor(DT_FLOAT, TensorShape({3, 3, 3, 1}))}),
                "input must be 4-D");
  ExpectInvalid(
      RunError(conv, {x1553, Tensor(DT_FLOAT, TensorShape({6, 3, 3, 1}))}),
      "does not fit");
  Output grad_in = ops::DepthwiseConv2dNativeBackpropInput(
      root, sizes, w, x, {1, 1, 1, 1}, "VALID");
  ExpectInvalid(
      RunError(grad_in, {Vec<int32_t>({1, 5, 5, 3}, TensorShape({4})),
                         Tensor(DT_FLOAT, TensorShape({3, 3, 3, 2})),
                         Tensor(DT_FLOAT, TensorShape({1, 3, 3, 3}))}),
      "out_backprop must match the convolution's output [1,3,3,6]");
  ExpectInvalid(
      RunError(grad_in, {Vec<int32_t>({1, 5, 5}, TensorShape({3})),
                         Tensor(DT_FLOAT, TensorShape({3, 3, 3, 2})),
                         Tensor(DT_FLOAT, TensorShape({1, 3, 3, 6}))}),
      "input_sizes must be an int32 vector of 4");
  Output grad_w = ops::DepthwiseConv2dNativeBackpropFilter(
      root, x, sizes, w, {1, 1, 1, 1}, "VALID");
  ExpectInvalid(
      RunError(grad_w, {x1553, Vec<int32_t>({3, 3, 3, 2}, TensorShape({4})),
                        Tensor(DT_FLOAT, TensorShape({1, 3, 4, 6}))}),
      "out_backprop must match");
}

TEST(SpatialOpsTest, PadsSayWhatIsWrong) {
  Scope root = Scope::NewRootScope();
  Output x = Ph(root, DT_FLOAT), pads = Ph(root, DT_INT32),
         value = Ph(root, DT_FLOAT);
  const Tensor x23(DT_FLOAT, TensorShape({2, 3}));
  Output reflect = ops::MirrorPad(root, x, pads, "REFLECT");
  Output symmetric = ops::MirrorPad(root, x, pads, "SYMMETRIC");
  ExpectInvalid(
      RunError(reflect, {x23, Vec<int32_t>({0, 0, 3, 0}, TensorShape({2, 2}))}),
      "must be in [0, dim - 1] for REFLECT mode, but dimension 1 of the input "
      "[2,3] is padded by 3+0");
  EXPECT_TRUE(RunError(symmetric,
                       {x23, Vec<int32_t>({0, 0, 3, 0}, TensorShape({2, 2}))})
                  .ok());
  ExpectInvalid(RunError(symmetric, {x23, Vec<int32_t>({0, 0, 4, 0},
                                                       TensorShape({2, 2}))}),
                "must be in [0, dim] for SYMMETRIC mode");
  ExpectInvalid(
      RunError(reflect, {x23, Vec<int32_t>({0, 0}, TensorShape({1, 2}))}),
      "paddings must be a matrix of shape [2, 2]");
  Output grad = ops::MirrorPadGrad(root, x, pads, "REFLECT");
  ExpectInvalid(
      RunError(grad, {x23, Vec<int32_t>({0, 0, 2, 2}, TensorShape({2, 2}))}),
      "remove more than dimension 1 of the padded input [2,3]");
  ExpectInvalid(
      RunError(grad, {x23, Vec<int32_t>({1, 0, 0, 0}, TensorShape({2, 2}))}),
      "for REFLECT mode, but dimension 0 of the unpadded input [1,3]");
  Output padv2 = ops::PadV2(root, x, pads, value);
  ExpectInvalid(
      RunError(padv2, {x23, Vec<int32_t>({0, 0, 1, 0}, TensorShape({2, 2})),
                       Tensor(DT_FLOAT, TensorShape({2}))}),
      "constant_values must be a scalar, but has shape [2]");
}

TEST(SpatialOpsTest, ResizeNearestNeighborSaysWhatIsWrong) {
  Scope root = Scope::NewRootScope();
  Output images = Ph(root, DT_FLOAT), size = Ph(root, DT_INT32);
  Output resize = ops::ResizeNearestNeighbor(root, images, size);
  const Tensor img(DT_FLOAT, TensorShape({1, 4, 4, 2}));
  ExpectInvalid(RunError(resize, {img, Vec<int32_t>({3}, TensorShape({1}))}),
                "size must be a vector of 2 values");
  ExpectInvalid(RunError(resize, {img, Vec<int32_t>({3, 0}, TensorShape({2}))}),
                "size [3,0] must be positive");
  ExpectInvalid(RunError(resize, {Tensor(DT_FLOAT, TensorShape({4, 4, 2})),
                                  Vec<int32_t>({3, 3}, TensorShape({2}))}),
                "images must be 4-D");
  Output grad = ops::ResizeNearestNeighborGrad(root, images, size);
  ExpectInvalid(RunError(grad, {img, Vec<int32_t>({-1, 3}, TensorShape({2}))}),
                "size [-1,3] must be non-negative");
}

// half sums in float (rounded once), uint8 in uint8 (wrapping as
// TensorFlow's does): four pixels shrunk to one add up.
TEST(SpatialOpsTest, ResizeNearestNeighborGradSumsHalfAndBytes) {
  Scope root = Scope::NewRootScope();
  Output half_grads = Ph(root, DT_HALF), byte_grads = Ph(root, DT_UINT8),
         size = Ph(root, DT_INT32);
  Tensor half(DT_HALF, TensorShape({1, 2, 2, 1}));
  Tensor bytes(DT_UINT8, TensorShape({1, 2, 2, 1}));
  const float values[] = {1.5f, 2.0f, 3.25f, 4.0f};
  const uint8_t byte_values[] = {100, 100, 50, 10};
  for (int i = 0; i < 4; ++i) {
    half.data<float16>()[i] = float16::FromFloat(values[i]);
    bytes.data<uint8_t>()[i] = byte_values[i];
  }
  const Tensor one_pixel = Vec<int32_t>({1, 1}, TensorShape({2}));
  absl::StatusOr<std::vector<Tensor>> h =
      RunKernel(ops::ResizeNearestNeighborGrad(root, half_grads, size).node(),
                {half, one_pixel});
  ASSERT_TRUE(h.ok()) << h.status();
  ASSERT_EQ((*h)[0].shape(), TensorShape({1, 1, 1, 1}));
  EXPECT_EQ((*h)[0].data<float16>()[0].ToFloat(), 10.75f);
  absl::StatusOr<std::vector<Tensor>> b =
      RunKernel(ops::ResizeNearestNeighborGrad(root, byte_grads, size).node(),
                {bytes, one_pixel});
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ((*b)[0].data<uint8_t>()[0], 4);  // 260 mod 256
}

// A SpaceToBatchND and BatchToSpaceND round trip of a string tensor (any
// dtype moves, the padding is "") gives the input back.
TEST(SpatialOpsTest, SpaceToBatchRoundTripMovesAnyType) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_STRING);
  Output block = ops::Const(root, {2});
  Output pads = ops::Const(root, {1, 1}, TensorShape({1, 2}));
  Output batched =
      ops::SpaceToBatchND(root.WithOpName("batched"), x, block, pads);
  ops::BatchToSpaceND(root.WithOpName("back"), batched, block, pads);
  std::unique_ptr<Session> session = MakeSession(root);
  ASSERT_NE(session, nullptr);
  Tensor in(DT_STRING, TensorShape({1, 4}));
  for (int i = 0; i < 4; ++i) in.data<std::string>()[i] = std::to_string(i);
  std::vector<Tensor> out;
  ASSERT_TRUE(session->Run({{"x", in}}, {"batched", "back"}, {}, &out).ok());
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].shape(), TensorShape({2, 3}));
  const std::vector<std::string> batched_want = {"", "1", "3", "0", "2", ""};
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(out[0].data<std::string>()[i], batched_want[i]) << i;
  }
  EXPECT_EQ(out[1].shape(), TensorShape({1, 4}));
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(out[1].data<std::string>()[i], std::to_string(i)) << i;
  }
}

}  // namespace
}  // namespace dflow
