// Session and executor behaviour with test-only kernels (tests/runtime/
// test_kernels.cc), so these tests do not depend on kernels/.
#include "runtime/session.h"

#include <cstdlib>
#include <map>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "graph/ops/ops.h"
#include "graph/scope.h"
#include "gtest/gtest.h"
#include "runtime/executor.h"
#include "runtime/thread_pool.h"
#include "tests/runtime/test_kernels.h"

namespace dflow {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

Output Op(const Scope& s, const std::string& op, const std::string& name,
          const Output& x) {
  return OpBuilder(s.WithOpName(name), op).Input(x).Finalize();
}

GraphDef ToDef(const Scope& root) {
  GraphDef def;
  EXPECT_TRUE(root.ToGraphDef(&def).ok()) << root.status();
  return def;
}

std::vector<float> Floats(const Tensor& t) {
  auto f = t.flat<float>();
  return std::vector<float>(f.begin(), f.end());
}

std::unique_ptr<Session> MakeSession(const GraphDef& def) {
  absl::StatusOr<std::unique_ptr<Session>> s = Session::Create(def);
  EXPECT_TRUE(s.ok()) << s.status();
  return s.ok() ? *std::move(s) : nullptr;
}

// x -> a -> b, a chain of AddOne.
GraphDef Chain() {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT,
                              ops::PlaceholderAttrs().Shape({-1}));
  Output a = Op(root, "TestAddOne", "a", x);
  Op(root, "TestAddOne", "b", a);
  return ToDef(root);
}

TEST(SessionTest, FeedsAndFetches) {
  auto session = MakeSession(Chain());
  std::vector<Tensor> out;
  absl::Status s = session->Run({{"x", Tensor::FromVector<float>({1, 2})}},
                                {"b", "a:0"}, {}, &out);
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_EQ(out.size(), 2u);
  EXPECT_THAT(Floats(out[0]), ElementsAre(3, 4));
  EXPECT_THAT(Floats(out[1]), ElementsAre(2, 3));
}

TEST(SessionTest, PlansAreCachedPerSignature) {
  auto session = MakeSession(Chain());
  std::vector<Tensor> out;
  const FeedList feed = {{"x", Tensor::FromVector<float>({1})}};
  ASSERT_TRUE(session->Run(feed, {"b"}, {}, &out).ok());
  ASSERT_TRUE(session->Run(feed, {"b"}, {}, &out).ok());
  EXPECT_EQ(session->num_cached_plans(), 1);
  ASSERT_TRUE(session->Run(feed, {"a"}, {}, &out).ok());
  EXPECT_EQ(session->num_cached_plans(), 2);
}

TEST(SessionTest, FeedingAnyTensorPrunesItsProducers) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  Output bad = Op(root, "TestFail", "bad", x);
  Op(root, "TestAddOne", "after", bad);
  auto session = MakeSession(ToDef(root));
  std::vector<Tensor> out;
  // `bad` would fail, and `x` is not fed: neither runs.
  absl::Status s = session->Run({{"bad", Tensor::FromVector<float>({10})}},
                                {"after"}, {}, &out);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_THAT(Floats(out[0]), ElementsAre(11));
  // Fetching a fed tensor returns the fed value.
  ASSERT_TRUE(
      session->Run({{"bad", Tensor::FromVector<float>({5})}}, {"bad"}, {}, &out)
          .ok());
  EXPECT_THAT(Floats(out[0]), ElementsAre(5));
}

TEST(SessionTest, BadFeedsAndFetchesAreClearErrors) {
  auto session = MakeSession(Chain());
  std::vector<Tensor> out;
  auto run = [&](const FeedList& f, std::vector<std::string> fetch,
                 std::vector<std::string> targets = {}) {
    return session->Run(f, fetch, targets, &out);
  };
  const Tensor ok = Tensor::FromVector<float>({1});
  absl::Status s = run({{"x", Tensor::FromVector<int32_t>({1})}}, {"b"});
  EXPECT_THAT(
      s.message(),
      HasSubstr("feed 'x' is a int32 tensor but the graph expects float"));
  s = run({{"x", Tensor::FromVector<float>({1, 2, 3, 4}, TensorShape({2, 2}))}},
          {"b"});
  EXPECT_THAT(s.message(),
              HasSubstr("feed 'x' has shape [2,2] but the graph declares [?]"));
  s = run({{"x", ok}}, {"nope"});
  EXPECT_THAT(s.message(),
              HasSubstr("fetch 'nope' refers to no node named 'nope'"));
  s = run({{"x", ok}}, {"b:3"});
  EXPECT_THAT(s.message(), HasSubstr("has 1 output(s)"));
  s = run({{"x", ok}}, {"b:zz"});
  EXPECT_THAT(s.message(), HasSubstr("not a tensor name"));
  s = run({{"x", ok}, {"x:0", ok}}, {"b"});
  EXPECT_THAT(s.message(), HasSubstr("'x' is fed twice"));
  s = run({{"x", ok}}, {}, {"ghost"});
  EXPECT_THAT(s.message(), HasSubstr("target 'ghost' refers to no node"));
  s = run({{"y", ok}}, {"b"});
  EXPECT_THAT(s.message(), HasSubstr("feed 'y' refers to no node"));
}

TEST(SessionTest, KernelErrorNamesNodeAndOp) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  Output f = Op(root, "TestFail", "layer1/f", x);
  Op(root, "TestAddOne", "after", f);
  auto session = MakeSession(ToDef(root));
  std::vector<Tensor> out;
  absl::Status s = session->Run({{"x", Tensor::FromVector<float>({1})}},
                                {"after"}, {}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("node 'layer1/f' (TestFail): boom"));
}

TEST(SessionTest, ControlEdgesOrderExecution) {
  Scope root = Scope::NewRootScope();
  Operation a = OpBuilder(root.WithOpName("a"), "TestLog").Finalize();
  Operation b =
      OpBuilder(root.WithOpName("b").WithControlDependencies({a}), "TestLog")
          .Finalize();
  Operation c =
      OpBuilder(root.WithOpName("c").WithControlDependencies({b}), "TestLog")
          .Finalize();
  OpBuilder(root.WithOpName("unrelated"), "TestLog").Finalize();
  ASSERT_TRUE(c.valid()) << root.status();
  auto session = MakeSession(ToDef(root));
  TakeTestLog();
  for (int i = 0; i < 20; ++i) {
    ASSERT_TRUE(session->Run({}, {}, {"c"}, nullptr).ok());
    EXPECT_THAT(TakeTestLog(),
                ElementsAre("a", "b", "c"));  // pruned: no "unrelated"
  }
}

TEST(SessionTest, AsyncKernelsCompleteThroughCallbacks) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  Output a = Op(root, "TestAsyncAddOne", "a", x);
  Output b = Op(root, "TestAddOne", "b", a);
  Op(root, "TestAsyncAddOne", "c", b);
  auto session = MakeSession(ToDef(root));
  std::vector<Tensor> out;
  for (int i = 0; i < 50; ++i) {
    ASSERT_TRUE(
        session->Run({{"x", Tensor::FromVector<float>({0})}}, {"c"}, {}, &out)
            .ok());
    EXPECT_THAT(Floats(out[0]), ElementsAre(3));
  }
}

TEST(SessionTest, TimeoutEndsAHangingStep) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  Op(root, "TestNeverDone", "hang", x);
  auto session = MakeSession(ToDef(root));
  RunOptions options;
  options.timeout_ms = 100;
  std::vector<Tensor> out;
  absl::Status s =
      session->Run(options, {{"x", Tensor::FromVector<float>({0})}}, {"hang"},
                   {}, &out, nullptr);
  // TestNeverDone never finishes, so returning at all shows the deadline
  // ended the step (a hang would meet the test's own timeout).
  EXPECT_EQ(s.code(), absl::StatusCode::kDeadlineExceeded) << s;
}

TEST(SessionTest, SessionMayBeDestroyedWhileATimedOutStepFinishes) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  Output y = x;
  for (int i = 0; i < 4; ++i) {
    y = OpBuilder(root, "TestSleep")
            .Input(y)
            .Attr("ms", int64_t{30})
            .Finalize();
  }
  auto session = MakeSession(ToDef(root));
  RunOptions options;
  options.timeout_ms = 10;
  std::vector<Tensor> out;
  absl::Status s =
      session->Run(options, {{"x", Tensor::FromVector<float>({1})}}, {y.name()},
                   {}, &out, nullptr);
  EXPECT_EQ(s.code(), absl::StatusCode::kDeadlineExceeded) << s;
  // The first sleep is still running: the step keeps its executor, frame
  // and variables alive until it returns (ASan checks this).
  session.reset();
  absl::SleepFor(absl::Milliseconds(80));
}

TEST(SessionTest, CallerCanCancelAStep) {
  // A chain of 50 sleeps whose 5th node cancels the step: the executor must
  // not start the rest. Counts the sleeps that ran instead of reading the
  // clock, so a slow host cannot change the outcome.
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  Output y = x;
  for (int i = 0; i < 50; ++i) {
    if (i == 5) y = Op(root, "TestHook", "cancel_here", y);
    y = OpBuilder(root, "TestSleep").Input(y).Attr("ms", int64_t{2}).Finalize();
  }
  auto session = MakeSession(ToDef(root));
  CancellationFlag flag;
  SetTestHook([&flag] { flag.Cancel(); });
  RunOptions options;
  options.cancellation = &flag;
  std::vector<Tensor> out;
  const int64_t before = TestSleepsFinished();
  absl::Status s =
      session->Run(options, {{"x", Tensor::FromVector<float>({0})}}, {y.name()},
                   {}, &out, nullptr);
  SetTestHook(nullptr);
  EXPECT_EQ(s.code(), absl::StatusCode::kCancelled) << s;
  EXPECT_EQ(TestSleepsFinished() - before, 5);  // the ones before the hook
}

TEST(SessionTest, ConcurrentRunsFromEightThreads) {
  // 10,000 steps in all. x feeds 80 branches of 1-4 nodes: more ready
  // nodes than a thread keeps (kSplitQueue), so steps also split their work
  // over the pool once the nodes are measured cheap.
  constexpr int kBranches = 80;
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  std::vector<std::string> fetches;
  for (int b = 0; b < kBranches; ++b) {
    Output y = x;
    for (int k = 0; k <= b % 4; ++k)
      y = Op(root, "TestAddOne", absl::StrCat("b", b, "_", k), y);
    fetches.push_back(y.name());
  }
  auto session = MakeSession(ToDef(root));
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int step = 0; step < 1250; ++step) {
        const float v = static_cast<float>(t * 10000 + step);
        std::vector<Tensor> out;
        absl::Status s = session->Run({{"x", Tensor::FromVector<float>({v})}},
                                      fetches, {}, &out);
        if (!s.ok() || out.size() != kBranches) {
          ++failures;
          continue;
        }
        for (int b = 0; b < kBranches; ++b) {
          if (out[b].flat<float>()[0] != v + static_cast<float>(b % 4 + 1))
            ++failures;
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(session->num_cached_plans(), 1);
}

TEST(SessionTest, StepStatsDescribeEveryNode) {
  auto session = MakeSession(Chain());
  RunOptions options;
  options.collect_step_stats = true;
  RunMetadata metadata;
  std::vector<Tensor> out;
  ASSERT_TRUE(session
                  ->Run(options, {{"x", Tensor::FromVector<float>({1, 2, 3})}},
                        {"b"}, {}, &out, &metadata)
                  .ok());
  bool saw_a = false;
  for (const NodeExecStats& s : metadata.step_stats) {
    EXPECT_LE(s.start_us, s.end_us);
    if (s.node == "a") {
      saw_a = true;
      EXPECT_EQ(s.op, "TestAddOne");
      ASSERT_EQ(s.output_shapes.size(), 1u);
      EXPECT_EQ(s.output_shapes[0], TensorShape({3}));
      EXPECT_EQ(s.output_bytes, 12);
      EXPECT_THAT(s.device, HasSubstr("CPU:0"));
    }
  }
  EXPECT_TRUE(saw_a);
  ASSERT_EQ(metadata.peak_bytes.size(), 1u);
  EXPECT_GT(metadata.peak_bytes[0].second, 0);
}

// Thread of each node in one step, by node name.
std::map<std::string, int> ThreadOfEachNode(Session* session) {
  RunOptions options;
  options.collect_step_stats = true;
  RunMetadata metadata;
  std::vector<Tensor> out;
  absl::Status s =
      session->Run(options, {{"x", Tensor::FromVector<float>({1})}},
                   {"a1", "a2", "s1", "s2"}, {}, &out, &metadata);
  EXPECT_TRUE(s.ok()) << s;
  std::map<std::string, int> thread;
  for (const NodeExecStats& n : metadata.step_stats)
    thread[n.node] = n.thread_id;
  return thread;
}

// The cost model's measurements for MeasuredCheapNodes...: the TestAddOne
// nodes a* take 100 ns, the TestMeet nodes s* 10 ms (kernels that declare
// themselves expensive either way).
int64_t InjectedCost(const std::string& node) {
  return node[0] == 's' ? 10'000'000 : 100;
}

TEST(SessionTest, MeasuredCheapNodesRunInlineAndSlowOnesInParallel) {
  if (ThreadPool::Shared()->num_threads() < 2) GTEST_SKIP() << "one core";
  // The measurements are injected (timing real kernels failed on loaded
  // hosts), and TestMeet finishes only when both meet ran at once.
  SetKernelCostForTesting(&InjectedCost);
  struct Restore {
    ~Restore() { SetKernelCostForTesting(nullptr); }
  } restore;
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  Op(root, "TestAddOne", "a1", x);
  Op(root, "TestAddOne", "a2", x);
  for (const char* name : {"s1", "s2"}) {
    OpBuilder(root.WithOpName(name), "TestMeet")
        .Input(x)
        .Attr("parties", int64_t{2})
        .Finalize();
  }
  auto session = MakeSession(ToDef(root));
  // Before any step every node here is expensive: the adds go to the pool
  // too, each to a thread of its own or not, as the pool decides.
  for (int step = 0; step < 10; ++step) ThreadOfEachNode(session.get());
  std::map<std::string, int> thread = ThreadOfEachNode(session.get());
  // After the sampled steps the cheap pair share the thread that made them
  // ready, while the expensive pair ran at once (the step succeeded), so on
  // two threads.
  EXPECT_EQ(thread["a1"], thread["a2"]);
  EXPECT_NE(thread["s1"], thread["s2"]);
}

TEST(SessionTest, ExtendAddsNodesAndRejectsDuplicatesAtomically) {
  auto session = MakeSession(Chain());
  GraphDef more;
  NodeDef* c = more.add_node();
  c->set_name("c");
  c->set_op("TestAddOne");
  c->add_input("b");
  ASSERT_TRUE(session->Extend(more).ok());
  std::vector<Tensor> out;
  ASSERT_TRUE(
      session->Run({{"x", Tensor::FromVector<float>({0})}}, {"c"}, {}, &out)
          .ok());
  EXPECT_THAT(Floats(out[0]), ElementsAre(3));

  GraphDef bad;
  NodeDef* d = bad.add_node();
  d->set_name("d");
  d->set_op("TestAddOne");
  d->add_input("c");
  NodeDef* dup = bad.add_node();
  dup->set_name("a");  // exists
  dup->set_op("TestAddOne");
  dup->add_input("x");
  absl::Status s = session->Extend(bad);
  EXPECT_THAT(s.message(), HasSubstr("'a'"));
  s = session->Run({{"x", Tensor::FromVector<float>({0})}}, {"d"}, {}, &out);
  EXPECT_THAT(s.message(),
              HasSubstr("no node named 'd'"));  // nothing was added
}

TEST(SessionTest, LongChainRuns) {
  Scope root = Scope::NewRootScope();
  Output y = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  for (int i = 0; i < 10000; ++i) {
    y = OpBuilder(root, "TestAddOne").Input(y).Attr("cheap", true).Finalize();
  }
  auto session = MakeSession(ToDef(root));
  std::vector<Tensor> out;
  ASSERT_TRUE(
      session
          ->Run({{"x", Tensor::FromVector<float>({0})}}, {y.name()}, {}, &out)
          .ok());
  EXPECT_THAT(Floats(out[0]), ElementsAre(10000));
}

}  // namespace
}  // namespace dflow
