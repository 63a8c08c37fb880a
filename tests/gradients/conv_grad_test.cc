// Numeric checks of the convolution, pooling and normalization gradients
// (graph/gradients/nn_grad.cc): Conv2D and its backprops (second order
// too), depthwise convolution, max and average pooling, LRN and
// FusedBatchNormV3, against central finite differences over several shapes
// and attrs, and the ops the gradients build.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "graph/gradients/gradients.h"
#include "graph/ops/ops.h"
#include "gtest/gtest.h"
#include "tests/gradients/gradient_checker.h"
#include "tests/gradients/nn_grad_test_util.h"

namespace dflow {
namespace {

using ::testing::HasSubstr;
using nn_grad_test::CountOps;
using nn_grad_test::Distinct;
using nn_grad_test::ExpectGradients;
using nn_grad_test::Feed;
using nn_grad_test::GradientOpTypes;
using nn_grad_test::kAny;
using nn_grad_test::kDoubleTol;
using nn_grad_test::Make;
using nn_grad_test::Random;
using nn_grad_test::Values;

// --- Convolution. ---

struct ConvCase {
  TensorShape input, filter;
  std::vector<int64_t> strides;
  std::string padding;
  std::vector<int64_t> dilations = {1, 1, 1, 1};
  std::vector<int64_t> explicit_paddings = {};
  bool unknown_batch = false;

  std::string Name() const {
    return absl::StrCat(input.ToString(), " * ", filter.ToString(), " ",
                        padding, " strides ", strides[1], "x", strides[2],
                        " dilations ", dilations[1], "x", dilations[2],
                        unknown_batch ? " batch ?" : "");
  }
  ops::Conv2DAttrs Attrs() const {
    return ops::Conv2DAttrs().Dilations(dilations).ExplicitPaddings(
        explicit_paddings);
  }
  TensorShape InputPlaceholder() const {
    TensorShape s = input;
    if (unknown_batch) s.set_dim(0, kAny);
    return s;
  }
};

std::vector<ConvCase> ConvCases() {
  std::vector<ConvCase> cases;
  cases.push_back({TensorShape({1, 4, 4, 2}),
                   TensorShape({2, 2, 2, 3}),
                   {1, 1, 1, 1},
                   "VALID"});
  cases.push_back({TensorShape({2, 4, 5, 2}),
                   TensorShape({3, 3, 2, 2}),
                   {1, 1, 1, 1},
                   "SAME"});
  cases.push_back({TensorShape({1, 5, 5, 2}),
                   TensorShape({3, 3, 2, 2}),
                   {1, 2, 2, 1},
                   "SAME"});
  cases.push_back({TensorShape({2, 5, 4, 1}),
                   TensorShape({2, 2, 1, 2}),
                   {1, 2, 2, 1},
                   "VALID",
                   {1, 1, 1, 1},
                   {},
                   true});
  cases.push_back({TensorShape({1, 5, 5, 2}),
                   TensorShape({2, 2, 2, 2}),
                   {1, 1, 1, 1},
                   "VALID",
                   {1, 2, 2, 1}});
  cases.push_back({TensorShape({1, 4, 4, 1}),
                   TensorShape({2, 2, 1, 2}),
                   {1, 1, 1, 1},
                   "SAME",
                   {1, 2, 2, 1},
                   {},
                   true});
  cases.push_back({TensorShape({1, 3, 4, 2}),
                   TensorShape({2, 2, 2, 1}),
                   {1, 2, 1, 1},
                   "EXPLICIT",
                   {1, 1, 1, 1},
                   {0, 0, 1, 0, 0, 2, 0, 0}});
  return cases;
}

TEST(NnGradTest, Conv2D) {
  for (const ConvCase& c : ConvCases()) {
    Scope root = Scope::NewRootScope();
    Output x = Feed(root, c.InputPlaceholder());
    Output w = Feed(root, c.filter);
    Output y = ops::Conv2D(root, x, w, c.strides, c.padding, c.Attrs());
    ExpectGradients(root, {x, w}, {Random(c.input, 20), Random(c.filter, 21)},
                    {y}, kDoubleTol, c.Name());
  }
}

TEST(NnGradTest, Conv2DInputSizesAreConstantWhenKnown) {
  for (bool known : {true, false}) {
    Scope root = Scope::NewRootScope();
    Output x = Feed(root, TensorShape({known ? 2 : kAny, 4, 4, 1}));
    Output w = Feed(root, TensorShape({2, 2, 1, 1}));
    Output y = ops::Conv2D(root, x, w, {1, 1, 1, 1}, "SAME");
    auto grads = AddSymbolicGradients(root, {y}, {x, w});
    ASSERT_TRUE(grads.ok()) << grads.status();
    EXPECT_EQ((*grads)[0].node()->op(), "Conv2DBackpropInput");
    EXPECT_EQ((*grads)[1].node()->op(), "Conv2DBackpropFilter");
    EXPECT_EQ((*grads)[0].node()->input_edge(0)->src->op(),
              known ? "Const" : "Shape");
    EXPECT_EQ((*grads)[1].node()->input_edge(1)->src->op(), "Const");
  }
}

// The CPU kernels are NHWC only, so NCHW gradients cannot be checked
// numerically here: the gradient ops must at least carry the forward op's
// layout, strides, dilations and padding.
TEST(NnGradTest, NchwGradientOpsKeepTheForwardAttrs) {
  Scope root = Scope::NewRootScope();
  Output x = Feed(root, TensorShape({kAny, 2, 6, 6}), DT_FLOAT);
  Output w = Feed(root, TensorShape({3, 3, 2, 4}), DT_FLOAT);
  Output conv = ops::Conv2D(
      root, x, w, {1, 1, 2, 2}, "SAME",
      ops::Conv2DAttrs().DataFormat("NCHW").Dilations({1, 1, 1, 1}));
  Output max = ops::MaxPool(root, conv, {1, 1, 2, 2}, {1, 1, 2, 2}, "VALID",
                            ops::MaxPoolAttrs().DataFormat("NCHW"));
  Output avg = ops::AvgPool(root, max, {1, 1, 2, 2}, {1, 1, 1, 1}, "SAME",
                            ops::AvgPoolAttrs().DataFormat("NCHW"));
  auto grads = AddSymbolicGradients(root, {avg}, {x, w});
  ASSERT_TRUE(grads.ok()) << grads.status();
  int checked = 0;
  for (Node* n : root.graph()->nodes()) {
    const std::string op = n->op();
    if (op != "Conv2DBackpropInput" && op != "Conv2DBackpropFilter" &&
        op != "MaxPoolGrad" && op != "AvgPoolGrad") {
      continue;
    }
    ++checked;
    std::string format, padding;
    std::vector<int64_t> strides;
    ASSERT_TRUE(n->GetAttr("data_format", &format).ok());
    ASSERT_TRUE(n->GetAttr("padding", &padding).ok());
    ASSERT_TRUE(n->GetAttr("strides", &strides).ok());
    EXPECT_EQ(format, "NCHW") << n->name();
    if (op == "MaxPoolGrad") {
      EXPECT_EQ(padding, "VALID");
      EXPECT_EQ(strides, std::vector<int64_t>({1, 1, 2, 2}));
    } else if (op == "AvgPoolGrad") {
      EXPECT_EQ(padding, "SAME");
      EXPECT_EQ(strides, std::vector<int64_t>({1, 1, 1, 1}));
    } else {
      EXPECT_EQ(padding, "SAME");
      EXPECT_EQ(strides, std::vector<int64_t>({1, 1, 2, 2}));
    }
  }
  EXPECT_EQ(checked, 4);
}

// Output shape of the convolution in `c` (for the backprop ops' dy).
TensorShape ConvOutput(const ConvCase& c) {
  int64_t out[2];
  for (int k = 0; k < 2; ++k) {
    const int64_t in = c.input.dim(1 + k);
    const int64_t window = (c.filter.dim(k) - 1) * c.dilations[1 + k] + 1;
    const int64_t stride = c.strides[1 + k];
    if (c.padding == "SAME") {
      out[k] = (in + stride - 1) / stride;
    } else {
      const int64_t padded = c.padding == "EXPLICIT"
                                 ? in + c.explicit_paddings[2 + 2 * k] +
                                       c.explicit_paddings[3 + 2 * k]
                                 : in;
      out[k] = (padded - window) / stride + 1;
    }
  }
  return TensorShape({c.input.dim(0), out[0], out[1], c.filter.dim(3)});
}

Output Int32s(const Scope& root, const TensorShape& s) {
  std::vector<int32_t> v(s.dims().begin(), s.dims().end());
  return ops::Const(root, Tensor::FromVector<int32_t>(v));
}

TEST(NnGradTest, Conv2DBackpropInputSecondOrder) {
  for (const ConvCase& c : ConvCases()) {
    Scope root = Scope::NewRootScope();
    const TensorShape dy_shape = ConvOutput(c);
    TensorShape dy_ph = dy_shape;
    if (c.unknown_batch) dy_ph.set_dim(0, kAny);
    Output w = Feed(root, c.filter);
    Output dy = Feed(root, dy_ph);
    Output dx = ops::Conv2DBackpropInput(root, Int32s(root, c.input), w, dy,
                                         c.strides, c.padding, c.Attrs());
    ExpectGradients(root, {w, dy}, {Random(c.filter, 22), Random(dy_shape, 23)},
                    {dx}, kDoubleTol, c.Name());
  }
}

TEST(NnGradTest, Conv2DBackpropFilterSecondOrder) {
  for (const ConvCase& c : ConvCases()) {
    Scope root = Scope::NewRootScope();
    const TensorShape dy_shape = ConvOutput(c);
    TensorShape dy_ph = dy_shape;
    if (c.unknown_batch) dy_ph.set_dim(0, kAny);
    Output x = Feed(root, c.InputPlaceholder());
    Output dy = Feed(root, dy_ph);
    Output dw = ops::Conv2DBackpropFilter(root, x, Int32s(root, c.filter), dy,
                                          c.strides, c.padding, c.Attrs());
    ExpectGradients(root, {x, dy}, {Random(c.input, 24), Random(dy_shape, 25)},
                    {dw}, kDoubleTol, c.Name());
  }
}

// --- Pooling. ---

struct PoolCase {
  TensorShape input;
  std::vector<int64_t> ksize, strides;
  std::string padding;
  bool unknown_batch = false;

  std::string Name() const {
    return absl::StrCat(input.ToString(), " ksize ", ksize[1], "x", ksize[2],
                        " strides ", strides[1], "x", strides[2], " ", padding,
                        unknown_batch ? " batch ?" : "");
  }
  TensorShape Placeholder() const {
    TensorShape s = input;
    if (unknown_batch) s.set_dim(0, kAny);
    return s;
  }
};

std::vector<PoolCase> PoolCases() {
  return {
      {TensorShape({1, 4, 4, 2}), {1, 2, 2, 1}, {1, 2, 2, 1}, "VALID"},
      {TensorShape({2, 4, 4, 1}), {1, 2, 2, 1}, {1, 1, 1, 1}, "VALID"},
      {TensorShape({1, 5, 5, 2}), {1, 3, 3, 1}, {1, 2, 2, 1}, "SAME"},
      {TensorShape({2, 3, 4, 2}), {1, 2, 3, 1}, {1, 1, 1, 1}, "SAME", true},
      {TensorShape({2, 5, 3, 1}), {1, 3, 2, 1}, {1, 2, 1, 1}, "VALID", true},
  };
}

TEST(NnGradTest, MaxPool) {
  for (const PoolCase& c : PoolCases()) {
    Scope root = Scope::NewRootScope();
    Output x = Feed(root, c.Placeholder());
    Output y = ops::MaxPool(root, x, c.ksize, c.strides, c.padding);
    ExpectGradients(root, {x}, {Distinct(c.input)}, {y}, kDoubleTol, c.Name());
  }
}

TEST(NnGradTest, MaxPoolExplicitPadding) {
  Scope root = Scope::NewRootScope();
  const TensorShape shape({1, 4, 3, 2});
  Output x = Feed(root, TensorShape({kAny, 4, 3, 2}));
  Output y = ops::MaxPool(
      root, x, {1, 2, 2, 1}, {1, 2, 2, 1}, "EXPLICIT",
      ops::MaxPoolAttrs().ExplicitPaddings({0, 0, 1, 1, 0, 1, 0, 0}));
  ExpectGradients(root, {x}, {Distinct(shape)}, {y}, kDoubleTol, "EXPLICIT");
}

TEST(NnGradTest, AvgPool) {
  for (const PoolCase& c : PoolCases()) {
    Scope root = Scope::NewRootScope();
    Output x = Feed(root, c.Placeholder());
    Output y = ops::AvgPool(root, x, c.ksize, c.strides, c.padding);
    ExpectGradients(root, {x}, {Random(c.input, 30)}, {y}, kDoubleTol,
                    c.Name());
  }
}

TEST(NnGradTest, AvgPoolGradSecondOrder) {
  for (const PoolCase& c : PoolCases()) {
    // The shape of AvgPool's output, for `grad`.
    Scope probe = Scope::NewRootScope();
    Output pooled = ops::AvgPool(probe, Feed(probe, c.input), c.ksize,
                                 c.strides, c.padding);
    ASSERT_TRUE(probe.ok()) << probe.status();
    const TensorShape grad_shape = pooled.shape();
    TensorShape grad_ph = grad_shape;
    if (c.unknown_batch) grad_ph.set_dim(0, kAny);

    Scope root = Scope::NewRootScope();
    Output g = Feed(root, grad_ph);
    Output y = ops::AvgPoolGrad(root, Int32s(root, c.input), g, c.ksize,
                                c.strides, c.padding);
    ExpectGradients(root, {g}, {Random(grad_shape, 31)}, {y}, kDoubleTol,
                    c.Name());
  }
}

// MaxPoolGrad's own gradient needs MaxPoolGradGrad, which dflow lacks: the
// error names the op.
TEST(NnGradTest, MaxPoolGradHasNoGradient) {
  Scope root = Scope::NewRootScope();
  Output x = Feed(root, TensorShape({1, 2, 2, 1}));
  Output y = ops::MaxPool(root, x, {1, 2, 2, 1}, {1, 2, 2, 1}, "VALID");
  Output g = Feed(root, TensorShape({1, 1, 1, 1}));
  Output dx =
      ops::MaxPoolGrad(root, x, y, g, {1, 2, 2, 1}, {1, 2, 2, 1}, "VALID");
  auto grads = AddSymbolicGradients(root, {dx}, {g});
  ASSERT_FALSE(grads.ok());
  EXPECT_THAT(grads.status().message(), HasSubstr("MaxPoolGrad"));
}

// --- Local response normalization (float kernels only). ---

TEST(NnGradTest, LRN) {
  struct Case {
    TensorShape shape;
    ops::LRNAttrs attrs;
  };
  const std::vector<Case> cases = {
      {TensorShape({1, 2, 2, 5}), ops::LRNAttrs()},
      {TensorShape({2, 1, 2, 6}),
       ops::LRNAttrs().DepthRadius(2).Bias(2).Alpha(0.3f).Beta(0.75f)},
      {TensorShape({1, 1, 3, 4}),
       ops::LRNAttrs().DepthRadius(1).Bias(0.5f).Alpha(1.5f).Beta(0.5f)},
  };
  for (const Case& c : cases) {
    Scope root = Scope::NewRootScope();
    Output x = Feed(root, c.shape, DT_FLOAT);
    Output y = ops::LRN(root, x, c.attrs);
    ASSERT_TRUE(root.ok()) << root.status();
    auto result =
        CheckGradients(root, {x}, {Random(c.shape, 40, DT_FLOAT)}, {y});
    ASSERT_TRUE(result.ok()) << result.status();
    // Float arithmetic with a 1e-3 step: about 1e-3 of the gradient's size.
    EXPECT_LT(result->max_error, 2e-3 * std::max(1.0, result->max_numeric))
        << c.shape.ToString() << ": worst " << result->worst_entry;
    EXPECT_GT(result->max_numeric, 0.1);
  }
}

// FusedBatchNormV3 (float only, as TensorFlow's): the gradient with
// respect to x, scale and offset, in training (through the batch
// statistics) and inference, NHWC and NCHW; it builds one
// FusedBatchNormGradV3.
TEST(NnGradTest, FusedBatchNormV3) {
  for (const char* format : {"NHWC", "NCHW"}) {
    for (bool training : {true, false}) {
      const std::string what =
          absl::StrCat("FusedBatchNormV3 ", format, training ? " train" : "");
      Scope root = Scope::NewRootScope();
      const TensorShape xs = std::string(format) == "NHWC"
                                 ? TensorShape({2, 3, 2, 3})
                                 : TensorShape({2, 3, 3, 2});
      Output x = Feed(root, xs, DT_FLOAT);
      Output scale = Feed(root, {3}, DT_FLOAT);
      Output offset = Feed(root, {3}, DT_FLOAT);
      Output mean = ops::Const(root, Tensor::FromVector<float>({0.1f, -0.2f, 0.3f}));
      Output var = ops::Const(root, Tensor::FromVector<float>({0.5f, 1.5f, 1.0f}));
      OutputList bn = ops::FusedBatchNormV3(
          root, x, scale, offset, mean, var,
          ops::FusedBatchNormAttrs().DataFormat(format).IsTraining(training));
      ASSERT_TRUE(root.ok()) << root.status();
      auto result = CheckGradients(
          root, {x, scale, offset},
          {Random(xs, 1, DT_FLOAT), Random({3}, 2, DT_FLOAT),
           Random({3}, 3, DT_FLOAT)},
          {bn[0]});
      ASSERT_TRUE(result.ok()) << what << ": " << result.status();
      EXPECT_LT(result->max_error, 1e-2 * (1 + result->max_numeric))
          << what << ": worst " << result->worst_entry;
      EXPECT_GT(result->max_numeric, 0) << what;
      int grads = 0;
      for (const std::string& t : GradientOpTypes(root)) {
        grads += t == "FusedBatchNormGradV3";
      }
      EXPECT_EQ(grads, 1) << what;
    }
  }
}

// --- DepthwiseConv2dNative. ---

TEST(NnGradTest, DepthwiseConv2dNative) {
  struct Case {
    TensorShape input, filter;
    std::vector<int64_t> strides;
    std::string padding;
    std::vector<int64_t> dilations;
  };
  const std::vector<Case> cases = {
      {TensorShape({2, 5, 5, 3}), TensorShape({3, 3, 3, 2}), {1, 1, 1, 1},
       "SAME", {1, 1, 1, 1}},
      {TensorShape({1, 6, 7, 2}), TensorShape({2, 3, 2, 1}), {1, 2, 2, 1},
       "VALID", {1, 1, 1, 1}},
      {TensorShape({1, 7, 7, 2}), TensorShape({3, 2, 2, 3}), {1, 1, 1, 1},
       "SAME", {1, 2, 2, 1}},
  };
  for (const Case& c : cases) {
    Scope root = Scope::NewRootScope();
    Output x = Feed(root, c.input);
    Output w = Feed(root, c.filter);
    Output y = ops::DepthwiseConv2dNative(
        root, x, w, c.strides, c.padding,
        ops::DepthwiseConv2dNativeAttrs().Dilations(c.dilations));
    ExpectGradients(root, {x, w}, {Random(c.input, 30), Random(c.filter, 31)},
                    {y}, kDoubleTol, c.input.ToString() + " " + c.padding);
  }
}

}  // namespace
}  // namespace dflow
