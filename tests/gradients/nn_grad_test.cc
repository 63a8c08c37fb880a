// Numeric checks of the nn gradients (graph/gradients/nn_grad.cc):
// activations, bias, softmax and the losses, against central finite
// differences over several shapes, with unknown batch sizes where the
// gradient builds shape ops, plus the seed MLP's loss and the ops the
// hot-path gradients build. The convolution, pooling and normalization
// gradients are conv_grad_test.cc.
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
