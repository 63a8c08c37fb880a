// CTC training on a graph TensorFlow 2.21 wrote
// (tools/tf_reference/make_text_ops_reference.py): logits in variables
// trained by GradientDescent for three steps on tf.compat.v1.nn.ctc_loss
// (CTCLoss and the gradient tf.gradients writes), tf.nn.ctc_loss with
// sparse labels (a PartitionedCall whose library also holds CTCLossV2) and
// tf.nn.ctc_loss with dense labels (TensorFlow's While-loop graph): the
// losses and variables must be TensorFlow's. Then dflow's own gradient of
// CTCLoss, CTCLossV2 against CTCLoss, and the bad inputs: labels longer
// than the inputs, lengths out of range, malformed label SparseTensors,
// impossible beam settings, each an error saying what is wrong.
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "graph/gradients/gradients.h"
#include "graph/ops/ops.h"
#include "graph/tensor.h"
#include "gtest/gtest.h"
#include "runtime/session.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/kernels/tf_stepped_cases.h"

namespace dflow {
namespace {

using ::testing::HasSubstr;
using testing_tf_values::Line;

TEST(CTCOpsTest, ThreeTrainingStepsGiveTensorFlowsLossesAndLogits) {
  const std::string dir = "tests/testdata/tf_ctc_training/";
  std::vector<Line> lines = testing_tf_values::ReadLines(dir + "cases.txt");
  ASSERT_EQ(lines.size(), 6u);  // seq_len; 3 losses, 2 variables
  std::vector<const Line*> fetched;
  std::vector<Tensor> outputs;
  testing_tf_values::RunSteps(dir, lines, "train", 3, &fetched, &outputs);
  testing_tf_values::ExpectValues(fetched, outputs);
}

Tensor Logits(int64_t t, int64_t b, int64_t k, float scale) {
  std::vector<float> v(t * b * k);
  for (size_t i = 0; i < v.size(); ++i) {
    v[i] = scale * std::sin(0.7f * static_cast<float>(i) + 0.3f);
  }
  return Tensor::FromVector<float>(v, TensorShape({t, b, k}));
}
Tensor Index(const std::vector<int64_t>& v) {
  const int64_t n = static_cast<int64_t>(v.size()) / 2;
  return Tensor::FromVector<int64_t>(v, TensorShape({n, 2}));
}
Tensor Int32s(const std::vector<int32_t>& v) {
  return Tensor::FromVector<int32_t>(
      v, TensorShape({static_cast<int64_t>(v.size())}));
}

struct CtcGraph {
  Scope root = Scope::NewRootScope();
  Output logits = ops::Placeholder(root, DT_FLOAT);
  Output indices = ops::Placeholder(root, DT_INT64);
  Output values = ops::Placeholder(root, DT_INT32);
  Output seq_len = ops::Placeholder(root, DT_INT32);
};

absl::Status LossError(const ops::CTCLossAttrs& attrs,
                       std::vector<Tensor> in) {
  CtcGraph g;
  ops::CTCLossOutputs l = ops::CTCLoss(g.root, g.logits, g.indices, g.values,
                                       g.seq_len, attrs);
  return RunKernel(l.loss.node(), std::move(in)).status();
}

void ExpectInvalid(const absl::Status& s, const std::string& text) {
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr(text));
}

TEST(CTCOpsTest, LossRefusesLabelsAndLengthsThatCannotAlign) {
  const Tensor x = Logits(4, 2, 5, 1.0f);
  const Tensor two_labels = Index({0, 0, 1, 0});
  // Entry 0 has 5 labels for 4 steps.
  const Tensor long_idx = Index({0, 0, 0, 1, 0, 2, 0, 3, 0, 4, 1, 0});
  const Tensor long_vals = Int32s({1, 2, 1, 2, 1, 1});
  ExpectInvalid(LossError({}, {x, long_idx, long_vals, Int32s({4, 3})}),
                "Not enough time for target transition sequence (required: "
                "5, available: 4) in batch entry 0");
  // ... unless told to skip such entries: loss 0 and zero gradient.
  CtcGraph g;
  ops::CTCLossOutputs l = ops::CTCLoss(
      g.root, g.logits, g.indices, g.values, g.seq_len,
      ops::CTCLossAttrs().IgnoreLongerOutputsThanInputs(true));
  absl::StatusOr<std::vector<Tensor>> ok = RunKernel(
      l.loss.node(), {x, long_idx, long_vals, Int32s({4, 3})});
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_EQ((*ok)[0].data<float>()[0], 0.0f);
  EXPECT_GT((*ok)[0].data<float>()[1], 0.0f);
  for (int k = 0; k < 5; ++k) EXPECT_EQ((*ok)[1].data<float>()[k], 0.0f);

  const Tensor vals = Int32s({1, 2});
  ExpectInvalid(LossError({}, {x, two_labels, vals, Int32s({5, 3})}),
                "sequence_length[0] = 5 is out of range: it must be in [0, "
                "max_time = 4]");
  ExpectInvalid(LossError({}, {x, two_labels, vals, Int32s({2, -1})}),
                "sequence_length[1] = -1 is out of range");
  ExpectInvalid(LossError({}, {x, two_labels, vals, Int32s({4})}),
                "len(sequence_length) != batch_size");
  ExpectInvalid(LossError({}, {x, Index({1, 0, 0, 0}), vals, Int32s({4, 3})}),
                "indices[1] = [0,0] is out of order");
  ExpectInvalid(LossError({}, {x, Index({0, 0, 0, 0}), vals, Int32s({4, 3})}),
                "indices[1] = [0,0] is repeated");
  ExpectInvalid(LossError({}, {x, Index({0, 0, 2, 0}), vals, Int32s({4, 3})}),
                "indices[1] = [2,0] is out of bounds");
  ExpectInvalid(LossError({}, {x, Index({0, 0}), Int32s({1}), Int32s({4, 3})}),
                "Labels length is zero in batch 1");
  ExpectInvalid(LossError({}, {x, two_labels, Int32s({-1, 2}), Int32s({4, 3})}),
                "All labels must be nonnegative integers, batch: 0");
  ExpectInvalid(
      LossError({}, {x, Index({0, 0, 0, 1, 1, 0}), Int32s({4, 2, 1}),
                     Int32s({4, 3})}),
      "Saw a non-null label (index >= num_classes - 1) following a null");
  ExpectInvalid(LossError({}, {x, two_labels, Int32s({1}), Int32s({4, 3})}),
                "labels_indices and labels_values must contain the same "
                "number of rows");
  ExpectInvalid(LossError({}, {Tensor::FromVector<float>({1, 2}, {2}),
                               two_labels, vals, Int32s({4, 3})}),
                "inputs is not a 3-Tensor");
}

TEST(CTCOpsTest, DecodersCheckLengthsAndBeamSettings) {
  CtcGraph g;
  const Tensor x = Logits(4, 2, 5, 2.0f);
  ops::CTCDecoderOutputs greedy =
      ops::CTCGreedyDecoder(g.root, g.logits, g.seq_len, true);
  ExpectInvalid(RunKernel(greedy.log_probability.node(),
                          {x, Int32s({5, 2})})
                    .status(),
                "sequence_length[0] = 5 is out of range");
  ExpectInvalid(RunKernel(greedy.log_probability.node(),
                          {Tensor::FromVector<float>({}, {0, 2, 5}),
                           Int32s({0, 0})})
                    .status(),
                "inputs must not be empty");
  ops::CTCDecoderOutputs blank7 =
      ops::CTCGreedyDecoder(g.root, g.logits, g.seq_len, true, 7);
  ExpectInvalid(RunKernel(blank7.log_probability.node(), {x, Int32s({4, 2})})
                    .status(),
                "blank_index expected to be between -5 and 4 but was 7");
  ops::CTCDecoderOutputs too_many =
      ops::CTCBeamSearchDecoder(g.root, g.logits, g.seq_len, 2, 3);
  ExpectInvalid(RunKernel(too_many.log_probability.node(),
                          {x, Int32s({4, 2})})
                    .status(),
                "requested more paths than the beam width: top_paths 3 > "
                "beam_width 2");
  // No steps leave one path (the empty one): two are too many.
  ops::CTCDecoderOutputs two =
      ops::CTCBeamSearchDecoder(g.root, g.logits, g.seq_len, 4, 2);
  ExpectInvalid(RunKernel(two.log_probability.node(), {x, Int32s({4, 0})})
                    .status(),
                "Less leaves in the beam search than requested: batch entry 1");
  // A beam of one and the greedy path agree on these logits.
  ops::CTCDecoderOutputs one =
      ops::CTCBeamSearchDecoder(g.root, g.logits, g.seq_len, 1, 1, true);
  absl::StatusOr<std::vector<Tensor>> b =
      RunKernel(one.log_probability.node(), {x, Int32s({4, 3})});
  absl::StatusOr<std::vector<Tensor>> gr =
      RunKernel(greedy.log_probability.node(), {x, Int32s({4, 3})});
  ASSERT_TRUE(b.ok() && gr.ok());
  ASSERT_EQ((*b)[1].NumElements(), (*gr)[1].NumElements());
  for (int64_t i = 0; i < (*b)[1].NumElements(); ++i) {
    EXPECT_EQ((*b)[1].data<int64_t>()[i], (*gr)[1].data<int64_t>()[i]);
  }
}

// dflow's own gradient of CTCLoss (graph/gradients/nn_grad.cc): the op's
// gradient output scaled by each entry's incoming gradient.
TEST(CTCOpsTest, SymbolicGradientScalesTheKernelsGradient) {
  CtcGraph g;
  ops::CTCLossOutputs l =
      ops::CTCLoss(g.root, g.logits, g.indices, g.values, g.seq_len);
  Output weighted = ops::Sum(
      g.root, ops::Mul(g.root, l.loss, ops::Const(g.root, {2.0f, -0.5f})),
      ops::Const(g.root, 0));
  absl::StatusOr<std::vector<Output>> grads =
      AddSymbolicGradients(g.root, {weighted}, {g.logits});
  ASSERT_TRUE(grads.ok()) << grads.status();
  std::unique_ptr<Session> session = MakeSession(g.root);
  ASSERT_NE(session, nullptr);
  const Tensor x = Logits(5, 2, 4, 1.5f);
  std::vector<Tensor> out;
  absl::Status s = session->Run(
      {{g.logits.name(), x},
       {g.indices.name(), Index({0, 0, 0, 1, 1, 0})},
       {g.values.name(), Int32s({0, 2, 1})},
       {g.seq_len.name(), Int32s({5, 3})}},
      {(*grads)[0].name(), l.gradient.name()}, {}, &out);
  ASSERT_TRUE(s.ok()) << s;
  const float scale[2] = {2.0f, -0.5f};
  for (int t = 0; t < 5; ++t) {
    for (int b = 0; b < 2; ++b) {
      for (int k = 0; k < 4; ++k) {
        const int i = (t * 2 + b) * 4 + k;
        EXPECT_FLOAT_EQ(out[0].data<float>()[i],
                        scale[b] * out[1].data<float>()[i]);
      }
    }
  }
  // The gradient of each step's logits sums to 0 (softmax minus a
  // posterior): a check that could fail.
  for (int t = 0; t < 3; ++t) {
    float sum = 0;
    for (int k = 0; k < 4; ++k) sum += out[1].data<float>()[(t * 2 + 1) * 4 + k];
    EXPECT_NEAR(sum, 0.0f, 1e-5f);
  }
}

// CTCLossV2 (blank 0) is CTCLoss (blank last) with the classes rotated.
TEST(CTCOpsTest, LossV2IsTheLossWithTheBlankFirst) {
  CtcGraph g;
  ops::CTCLossOutputs v1 =
      ops::CTCLoss(g.root, g.logits, g.indices, g.values, g.seq_len);
  Output v2_logits = ops::Placeholder(g.root, DT_FLOAT);
  Output v2_values = ops::Placeholder(g.root, DT_INT32);
  ops::CTCLossOutputs v2 =
      ops::CTCLossV2(g.root, v2_logits, g.indices, v2_values, g.seq_len);
  const int64_t T = 5, B = 2, K = 4;
  const Tensor x = Logits(T, B, K, 1.5f);
  Tensor rotated(DT_FLOAT, TensorShape({T, B, K}));
  for (int64_t r = 0; r < T * B; ++r) {
    rotated.data<float>()[r * K] = x.data<float>()[r * K + K - 1];
    for (int64_t k = 1; k < K; ++k) {
      rotated.data<float>()[r * K + k] = x.data<float>()[r * K + k - 1];
    }
  }
  std::unique_ptr<Session> session = MakeSession(g.root);
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  absl::Status s = session->Run(
      {{g.logits.name(), x},
       {v2_logits.name(), rotated},
       {g.indices.name(), Index({0, 0, 0, 1, 1, 0})},
       {g.values.name(), Int32s({0, 2, 1})},
       {v2_values.name(), Int32s({1, 3, 2})},
       {g.seq_len.name(), Int32s({5, 4})}},
      {v1.loss.name(), v2.loss.name()}, {}, &out);
  ASSERT_TRUE(s.ok()) << s;
  for (int b = 0; b < 2; ++b) {
    EXPECT_FLOAT_EQ(out[0].data<float>()[b], out[1].data<float>()[b]);
  }
  ExpectInvalid(
      RunKernel(v2.loss.node(), {rotated, Index({0, 0, 1, 0}),
                                 Int32s({0, 2}), Int32s({5, 4})})
          .status(),
      "CTCLossV2's labels must be in [1, num_classes)");
}

}  // namespace
}  // namespace dflow
