// The collective ops end to end: schemas and shape functions, then graphs
// whose members sit on /cpu:0../cpu:N-1 (or fake GPUs) of one session, run
// through Session::Run. Every member's result must equal the ring's
// reference bit for bit, run after run; failures (a member left out of the
// run, disagreeing shapes, a failing node in the step) must end the step
// with an error naming who is at fault, never hang.
#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "graph/ops/ops.h"
#include "graph/scope.h"
#include "gtest/gtest.h"
#include "runtime/collective_registry.h"
#include "runtime/collective_ring.h"
#include "runtime/session.h"
#include "runtime/thread_pool.h"

namespace dflow {
namespace {

using ::testing::HasSubstr;

// --- Schemas and shape functions. ---

TEST(CollectiveOpsSchemaTest, ShapesAndStatefulness) {
  Scope root = Scope::NewRootScope();
  Output x =
      ops::Placeholder(root, DT_FLOAT, ops::PlaceholderAttrs().Shape({3, 2}));
  Output y =
      ops::Placeholder(root, DT_INT64, ops::PlaceholderAttrs().Shape({-1, 5}));
  Output sum = ops::CollectiveAllReduce(root, x, 4, 1, 1);
  Output gathered = ops::CollectiveAllGather(root, x, 4, 1, 2);
  Output gathered_unknown = ops::CollectiveAllGather(root, y, 4, 1, 3);
  Output sent = ops::CollectiveBroadcastSend(root, x, 2, 1, 4);
  Output received =
      ops::CollectiveBroadcastRecv(root, DT_DOUBLE, {7, 1}, 2, 1, 4);
  ASSERT_TRUE(root.status().ok()) << root.status();
  EXPECT_EQ(sum.node()->output_shape(0), TensorShape({3, 2}));
  EXPECT_EQ(gathered.node()->output_shape(0), TensorShape({12, 2}));
  EXPECT_EQ(gathered_unknown.node()->output_shape(0), TensorShape({-1, 5}));
  EXPECT_EQ(sent.node()->output_shape(0), TensorShape({3, 2}));
  EXPECT_EQ(received.node()->output_shape(0), TensorShape({7, 1}));
  EXPECT_EQ(received.node()->output_type(0), DT_DOUBLE);
  for (const Output& o : {sum, gathered, sent, received}) {
    EXPECT_TRUE(o.node()->IsStateful()) << o.node()->name();
  }
}

TEST(CollectiveOpsSchemaTest, BadAttrsAndShapesAreBuildErrors) {
  struct Case {
    const char* expect;
    std::function<void(const Scope&)> build;
  };
  const Case cases[] = {
      {"reduction",
       [](const Scope& s) {
         ops::CollectiveAllReduce(s, ops::Const(s, {1.0f}), 2, 1, 1, "Add");
       }},
      {"group_size",
       [](const Scope& s) {
         ops::CollectiveAllReduce(s, ops::Const(s, {1.0f}), 0, 1, 1);
       }},
      {"bool",
       [](const Scope& s) {
         ops::CollectiveAllReduce(s, ops::Placeholder(s, DT_BOOL), 2, 1, 1);
       }},
      {"scalar",
       [](const Scope& s) {
         ops::CollectiveAllGather(s, ops::Const(s, 1.0f), 2, 1, 1);
       }},
      {"fully defined",
       [](const Scope& s) {
         ops::CollectiveBroadcastRecv(s, DT_FLOAT, {-1, 2}, 2, 1, 1);
       }},
      {"communication_hint",
       [](const Scope& s) {
         ops::CollectiveAllGather(
             s, ops::Const(s, {1.0f}), 2, 1, 1,
             ops::CollectiveAttrs().CommunicationHint("carrier pigeon"));
       }},
  };
  for (const Case& c : cases) {
    Scope root = Scope::NewRootScope();
    c.build(root);
    EXPECT_FALSE(root.status().ok()) << c.expect;
    EXPECT_THAT(root.status().message(), HasSubstr(c.expect));
  }
}

// --- Through a session. ---

std::string CpuName(int i) { return absl::StrCat("/cpu:", i); }

std::unique_ptr<Session> MakeSession(const Scope& root, int cpus,
                                     int fake_gpus = 0) {
  GraphDef def;
  absl::Status s = root.ToGraphDef(&def);
  EXPECT_TRUE(s.ok()) << s;
  SessionOptions options;
  options.device_count = {{"CPU", cpus}};
  options.fake_gpus = fake_gpus;
  absl::StatusOr<std::unique_ptr<Session>> session =
      Session::Create(def, options);
  EXPECT_TRUE(session.ok()) << session.status();
  return session.ok() ? *std::move(session) : nullptr;
}

Tensor RandomFloats(int64_t n, std::mt19937* rng) {
  Tensor t(DT_FLOAT, TensorShape({n}));
  std::uniform_real_distribution<double> mant(-1, 1);
  std::uniform_int_distribution<int> exp(-12, 12);
  for (float& v : t.flat<float>()) {
    v = static_cast<float>(std::ldexp(mant(*rng), exp(*rng)));
  }
  return t;
}

bool SameBits(const Tensor& a, const Tensor& b) {
  return a.dtype() == b.dtype() && a.shape() == b.shape() &&
         (a.NumElements() == 0 ||
          std::memcmp(a.raw_data(), b.raw_data(), a.TotalBytes()) == 0);
}

// Every element combined in rank order (runtime/collective_ring.h).
Tensor Reference(Reduction r, const std::vector<Tensor>& in) {
  const int n = static_cast<int>(in.size());
  const int64_t len = in[0].NumElements();
  Tensor out(DT_FLOAT, TensorShape({len}));
  for (int64_t i = 0; i < len; ++i) {
    float acc = in[0].flat<float>()[i];
    for (int k = 1; k < n; ++k) {
      const float x = in[k].flat<float>()[i];
      acc =
          r == Reduction::kMax ? ((acc > x || acc != acc) ? acc : x) : acc + x;
    }
    if (r == Reduction::kMean) acc /= static_cast<float>(n);
    out.flat<float>()[i] = acc;
  }
  return out;
}

// x_i (a placeholder on /cpu:i) -> all-reduce on /cpu:i -> "y_i".
Scope AllReduceGraph(int n, const std::string& reduction,
                     float timeout_seconds = 60) {
  Scope root = Scope::NewRootScope();
  for (int i = 0; i < n; ++i) {
    Scope dev = root.WithDevice(CpuName(i));
    Output x =
        ops::Placeholder(dev.WithOpName(absl::StrCat("x_", i)), DT_FLOAT);
    ops::CollectiveAllReduce(
        dev.WithOpName(absl::StrCat("y_", i)), x, n, /*group_key=*/1,
        /*instance_key=*/1, reduction,
        ops::CollectiveAttrs().TimeoutSeconds(timeout_seconds));
  }
  return root;
}

struct Fed {
  FeedList feeds;
  std::vector<std::string> fetches;
  std::vector<Tensor> inputs;
};

Fed FeedRandom(int n, int64_t len, std::mt19937* rng) {
  Fed f;
  for (int i = 0; i < n; ++i) {
    f.inputs.push_back(RandomFloats(len, rng));
    f.feeds.emplace_back(absl::StrCat("x_", i), f.inputs.back());
    f.fetches.push_back(absl::StrCat("y_", i));
  }
  return f;
}

TEST(CollectiveOpsSessionTest, AllReduceOnEveryGroupSize) {
  for (int n = 1; n <= 8; ++n) {
    for (const char* reduction : {"sum", "mean", "max"}) {
      Scope root = AllReduceGraph(n, reduction);
      std::unique_ptr<Session> session = MakeSession(root, 8);
      ASSERT_NE(session, nullptr);
      for (int64_t len : {0, 1, 7, 100001}) {
        std::mt19937 rng(n * 1000 + len);
        Fed f = FeedRandom(n, len, &rng);
        std::vector<Tensor> out;
        absl::Status s = session->Run(f.feeds, f.fetches, {}, &out);
        ASSERT_TRUE(s.ok()) << s;
        const Tensor want = Reference(*ParseReduction(reduction), f.inputs);
        for (int i = 0; i < n; ++i) {
          EXPECT_TRUE(SameBits(out[i], want))
              << reduction << " n=" << n << " len=" << len << " member " << i;
        }
      }
    }
  }
}

TEST(CollectiveOpsSessionTest, BitwiseTheSameEveryRun) {
  Scope root = AllReduceGraph(4, "sum");
  std::unique_ptr<Session> session = MakeSession(root, 4);
  std::mt19937 rng(4);
  Fed f = FeedRandom(4, 50001, &rng);
  std::vector<Tensor> first;
  for (int run = 0; run < 20; ++run) {
    std::vector<Tensor> out;
    ASSERT_TRUE(session->Run(f.feeds, f.fetches, {}, &out).ok());
    if (run == 0) first = out;
    for (int i = 0; i < 4; ++i) {
      ASSERT_TRUE(SameBits(out[i], first[0])) << "run " << run;
    }
  }
}

TEST(CollectiveOpsSessionTest, ConcurrentRunsDoNotMix) {
  Scope root = AllReduceGraph(3, "sum");
  std::unique_ptr<Session> session = MakeSession(root, 3);
  std::vector<std::thread> threads;
  std::vector<int> failures(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int run = 0; run < 25; ++run) {
        FeedList feeds;
        for (int i = 0; i < 3; ++i) {
          feeds.emplace_back(absl::StrCat("x_", i),
                             Tensor::FromVector<float>(
                                 {static_cast<float>(t), float(run), 1.0f}));
        }
        std::vector<Tensor> out;
        absl::Status s = session->Run(feeds, {"y_0", "y_1", "y_2"}, {}, &out);
        if (!s.ok()) {
          ++failures[t];
          continue;
        }
        for (const Tensor& o : out) {
          auto f = o.flat<float>();
          if (f[0] != 3.0f * t || f[1] != 3.0f * run || f[2] != 3.0f) {
            ++failures[t];
          }
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(failures, std::vector<int>(4, 0));
  EXPECT_EQ(CollectiveExecutorForStore(session->variables(), nullptr)
                ->num_pending_instances(),
            0);
}

TEST(CollectiveOpsSessionTest, AllGatherAndBroadcast) {
  Scope root = Scope::NewRootScope();
  const int n = 3;
  for (int i = 0; i < n; ++i) {
    Scope dev = root.WithDevice(CpuName(i));
    Output x = ops::Const(
        dev, {static_cast<int64_t>(10 * i), static_cast<int64_t>(10 * i + 1)},
        {1, 2});
    ops::CollectiveAllGather(dev.WithOpName(absl::StrCat("g_", i)), x, n, 2, 1);
    if (i == 1) {
      ops::CollectiveBroadcastSend(dev.WithOpName("b_1"), x, n, 2, 2);
    } else {
      ops::CollectiveBroadcastRecv(dev.WithOpName(absl::StrCat("b_", i)),
                                   DT_INT64, {1, 2}, n, 2, 2);
    }
  }
  std::unique_ptr<Session> session = MakeSession(root, n);
  std::vector<Tensor> out;
  absl::Status s =
      session->Run({}, {"g_0", "g_1", "g_2", "b_0", "b_1", "b_2"}, {}, &out);
  ASSERT_TRUE(s.ok()) << s;
  for (int i = 0; i < n; ++i) {
    EXPECT_EQ(out[i].shape(), TensorShape({3, 2}));
    EXPECT_THAT(out[i].flat<int64_t>(),
                ::testing::ElementsAre(0, 1, 10, 11, 20, 21));
    EXPECT_THAT(out[n + i].flat<int64_t>(), ::testing::ElementsAre(10, 11));
  }
}

TEST(CollectiveOpsSessionTest, MembersOnFakeGpus) {
  Scope root = Scope::NewRootScope();
  for (int i = 0; i < 2; ++i) {
    Scope gpu = root.WithDevice(absl::StrCat("/gpu:", i));
    Output x = ops::Const(gpu, {1.0f + i, 2.0f * i});
    ops::CollectiveAllReduce(gpu.WithOpName(absl::StrCat("y_", i)), x, 2, 1, 1,
                             "mean");
  }
  std::unique_ptr<Session> session = MakeSession(root, 1, /*fake_gpus=*/2);
  std::vector<Tensor> out;
  RunOptions options;
  options.collect_step_stats = true;
  RunMetadata metadata;
  absl::Status s =
      session->Run(options, {}, {"y_0", "y_1"}, {}, &out, &metadata);
  ASSERT_TRUE(s.ok()) << s;
  for (const Tensor& t : out) {
    EXPECT_THAT(t.flat<float>(), ::testing::ElementsAre(1.5f, 1.0f));
  }
  bool found = false;
  for (const NodeExecStats& st : metadata.step_stats) {
    if (st.node != "y_1") continue;
    found = true;
    EXPECT_THAT(st.device, HasSubstr("GPU:1"));
    // The keys travel to the timeline with the node.
    EXPECT_THAT(
        st.details,
        ::testing::IsSupersetOf(
            {std::make_pair(std::string("group_key"), std::string("1")),
             std::make_pair(std::string("instance_key"), std::string("1")),
             std::make_pair(std::string("reduction"), std::string("mean"))}));
  }
  EXPECT_TRUE(found);
}

// The result feeds later ops on each device: the tower pattern, where each
// device applies the same averaged gradient.
TEST(CollectiveOpsSessionTest, ResultsFeedFurtherComputation) {
  Scope root = Scope::NewRootScope();
  for (int i = 0; i < 4; ++i) {
    Scope dev = root.WithDevice(CpuName(i));
    Output w = ops::Const(dev, {1.0f, 2.0f}, {1, 2});
    Output x = ops::Const(dev, {static_cast<float>(i)}, {1, 1});
    Output grad = ops::MatMul(dev, x, w);  // i * w
    Output avg = ops::CollectiveAllReduce(dev, grad, 4, 7, 1, "mean");
    ops::Sub(dev.WithOpName(absl::StrCat("updated_", i)), w, avg);
  }
  std::unique_ptr<Session> session = MakeSession(root, 4);
  std::vector<Tensor> out;
  absl::Status s = session->Run(
      {}, {"updated_0", "updated_1", "updated_2", "updated_3"}, {}, &out);
  ASSERT_TRUE(s.ok()) << s;
  // mean(i) over 0..3 = 1.5: w - 1.5 w.
  for (const Tensor& t : out) {
    EXPECT_THAT(t.flat<float>(), ::testing::ElementsAre(-0.5f, -1.0f));
  }
}

TEST(CollectiveOpsSessionTest, MemberLeftOutOfTheRunTimesOutNamingIt) {
  Scope root = AllReduceGraph(3, "sum", /*timeout_seconds=*/0.2f);
  std::unique_ptr<Session> session = MakeSession(root, 3);
  std::mt19937 rng(1);
  Fed f = FeedRandom(3, 5, &rng);
  // Fetching only y_0 and y_1 prunes y_2 away. Before any run built y_2's
  // kernel, nothing in the process knows where the third member would be.
  FeedList two = {f.feeds[0], f.feeds[1]};
  std::vector<Tensor> out;
  absl::Status s = session->Run(two, {"y_0", "y_1"}, {}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kDeadlineExceeded) << s;
  EXPECT_THAT(s.message(), HasSubstr("node 'y_"));
  EXPECT_THAT(s.message(), HasSubstr("2 of 3 members arrived"));
  EXPECT_THAT(s.message(), HasSubstr("1 missing"));

  // Once a full run built every member's kernel, the timeout names the
  // missing member.
  ASSERT_TRUE(session->Run(f.feeds, f.fetches, {}, &out).ok());
  s = session->Run(two, {"y_0", "y_1"}, {}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kDeadlineExceeded) << s;
  EXPECT_THAT(s.message(),
              HasSubstr("1 missing: /job:localhost/replica:0/task:0/device:"
                        "CPU:2 (node 'y_2')"));
  EXPECT_THAT(s.message(), HasSubstr("device:CPU:0 (node 'y_0')"));
  EXPECT_THAT(s.message(), HasSubstr("device:CPU:1 (node 'y_1')"));

  // The session is still fine afterwards.
  ASSERT_TRUE(session->Run(f.feeds, f.fetches, {}, &out).ok());
  EXPECT_TRUE(SameBits(out[2], Reference(Reduction::kSum, f.inputs)));
}

TEST(CollectiveOpsSessionTest, ShapeMismatchNamesBothMembers) {
  Scope root = AllReduceGraph(2, "sum");
  std::unique_ptr<Session> session = MakeSession(root, 2);
  std::vector<Tensor> out;
  absl::Status s = session->Run({{"x_0", Tensor::FromVector<float>({1, 2})},
                                 {"x_1", Tensor::FromVector<float>({1, 2, 3})}},
                                {"y_0", "y_1"}, {}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(s.message(), HasSubstr("(CollectiveAllReduce)"));
  EXPECT_THAT(s.message(), HasSubstr("disagree on the shape"));
  EXPECT_THAT(s.message(), HasSubstr("device:CPU:0 (node 'y_0')"));
  EXPECT_THAT(s.message(), HasSubstr("device:CPU:1 (node 'y_1')"));
  EXPECT_THAT(s.message(), HasSubstr("[2]"));
  EXPECT_THAT(s.message(), HasSubstr("[3]"));
}

// A node feeding one member fails: the step ends with that node's error,
// not a hang and not the collective's. (Without an abort hook from the
// executor, the waiting member is released by its timeout.)
TEST(CollectiveOpsSessionTest, FailingNodeInTheStepEndsItWithItsError) {
  Scope root = Scope::NewRootScope();
  for (int i = 0; i < 2; ++i) {
    Scope dev = root.WithDevice(CpuName(i));
    Output x =
        ops::Placeholder(dev.WithOpName(absl::StrCat("x_", i)), DT_FLOAT);
    if (i == 1) x = ops::Reshape(dev.WithOpName("bad_reshape"), x, {-1, 3});
    ops::CollectiveAllReduce(dev.WithOpName(absl::StrCat("y_", i)), x, 2, 1, 1,
                             "sum",
                             ops::CollectiveAttrs().TimeoutSeconds(0.3f));
  }
  std::unique_ptr<Session> session = MakeSession(root, 2);
  std::vector<Tensor> out;
  absl::Status s =
      session->Run({{"x_0", Tensor::FromVector<float>({1, 2, 3, 4})},
                    {"x_1", Tensor::FromVector<float>({1, 2, 3, 4})}},
                   {"y_0", "y_1"}, {}, &out);
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("bad_reshape"));
}

TEST(CollectiveOpsSessionTest, ManyStepsLeaveNothingBehind) {
  Scope root = AllReduceGraph(4, "mean");
  std::unique_ptr<Session> session = MakeSession(root, 4);
  std::mt19937 rng(8);
  Fed f = FeedRandom(4, 64, &rng);
  const Tensor want = Reference(Reduction::kMean, f.inputs);
  for (int step = 0; step < 500; ++step) {
    std::vector<Tensor> out;
    absl::Status s = session->Run(f.feeds, f.fetches, {}, &out);
    ASSERT_TRUE(s.ok()) << s;
    ASSERT_TRUE(SameBits(out[3], want));
  }
  EXPECT_EQ(CollectiveExecutorForStore(session->variables(), nullptr)
                ->num_pending_instances(),
            0);
}

}  // namespace
}  // namespace dflow
