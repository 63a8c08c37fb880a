// ScatterMul, ScatterDiv, ScatterMax, ScatterMin, ScatterNdUpdate,
// ScatterNdAdd, ScatterNdSub and their Resource* forms on a graph
// TensorFlow 2.21 wrote with tf.compat.v1.scatter_*: after two runs of the
// updates every variable (reference and resource; float32, float64, int32,
// int64; repeated indices, scalar updates, whole-row tuples) holds
// TensorFlow's values (tools/tf_reference/make_variable_scatter_reference.py).
// Then the bad inputs: an InvalidArgument naming the node, the op and what
// is wrong, with the variable left as it was.
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
#include "tests/kernels/tf_stepped_cases.h"

namespace dflow {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using testing_tf_values::Line;

constexpr char kDir[] = "tests/testdata/tf_variable_scatter/";

TEST(VariableScatterTest, TensorFlowsGraphGivesItsVariables) {
  const std::vector<Line> lines =
      testing_tf_values::ReadLines(std::string(kDir) + "cases.txt");
  ASSERT_GT(lines.size(), 50u);
  std::vector<const Line*> fetched;
  std::vector<Tensor> outputs;
  testing_tf_values::RunSteps(kDir, lines, "update", /*steps=*/2, &fetched,
                              &outputs);
  testing_tf_values::ExpectValues(fetched, outputs);
}

// --- Bad inputs, through a session. ---

// A [3, 2] reference variable `v` and a resource variable `r` (of `dtype`,
// of unknown shape in the graph so that the kernels meet bad shapes), both
// initialized to 1, 2, ..., 6; indices and updates are placeholders.
class BadScatterTest : public ::testing::Test {
 protected:
  void Init(DataType dtype) {
    Tensor start(dtype, TensorShape({3, 2}));
    for (int i = 0; i < 6; ++i) {
      if (dtype == DT_INT32) {
        start.data<int32_t>()[i] = i + 1;
      } else {
        start.data<float>()[i] = i + 1.0f;
      }
    }
    v_ = ops::Variable(root_.WithOpName("v"), TensorShape::Unknown(), dtype);
    ops::Assign(root_.WithOpName("init_v"), v_, ops::Const(root_, start));
    r_ = ops::VarHandleOp(root_.WithOpName("r"), dtype, TensorShape::Unknown());
    ops::AssignVariableOp(root_.WithOpName("init_r"), r_,
                          ops::Const(root_, start));
    indices_ = ops::Placeholder(root_.WithOpName("indices"), DT_INT32);
    updates_ = ops::Placeholder(root_.WithOpName("updates"), dtype);
  }

  absl::Status Run(const FeedList& feeds) {
    session_ = MakeSession(root_);
    if (session_ == nullptr) return absl::InternalError("no session");
    std::vector<Tensor> out;
    absl::Status s = session_->Run({}, {}, {"init_v", "init_r"}, &out);
    if (!s.ok()) return s;
    return session_->Run(feeds, {}, {"scatter"}, &out);
  }

  // The variable `v` (a reference variable) now, as floats.
  std::vector<float> ValueOfV() {
    std::vector<Tensor> out;
    absl::Status s = session_->Run({}, {"v"}, {}, &out);
    EXPECT_TRUE(s.ok()) << s;
    if (!s.ok()) return {};
    return std::vector<float>(out[0].data<float>(),
                              out[0].data<float>() + out[0].NumElements());
  }

  Scope root_ = Scope::NewRootScope();
  Output v_, r_, indices_, updates_;
  std::unique_ptr<Session> session_;
};

void ExpectInvalid(const absl::Status& s, const std::string& op,
                   const std::string& text) {
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(std::string(s.message()),
              AllOf(HasSubstr("'scatter'"), HasSubstr(op), HasSubstr(text)));
}

const std::vector<float> kStart = {1, 2, 3, 4, 5, 6};

TEST_F(BadScatterTest, ARowOutOfRangeChangesNothing) {
  Init(DT_FLOAT);
  ops::ScatterMax(root_.WithOpName("scatter"), v_, indices_, updates_);
  ExpectInvalid(Run({{"indices", Tensor::FromVector<int32_t>({0, 3})},
                     {"updates", Tensor::FromVector<float>(
                                     {9, 9, 9, 9}, TensorShape({2, 2}))}}),
                "ScatterMax", "indices[1] = 3 is not in [0, 3)");
  EXPECT_EQ(ValueOfV(), kStart);
}

TEST_F(BadScatterTest, UpdatesOfAnotherShapeAreRefused) {
  Init(DT_FLOAT);
  ops::ResourceScatterMul(root_.WithOpName("scatter"), r_, indices_, updates_);
  ExpectInvalid(Run({{"indices", Tensor::FromVector<int32_t>({0, 1})},
                     {"updates", Tensor::FromVector<float>({2, 2, 2})}}),
                "ResourceScatterMul",
                "must have shape indices.shape + var.shape[1:]");
}

TEST_F(BadScatterTest, AnIntegerDivisionByZeroIsAnError) {
  Init(DT_INT32);
  ops::ResourceScatterDiv(root_.WithOpName("scatter"), r_, indices_, updates_);
  ExpectInvalid(Run({{"indices", Tensor::FromVector<int32_t>({2})},
                     {"updates", Tensor::FromVector<int32_t>(
                                     {4, 0}, TensorShape({1, 2}))}}),
                "ResourceScatterDiv", "integer division by zero");
}

TEST_F(BadScatterTest, ATupleOutsideTheVariableChangesNothing) {
  Init(DT_FLOAT);
  ops::ScatterNdAdd(root_.WithOpName("scatter"), v_, indices_, updates_);
  ExpectInvalid(
      Run({{"indices",
            Tensor::FromVector<int32_t>({0, 0, 2, 2}, TensorShape({2, 2}))},
           {"updates", Tensor::FromVector<float>({5, 5})}}),
      "ScatterNdAdd",
      "indices[1] = [2, 2] does not index into variable 'v' of shape [3,2]");
  EXPECT_EQ(ValueOfV(), kStart);
}

TEST_F(BadScatterTest, IgnoredTuplesAreDropped) {
  Init(DT_FLOAT);
  ops::ScatterNdSub(root_.WithOpName("scatter"), v_, indices_, updates_,
                    ops::ScatterNdAttrs().BadIndicesPolicy("IGNORE"));
  const absl::Status s =
      Run({{"indices",
            Tensor::FromVector<int32_t>({0, 0, 2, 7}, TensorShape({2, 2}))},
           {"updates", Tensor::FromVector<float>({5, 5})}});
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(ValueOfV(), std::vector<float>({-4, 2, 3, 4, 5, 6}));
}

TEST_F(BadScatterTest, NdUpdatesMustMatchTheTuples) {
  Init(DT_FLOAT);
  ops::ResourceScatterNdUpdate(root_.WithOpName("scatter"), r_, indices_,
                               updates_);
  ExpectInvalid(
      Run({{"indices", Tensor::FromVector<int32_t>({1}, TensorShape({1, 1}))},
           {"updates", Tensor::FromVector<float>({1, 2, 3})}}),
      "ResourceScatterNdUpdate",
      "updates [3] must have shape indices.shape[:-1] + "
      "var.shape[indices.shape[-1]:] = [1,2]");
  ExpectInvalid(
      Run({{"indices",
            Tensor::FromVector<int32_t>({0, 0, 0}, TensorShape({1, 3}))},
           {"updates", Tensor::FromVector<float>({1})}}),
      "ResourceScatterNdUpdate", "indices.shape[-1] = 3 must be at most");
}

}  // namespace
}  // namespace dflow
