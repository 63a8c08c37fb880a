// _FusedCollectiveAllReduce (tensor fusion's op, compiler/tensor_fusion.h)
// end to end through sessions on N logical CPU devices: each member's
// outputs equal, bit for bit, what one CollectiveAllReduce per tensor gives,
// for every group size, number of tensors and tensor size (empty, scalar,
// odd, large enough to spread over threads); members that packed different
// tensors fail at once with an error naming both (no hang); and steps that
// record stats carry each collective's phases, in order, within its node.
#include <cmath>
#include <cstring>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/tensor_fusion.h"
#include "gmock/gmock.h"
#include "graph/attr_value_util.h"
#include "graph/ops/ops.h"
#include "graph/scope.h"
#include "gtest/gtest.h"
#include "runtime/collective_registry.h"
#include "runtime/session.h"

namespace dflow {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string CpuName(int i) { return absl::StrCat("/cpu:", i); }

// Adds to `def` a fused all-reduce `name` on `device` over `inputs`.
void AddFused(GraphDef* def, const std::string& name, const std::string& device,
              const std::vector<std::string>& inputs, DataType dtype,
              int64_t group_size, int64_t instance_key,
              const std::string& reduction = "sum",
              float timeout_seconds = 60) {
  NodeDef* n = def->add_node();
  n->set_name(name);
  n->set_op(kFusedAllReduceOp);
  n->set_device(device);
  for (const std::string& in : inputs) n->add_input(in);
  auto& attr = *n->mutable_attr();
  attr["N"] = MakeAttr(static_cast<int64_t>(inputs.size()));
  attr["T"] = MakeAttr(dtype);
  attr["group_size"] = MakeAttr(group_size);
  attr["group_key"] = MakeAttr(int64_t{1});
  attr["instance_key"] = MakeAttr(instance_key);
  attr["reduction"] = MakeAttr(reduction);
  attr["timeout_seconds"] = MakeAttr(timeout_seconds);
}

// Graphs run as built: the session's own tensor fusion would turn the
// separate all-reduces this test compares with into fused ones.
std::unique_ptr<Session> MakeSession(const GraphDef& def, int cpus) {
  SessionOptions options;
  options.device_count = {{"CPU", cpus}};
  options.optimize_graph = false;
  absl::StatusOr<std::unique_ptr<Session>> session =
      Session::Create(def, options);
  EXPECT_TRUE(session.ok()) << session.status();
  return session.ok() ? *std::move(session) : nullptr;
}

Tensor Random(DataType dtype, const TensorShape& shape, std::mt19937* rng) {
  Tensor t(dtype, shape);
  std::uniform_real_distribution<double> mant(-1, 1);
  std::uniform_int_distribution<int> exp(-12, 12);
  std::uniform_int_distribution<int64_t> ints(-1000, 1000);
  if (dtype == DT_FLOAT) {
    for (float& v : t.flat<float>()) {
      v = static_cast<float>(std::ldexp(mant(*rng), exp(*rng)));
    }
  } else {
    for (int64_t& v : t.flat<int64_t>()) v = ints(*rng);
  }
  return t;
}

bool SameBits(const Tensor& a, const Tensor& b) {
  return a.dtype() == b.dtype() && a.shape() == b.shape() &&
         (a.NumElements() == 0 ||
          std::memcmp(a.raw_data(), b.raw_data(), a.TotalBytes()) == 0);
}

// The tensors of a test, in order: [3,5] (odd), [0], a scalar, [1], and
// one large enough that the ring spreads it over the pool.
const std::vector<TensorShape>& Shapes() {
  static const auto* shapes = new std::vector<TensorShape>{
      {3, 5}, {0}, {}, {1}, {300001}};
  return *shapes;
}

// Placeholders x<k>_<i> (tensor k of member i) feed, on each /cpu:i, either
// one fused all-reduce "f_<i>" of all `num` tensors, fetched as
// "f_<i>:<k>", or one CollectiveAllReduce "y<k>_<i>" per tensor.
struct Problem {
  int members = 0;
  int num = 0;
  DataType dtype = DT_FLOAT;
  std::string reduction = "sum";
  FeedList feeds;

  GraphDef Build(bool fused) const {
    Scope root = Scope::NewRootScope();
    for (int i = 0; i < members; ++i) {
      Scope dev = root.WithDevice(CpuName(i));
      for (int k = 0; k < num; ++k) {
        Output x = ops::Placeholder(
            dev.WithOpName(absl::StrCat("x", k, "_", i)), dtype);
        if (!fused) {
          ops::CollectiveAllReduce(dev.WithOpName(absl::StrCat("y", k, "_", i)),
                                   x, members, /*group_key=*/1,
                                   /*instance_key=*/100 + k, reduction);
        }
      }
    }
    GraphDef def;
    EXPECT_TRUE(root.ToGraphDef(&def).ok()) << root.status();
    if (fused) {
      for (int i = 0; i < members; ++i) {
        std::vector<std::string> inputs;
        for (int k = 0; k < num; ++k) {
          inputs.push_back(absl::StrCat("x", k, "_", i));
        }
        AddFused(&def, absl::StrCat("f_", i), CpuName(i), inputs, dtype,
                 members, /*instance_key=*/7, reduction);
      }
    }
    return def;
  }

  std::vector<std::string> Fetches(bool fused) const {
    std::vector<std::string> out;
    for (int i = 0; i < members; ++i) {
      for (int k = 0; k < num; ++k) {
        out.push_back(fused ? absl::StrCat("f_", i, ":", k)
                            : absl::StrCat("y", k, "_", i));
      }
    }
    return out;
  }
};

std::vector<Tensor> RunProblem(const Problem& p, bool fused) {
  std::unique_ptr<Session> session = MakeSession(p.Build(fused), p.members);
  if (session == nullptr) return {};
  std::vector<Tensor> out;
  absl::Status s = session->Run(p.feeds, p.Fetches(fused), {}, &out);
  EXPECT_TRUE(s.ok()) << s;
  return out;
}

TEST(FusedCollectiveTest, EqualsSeparateAllReducesBitwise) {
  for (int members = 1; members <= 4; ++members) {
    for (int num = 1; num <= 5; ++num) {
      for (const char* reduction : {"sum", "mean", "max"}) {
        Problem p;
        p.members = members;
        p.num = num;
        p.reduction = reduction;
        std::mt19937 rng(members * 100 + num);
        for (int i = 0; i < members; ++i) {
          for (int k = 0; k < num; ++k) {
            p.feeds.emplace_back(absl::StrCat("x", k, "_", i),
                                 Random(p.dtype, Shapes()[k], &rng));
          }
        }
        const std::vector<Tensor> want = RunProblem(p, /*fused=*/false);
        const std::vector<Tensor> got = RunProblem(p, /*fused=*/true);
        ASSERT_EQ(want.size(), got.size());
        for (size_t j = 0; j < got.size(); ++j) {
          EXPECT_TRUE(SameBits(got[j], want[j]))
              << reduction << " members=" << members << " num=" << num
              << " fetch " << p.Fetches(true)[j];
        }
      }
    }
  }
}

TEST(FusedCollectiveTest, Int64AndRepeatedRuns) {
  Problem p;
  p.members = 3;
  p.num = 5;
  p.dtype = DT_INT64;
  p.reduction = "mean";
  std::mt19937 rng(5);
  for (int i = 0; i < p.members; ++i) {
    for (int k = 0; k < p.num; ++k) {
      p.feeds.emplace_back(absl::StrCat("x", k, "_", i),
                           Random(p.dtype, Shapes()[k], &rng));
    }
  }
  const std::vector<Tensor> want = RunProblem(p, /*fused=*/false);
  std::unique_ptr<Session> session = MakeSession(p.Build(true), p.members);
  ASSERT_NE(session, nullptr);
  for (int run = 0; run < 10; ++run) {
    std::vector<Tensor> got;
    ASSERT_TRUE(session->Run(p.feeds, p.Fetches(true), {}, &got).ok());
    ASSERT_EQ(got.size(), want.size());
    for (size_t j = 0; j < got.size(); ++j) {
      ASSERT_TRUE(SameBits(got[j], want[j])) << "run " << run << " fetch " << j;
    }
  }
  EXPECT_EQ(CollectiveExecutorForStore(session->variables(), nullptr)
                ->num_pending_instances(),
            0);
}

// Member 0 packs `shapes0`, member 1 `shapes1`, one instance: the step
// fails with InvalidArgument naming both members and what each packed, at
// once rather than at the timeout.
absl::Status RunMismatched(const std::vector<TensorShape>& shapes0,
                           const std::vector<TensorShape>& shapes1) {
  GraphDef def;
  FeedList feeds;
  {
    Scope root = Scope::NewRootScope();
    for (int i = 0; i < 2; ++i) {
      const auto& shapes = i == 0 ? shapes0 : shapes1;
      for (size_t k = 0; k < shapes.size(); ++k) {
        const std::string name = absl::StrCat("x", k, "_", i);
        ops::Placeholder(root.WithDevice(CpuName(i)).WithOpName(name),
                         DT_FLOAT);
        feeds.emplace_back(name, Tensor(DT_FLOAT, shapes[k]));
      }
    }
    EXPECT_TRUE(root.ToGraphDef(&def).ok());
  }
  for (int i = 0; i < 2; ++i) {
    std::vector<std::string> inputs;
    for (size_t k = 0; k < (i == 0 ? shapes0 : shapes1).size(); ++k) {
      inputs.push_back(absl::StrCat("x", k, "_", i));
    }
    // A timeout that would fail the test's expectations (DeadlineExceeded)
    // rather than hang it, were the mismatch not caught.
    AddFused(&def, absl::StrCat("f_", i), CpuName(i), inputs, DT_FLOAT, 2, 1,
             "sum", /*timeout_seconds=*/30);
  }
  std::unique_ptr<Session> session = MakeSession(def, 2);
  if (session == nullptr) return absl::InternalError("no session");
  std::vector<Tensor> out;
  absl::Status s = session->Run(feeds, {"f_0", "f_1"}, {}, &out);
  EXPECT_EQ(CollectiveExecutorForStore(session->variables(), nullptr)
                ->num_pending_instances(),
            0);
  return s;
}

TEST(FusedCollectiveTest, MembersDisagreeingOnNFail) {
  // Five floats each: the packed buffers alone would match.
  absl::Status s = RunMismatched({{2}, {3}}, {{5}});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(s.message(), HasSubstr("(_FusedCollectiveAllReduce)"));
  EXPECT_THAT(s.message(), HasSubstr("disagree on the packed tensors"));
  EXPECT_THAT(s.message(), HasSubstr("2 tensors [2] [3]"));
  EXPECT_THAT(s.message(), HasSubstr("1 tensor [5]"));
  EXPECT_THAT(s.message(), HasSubstr("device:CPU:0 (node 'f_0')"));
  EXPECT_THAT(s.message(), HasSubstr("device:CPU:1 (node 'f_1')"));
}

TEST(FusedCollectiveTest, MembersDisagreeingOnShapesFail) {
  absl::Status s = RunMismatched({{2}, {3}}, {{3}, {2}});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(s.message(), HasSubstr("disagree on the packed tensors"));
  EXPECT_THAT(s.message(), HasSubstr("[2] [3]"));
  EXPECT_THAT(s.message(), HasSubstr("[3] [2]"));

  s = RunMismatched({{2, 3}}, {{3, 2}});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(s.message(), HasSubstr("[2,3]"));
  EXPECT_THAT(s.message(), HasSubstr("[3,2]"));
}

TEST(FusedCollectiveTest, FusedAndPlainMemberOfOneInstanceFail) {
  Scope root = Scope::NewRootScope();
  // x0_0 is the fused member's input (AddFused reads it by name).
  ops::Placeholder(root.WithDevice(CpuName(0)).WithOpName("x0_0"), DT_FLOAT);
  Output x1 = ops::Placeholder(root.WithDevice(CpuName(1)).WithOpName("x0_1"),
                               DT_FLOAT);
  ops::CollectiveAllReduce(root.WithDevice(CpuName(1)).WithOpName("f_1"), x1,
                           2, 1, 1, "sum",
                           ops::CollectiveAttrs().TimeoutSeconds(30));
  GraphDef def;
  ASSERT_TRUE(root.ToGraphDef(&def).ok());
  AddFused(&def, "f_0", CpuName(0), {"x0_0"}, DT_FLOAT, 2, 1, "sum", 30);
  std::unique_ptr<Session> session = MakeSession(def, 2);
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  absl::Status s =
      session->Run({{"x0_0", Tensor::FromVector<float>({1, 2})},
                    {"x0_1", Tensor::FromVector<float>({1, 2})}},
                   {"f_0", "f_1"}, {}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(s.message(), HasSubstr("1 unfused tensor [2]"));
  EXPECT_THAT(s.message(), HasSubstr("1 tensor [2]"));
}

TEST(FusedCollectiveTest, SchemaAndShapes) {
  GraphDef def;
  {
    Scope root = Scope::NewRootScope();
    ops::Const(root.WithOpName("a"), {1.0f, 2.0f, 3.0f}, {3, 1});
    ops::Const(root.WithOpName("b"), 4.0f);
    ASSERT_TRUE(root.ToGraphDef(&def).ok());
  }
  AddFused(&def, "f", "/cpu:0", {"a", "b"}, DT_FLOAT, 1, 1);
  std::unique_ptr<Session> session = MakeSession(def, 1);
  ASSERT_NE(session, nullptr);
  RunOptions options;
  options.collect_step_stats = true;
  RunMetadata metadata;
  std::vector<Tensor> out;
  absl::Status s =
      session->Run(options, {}, {"f:0", "f:1"}, {}, &out, &metadata);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(out[0].shape(), TensorShape({3, 1}));
  EXPECT_THAT(out[0].flat<float>(), ElementsAre(1, 2, 3));
  EXPECT_EQ(out[1].shape(), TensorShape({}));
  EXPECT_THAT(out[1].flat<float>(), ElementsAre(4));
  bool found = false;
  for (const NodeExecStats& st : metadata.step_stats) {
    if (st.node != "f") continue;
    found = true;
    EXPECT_EQ(st.op, kFusedAllReduceOp);
    EXPECT_THAT(st.details,
                ::testing::IsSupersetOf(
                    {std::make_pair(std::string("tensors"), std::string("2")),
                     std::make_pair(std::string("bytes"), std::string("16")),
                     std::make_pair(std::string("instance_key"),
                                    std::string("1"))}));
  }
  EXPECT_TRUE(found);
}

// The phases of `stats` by name, checked: in order, each within the node.
std::vector<std::string> CheckedPhases(const NodeExecStats& st) {
  std::vector<std::string> names;
  int64_t last_end = st.start_us;
  for (const NodeExecStats::Phase& p : st.phases) {
    names.push_back(p.name);
    EXPECT_GE(p.start_us, last_end) << st.node << " " << p.name;
    EXPECT_GE(p.end_us, p.start_us) << st.node << " " << p.name;
    EXPECT_LE(p.end_us, st.end_us) << st.node << " " << p.name;
    last_end = p.end_us;
  }
  return names;
}

TEST(FusedCollectiveTest, StepStatsCarryEveryCollectivesPhases) {
  Scope root = Scope::NewRootScope();
  const int n = 3;
  for (int i = 0; i < n; ++i) {
    Scope dev = root.WithDevice(CpuName(i));
    Output x = ops::Const(dev.WithOpName(absl::StrCat("x_", i)),
                          {1.0f * i, 2.0f, 3.0f}, {3});
    ops::CollectiveAllReduce(dev.WithOpName(absl::StrCat("sum_", i)), x, n, 2,
                             1);
    ops::CollectiveAllGather(dev.WithOpName(absl::StrCat("gather_", i)), x, n,
                             2, 2);
    if (i == 0) {
      ops::CollectiveBroadcastSend(dev.WithOpName("bcast_0"), x, n, 2, 3);
    } else {
      ops::CollectiveBroadcastRecv(dev.WithOpName(absl::StrCat("bcast_", i)),
                                   DT_FLOAT, {3}, n, 2, 3);
    }
  }
  GraphDef def;
  ASSERT_TRUE(root.ToGraphDef(&def).ok()) << root.status();
  std::vector<std::string> fetches;
  for (int i = 0; i < n; ++i) {
    AddFused(&def, absl::StrCat("fused_", i), CpuName(i),
             {absl::StrCat("x_", i), absl::StrCat("x_", i)}, DT_FLOAT, n, 4);
    for (const char* name : {"sum_", "gather_", "bcast_", "fused_"}) {
      fetches.push_back(absl::StrCat(name, i));
    }
  }
  std::unique_ptr<Session> session = MakeSession(def, n);
  ASSERT_NE(session, nullptr);

  // Without stats, nothing is recorded (and nothing reads the clock).
  std::vector<Tensor> out;
  ASSERT_TRUE(session->Run({}, fetches, {}, &out).ok());

  RunOptions options;
  options.trace = true;
  RunMetadata metadata;
  absl::Status s = session->Run(options, {}, fetches, {}, &out, &metadata);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_THAT(out[3].flat<float>(), ElementsAre(3, 6, 9));  // fused_0:0
  int checked = 0;
  for (const NodeExecStats& st : metadata.step_stats) {
    const std::vector<std::string> phases = CheckedPhases(st);
    if (st.op == "CollectiveAllReduce") {
      EXPECT_THAT(phases, ElementsAre("wait", "reduce")) << st.node;
    } else if (st.op == "CollectiveAllGather") {
      EXPECT_THAT(phases, ElementsAre("wait", "gather")) << st.node;
    } else if (st.op == "CollectiveBroadcastSend" ||
               st.op == "CollectiveBroadcastRecv") {
      EXPECT_THAT(phases, ElementsAre("wait", "broadcast")) << st.node;
    } else if (st.op == kFusedAllReduceOp) {
      EXPECT_THAT(phases, ElementsAre("pack", "wait", "reduce", "unpack"))
          << st.node;
    } else {
      EXPECT_THAT(phases, ::testing::IsEmpty()) << st.node;
      continue;
    }
    ++checked;
  }
  EXPECT_EQ(checked, 4 * n);
}

}  // namespace
}  // namespace dflow
