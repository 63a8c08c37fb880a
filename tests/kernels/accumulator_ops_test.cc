// TensorFlow's conditional accumulators (ResourceConditionalAccumulator and
// its apply, take, count and set-global-step ops) on a graph TensorFlow
// 2.21 wrote (tools/tf_reference/make_accumulator_reference.py):
// SyncReplicasOptimizer aggregating two replicas' gradients, driven as its
// workers and chief run it, gives TensorFlow's variables, global step and
// counts; an accumulator of its own drops stale gradients and sums the
// fresh ones as TensorFlow's. Then a take that waits for later applies
// without a thread, a take that can never be served ending at the step's
// timeout, and bad inputs named.
#include <memory>
#include <string>
#include <thread>
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

constexpr char kDir[] = "tests/testdata/tf_accumulators/";
constexpr int kRounds = 3;  // the reference's rounds of worker, worker, sync

Tensor Int64(int64_t v) { return Tensor::Scalar(v); }

TEST(AccumulatorOpsTest, SyncReplicasOptimizerGivesTensorFlowsValues) {
  const std::vector<Line> lines =
      testing_tf_values::ReadLines(std::string(kDir) + "cases.txt");
  ASSERT_EQ(lines.size(), 9u);  // 2 feeds, 7 fetches
  absl::StatusOr<GraphDef> def = ReadGraphDefFile(std::string(kDir) + "graph.pb");
  ASSERT_TRUE(def.ok()) << def.status();
  absl::StatusOr<std::unique_ptr<Session>> session = Session::Create(*def);
  ASSERT_TRUE(session.ok()) << session.status();
  Session& s = **session;
  FeedList feeds;
  std::vector<const Line*> before_take, after_take;  // fetched in 3 runs
  const Line* take = nullptr;
  const Line* num_after = nullptr;
  for (const Line& line : lines) {
    if (line.kind == "feed") {
      feeds.emplace_back(line.name, testing_tf_values::FeedTensor(line));
    } else if (line.name == "extra_take") {
      take = &line;
    } else if (line.name == "extra_num") {
      num_after = &line;
    } else {
      before_take.push_back(&line);
    }
  }
  ASSERT_NE(take, nullptr);
  ASSERT_NE(num_after, nullptr);
  std::vector<Tensor> out;
  auto run = [&](const FeedList& f, const std::string& target) {
    absl::Status st = s.Run(f, {}, {target}, &out);
    ASSERT_TRUE(st.ok()) << target << ": " << st;
  };
  run({}, "init");
  run({}, "init_tokens");
  for (int round = 0; round < kRounds; ++round) {
    SCOPED_TRACE(round);
    for (int worker = 0; worker < 2; ++worker) {
      run({}, "local_step_init");
      run(feeds, "worker");
    }
    run(feeds, "sync");
  }
  // The extra accumulator (SUM) at global step 3: local steps 2 and 1 are
  // stale, 3 and 5 count.
  run({}, "extra_set_step");
  const std::vector<std::pair<int64_t, std::vector<float>>> extra = {
      {2, {100.0f, 100.0f}}, {3, {1.5f, -2.0f}}, {5, {0.25f, 4.0f}},
      {1, {7.0f, 7.0f}}};
  for (const auto& [step, grad] : extra) {
    run({{"extra_local_step", Int64(step)},
         {"extra_gradient", Tensor::FromVector<float>(grad, TensorShape({2}))}},
        "extra_apply");
  }
  std::vector<std::string> names;
  for (const Line* line : before_take) names.push_back(line->name);
  ASSERT_TRUE(s.Run(feeds, names, {}, &out).ok());
  testing_tf_values::ExpectValues(before_take, out);
  ASSERT_TRUE(s.Run({}, {"extra_take"}, {}, &out).ok());
  testing_tf_values::ExpectValues({take}, out);
  ASSERT_TRUE(s.Run({}, {"extra_num"}, {}, &out).ok());
  testing_tf_values::ExpectValues({num_after}, out);
}

// Graphs of one accumulator, "acc" (float [2] unless a test says otherwise),
// built here.
class AccumulatorTest : public ::testing::Test {
 protected:
  void MakeAccumulator(DataType dtype = DT_FLOAT,
                       const std::string& reduction = "MEAN") {
    handle_ = OpBuilder(root_.WithOpName("acc"), "ResourceConditionalAccumulator")
                  .Attr("dtype", dtype)
                  .Attr("shape", TensorShape({2}))
                  .Attr("shared_name", "acc")
                  .Attr("reduction_type", reduction)
                  .Finalize()
                  .output(0);
    auto step = ops::Placeholder(root_.WithOpName("step"), DT_INT64);
    auto grad = ops::Placeholder(root_.WithOpName("grad"), dtype);
    OpBuilder(root_.WithOpName("apply"), "ResourceAccumulatorApplyGradient")
        .Input(handle_)
        .Input(step)
        .Input(grad)
        .Finalize();
    OpBuilder(root_.WithOpName("num"), "ResourceAccumulatorNumAccumulated")
        .Input(handle_)
        .Finalize();
    OpBuilder(root_.WithOpName("set_step"), "ResourceAccumulatorSetGlobalStep")
        .Input(handle_)
        .Input(ops::Placeholder(root_.WithOpName("new_step"), DT_INT64))
        .Finalize();
    auto required = ops::Placeholder(root_.WithOpName("required"), DT_INT32);
    OpBuilder(root_.WithOpName("take"), "ResourceAccumulatorTakeGradient")
        .Input(handle_)
        .Input(required)
        .Attr("dtype", dtype)
        .Finalize();
  }

  absl::Status Build() {
    GraphDef def;
    absl::Status st = root_.ToGraphDef(&def);
    if (!st.ok()) return st;
    absl::StatusOr<std::unique_ptr<Session>> session = Session::Create(def);
    if (!session.ok()) return session.status();
    session_ = *std::move(session);
    return absl::OkStatus();
  }

  absl::Status Apply(int64_t step, std::vector<float> grad) {
    std::vector<Tensor> out;
    const int64_t n = static_cast<int64_t>(grad.size());
    return session_->Run(
        {{"step", Int64(step)},
         {"grad", Tensor::FromVector<float>(grad, TensorShape({n}))}},
        {}, {"apply"}, &out);
  }

  absl::Status Take(int32_t required, Tensor* result, int64_t timeout_ms) {
    RunOptions options;
    options.timeout_ms = timeout_ms;
    std::vector<Tensor> out;
    absl::Status st = session_->Run(
        options, {{"required", Tensor::Scalar(required)}}, {"take"}, {}, &out,
        nullptr);
    if (st.ok() && result != nullptr) *result = out[0];
    return st;
  }

  int32_t Num() {
    std::vector<Tensor> out;
    EXPECT_TRUE(session_->Run({}, {"num"}, {}, &out).ok());
    return out.empty() ? -1 : out[0].data<int32_t>()[0];
  }

  Scope root_ = Scope::NewRootScope();
  Output handle_;
  std::unique_ptr<Session> session_;
};

TEST_F(AccumulatorTest, ATakeWaitsForLaterAppliesWithoutAThread) {
  MakeAccumulator();
  ASSERT_TRUE(Build().ok());
  ASSERT_TRUE(Apply(0, {1.0f, 2.0f}).ok());
  Tensor mean;
  absl::Status take_status;
  // The take needs 2; the second apply comes from this thread, while (or,
  // if the taker starts late, before) the take waits: either way the mean.
  std::thread taker([&] { take_status = Take(2, &mean, 10000); });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ASSERT_TRUE(Apply(0, {3.0f, 6.0f}).ok());
  taker.join();
  ASSERT_TRUE(take_status.ok()) << take_status;
  ASSERT_EQ(mean.NumElements(), 2);
  EXPECT_EQ(mean.data<float>()[0], 2.0f);
  EXPECT_EQ(mean.data<float>()[1], 4.0f);
  EXPECT_EQ(Num(), 0);
  // The take advanced the global step to 1: a gradient of step 0 is stale.
  ASSERT_TRUE(Apply(0, {5.0f, 5.0f}).ok());
  EXPECT_EQ(Num(), 0);
  ASSERT_TRUE(Apply(1, {5.0f, 5.0f}).ok());
  EXPECT_EQ(Num(), 1);
}

TEST_F(AccumulatorTest, ATakeThatCannotBeServedEndsAtTheStepsTimeout) {
  MakeAccumulator();
  ASSERT_TRUE(Build().ok());
  ASSERT_TRUE(Apply(0, {1.0f, 1.0f}).ok());
  EXPECT_EQ(Take(2, nullptr, 200).code(), absl::StatusCode::kDeadlineExceeded);
  // The take its step gave up on is still served by the next apply (and
  // that step's last kernel returns): the count starts again.
  ASSERT_TRUE(Apply(0, {1.0f, 1.0f}).ok());
  EXPECT_EQ(Num(), 0);
}

TEST_F(AccumulatorTest, DoublesSumWithReductionSum) {
  MakeAccumulator(DT_DOUBLE, "SUM");
  ASSERT_TRUE(Build().ok());
  std::vector<Tensor> out;
  for (double g : {0.1, 0.2}) {
    ASSERT_TRUE(session_
                    ->Run({{"step", Int64(0)},
                           {"grad", Tensor::FromVector<double>(
                                        {g, -g}, TensorShape({2}))}},
                          {}, {"apply"}, &out)
                    .ok());
  }
  Tensor sum;
  ASSERT_TRUE(Take(2, &sum, 10000).ok());
  ASSERT_EQ(sum.dtype(), DT_DOUBLE);
  EXPECT_EQ(sum.data<double>()[0], 0.1 + 0.2);
  EXPECT_EQ(sum.data<double>()[1], -0.1 + -0.2);
}

TEST_F(AccumulatorTest, AGradientOfAnotherShapeIsRefusedNamingIt) {
  MakeAccumulator();
  ASSERT_TRUE(Build().ok());
  absl::Status st = Apply(0, {1.0f, 2.0f, 3.0f});
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument) << st;
  EXPECT_THAT(std::string(st.message()),
              AllOf(HasSubstr("'apply'"),
                    HasSubstr("ResourceAccumulatorApplyGradient"),
                    HasSubstr("Shape mismatch: expected [2], got [3]"),
                    HasSubstr("ConditionalAccumulator 'acc'")));
  EXPECT_EQ(Num(), 0);
}

TEST_F(AccumulatorTest, ANonPositiveNumRequiredIsRefused) {
  MakeAccumulator();
  ASSERT_TRUE(Build().ok());
  absl::Status st = Take(0, nullptr, 10000);
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument) << st;
  EXPECT_THAT(std::string(st.message()),
              AllOf(HasSubstr("'take'"),
                    HasSubstr("num_required must be positive, but was 0")));
}

TEST_F(AccumulatorTest, AHalfAccumulatorFailsNamingTheDtype) {
  MakeAccumulator(DT_HALF);
  absl::Status st = Build();
  if (st.ok()) {
    std::vector<Tensor> out;
    st = session_->Run({}, {"num"}, {}, &out);
  }
  EXPECT_FALSE(st.ok());
  // The op has CPU kernels, none for half: the error says which dtypes
  // they take.
  EXPECT_THAT(std::string(st.message()),
              AllOf(HasSubstr("'acc' (ResourceConditionalAccumulator)"),
                    HasSubstr("ResourceConditionalAccumulator on CPU with "
                              "dtype in {float, double}"),
                    HasSubstr("this node has dtype half")));
}

}  // namespace
}  // namespace dflow
