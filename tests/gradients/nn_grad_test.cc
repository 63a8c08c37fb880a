// Numeric checks of the nn and convolution gradients
// (graph/gradients/nn_grad.cc): every gradient function against central
// finite differences, over several shapes and attrs, with unknown batch
// sizes where the gradient builds shape ops, plus the seed MLP's loss and
// the ops the hot-path gradients build.
#include <algorithm>
#include <cmath>
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

namespace dflow {
namespace {

using ::testing::HasSubstr;

constexpr int64_t kAny = TensorShape::kUnknownDim;

// Deterministic values in [-1, -0.1] and [0.1, 1]: away from Relu's kink,
// varied enough that no two neighbours are equal.
std::vector<double> Values(int64_t n, int seed) {
  std::vector<double> v(n);
  uint32_t state = 2654435761u * static_cast<uint32_t>(seed + 1);
  for (int64_t i = 0; i < n; ++i) {
    state = state * 1664525u + 1013904223u;
    const double u = (state >> 8) / static_cast<double>(1 << 24);  // [0, 1)
    v[i] = (i % 2 ? -1 : 1) * (0.1 + 0.9 * u);
  }
  return v;
}

Tensor Make(DataType dtype, const std::vector<double>& v,
            const TensorShape& shape) {
  if (dtype == DT_DOUBLE) return Tensor::FromVector<double>(v, shape);
  return Tensor::FromVector<float>(std::vector<float>(v.begin(), v.end()),
                                   shape);
}

Tensor Random(const TensorShape& shape, int seed, DataType dtype = DT_DOUBLE) {
  return Make(dtype, Values(shape.num_elements(), seed), shape);
}

// Distinct values (a scrambled ramp 0.1 apart), so max pooling has no ties.
Tensor Distinct(const TensorShape& shape) {
  const int64_t n = shape.num_elements();
  std::vector<double> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = 0.1 * ((i * 7919) % n) - 0.05 * n;
  return Tensor::FromVector<double>(v, shape);
}

Output Feed(const Scope& root, const TensorShape& shape,
            DataType dtype = DT_DOUBLE) {
  return ops::Placeholder(root, dtype, ops::PlaceholderAttrs().Shape(shape));
}

// The check itself: max |symbolic - numeric| below `tolerance`.
void ExpectGradients(const Scope& root, const std::vector<Output>& xs,
                     const std::vector<Tensor>& values,
                     const std::vector<Output>& ys, double tolerance,
                     const std::string& what) {
  ASSERT_TRUE(root.ok()) << what << ": " << root.status();
  auto result = CheckGradients(root, xs, values, ys);
  ASSERT_TRUE(result.ok()) << what << ": " << result.status();
  EXPECT_LT(result->max_error, tolerance)
      << what << ": worst " << result->worst_entry;
  // A gradient that is zero everywhere would pass trivially.
  EXPECT_GT(result->max_numeric, 0) << what;
}

constexpr double kDoubleTol = 1e-6;

// The ops the gradient builds under gradients/: their op types, in graph
// order.
std::vector<std::string> GradientOpTypes(const Scope& root) {
  std::vector<std::string> types;
  for (Node* n : root.graph()->nodes()) {
    if (n->name().rfind("gradients/", 0) == 0) types.push_back(n->op());
  }
  return types;
}

int CountOps(const std::vector<std::string>& types, const std::string& op) {
  return static_cast<int>(std::count(types.begin(), types.end(), op));
}

// --- Activations. ---

TEST(NnGradTest, Relu) {
  for (const TensorShape& shape :
       {TensorShape({5}), TensorShape({2, 3}), TensorShape({2, 2, 3})}) {
    Scope root = Scope::NewRootScope();
    Output x = Feed(root, shape);
    ExpectGradients(root, {x}, {Random(shape, 1)}, {ops::Relu(root, x)},
                    kDoubleTol, shape.ToString());
  }
}

TEST(NnGradTest, ReluWithUnknownBatch) {
  Scope root = Scope::NewRootScope();
  Output x = Feed(root, TensorShape({kAny, 3}));
  ExpectGradients(root, {x}, {Random(TensorShape({4, 3}), 2)},
                  {ops::Relu(root, x)}, kDoubleTol, "[?,3]");
}

TEST(NnGradTest, ReluIsOneReluGradOnTheOutput) {
  Scope root = Scope::NewRootScope();
  Output x = Feed(root, TensorShape({kAny, 3}));
  Output y = ops::Relu(root, x);
  auto grads = AddSymbolicGradients(root, {y}, {x});
  ASSERT_TRUE(grads.ok()) << grads.status();
  EXPECT_EQ((*grads)[0].node()->op(), "ReluGrad");
  EXPECT_EQ((*grads)[0].node()->input_edge(1)->src, y.node());
  EXPECT_EQ(CountOps(GradientOpTypes(root), "ReluGrad"), 1);
}

// Second order: linear in `gradients`; `features` get none (the numeric
// derivative is 0 away from the kink, and so is what they get).
TEST(NnGradTest, ReluGradSecondOrder) {
  for (const TensorShape& shape : {TensorShape({6}), TensorShape({2, 3})}) {
    Scope root = Scope::NewRootScope();
    Output g = Feed(root, shape);
    Output f = Feed(root, shape);
    Output y = ops::ReluGrad(root, g, f);
    ExpectGradients(root, {g, f}, {Random(shape, 3), Random(shape, 4)}, {y},
                    kDoubleTol, shape.ToString());
  }
}

// --- Bias. ---

struct BiasCase {
  std::string format;
  TensorShape value;  // as fed
  TensorShape placeholder;
};

std::vector<BiasCase> BiasCases() {
  return {
      {"NHWC", TensorShape({3, 4}), TensorShape({3, 4})},
      {"NHWC", TensorShape({3, 4}), TensorShape({kAny, 4})},
      {"NHWC", TensorShape({2, 2, 3, 3}), TensorShape({2, 2, 3, 3})},
      {"NHWC", TensorShape({2, 2, 3, 3}), TensorShape::Unknown()},
      {"NCHW", TensorShape({2, 3, 4}), TensorShape({2, 3, 4})},
      {"NCHW", TensorShape({2, 3, 2, 2}), TensorShape({kAny, 3, 2, 2})},
  };
}

int64_t Channels(const BiasCase& c) {
  return c.format == "NCHW" ? c.value.dim(1) : c.value.dim(c.value.rank() - 1);
}

TEST(NnGradTest, BiasAdd) {
  for (const BiasCase& c : BiasCases()) {
    Scope root = Scope::NewRootScope();
    Output v = Feed(root, c.placeholder);
    Output b = Feed(root, TensorShape({Channels(c)}));
    Output y =
        ops::BiasAdd(root, v, b, ops::BiasAddAttrs().DataFormat(c.format));
    ExpectGradients(root, {v, b},
                    {Random(c.value, 5), Random(TensorShape({Channels(c)}), 6)},
                    {y}, kDoubleTol,
                    absl::StrCat(c.format, " ", c.placeholder.ToString()));
  }
}

TEST(NnGradTest, BiasAddBuildsOneBiasAddGrad) {
  Scope root = Scope::NewRootScope();
  Output v = Feed(root, TensorShape({kAny, 4}));
  Output b = Feed(root, TensorShape({4}));
  Output y = ops::BiasAdd(root, v, b);
  auto grads = AddSymbolicGradients(root, {y}, {v, b});
  ASSERT_TRUE(grads.ok()) << grads.status();
  EXPECT_EQ((*grads)[0].node()->op(), "OnesLike");  // the seed, as is
  EXPECT_EQ((*grads)[1].node()->op(), "BiasAddGrad");
  EXPECT_EQ(GradientOpTypes(root).size(), 2u);  // OnesLike, BiasAddGrad
}

TEST(NnGradTest, BiasAddGradSecondOrder) {
  for (const BiasCase& c : BiasCases()) {
    Scope root = Scope::NewRootScope();
    Output g = Feed(root, c.placeholder);
    Output y =
        ops::BiasAddGrad(root, g, ops::BiasAddAttrs().DataFormat(c.format));
    ExpectGradients(root, {g}, {Random(c.value, 7)}, {y}, kDoubleTol,
                    absl::StrCat(c.format, " ", c.placeholder.ToString()));
  }
}

// --- Softmax and losses. ---

TEST(NnGradTest, Softmax) {
  for (const TensorShape& shape :
       {TensorShape({5}), TensorShape({3, 4}), TensorShape({2, 2, 3})}) {
    Scope root = Scope::NewRootScope();
    Output x = Feed(root, shape);
    ExpectGradients(root, {x}, {Random(shape, 8)}, {ops::Softmax(root, x)},
                    kDoubleTol, shape.ToString());
  }
}

TEST(NnGradTest, LogSoftmax) {
  for (const TensorShape& shape :
       {TensorShape({5}), TensorShape({3, 4}), TensorShape({2, 2, 3})}) {
    Scope root = Scope::NewRootScope();
    Output x = Feed(root, shape);
    ExpectGradients(root, {x}, {Random(shape, 9)}, {ops::LogSoftmax(root, x)},
                    kDoubleTol, shape.ToString());
  }
}

TEST(NnGradTest, SoftmaxWithUnknownBatch) {
  Scope root = Scope::NewRootScope();
  Output x = Feed(root, TensorShape({kAny, 4}));
  ExpectGradients(root, {x}, {Random(TensorShape({3, 4}), 10)},
                  {ops::Softmax(root, x), ops::LogSoftmax(root, x)}, kDoubleTol,
                  "[?,4]");
}

// Rows of positive weights summing to 1 (the loss is linear in the labels,
// so any values would do; distributions are what it is used with).
Tensor Distributions(int64_t rows, int64_t classes, int seed) {
  std::vector<double> v = Values(rows * classes, seed);
  for (int64_t r = 0; r < rows; ++r) {
    double sum = 0;
    for (int64_t c = 0; c < classes; ++c) {
      v[r * classes + c] = std::abs(v[r * classes + c]);
      sum += v[r * classes + c];
    }
    for (int64_t c = 0; c < classes; ++c) v[r * classes + c] /= sum;
  }
  return Tensor::FromVector<double>(v, TensorShape({rows, classes}));
}

struct XentCase {
  TensorShape features, labels;        // as fed
  TensorShape features_ph, labels_ph;  // placeholder shapes
};

TEST(NnGradTest, SoftmaxCrossEntropyLoss) {
  const std::vector<XentCase> cases = {
      {TensorShape({3, 4}), TensorShape({3, 4}), TensorShape({3, 4}),
       TensorShape({3, 4})},
      {TensorShape({2, 5}), TensorShape({2, 5}), TensorShape({kAny, 5}),
       TensorShape({kAny, 5})},
      {TensorShape({1, 3}), TensorShape({1, 3}), TensorShape({1, 3}),
       TensorShape({1, 3})},
      // Broadcast: one row of logits against three label rows, and the
      // other way round.
      {TensorShape({1, 4}), TensorShape({3, 4}), TensorShape({1, 4}),
       TensorShape({3, 4})},
      {TensorShape({3, 4}), TensorShape({1, 4}), TensorShape({kAny, 4}),
       TensorShape({1, 4})},
  };
  for (const XentCase& c : cases) {
    Scope root = Scope::NewRootScope();
    Output f = Feed(root, c.features_ph);
    Output l = Feed(root, c.labels_ph);
    auto xent = ops::SoftmaxCrossEntropyWithLogits(root, f, l);
    ExpectGradients(
        root, {f, l},
        {Random(c.features, 11),
         Distributions(c.labels.dim(0), c.labels.dim(1), 12)},
        {xent.loss}, kDoubleTol,
        absl::StrCat(c.features_ph.ToString(), " ", c.labels_ph.ToString()));
  }
}

// With the backprop output also differentiated: TensorFlow's second-order
// term (the gradient of softmax) for the logits.
TEST(NnGradTest, SoftmaxCrossEntropyLossAndBackprop) {
  for (const TensorShape& ph : {TensorShape({3, 4}), TensorShape({kAny, 4})}) {
    Scope root = Scope::NewRootScope();
    Output f = Feed(root, ph);
    Output l = ops::Const(root, Distributions(3, 4, 13));
    auto xent = ops::SoftmaxCrossEntropyWithLogits(root, f, l);
    ExpectGradients(root, {f}, {Random(TensorShape({3, 4}), 14)},
                    {xent.loss, xent.backprop}, kDoubleTol, ph.ToString());
    // Only the backprop output: the loss term is left out.
    ExpectGradients(root, {f}, {Random(TensorShape({3, 4}), 18)},
                    {xent.backprop}, kDoubleTol,
                    absl::StrCat(ph.ToString(), " backprop only"));
  }
}

TEST(NnGradTest, SparseSoftmaxCrossEntropy) {
  for (DataType label_type : {DT_INT32, DT_INT64}) {
    for (const TensorShape& ph :
         {TensorShape({4, 3}), TensorShape({kAny, 3})}) {
      for (int ys_case = 0; ys_case < 3; ++ys_case) {  // loss, both, bp
        Scope root = Scope::NewRootScope();
        Output f = Feed(root, ph);
        Output l =
            label_type == DT_INT32
                ? ops::Const(root, Tensor::FromVector<int32_t>({2, 0, 1, 2}))
                : ops::Const(root, Tensor::FromVector<int64_t>({2, 0, 1, 2}));
        auto xent = ops::SparseSoftmaxCrossEntropyWithLogits(root, f, l);
        std::vector<Output> ys;
        if (ys_case < 2) ys.push_back(xent.loss);
        if (ys_case > 0) ys.push_back(xent.backprop);
        ExpectGradients(root, {f}, {Random(TensorShape({4, 3}), 15)}, ys,
                        kDoubleTol,
                        absl::StrCat(DataTypeName(label_type), " ",
                                     ph.ToString(), " ys case ", ys_case));
      }
    }
  }
}

// The hot path: only the loss is differentiated, so the gradient is
// ExpandDims * backprop; no Softmax is recomputed and no shapes reduced.
TEST(NnGradTest, CrossEntropyLossGradientReusesBackprop) {
  for (bool sparse : {true, false}) {
    Scope root = Scope::NewRootScope();
    Output f = Feed(root, TensorShape({kAny, 3}));
    ops::CrossEntropyOutputs xent =
        sparse ? ops::SparseSoftmaxCrossEntropyWithLogits(
                     root, f, Feed(root, TensorShape({kAny}), DT_INT32))
               : ops::SoftmaxCrossEntropyWithLogits(
                     root, f, Feed(root, TensorShape({kAny, 3})));
    auto grads = AddSymbolicGradients(root, {xent.loss}, {f});
    ASSERT_TRUE(grads.ok()) << grads.status();
    const Node* g = (*grads)[0].node();
    EXPECT_EQ(g->op(), "Mul") << "sparse " << sparse;
    EXPECT_EQ(g->input_edge(1)->src, xent.backprop.node());
    const std::vector<std::string> types = GradientOpTypes(root);
    EXPECT_EQ(CountOps(types, "Softmax"), 0);
    EXPECT_EQ(CountOps(types, "LogSoftmax"), 0);  // labels are not an x
    EXPECT_EQ(CountOps(types, "Shape"), 0);
  }
}

TEST(NnGradTest, SparseLabelsGetNoGradient) {
  Scope root = Scope::NewRootScope();
  Output f = Feed(root, TensorShape({2, 3}));
  Output l = ops::Placeholder(root, DT_INT32);
  auto xent = ops::SparseSoftmaxCrossEntropyWithLogits(root, f, l);
  auto grads = AddSymbolicGradients(root, {xent.loss}, {l}, {},
                                    GradientOptions().UnconnectedGradients(
                                        GradientOptions::Unconnected::kNone));
  ASSERT_TRUE(grads.ok()) << grads.status();
  EXPECT_FALSE((*grads)[0].valid());
}

TEST(NnGradTest, L2Loss) {
  const std::vector<std::pair<TensorShape, TensorShape>> cases = {
      {TensorShape({5}), TensorShape({5})},
      {TensorShape({2, 3}), TensorShape({2, 3})},
      {TensorShape({kAny, 2, 2}), TensorShape({3, 2, 2})},
      {TensorShape::Unknown(), TensorShape({2, 1, 2})},
  };
  for (const auto& [ph, shape] : cases) {
    Scope root = Scope::NewRootScope();
    Output x = Feed(root, ph);
    ExpectGradients(root, {x}, {Random(shape, 16)}, {ops::L2Loss(root, x)},
                    kDoubleTol, ph.ToString());
  }
}

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

// --- The seed MLP. ---

// mean(sparse_xent(relu(x W1 + b1) W2 + b2, labels))
//   + 1e-4 * (l2_loss(W1) + l2_loss(W2)), with the bias added by BiasAdd
// (mlp_towers) or a broadcasting Add (mnist_mlp); the batch size known, or
// unknown as with the examples' placeholders (PlaceholderWithDefault here,
// since the checker feeds only the xs).
TEST(NnGradTest, SeedMlpLoss) {
  for (bool bias_add : {true, false}) {
    for (bool known_batch : {true, false}) {
      Scope root = Scope::NewRootScope();
      const int64_t batch = known_batch ? 4 : kAny;
      Output x = ops::PlaceholderWithDefault(
          root, ops::Const(root, Random(TensorShape({4, 3}), 50)),
          TensorShape({batch, 3}));
      Output labels = ops::PlaceholderWithDefault(
          root, ops::Const(root, Tensor::FromVector<int32_t>({0, 2, 1, 2})),
          TensorShape({batch}));
      Output w1 = Feed(root, TensorShape({3, 5}));
      Output b1 = Feed(root, TensorShape({5}));
      Output w2 = Feed(root, TensorShape({5, 3}));
      Output b2 = Feed(root, TensorShape({3}));
      auto affine = [&](Output in, Output w, Output b) {
        Output xw = ops::MatMul(root, in, w);
        return bias_add ? ops::BiasAdd(root, xw, b) : ops::Add(root, xw, b);
      };
      Output hidden = ops::Relu(root, affine(x, w1, b1));
      Output logits = affine(hidden, w2, b2);
      Output xent =
          ops::SparseSoftmaxCrossEntropyWithLogits(root, logits, labels).loss;
      Output loss = ops::Add(root, ops::Mean(root, xent, {0}),
                             ops::Mul(root, ops::Const(root, 1e-4),
                                      ops::Add(root, ops::L2Loss(root, w1),
                                               ops::L2Loss(root, w2))));
      ExpectGradients(
          root, {w1, b1, w2, b2},
          {Random(TensorShape({3, 5}), 51), Random(TensorShape({5}), 52),
           Random(TensorShape({5, 3}), 53), Random(TensorShape({3}), 54)},
          {loss}, 1e-8,
          absl::StrCat(bias_add ? "BiasAdd" : "Add",
                       known_batch ? "" : ", batch ?"));
    }
  }
}

}  // namespace
}  // namespace dflow

namespace dflow {
namespace {

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
