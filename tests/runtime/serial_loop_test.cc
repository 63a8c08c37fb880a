// Serial loops (runtime/executor_serial_loop.h): a plain loop of cheap
// nodes runs as one straight-line program per iteration once its kernels
// were measured cheap (the first step runs the usual way), with the usual
// path's values, dead branches, errors naming the iteration, deadlines,
// and without it where a timeline is recorded or the loop is not plain.
// The kernel cost hook makes "cheap" deterministic.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "gmock/gmock.h"
#include "graph/ops/control_flow_builders.h"
#include "graph/ops/ops.h"
#include "graph/scope.h"
#include "gtest/gtest.h"
#include "runtime/executor.h"
#include "runtime/session.h"

namespace dflow {
namespace {

using ::testing::HasSubstr;

class SerialLoopTest : public ::testing::Test {
 protected:
  // Nodes named "...heavy..." cost more than a hand-off; the rest are cheap.
  void SetUp() override {
    SetKernelCostForTesting([](const std::string& name) -> int64_t {
      return absl::StrContains(name, "heavy") ? 1000000 : 100;
    });
  }
  void TearDown() override { SetKernelCostForTesting(nullptr); }

  std::unique_ptr<Session> NewSession(const Scope& root) {
    GraphDef def;
    EXPECT_TRUE(root.ToGraphDef(&def).ok()) << root.status();
    // Two threads on any host (the pool is the process's: every session
    // here asks the same): with one, every plain loop runs serially.
    SessionOptions options;
    options.num_threads = 2;
    absl::StatusOr<std::unique_ptr<Session>> session =
        Session::Create(def, options);
    EXPECT_TRUE(session.ok()) << session.status();
    return session.ok() ? *std::move(session) : nullptr;
  }

  // Runs `fetches` and returns how many serial loops that step ran.
  int64_t Run(Session* session, const FeedList& feeds,
              const std::vector<std::string>& fetches, std::vector<Tensor>* out,
              absl::Status* status = nullptr,
              RunOptions options = RunOptions()) {
    if (options.timeout_ms == 0) options.timeout_ms = 20000;
    const int64_t before = SerialLoopRunsForTesting();
    absl::Status s = session->Run(options, feeds, fetches, {}, out, nullptr);
    if (status != nullptr) {
      *status = s;
    } else {
      EXPECT_TRUE(s.ok()) << s;
    }
    return SerialLoopRunsForTesting() - before;
  }
};

// i, x = 0, 1.0; while i < n: i, x = i + 1, x * 1.5 (n fed).
TEST_F(SerialLoopTest, PlainLoopRunsSeriallyFromItsSecondStep) {
  Scope root = Scope::NewRootScope();
  auto n = ops::Placeholder(root.WithOpName("n"), DT_INT32);
  BranchResult out = ops::WhileLoop(
      root, {ops::Const(root, 0), ops::Const(root, 1.0f)},
      [&](const Scope& s, const std::vector<Output>& v) -> CondResult {
        return ops::Less(s, v[0], n);
      },
      [&](const Scope& s, const std::vector<Output>& v) -> BranchResult {
        return std::vector<Output>{ops::Add(s, v[0], 1),
                                   ops::Mul(s, v[1], 1.5f)};
      });
  ASSERT_TRUE(out.ok()) << out.status();
  ops::Identity(root.WithOpName("i"), (*out)[0]);
  ops::Identity(root.WithOpName("x"), (*out)[1]);
  std::unique_ptr<Session> session = NewSession(root);
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> t;
  // The first step measures the kernels the usual way.
  EXPECT_EQ(
      Run(session.get(), {{"n", Tensor::Scalar<int32_t>(4)}}, {"i", "x"}, &t),
      0);
  EXPECT_EQ(t[0].data<int32_t>()[0], 4);
  EXPECT_FLOAT_EQ(t[1].data<float>()[0], 1.5f * 1.5f * 1.5f * 1.5f);
  for (int n_value : {4, 0, 7}) {
    EXPECT_EQ(Run(session.get(), {{"n", Tensor::Scalar<int32_t>(n_value)}},
                  {"i", "x"}, &t),
              1)
        << n_value;
    EXPECT_EQ(t[0].data<int32_t>()[0], n_value);
    float x = 1;
    for (int k = 0; k < n_value; ++k) x *= 1.5f;
    EXPECT_FLOAT_EQ(t[1].data<float>()[0], x);
  }
  // A timeline shows every node's run: the usual path.
  RunOptions traced;
  traced.trace = true;
  RunMetadata metadata;
  const int64_t before = SerialLoopRunsForTesting();
  ASSERT_TRUE(session
                  ->Run(traced, {{"n", Tensor::Scalar<int32_t>(3)}}, {"i"}, {},
                        &t, &metadata)
                  .ok());
  EXPECT_EQ(SerialLoopRunsForTesting(), before);
  EXPECT_EQ(t[0].data<int32_t>()[0], 3);
  int adds = 0;
  for (const NodeExecStats& node : metadata.step_stats) {
    adds += (node.op == "Add" || node.op == "AddV2") && node.frame == "while";
  }
  EXPECT_EQ(adds, 3);
}

// A kernel that fails in iteration 3 (an index past the end) names its
// node, frame and iteration, as the usual path does.
TEST_F(SerialLoopTest, KernelErrorNamesNodeFrameAndIteration) {
  Scope root = Scope::NewRootScope();
  auto n = ops::Placeholder(root.WithOpName("n"), DT_INT32);
  auto table = ops::Const(root, {10.0f, 20.0f, 30.0f});
  BranchResult out = ops::WhileLoop(
      root, {ops::Const(root, 0), ops::Const(root, 0.0f)},
      [&](const Scope& s, const std::vector<Output>& v) -> CondResult {
        return ops::Less(s, v[0], n);
      },
      [&](const Scope& s, const std::vector<Output>& v) -> BranchResult {
        auto item = ops::GatherV2(s.WithOpName("lookup"), table, v[0],
                                  ops::Const(s, 0));
        return std::vector<Output>{ops::Add(s, v[0], 1),
                                   ops::Add(s, v[1], item)};
      });
  ASSERT_TRUE(out.ok()) << out.status();
  ops::Identity(root.WithOpName("sum"), (*out)[1]);
  std::unique_ptr<Session> session = NewSession(root);
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> t;
  Run(session.get(), {{"n", Tensor::Scalar<int32_t>(2)}}, {"sum"}, &t);
  EXPECT_EQ(
      Run(session.get(), {{"n", Tensor::Scalar<int32_t>(3)}}, {"sum"}, &t), 1);
  EXPECT_FLOAT_EQ(t[0].data<float>()[0], 60.0f);
  absl::Status s;
  EXPECT_EQ(
      Run(session.get(), {{"n", Tensor::Scalar<int32_t>(5)}}, {"sum"}, &t, &s),
      1);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("lookup"));
  EXPECT_THAT(s.message(), HasSubstr("in frame 'while', iteration 3"));
  // The session runs on after the error.
  Run(session.get(), {{"n", Tensor::Scalar<int32_t>(1)}}, {"sum"}, &t);
  EXPECT_FLOAT_EQ(t[0].data<float>()[0], 10.0f);
}

// A loop whose limit is never reached ends at the step's deadline.
TEST_F(SerialLoopTest, DeadlineEndsALoopThatNeverEnds) {
  Scope root = Scope::NewRootScope();
  auto limit = ops::Placeholder(root.WithOpName("limit"), DT_FLOAT);
  BranchResult out = ops::WhileLoop(
      root, {ops::Const(root, 0.0f)},
      [&](const Scope& s, const std::vector<Output>& v) -> CondResult {
        return ops::Less(s, v[0], limit);
      },
      [&](const Scope& s, const std::vector<Output>& v) -> BranchResult {
        return std::vector<Output>{ops::Mul(s, v[0], 1.0f)};  // stays 0
      });
  ASSERT_TRUE(out.ok()) << out.status();
  ops::Identity(root.WithOpName("y"), (*out)[0]);
  std::unique_ptr<Session> session = NewSession(root);
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> t;
  // No iteration: the cond's kernel is measured; then one, for the body's.
  Run(session.get(), {{"limit", Tensor::Scalar<float>(-1.0f)}}, {"y"}, &t);
  RunOptions bounded;
  bounded.timeout_ms = 300;
  absl::Status s;
  const absl::Time start = absl::Now();
  Run(session.get(), {{"limit", Tensor::Scalar<float>(1.0f)}}, {"y"}, &t, &s,
      bounded);
  EXPECT_EQ(s.code(), absl::StatusCode::kDeadlineExceeded) << s;
  EXPECT_LT(absl::Now() - start, absl::Seconds(10));
}

// The loop in a conditional's branch: when the branch is not taken its
// Enters are dead, and so are its Exits; the other branch's value comes
// out.
TEST_F(SerialLoopTest, LoopInAnUntakenBranchIsDead) {
  Scope root = Scope::NewRootScope();
  auto take = ops::Placeholder(root.WithOpName("take"), DT_BOOL);
  BranchResult y = ops::Cond(
      root, take,
      [&](const Scope& s) -> BranchResult {
        BranchResult loop = ops::WhileLoop(
            s, {ops::Const(s, 0)},
            [](const Scope& c, const std::vector<Output>& v) -> CondResult {
              return ops::Less(c, v[0], 5);
            },
            [](const Scope& b, const std::vector<Output>& v) -> BranchResult {
              return std::vector<Output>{ops::Add(b, v[0], 2)};
            });
        return loop;
      },
      [&](const Scope& s) -> BranchResult {
        return std::vector<Output>{ops::Const(s, -1)};
      });
  ASSERT_TRUE(y.ok()) << y.status();
  ops::Identity(root.WithOpName("y"), (*y)[0]);
  std::unique_ptr<Session> session = NewSession(root);
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> t;
  Run(session.get(), {{"take", Tensor::Scalar<bool>(true)}}, {"y"}, &t);
  EXPECT_EQ(t[0].data<int32_t>()[0], 6);
  // Its Enters are dead: the usual path, not the serial one.
  EXPECT_EQ(
      Run(session.get(), {{"take", Tensor::Scalar<bool>(false)}}, {"y"}, &t),
      0);
  EXPECT_EQ(t[0].data<int32_t>()[0], -1);
  EXPECT_EQ(
      Run(session.get(), {{"take", Tensor::Scalar<bool>(true)}}, {"y"}, &t), 1);
  EXPECT_EQ(t[0].data<int32_t>()[0], 6);
}

// for j < 3: for k < 4: acc += j: the inner loop runs serially in every
// outer iteration (and dead in the last, as the usual path makes it); the
// outer loop, holding a loop, never does.
TEST_F(SerialLoopTest, InnerLoopsRunSeriallyOuterLoopsDoNot) {
  Scope root = Scope::NewRootScope();
  BranchResult out = ops::WhileLoop(
      root, {ops::Const(root, 0), ops::Const(root, 0)},
      [](const Scope& s, const std::vector<Output>& v) -> CondResult {
        return ops::Less(s, v[0], 3);
      },
      [](const Scope& s, const std::vector<Output>& v) -> BranchResult {
        const Output j = v[0];
        ops::WhileLoopOptions inner_options;
        inner_options.name = "inner";
        BranchResult inner = ops::WhileLoop(
            s, {ops::Const(s, 0), v[1]},
            [](const Scope& c, const std::vector<Output>& w) -> CondResult {
              return ops::Less(c, w[0], 4);
            },
            [j](const Scope& b, const std::vector<Output>& w) -> BranchResult {
              return std::vector<Output>{ops::Add(b, w[0], 1),
                                         ops::Add(b, w[1], j)};
            },
            inner_options);
        if (!inner.ok()) return inner.status();
        return std::vector<Output>{ops::Add(s, j, 1), (*inner)[1]};
      });
  ASSERT_TRUE(out.ok()) << out.status();
  ops::Identity(root.WithOpName("acc"), (*out)[1]);
  std::unique_ptr<Session> session = NewSession(root);
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> t;
  Run(session.get(), {}, {"acc"}, &t);
  EXPECT_EQ(t[0].data<int32_t>()[0], 4 * (0 + 1 + 2));
  // Three live inner loops serially; the dead one in the outer loop's last
  // iteration (its Enters dead when the outer condition is false) goes the
  // usual path.
  EXPECT_EQ(Run(session.get(), {}, {"acc"}, &t), 3);
  EXPECT_EQ(t[0].data<int32_t>()[0], 12);
}

// a, b, k = 0, 1, 0; while k < n: a, b, k = b, a + b, k + 1 (Fibonacci):
// each loop variable's next value is read before any changes, and a value
// the body hands on unchanged (c) comes out as it went in.
TEST_F(SerialLoopTest, CarriedValuesSwapAndPassThrough) {
  Scope root = Scope::NewRootScope();
  auto n = ops::Placeholder(root.WithOpName("n"), DT_INT32);
  BranchResult out = ops::WhileLoop(
      root,
      {ops::Const(root, 0), ops::Const(root, 1), ops::Const(root, 0),
       ops::Const(root, 7)},
      [&](const Scope& s, const std::vector<Output>& v) -> CondResult {
        return ops::Less(s, v[2], n);
      },
      [](const Scope& s, const std::vector<Output>& v) -> BranchResult {
        return std::vector<Output>{v[1], ops::Add(s, v[0], v[1]),
                                   ops::Add(s, v[2], 1), v[3]};
      });
  ASSERT_TRUE(out.ok()) << out.status();
  ops::Identity(root.WithOpName("a"), (*out)[0]);
  ops::Identity(root.WithOpName("c"), (*out)[3]);
  std::unique_ptr<Session> session = NewSession(root);
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> t;
  Run(session.get(), {{"n", Tensor::Scalar<int32_t>(1)}}, {"a", "c"}, &t);
  for (const auto& [n_value, fib] :
       std::vector<std::pair<int, int>>{{0, 0}, {1, 1}, {2, 1}, {10, 55}}) {
    EXPECT_EQ(Run(session.get(), {{"n", Tensor::Scalar<int32_t>(n_value)}},
                  {"a", "c"}, &t),
              1)
        << n_value;
    EXPECT_EQ(t[0].data<int32_t>()[0], fib) << n_value;
    EXPECT_EQ(t[1].data<int32_t>()[0], 7) << n_value;
  }
}

// A loop with a kernel that costs more than a hand-off, on a pool of two
// threads, is timed each way (runtime/loop_path_tuner.h): a warm-up step
// the usual way, then two steps of each of its four paths in turn, then
// the fastest path for every later step. The loop-time hook decides which
// path is fastest; the values are the same on every path.
LoopPath fastest_path = LoopPath::kUsual;

TEST_F(SerialLoopTest, ExpensiveKernelLoopKeepsItsFastestPath) {
  SetLoopTimeForTesting([](LoopPath path) -> int64_t {
    return path == fastest_path ? 1000 : 5000;
  });
  struct Restore {
    ~Restore() { SetLoopTimeForTesting(nullptr); }
  } restore;
  for (LoopPath fastest : {LoopPath::kUsual, LoopPath::kSerial,
                           LoopPath::kSerialOneThread, LoopPath::kOneThread}) {
    SCOPED_TRACE(LoopPathName(fastest));
    fastest_path = fastest;
    Scope root = Scope::NewRootScope();
    BranchResult out = ops::WhileLoop(
        root, {ops::Const(root, 0), ops::Const(root, 2.0f)},
        [](const Scope& s, const std::vector<Output>& v) -> CondResult {
          return ops::Less(s, v[0], 3);
        },
        [](const Scope& s, const std::vector<Output>& v) -> BranchResult {
          return std::vector<Output>{
              ops::Add(s, v[0], 1), ops::Mul(s.WithOpName("heavy"), v[1], v[1])};
        });
    ASSERT_TRUE(out.ok()) << out.status();
    ops::Identity(root.WithOpName("x"), (*out)[1]);
    std::unique_ptr<Session> session = NewSession(root);  // a new tuner
    ASSERT_NE(session, nullptr);
    std::vector<Tensor> t;
    // Warm-up, then usual, serial, serial on one thread, one thread, twice.
    const int64_t trial_serial_runs[] = {0, 0, 1, 1, 1, 0, 1, 1, 1};
    for (int64_t expected : trial_serial_runs) {
      EXPECT_EQ(Run(session.get(), {}, {"x"}, &t), expected);
      EXPECT_FLOAT_EQ(t[0].data<float>()[0], 256.0f);
    }
    for (int step = 0; step < 3; ++step) {
      EXPECT_EQ(Run(session.get(), {}, {"x"}, &t),
                fastest == LoopPath::kUsual ? 0 : 1);
      EXPECT_FLOAT_EQ(t[0].data<float>()[0], 256.0f);
    }
  }
}

}  // namespace
}  // namespace dflow
