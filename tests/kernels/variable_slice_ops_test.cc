// Slices and rows of variables on a graph TensorFlow 2.21 wrote
// (tools/tf_reference/make_variable_slices_reference.py): Python's
// `v[...].assign(x)` (ResourceStridedSliceAssign, StridedSliceAssign) with
// strides, negative bounds, an ellipsis, a new axis, shrunk dimensions and
// an empty slice; tf.gather_nd of a resource variable (ResourceGatherNd);
// the sparse centered RMSProp of tf.compat.v1.train.RMSPropOptimizer and
// SparseApplyAdagradV2, in both variable kinds; tf.math.nextafter, bit for
// bit. Then bad inputs: an error naming the node, the op and what is wrong,
// with the variable left as it was.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
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

constexpr char kDir[] = "tests/testdata/tf_variable_slices/";
constexpr int kSteps = 3;  // the runs of `train` the reference made

TEST(VariableSliceOpsTest, TensorFlowsGraphGivesItsValues) {
  const std::vector<Line> lines =
      testing_tf_values::ReadLines(std::string(kDir) + "cases.txt");
  ASSERT_EQ(lines.size(), 29u);  // 10 feeds, 19 fetches
  std::vector<const Line*> fetched;
  std::vector<Tensor> outputs;
  testing_tf_values::RunSteps(kDir, lines, "train", kSteps, &fetched, &outputs);
  testing_tf_values::ExpectValues(fetched, outputs);
  // nextafter moves by one unit in the last place: within any tolerance of
  // its input, so its bits are compared.
  int checked = 0;
  for (size_t f = 0; f < fetched.size(); ++f) {
    const Line& want = *fetched[f];
    if (want.name.find("nextafter") == std::string::npos) continue;
    SCOPED_TRACE(want.name);
    for (int64_t i = 0; i < outputs[f].NumElements(); ++i) {
      if (want.dtype == "float32") {
        EXPECT_EQ(outputs[f].data<float>()[i],
                  static_cast<float>(want.values[i]))
            << "element " << i;
      } else {
        EXPECT_EQ(outputs[f].data<double>()[i], want.values[i])
            << "element " << i;
      }
      ++checked;
    }
  }
  EXPECT_EQ(checked, 8);
}

// A resource variable "v", float [4, 3], initialized to 0..11.
class VariableSliceBadInputTest : public ::testing::Test {
 protected:
  void SetUp() override {
    v_ = ops::VarHandleOp(root_.WithOpName("v"), DT_FLOAT, TensorShape({4, 3}));
    Tensor init(DT_FLOAT, TensorShape({4, 3}));
    for (int i = 0; i < 12; ++i) init.data<float>()[i] = static_cast<float>(i);
    ops::AssignVariableOp(root_.WithOpName("init"), v_,
                          ops::Const(root_, init));
    ops::ReadVariableOp(root_.WithOpName("read"), v_, DT_FLOAT);
  }

  // Runs `init` (unless `initialize` is false), then `target`; `*after`
  // gets the variable's value after (when initialized).
  absl::Status Run(const std::string& target, const FeedList& feeds,
                   Tensor* after = nullptr, bool initialize = true) {
    GraphDef def;
    absl::Status s = root_.ToGraphDef(&def);
    if (!s.ok()) return s;
    absl::StatusOr<std::unique_ptr<Session>> session = Session::Create(def);
    if (!session.ok()) return session.status();
    std::vector<Tensor> out;
    if (initialize) {
      s = (*session)->Run({}, {}, {"init"}, &out);
      if (!s.ok()) return s;
    }
    s = (*session)->Run(feeds, {target}, {}, &out);
    if (after != nullptr) {
      std::vector<Tensor> read;
      EXPECT_TRUE((*session)->Run({}, {"read"}, {}, &read).ok());
      if (!read.empty()) *after = read[0];
    }
    return s;
  }

  static void ExpectUnchanged(const Tensor& v) {
    ASSERT_EQ(v.NumElements(), 12);
    for (int i = 0; i < 12; ++i) EXPECT_EQ(v.data<float>()[i], i);
  }

  Scope root_ = Scope::NewRootScope();
  Output v_;
};

TEST_F(VariableSliceBadInputTest, AValueOfAnotherShapeThanTheSliceIsRefused) {
  // v[1:3] is [2, 3]; a [3, 3] value is refused, as TensorFlow does (no
  // broadcasting).
  auto value = ops::Placeholder(root_.WithOpName("value"), DT_FLOAT);
  Operation assign = ops::ResourceStridedSliceAssign(
      root_.WithOpName("assign"), v_, ops::Const(root_, {1}),
      ops::Const(root_, {3}), ops::Const(root_, {1}), value);
  ops::Identity(root_.WithOpName("done").WithControlDependencies(assign),
                ops::Const(root_, 0));
  Tensor after;
  absl::Status s =
      Run("done", {{"value", Tensor(DT_FLOAT, TensorShape({3, 3}))}}, &after);
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented) << s;
  EXPECT_THAT(std::string(s.message()),
              AllOf(HasSubstr("'assign'"),
                    HasSubstr("ResourceStridedSliceAssign"),
                    HasSubstr("sliced l-value shape [2,3]"),
                    HasSubstr("r-value shape [3,3]")));
  ExpectUnchanged(after);
}

TEST_F(VariableSliceBadInputTest, AZeroStrideIsRefused) {
  Operation assign = ops::ResourceStridedSliceAssign(
      root_.WithOpName("assign"), v_, ops::Const(root_, {1}),
      ops::Const(root_, {3}), ops::Const(root_, {0}),
      ops::Fill(root_, {2, 3}, 1.0f));
  ops::Identity(root_.WithOpName("done").WithControlDependencies(assign),
                ops::Const(root_, 0));
  Tensor after;
  absl::Status s = Run("done", {}, &after);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(std::string(s.message()),
              AllOf(HasSubstr("'assign'"), HasSubstr("stride")));
  ExpectUnchanged(after);
}

TEST_F(VariableSliceBadInputTest, AnUninitializedVariableIsNamed) {
  Operation assign = ops::ResourceStridedSliceAssign(
      root_.WithOpName("assign"), v_, ops::Const(root_, {1}),
      ops::Const(root_, {3}), ops::Const(root_, {1}),
      ops::Fill(root_, {2, 3}, 1.0f));
  ops::Identity(root_.WithOpName("done").WithControlDependencies(assign),
                ops::Const(root_, 0));
  absl::Status s = Run("done", {}, nullptr, /*initialize=*/false);
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
  EXPECT_THAT(std::string(s.message()),
              AllOf(HasSubstr("'assign'"),
                    HasSubstr("uninitialized value v")));
}

TEST_F(VariableSliceBadInputTest, AGatherNdTupleOutsideTheVariableIsNamed) {
  ops::ResourceGatherNd(root_.WithOpName("gathered"), v_,
                        ops::Const(root_, Tensor::FromVector<int32_t>(
                                              {1, 2, 4, 0}, TensorShape({2, 2}))),
                        DT_FLOAT);
  absl::Status s = Run("gathered", {});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(std::string(s.message()),
              AllOf(HasSubstr("'gathered'"), HasSubstr("ResourceGatherNd"),
                    HasSubstr("[4, 0]"), HasSubstr("[4,3]")));
}

TEST_F(VariableSliceBadInputTest, ASparseRowOutOfRangeLeavesTheSlotsAsTheyWere) {
  Output mg = ops::VarHandleOp(root_.WithOpName("mg"), DT_FLOAT,
                               TensorShape({4, 3}));
  Operation init_mg = ops::AssignVariableOp(root_.WithOpName("init_mg"), mg,
                                            ops::Fill(root_, {4, 3}, 0.0f));
  Operation update = ops::ResourceSparseApplyCenteredRMSProp(
      root_.WithOpName("update").WithControlDependencies(init_mg), v_, mg, mg,
      mg, 0.1f, 0.9f, 0.0f, 1e-3f, ops::Fill(root_, {2, 3}, 1.0f),
      ops::Const(root_, {0, 9}));
  ops::Identity(root_.WithOpName("done").WithControlDependencies(update),
                ops::Const(root_, 0));
  Tensor after;
  absl::Status s = Run("done", {}, &after);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(std::string(s.message()),
              AllOf(HasSubstr("'update'"),
                    HasSubstr("ResourceSparseApplyCenteredRMSProp"),
                    HasSubstr("indices[1] = 9 is not in [0, 4)")));
  ExpectUnchanged(after);
}

}  // namespace
}  // namespace dflow
