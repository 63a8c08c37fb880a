// Adadelta, Ftrl, FtrlV2, ProximalAdagrad, ProximalGradientDescent and
// AdagradDA in their Apply*, ResourceApply*, SparseApply* and
// ResourceSparseApply* forms, on a training graph TensorFlow 2.21 wrote with
// its tf.compat.v1.train optimizers (and raw ops for multiply_linear_by_lr):
// after three steps every variable must hold TensorFlow's values
// (tools/tf_reference/make_training_ops_reference.py). Then the bad inputs:
// each is an InvalidArgument naming the node, the op and what is wrong, and
// leaves the variables as they were.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gmock/gmock.h"
#include "graph/ops/ops.h"
#include "graph/tensor.h"
#include "gtest/gtest.h"
#include "runtime/session.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/kernels/tf_stepped_cases.h"

namespace dflow {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using testing_tf_values::Line;

constexpr char kDir[] = "tests/testdata/tf_training_ops/";
// The runs of `train` the reference made before reading the variables.
constexpr int kSteps = 3;

TEST(TrainingOpsRegularizedTest, TensorFlowsTrainingGraphGivesItsVariables) {
  const std::vector<Line> lines =
      testing_tf_values::ReadLines(std::string(kDir) + "cases.txt");
  ASSERT_GT(lines.size(), 60u);
  std::vector<const Line*> fetched;
  std::vector<Tensor> outputs;
  testing_tf_values::RunSteps(kDir, lines, "train", kSteps, &fetched, &outputs);
  testing_tf_values::ExpectValues(fetched, outputs);
}

// --- Bad inputs, through a session as a user meets them. ---

// A float [4, 2] reference variable `var` with slots `accum` and `linear`,
// a resource twin `rvar` with `raccum` and `rlinear`, and their
// initializers (all ones); the scalars and the gradient are placeholders.
class BadInputTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* name : {"var", "accum", "linear"}) {
      Output v = ops::Variable(root_.WithOpName(name), {4, 2}, DT_FLOAT);
      init_.push_back(ops::Assign(root_.WithOpName(std::string("init_") + name),
                                  v, ops::Fill(root_, {4, 2}, 1.0f))
                          .node()
                          ->name());
      vars_.push_back(v);
      Output r = ops::VarHandleOp(root_.WithOpName(std::string("r") + name),
                                  DT_FLOAT, TensorShape({4, 2}));
      init_.push_back(
          ops::AssignVariableOp(root_.WithOpName(std::string("init_r") + name),
                                r, ops::Fill(root_, {4, 2}, 1.0f))
              .node()
              ->name());
      rvars_.push_back(r);
    }
    lr_ = ops::Placeholder(root_.WithOpName("lr"), DT_FLOAT);
    grad_ = ops::Placeholder(root_.WithOpName("grad"), DT_FLOAT);
    indices_ = ops::Placeholder(root_.WithOpName("indices"), DT_INT32);
    step_ = ops::Placeholder(root_.WithOpName("step"), DT_INT64);
  }

  // Runs the initializers, then `target` with `feeds`; returns its status.
  absl::Status Run(const std::string& target, const FeedList& feeds) {
    session_ = MakeSession(root_);
    if (session_ == nullptr) return absl::InternalError("no session");
    std::vector<Tensor> out;
    absl::Status s = session_->Run({}, {}, init_, &out);
    if (!s.ok()) return s;
    return session_->Run(feeds, {}, {target}, &out);
  }

  // The variable `name` now.
  std::vector<float> Value(const std::string& name) {
    std::vector<Tensor> out;
    absl::Status s = session_->Run({}, {name}, {}, &out);
    EXPECT_TRUE(s.ok()) << s;
    if (!s.ok()) return {};
    return std::vector<float>(out[0].data<float>(),
                              out[0].data<float>() + out[0].NumElements());
  }

  static Tensor Floats(std::vector<float> v, TensorShape shape) {
    return Tensor::FromVector<float>(v, shape);
  }
  static Tensor Grad(TensorShape shape) {
    Tensor t(DT_FLOAT, shape);
    for (int64_t i = 0; i < t.NumElements(); ++i) t.data<float>()[i] = 0.5f;
    return t;
  }

  Scope root_ = Scope::NewRootScope();
  std::vector<std::string> init_;
  std::vector<Output> vars_, rvars_;
  Output lr_, grad_, indices_, step_;
  std::unique_ptr<Session> session_;
};

void ExpectInvalid(const absl::Status& s, const std::string& node,
                   const std::string& op, const std::string& text) {
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(std::string(s.message()), AllOf(HasSubstr("'" + node + "'"),
                                              HasSubstr(op), HasSubstr(text)));
}

TEST_F(BadInputTest, ADenseGradientOfAnotherShapeIsRefused) {
  ops::ApplyAdadelta(root_.WithOpName("train"), vars_[0], vars_[1], vars_[2],
                     lr_, 0.9f, 1e-6f, grad_);
  ExpectInvalid(
      Run("train", {{"lr", Tensor::Scalar(1.0f)}, {"grad", Grad({2, 4})}}),
      "train", "ApplyAdadelta",
      "'grad' has shape [2,4] but variable 'var' has shape [4,2]");
  EXPECT_EQ(Value("var"), std::vector<float>(8, 1.0f));
}

TEST_F(BadInputTest, AScalarThatIsNotAScalarIsRefused) {
  ops::ResourceApplyProximalGradientDescent(root_.WithOpName("train"),
                                            rvars_[0], lr_, 0.1f, 0.1f, grad_);
  ExpectInvalid(
      Run("train", {{"lr", Floats({1, 2}, {2})}, {"grad", Grad({4, 2})}}),
      "train", "ResourceApplyProximalGradientDescent",
      "'alpha' must be a scalar but has shape [2]");
}

TEST_F(BadInputTest, ASparseIndexOutOfRangeIsNamedAndChangesNothing) {
  ops::SparseApplyFtrl(root_.WithOpName("train"), vars_[0], vars_[1], vars_[2],
                       grad_, indices_, lr_, 0.01f, 0.01f, -0.5f);
  ExpectInvalid(
      Run("train", {{"lr", Tensor::Scalar(0.1f)},
                    {"grad", Grad({3, 2})},
                    {"indices", Tensor::FromVector<int32_t>({0, 4, 1})}}),
      "train", "SparseApplyFtrl",
      "indices[1] = 4 is not in [0, 4) (the rows of variable 'var')");
  EXPECT_EQ(Value("var"), std::vector<float>(8, 1.0f));
  EXPECT_EQ(Value("accum"), std::vector<float>(8, 1.0f));
}

TEST_F(BadInputTest, ASparseGradientNeedsOneRowPerIndex) {
  ops::ResourceSparseApplyAdagradDA(root_.WithOpName("train"), rvars_[0],
                                    rvars_[1], rvars_[2], grad_, indices_, lr_,
                                    0.01f, 0.01f, step_);
  const FeedList feeds = {{"lr", Tensor::Scalar(0.1f)},
                          {"grad", Grad({3, 2})},
                          {"indices", Tensor::FromVector<int32_t>({0, 1})},
                          {"step", Tensor::Scalar<int64_t>(1)}};
  ExpectInvalid(Run("train", feeds), "train", "ResourceSparseApplyAdagradDA",
                "'grad' [3,2] must have one row per index (2 indices)");
}

TEST_F(BadInputTest, SparseIndicesMustBeAVector) {
  ops::SparseApplyProximalAdagrad(root_.WithOpName("train"), vars_[0], vars_[1],
                                  lr_, 0.01f, 0.01f, grad_, indices_);
  ExpectInvalid(Run("train", {{"lr", Tensor::Scalar(0.1f)},
                              {"grad", Grad({2, 2})},
                              {"indices", Tensor::FromVector<int32_t>(
                                              {0, 1}, TensorShape({2, 1}))}}),
                "train", "SparseApplyProximalAdagrad",
                "'indices' must be a vector but has shape [2,1]");
}

TEST_F(BadInputTest, SlotsOfAnotherShapeAreRefused) {
  // Of unknown shape in the graph, so that the kernel is what meets it.
  Output small = ops::VarHandleOp(root_.WithOpName("small"), DT_FLOAT,
                                  TensorShape::Unknown());
  init_.push_back(ops::AssignVariableOp(root_.WithOpName("init_small"), small,
                                        ops::Fill(root_, {2}, 1.0f))
                      .node()
                      ->name());
  ops::ResourceApplyFtrlV2(root_.WithOpName("train"), rvars_[0], small,
                           rvars_[2], grad_, lr_, 0.01f, 0.01f, 0.1f, -0.5f);
  ExpectInvalid(
      Run("train", {{"lr", Tensor::Scalar(0.1f)}, {"grad", Grad({4, 2})}}),
      "train", "ResourceApplyFtrlV2", "('accum') has shape [2] but variable");
}

TEST_F(BadInputTest, AnUninitializedSlotSaysSo) {
  Output fresh = ops::Variable(root_.WithOpName("fresh"), {4, 2}, DT_FLOAT);
  ops::ApplyProximalAdagrad(root_.WithOpName("train"), vars_[0], fresh, lr_,
                            0.01f, 0.01f, grad_);
  const absl::Status s =
      Run("train", {{"lr", Tensor::Scalar(0.1f)}, {"grad", Grad({4, 2})}});
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
  EXPECT_THAT(std::string(s.message()),
              AllOf(HasSubstr("'train'"), HasSubstr("fresh")));
}

}  // namespace
}  // namespace dflow
