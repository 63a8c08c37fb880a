// The update ops Keras's optimizers write: ResourceApplyKerasMomentum and
// its sparse form (SGD with momentum), ResourceApplyAdamWithAmsgrad and
// (Resource)ApplyAdaMax, on a training graph TensorFlow 2.21 wrote with
// tf_keras's legacy optimizers: after three steps every variable must hold
// TensorFlow's values (tools/tf_reference/make_keras_optimizer_reference.py).
// Then bad inputs: an InvalidArgument naming the node, the op and what is
// wrong, with the variables left as they were.
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "graph/graph_def_file.h"
#include "graph/ops/ops.h"
#include "graph/tensor.h"
#include "gtest/gtest.h"
#include "runtime/session.h"
#include "tests/kernels/tf_stepped_cases.h"

namespace dflow {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using testing_tf_values::Line;

constexpr char kDir[] = "tests/testdata/tf_keras_optimizers/";
constexpr int kSteps = 3;  // the runs of `train` the reference made

TEST(KerasOptimizerOpsTest, TensorFlowsTrainingGraphGivesItsVariables) {
  const std::vector<Line> lines =
      testing_tf_values::ReadLines(std::string(kDir) + "cases.txt");
  ASSERT_EQ(lines.size(), 11u);  // 3 feeds, 8 variables
  std::vector<const Line*> fetched;
  std::vector<Tensor> outputs;
  testing_tf_values::RunSteps(kDir, lines, "train", kSteps, &fetched, &outputs);
  testing_tf_values::ExpectValues(fetched, outputs);
}

// Resource variables var, accum, m, v, vhat: float [4, 2], all ones.
class KerasOptimizerBadInputTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* name : {"var", "accum", "m", "v", "vhat"}) {
      Output r = ops::VarHandleOp(root_.WithOpName(name), DT_FLOAT,
                                  TensorShape({4, 2}));
      init_.push_back(
          ops::AssignVariableOp(root_.WithOpName(std::string("init_") + name),
                                r, ops::Fill(root_, {4, 2}, 1.0f))
              .node()
              ->name());
      vars_.push_back(r);
    }
    grad_ = ops::Placeholder(root_.WithOpName("grad"), DT_FLOAT);
    indices_ = ops::Placeholder(root_.WithOpName("indices"), DT_INT32);
  }

  // Shape errors the graph shows are found while it is built (the
  // builder's shape inference); the rest when `train` runs.
  absl::Status Run(const FeedList& feeds) {
    GraphDef def;
    absl::Status s = root_.ToGraphDef(&def);
    if (!s.ok()) return s;
    absl::StatusOr<std::unique_ptr<Session>> session = Session::Create(def);
    if (!session.ok()) return session.status();
    session_ = *std::move(session);
    std::vector<Tensor> out;
    s = session_->Run({}, {}, init_, &out);
    if (!s.ok()) return s;
    return session_->Run(feeds, {}, {"train"}, &out);
  }

  static Tensor Halves(TensorShape shape) {
    Tensor t(DT_FLOAT, shape);
    for (int64_t i = 0; i < t.NumElements(); ++i) t.data<float>()[i] = 0.5f;
    return t;
  }

  Scope root_ = Scope::NewRootScope();
  std::vector<std::string> init_;
  std::vector<Output> vars_;
  Output grad_, indices_;
  std::unique_ptr<Session> session_;
};

void ExpectInvalid(const absl::Status& s, const std::string& op,
                   const std::string& text) {
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(std::string(s.message()),
              AllOf(HasSubstr("'train'"), HasSubstr(op), HasSubstr(text)));
}

TEST_F(KerasOptimizerBadInputTest, AGradientOfAnotherShapeIsRefused) {
  ops::ResourceApplyKerasMomentum(root_.WithOpName("train"), vars_[0],
                                  vars_[1], 0.1f, grad_, 0.9f);
  ExpectInvalid(Run({{"grad", Halves({2, 4})}}), "ResourceApplyKerasMomentum",
                "'grad' has shape [2,4] but variable 'var' ('var') has shape [4,2]");
}

TEST_F(KerasOptimizerBadInputTest, ASlotOfAnotherShapeIsRefused) {
  Output small = ops::VarHandleOp(root_.WithOpName("small"), DT_FLOAT,
                                  TensorShape({2}));
  init_.push_back(ops::AssignVariableOp(root_.WithOpName("init_small"), small,
                                        ops::Fill(root_, {2}, 0.0f))
                      .node()
                      ->name());
  ops::ResourceApplyAdamWithAmsgrad(root_.WithOpName("train"), vars_[0],
                                    vars_[2], vars_[3], small, 0.9f, 0.999f,
                                    0.01f, 0.9f, 0.999f, 1e-7f, grad_);
  ExpectInvalid(Run({{"grad", Halves({4, 2})}}),
                "ResourceApplyAdamWithAmsgrad", "'vhat' is [2]");
}

TEST_F(KerasOptimizerBadInputTest, ASparseIndexOutOfRangeIsNamed) {
  ops::ResourceSparseApplyKerasMomentum(root_.WithOpName("train"), vars_[0],
                                        vars_[1], 0.1f, grad_, indices_, 0.9f);
  ExpectInvalid(Run({{"grad", Halves({2, 2})},
                     {"indices", Tensor::FromVector<int32_t>({1, 7})}}),
                "ResourceSparseApplyKerasMomentum", "7");
}

TEST_F(KerasOptimizerBadInputTest, AScalarThatIsNotAScalarIsRefused) {
  ops::ResourceApplyAdaMax(root_.WithOpName("train"), vars_[0], vars_[2],
                           vars_[3], 0.9f, ops::Const(root_, {0.1f, 0.2f}),
                           0.9f, 0.999f, 1e-7f, grad_);
  ExpectInvalid(Run({{"grad", Halves({4, 2})}}), "ResourceApplyAdaMax",
                "input 'lr' must be a scalar but has shape [2]");
}

}  // namespace
}  // namespace dflow
