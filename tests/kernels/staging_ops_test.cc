// TensorFlow's StagingArea ops (Stage, Unstage, StagePeek, StageSize,
// StageClear) on a graph TensorFlow 2.21 wrote
// (tools/tf_reference/make_staging_reference.py): five areas with their own
// patterns of puts, gets, peeks and clears over three steps give
// TensorFlow's values. Then what a graph dflow builds shows: a get that
// waits for a later step's put without a thread, the capacity and memory
// bounds, and bad inputs (an error naming the node and what is wrong, never
// a hang: a wait that cannot end ends at the step's timeout).
#include <chrono>
#include <memory>
#include <string>
#include <thread>
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

constexpr char kDir[] = "tests/testdata/tf_staging/";
constexpr int kSteps = 3;  // the runs of `train` the reference made

TEST(StagingOpsTest, TensorFlowsGraphGivesItsValues) {
  const std::vector<Line> lines =
      testing_tf_values::ReadLines(std::string(kDir) + "cases.txt");
  ASSERT_EQ(lines.size(), 19u);  // 2 feeds, 17 fetches
  std::vector<const Line*> fetched;
  std::vector<Tensor> outputs;
  testing_tf_values::RunSteps(kDir, lines, "train", kSteps, &fetched, &outputs);
  testing_tf_values::ExpectValues(fetched, outputs);
}

// Graphs of one area, "area" (float elements), built here.
class StagingAreaTest : public ::testing::Test {
 protected:
  // An op of the area with its attrs; `capacity` and `memory_limit` as
  // TensorFlow's Python gives every op of an area.
  OpBuilder AreaOp(const std::string& name, const char* op,
                   DataType dtype = DT_FLOAT) {
    return OpBuilder(root_.WithOpName(name), op)
        .Attr("shared_name", "area")
        .Attr("capacity", capacity_)
        .Attr("memory_limit", memory_limit_)
        .Attr("dtypes", std::vector<DataType>{dtype});
  }

  void Build() {
    GraphDef def;
    ASSERT_TRUE(root_.ToGraphDef(&def).ok());
    absl::StatusOr<std::unique_ptr<Session>> session = Session::Create(def);
    ASSERT_TRUE(session.ok()) << session.status();
    session_ = *std::move(session);
  }

  absl::Status Run(const std::vector<std::string>& fetches,
                   const std::vector<std::string>& targets,
                   std::vector<Tensor>* out, int64_t timeout_ms = 10000) {
    RunOptions options;
    options.timeout_ms = timeout_ms;
    return session_->Run(options, {}, fetches, targets, out, nullptr);
  }

  int32_t Size() {
    std::vector<Tensor> out;
    EXPECT_TRUE(Run({"size"}, {}, &out).ok());
    return out.empty() ? -1 : out[0].data<int32_t>()[0];
  }

  Scope root_ = Scope::NewRootScope();
  int64_t capacity_ = 0;
  int64_t memory_limit_ = 0;
  std::unique_ptr<Session> session_;
};

TEST_F(StagingAreaTest, AGetWaitsForALaterStepsPutWithoutAThread) {
  AreaOp("put", "Stage").InputList({ops::Const(root_, {1.5f, 2.5f})}).Finalize();
  AreaOp("get", "Unstage").Finalize();
  AreaOp("size", "StageSize").Finalize();
  Build();
  // The get starts first, on its own thread, and (unless that thread is
  // slow to start: the test holds either way) finds the area empty and
  // waits as a pending request; the put's step completes it.
  std::vector<Tensor> got;
  absl::Status get_status;
  std::thread getter([&] { get_status = Run({"get"}, {}, &got); });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  std::vector<Tensor> none;
  ASSERT_TRUE(Run({}, {"put"}, &none).ok());
  getter.join();
  ASSERT_TRUE(get_status.ok()) << get_status;
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].shape(), TensorShape({2}));
  EXPECT_EQ(got[0].data<float>()[0], 1.5f);
  EXPECT_EQ(got[0].data<float>()[1], 2.5f);
  EXPECT_EQ(Size(), 0);
}

TEST_F(StagingAreaTest, AFullAreaHoldsThePutUntilTheStepTimesOut) {
  capacity_ = 1;
  Output one = ops::Const(root_, 1.0f);
  Operation first = AreaOp("first", "Stage").InputList({one}).Finalize();
  Operation second = OpBuilder(root_.WithOpName("second")
                                   .WithControlDependencies(first),
                               "Stage")
                         .Attr("shared_name", "area")
                         .Attr("capacity", capacity_)
                         .InputList({one})
                         .Finalize();
  (void)second;
  AreaOp("size", "StageSize").Finalize();
  AreaOp("get", "Unstage").Finalize();
  Build();
  std::vector<Tensor> out;
  absl::Status s = Run({}, {"second"}, &out, /*timeout_ms=*/300);
  EXPECT_EQ(s.code(), absl::StatusCode::kDeadlineExceeded) << s;
  EXPECT_EQ(Size(), 1);  // the first put; the second still waits
  // A get makes room: the put its step gave up on goes in (and that step's
  // last kernel returns).
  ASSERT_TRUE(Run({"get"}, {}, &out).ok());
  EXPECT_EQ(Size(), 1);
}

TEST_F(StagingAreaTest, AnElementBeyondTheMemoryLimitIsRefusedNamingIt) {
  memory_limit_ = 16;
  AreaOp("put", "Stage")
      .InputList({ops::Fill(root_, {5}, 1.0f)})  // 20 bytes
      .Finalize();
  AreaOp("size", "StageSize").Finalize();
  Build();
  std::vector<Tensor> out;
  absl::Status s = Run({}, {"put"}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(std::string(s.message()),
              AllOf(HasSubstr("'put'"), HasSubstr("Stage"),
                    HasSubstr("StagingArea 'area'"), HasSubstr("20 bytes"),
                    HasSubstr("memory_limit of 16 bytes")));
  EXPECT_EQ(Size(), 0);
}

TEST_F(StagingAreaTest, TheMemoryLimitHoldsAPutUntilAGetMakesRoom) {
  memory_limit_ = 12;
  Output two = ops::Const(root_, {1.0f, 2.0f});  // 8 bytes
  Operation first = AreaOp("first", "Stage").InputList({two}).Finalize();
  OpBuilder(root_.WithOpName("second").WithControlDependencies(first),
            "Stage")
      .Attr("shared_name", "area")
      .Attr("memory_limit", memory_limit_)
      .InputList({two})
      .Finalize();
  AreaOp("get", "Unstage").Finalize();
  AreaOp("size", "StageSize").Finalize();
  Build();
  std::vector<Tensor> out;
  // 16 bytes would exceed 12: the second put waits for a get.
  std::thread putter([&] {
    std::vector<Tensor> none;
    EXPECT_TRUE(Run({}, {"second"}, &none).ok());
  });
  std::vector<Tensor> got;
  while (Size() < 1) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  // The second put is pending (were the limit ignored, it would be in).
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(Size(), 1);
  ASSERT_TRUE(Run({"get"}, {}, &got).ok());
  putter.join();
  EXPECT_EQ(Size(), 1);
}

TEST_F(StagingAreaTest, ANegativePeekIndexIsRefused) {
  AreaOp("peek", "StagePeek").Input(ops::Const(root_, -1)).Finalize();
  Build();
  std::vector<Tensor> out;
  absl::Status s = Run({"peek"}, {}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(std::string(s.message()),
              AllOf(HasSubstr("'peek'"), HasSubstr("StagePeek"),
                    HasSubstr("non-negative int32 scalar index")));
}

TEST_F(StagingAreaTest, AGetFromAnEmptyAreaEndsAtTheStepsTimeout) {
  AreaOp("get", "Unstage").Finalize();
  AreaOp("peek", "StagePeek").Input(ops::Const(root_, 3)).Finalize();
  AreaOp("put", "Stage").InputList({ops::Const(root_, 1.0f)}).Finalize();
  AreaOp("size", "StageSize").Finalize();
  Build();
  std::vector<Tensor> out;
  EXPECT_EQ(Run({"get"}, {}, &out, 200).code(),
            absl::StatusCode::kDeadlineExceeded);
  EXPECT_EQ(Run({"peek"}, {}, &out, 200).code(),
            absl::StatusCode::kDeadlineExceeded);
  // The requests their steps gave up on still complete: the first put goes
  // to the waiting get, four more serve the waiting peek.
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(Run({}, {"put"}, &out).ok());
  EXPECT_EQ(Size(), 4);
}

TEST_F(StagingAreaTest, OpsThatDisagreeOnTheDtypesAreNamed) {
  AreaOp("put", "Stage").InputList({ops::Const(root_, 1.0f)}).Finalize();
  AreaOp("get", "Unstage", DT_INT32).Finalize();
  Build();
  std::vector<Tensor> out;
  ASSERT_TRUE(Run({}, {"put"}, &out).ok());
  absl::Status s = Run({"get"}, {}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(std::string(s.message()),
              AllOf(HasSubstr("'get'"), HasSubstr("StagingArea 'area'"),
                    HasSubstr("same dtypes")));
}

TEST_F(StagingAreaTest, ClearEmptiesTheAreaAndPeekLeavesElementsInPlace) {
  Output three = ops::Const(root_, 3.0f);
  AreaOp("put", "Stage").InputList({three}).Finalize();
  AreaOp("peek", "StagePeek").Input(ops::Const(root_, 1)).Finalize();
  AreaOp("clear", "StageClear").Finalize();
  AreaOp("size", "StageSize").Finalize();
  Build();
  std::vector<Tensor> out;
  ASSERT_TRUE(Run({}, {"put"}, &out).ok());
  ASSERT_TRUE(Run({}, {"put"}, &out).ok());
  ASSERT_TRUE(Run({"peek"}, {}, &out).ok());
  EXPECT_EQ(out[0].data<float>()[0], 3.0f);
  EXPECT_EQ(Size(), 2);
  ASSERT_TRUE(Run({}, {"clear"}, &out).ok());
  EXPECT_EQ(Size(), 0);
}

}  // namespace
}  // namespace dflow
