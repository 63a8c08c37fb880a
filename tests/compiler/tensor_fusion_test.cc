// Tensor fusion: which all-reduces it packs together and which it leaves
// alone, what it makes of them (one _FusedCollectiveAllReduce per device,
// an Identity under each member's name), and that fused graphs compute
// bitwise what unfused ones do (run through sessions on N logical CPU
// devices).
#include "compiler/tensor_fusion.h"

#include <cstring>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "graph/graph_def_import.h"
#include "graph/ops/ops.h"
#include "gtest/gtest.h"
#include "runtime/session.h"

namespace dflow {
namespace {

using ::testing::HasSubstr;

std::string Cpu(int i) { return absl::StrCat("/cpu:", i); }

int CountOp(const Graph& g, const std::string& op) {
  int n = 0;
  for (const Node* node : g.nodes()) n += node->op() == op;
  return n;
}

// On each of `devices` CPUs, one random constant per shape, all-reduced
// (instance k for shape k) and fetched as "r<k>_<device>"; each result also
// feeds an Identity "use<k>_<device>".
void BuildGradients(const Scope& root, int devices,
                    const std::vector<TensorShape>& shapes,
                    const std::string& reduction = "mean",
                    DataType dtype = DT_FLOAT) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-10, 10);
  for (int d = 0; d < devices; ++d) {
    Scope dev = root.WithDevice(Cpu(d));
    for (size_t k = 0; k < shapes.size(); ++k) {
      Tensor t(dtype, shapes[k]);
      if (dtype == DT_FLOAT) {
        for (float& v : t.flat<float>()) v = u(rng);
      } else {
        for (int64_t& v : t.flat<int64_t>()) v = static_cast<int64_t>(u(rng));
      }
      Output x = ops::Const(dev.WithOpName(absl::StrCat("g", k, "_", d)), t);
      Output r = ops::CollectiveAllReduce(
          dev.WithOpName(absl::StrCat("r", k, "_", d)), x, devices,
          /*group_key=*/3, /*instance_key=*/10 + k, reduction);
      ops::Identity(dev.WithOpName(absl::StrCat("use", k, "_", d)), r);
    }
  }
}

std::vector<std::string> Fetches(int devices, int tensors,
                                 const std::string& prefix) {
  std::vector<std::string> out;
  for (int k = 0; k < tensors; ++k) {
    for (int d = 0; d < devices; ++d) {
      out.push_back(absl::StrCat(prefix, k, "_", d));
    }
  }
  return out;
}

absl::StatusOr<std::vector<Tensor>> RunGraph(
    const Graph& g, int devices, const std::vector<std::string>& fetches) {
  GraphDef def;
  g.ToGraphDef(&def);
  SessionOptions options;
  options.device_count = {{"CPU", devices}};
  // As built: the session's own passes (tensor fusion among them) would
  // change the unfused graph this test compares with.
  options.optimize_graph = false;
  absl::StatusOr<std::unique_ptr<Session>> session =
      Session::Create(def, options);
  if (!session.ok()) return session.status();
  std::vector<Tensor> out;
  if (absl::Status s = (*session)->Run({}, fetches, {}, &out); !s.ok()) {
    return s;
  }
  return out;
}

bool SameBits(const Tensor& a, const Tensor& b) {
  return a.dtype() == b.dtype() && a.shape() == b.shape() &&
         (a.NumElements() == 0 ||
          std::memcmp(a.raw_data(), b.raw_data(), a.TotalBytes()) == 0);
}

// Fuses a copy of `root`'s graph and checks every fetch is bitwise what
// the unfused graph gives.
void ExpectSameResults(const Scope& root, int devices, int tensors,
                       const TensorFusionOptions& options,
                       int expected_buckets) {
  GraphDef def;
  ASSERT_TRUE(root.ToGraphDef(&def).ok()) << root.status();
  Graph fused;
  ASSERT_TRUE(ImportGraphDef(def, ImportOptions(), &fused).ok());
  absl::StatusOr<TensorFusionResult> r = FuseAllReduces(&fused, options);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->buckets, expected_buckets);
  for (const char* prefix : {"r", "use"}) {
    const std::vector<std::string> fetches = Fetches(devices, tensors, prefix);
    absl::StatusOr<std::vector<Tensor>> want =
        RunGraph(*root.graph(), devices, fetches);
    ASSERT_TRUE(want.ok()) << want.status();
    absl::StatusOr<std::vector<Tensor>> got = RunGraph(fused, devices, fetches);
    ASSERT_TRUE(got.ok()) << got.status();
    for (size_t i = 0; i < fetches.size(); ++i) {
      EXPECT_TRUE(SameBits((*want)[i], (*got)[i])) << fetches[i];
    }
  }
}

const std::vector<TensorShape>& MixedShapes() {
  static const auto* shapes =
      new std::vector<TensorShape>{{3, 2}, {7}, {}, {0}, {2, 2, 2}, {1, 1}};
  return *shapes;
}

TEST(TensorFusionTest, PacksEveryInstanceUnderTheThresholdIntoOne) {
  Scope root = Scope::NewRootScope();
  BuildGradients(root, 4, MixedShapes());
  ASSERT_TRUE(root.ok()) << root.status();
  Graph* g = root.graph();
  absl::StatusOr<TensorFusionResult> r = FuseAllReduces(g);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->buckets, 1);
  EXPECT_EQ(r->instances, 6);
  // One fused all-reduce per device instead of six, with a fresh instance
  // key; nothing else is added but an Identity per member.
  EXPECT_EQ(CountOp(*g, "CollectiveAllReduce"), 0);
  EXPECT_EQ(CountOp(*g, kFusedAllReduceOp), 4);
  EXPECT_EQ(CountOp(*g, "Identity"), 2 * 6 * 4);  // the uses and members
  EXPECT_EQ(g->num_nodes(), 3 * 6 * 4 + 4);  // constants, uses, members
  std::set<std::string> devices;
  for (const Node* n : g->nodes()) {
    if (n->op() != kFusedAllReduceOp) continue;
    devices.insert(n->requested_device());
    int64_t instance = 0, num = 0, group_size = 0;
    ASSERT_TRUE(n->GetAttr("instance_key", &instance).ok());
    EXPECT_EQ(instance, 16);  // the largest key was 15
    ASSERT_TRUE(n->GetAttr("N", &num).ok());
    EXPECT_EQ(num, 6);
    ASSERT_TRUE(n->GetAttr("group_size", &group_size).ok());
    EXPECT_EQ(group_size, 4);
    std::string reduction;
    ASSERT_TRUE(n->GetAttr("reduction", &reduction).ok());
    EXPECT_EQ(reduction, "mean");
    // Input k is instance 10 + k's tensor on the node's device; output k
    // has its shape.
    for (int k = 0; k < 6; ++k) {
      EXPECT_EQ(n->input_edge(k)->src->requested_device(),
                n->requested_device());
      EXPECT_TRUE(absl::StartsWith(n->input_edge(k)->src->name(),
                                   absl::StrCat("g", k, "_")))
          << n->input_edge(k)->src->name();
      EXPECT_EQ(n->output_shape(k), MixedShapes()[k]);
    }
  }
  EXPECT_EQ(devices.size(), 4u);
  // Each member's name now holds its part of the fused result, on the
  // member's device, with the member's shape and consumers.
  const Node* r1 = g->FindNode("r1_2");
  ASSERT_NE(r1, nullptr);
  EXPECT_EQ(r1->op(), "Identity");
  EXPECT_EQ(r1->requested_device(), "/device:CPU:2");
  EXPECT_EQ(r1->output_shape(0), TensorShape({7}));
  EXPECT_EQ(r1->input_edge(0)->src->op(), kFusedAllReduceOp);
  EXPECT_EQ(r1->input_edge(0)->src->requested_device(), "/device:CPU:2");
  EXPECT_EQ(r1->input_edge(0)->src_output, 1);
  EXPECT_EQ(g->FindNode("use1_2")->input_edge(0)->src, r1);
  EXPECT_TRUE(g->TopologicalOrder().ok());
}

TEST(TensorFusionTest, FusedAndUnfusedResultsAreBitwiseEqual) {
  for (int devices : {2, 3, 4}) {
    for (const char* reduction : {"sum", "mean", "max"}) {
      Scope root = Scope::NewRootScope();
      BuildGradients(root, devices, MixedShapes(), reduction);
      ExpectSameResults(root, devices, 6, TensorFusionOptions(), 1);
    }
  }
  Scope ints = Scope::NewRootScope();
  BuildGradients(ints, 3, MixedShapes(), "sum", DT_INT64);
  ExpectSameResults(ints, 3, 6, TensorFusionOptions(), 1);
}

TEST(TensorFusionTest, ThresholdSplitsBucketsAndSkipsLargeTensors) {
  // Float bytes per member, instances 10..15: 24, 28, 4, 0, 32, 4. Packed
  // in order under 32 bytes: {24} {28, 4, 0} {32} {4}: one bucket to fuse.
  Scope root = Scope::NewRootScope();
  BuildGradients(root, 2, MixedShapes());
  TensorFusionOptions options;
  options.threshold_bytes = 32;
  ExpectSameResults(root, 2, 6, options, 1);

  Scope big = Scope::NewRootScope();
  BuildGradients(big, 2, {{100}, {100}, {2}, {3}});
  options.threshold_bytes = 100;  // 400-byte tensors are never fused
  GraphDef def;
  ASSERT_TRUE(big.ToGraphDef(&def).ok());
  Graph g;
  ASSERT_TRUE(ImportGraphDef(def, ImportOptions(), &g).ok());
  absl::StatusOr<TensorFusionResult> r = FuseAllReduces(&g, options);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->buckets, 1);
  EXPECT_EQ(r->instances, 2);
  EXPECT_EQ(g.FindNode("r0_0")->op(), "CollectiveAllReduce");
  EXPECT_EQ(g.FindNode("r2_0")->op(), "Identity");
  EXPECT_EQ(CountOp(g, kFusedAllReduceOp), 2);

  options.threshold_bytes = 0;  // off
  Graph off;
  ASSERT_TRUE(ImportGraphDef(def, ImportOptions(), &off).ok());
  r = FuseAllReduces(&off, options);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->buckets, 0);
}

TEST(TensorFusionTest, DifferentGroupsDtypesAndReductionsStayApart) {
  Scope root = Scope::NewRootScope();
  for (int d = 0; d < 2; ++d) {
    Scope dev = root.WithDevice(Cpu(d));
    Output f = ops::Const(dev, {1.0f, 2.0f});
    Output i = ops::Const(dev, {int64_t{1}, int64_t{2}});
    ops::CollectiveAllReduce(dev, f, 2, 1, 1, "sum");
    ops::CollectiveAllReduce(dev, f, 2, 1, 2, "sum");
    ops::CollectiveAllReduce(dev, f, 2, 1, 3, "max");  // other reduction
    ops::CollectiveAllReduce(dev, i, 2, 1, 4, "sum");  // other dtype
    ops::CollectiveAllReduce(dev, f, 2, 2, 5, "sum");  // other group
    ops::CollectiveAllReduce(dev, i, 2, 1, 6, "sum");
  }
  ASSERT_TRUE(root.ok()) << root.status();
  absl::StatusOr<TensorFusionResult> r = FuseAllReduces(root.graph());
  ASSERT_TRUE(r.ok()) << r.status();
  // {1, 2} (float sum) and {4, 6} (int64 sum).
  EXPECT_EQ(r->buckets, 2);
  EXPECT_EQ(r->instances, 4);
  EXPECT_EQ(CountOp(*root.graph(), "CollectiveAllReduce"), 2 * 2);
  EXPECT_EQ(CountOp(*root.graph(), kFusedAllReduceOp), 2 * 2);
}

TEST(TensorFusionTest, IncompleteOrUnknownInstancesAreLeftAlone) {
  Scope root = Scope::NewRootScope();
  for (int d = 0; d < 2; ++d) {
    Scope dev = root.WithDevice(Cpu(d));
    Output known = ops::Const(dev, {1.0f, 2.0f});
    Output unknown =
        ops::Placeholder(dev.WithOpName(absl::StrCat("p", d)), DT_FLOAT);
    ops::CollectiveAllReduce(dev, known, 2, 1, 1);
    ops::CollectiveAllReduce(dev, unknown, 2, 1, 2);  // shape unknown
    ops::CollectiveAllReduce(dev, known, 3, 1, 3);    // third member absent
  }
  // Two members on one device.
  Scope dev = root.WithDevice(Cpu(0));
  ops::CollectiveAllReduce(dev, ops::Const(dev, {1.0f}), 2, 1, 4);
  ops::CollectiveAllReduce(dev, ops::Const(dev, {1.0f}), 2, 1, 4);
  // No device asked for.
  ops::CollectiveAllReduce(root, ops::Const(root, {1.0f}), 2, 1, 5);
  ops::CollectiveAllReduce(root, ops::Const(root, {1.0f}), 2, 1, 5);
  ASSERT_TRUE(root.ok()) << root.status();
  absl::StatusOr<TensorFusionResult> r = FuseAllReduces(root.graph());
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->buckets, 0);
}

// Instance 2's input is computed from instance 1's result: one fused
// all-reduce would wait for itself. They are kept apart; the independent
// instance 3 joins one of them.
TEST(TensorFusionTest, NeverFusesAnInstanceWithOneItDependsOn) {
  Scope root = Scope::NewRootScope();
  for (int d = 0; d < 3; ++d) {
    Scope dev = root.WithDevice(Cpu(d));
    Output x =
        ops::Const(dev.WithOpName(absl::StrCat("x", d)), {1.0f + d, 2.0f});
    Output a = ops::CollectiveAllReduce(dev.WithOpName(absl::StrCat("r0_", d)),
                                        x, 3, 1, 1);
    Output b = ops::CollectiveAllReduce(dev.WithOpName(absl::StrCat("r1_", d)),
                                        ops::Mul(dev, a, a), 3, 1, 2);
    ops::CollectiveAllReduce(dev.WithOpName(absl::StrCat("r2_", d)), x, 3, 1,
                             3);
    ops::Identity(dev.WithOpName(absl::StrCat("use0_", d)), a);
    ops::Identity(dev.WithOpName(absl::StrCat("use1_", d)), b);
    ops::Identity(dev.WithOpName(absl::StrCat("use2_", d)), x);
  }
  ExpectSameResults(root, 3, 3, TensorFusionOptions(), 1);
}

// A dependency that only appears once another bucket is fused. Float
// instances 10 and 11, int64 instances 12 and 13; 11's input comes from
// 12's result and 13's from 10's. Either kind alone can be fused, but not
// both: with {10, 11} one node, 12 -> {10, 11} -> 13, so {12, 13} would
// wait for itself (and the other way round).
TEST(TensorFusionTest, NoCycleThroughAnEarlierBucket) {
  Scope root = Scope::NewRootScope();
  for (int d = 0; d < 2; ++d) {
    Scope dev = root.WithDevice(Cpu(d));
    Output x = ops::Const(dev, {1.0f + d});
    Output y = ops::CollectiveAllReduce(dev, x, 2, 1, 10);
    Output z =
        ops::CollectiveAllReduce(dev, ops::Cast(dev, x, DT_INT64), 2, 1, 12);
    Output w =
        ops::CollectiveAllReduce(dev, ops::Cast(dev, z, DT_FLOAT), 2, 1, 11);
    Output v =
        ops::CollectiveAllReduce(dev, ops::Cast(dev, y, DT_INT64), 2, 1, 13);
    ops::Identity(dev.WithOpName(absl::StrCat("r0_", d)), w);
    ops::Identity(dev.WithOpName(absl::StrCat("use0_", d)), v);
  }
  GraphDef def;
  ASSERT_TRUE(root.ToGraphDef(&def).ok()) << root.status();
  Graph g;
  ASSERT_TRUE(ImportGraphDef(def, ImportOptions(), &g).ok());
  absl::StatusOr<TensorFusionResult> r = FuseAllReduces(&g);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->buckets, 1);
  ASSERT_TRUE(g.TopologicalOrder().ok());
  absl::StatusOr<std::vector<Tensor>> got =
      RunGraph(g, 2, {"r0_0", "r0_1", "use0_0", "use0_1"});
  ASSERT_TRUE(got.ok()) << got.status();
  absl::StatusOr<std::vector<Tensor>> want =
      RunGraph(*root.graph(), 2, {"r0_0", "r0_1", "use0_0", "use0_1"});
  ASSERT_TRUE(want.ok()) << want.status();
  for (int i = 0; i < 4; ++i) EXPECT_TRUE(SameBits((*got)[i], (*want)[i]));
}

TEST(TensorFusionTest, ControlEdgesAreKept) {
  Scope root = Scope::NewRootScope();
  for (int d = 0; d < 2; ++d) {
    Scope dev = root.WithDevice(Cpu(d));
    Operation before = ops::NoOp(dev.WithOpName(absl::StrCat("before", d)));
    Output x = ops::Const(dev, {1.0f});
    ops::CollectiveAllReduce(
        dev.WithOpName(absl::StrCat("a", d)).WithControlDependencies(before), x,
        2, 1, 1);
    Output b = ops::CollectiveAllReduce(dev.WithOpName(absl::StrCat("b", d)), x,
                                        2, 1, 2);
    ops::NoOp(dev.WithOpName(absl::StrCat("after", d))
                  .WithControlDependencies(b.op()));
  }
  ASSERT_TRUE(root.ok()) << root.status();
  Graph* g = root.graph();
  absl::StatusOr<TensorFusionResult> r = FuseAllReduces(g);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->buckets, 1);
  for (int d = 0; d < 2; ++d) {
    // `before` still runs before the collective; `after` after b's part.
    bool before_found = false;
    for (const Edge* e : g->FindNode(absl::StrCat("before", d))->out_edges()) {
      before_found |= e->IsControl() && e->dst->op() == kFusedAllReduceOp;
    }
    EXPECT_TRUE(before_found);
    bool after_found = false;
    for (const Edge* e : g->FindNode(absl::StrCat("b", d))->out_edges()) {
      after_found |=
          e->IsControl() && e->dst->name() == absl::StrCat("after", d);
    }
    EXPECT_TRUE(after_found);
  }
}

// The fused node and the members' Identities keep the members' colocation.
TEST(TensorFusionTest, ColocationIsKept) {
  Scope root = Scope::NewRootScope();
  BuildGradients(root, 2, {{2}, {3}});
  ASSERT_TRUE(root.ok()) << root.status();
  Graph* g = root.graph();
  for (int d = 0; d < 2; ++d) {
    for (int k = 0; k < 2; ++k) {
      AttrValue cls;
      cls.mutable_list()->add_s(absl::StrCat("loc:@g0_", d));
      g->FindNode(absl::StrCat("r", k, "_", d))->SetAttr("_class", cls);
    }
  }
  absl::StatusOr<TensorFusionResult> r = FuseAllReduces(g);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->buckets, 1);
  for (int d = 0; d < 2; ++d) {
    const Node* member = g->FindNode(absl::StrCat("r1_", d));
    const Node* fused = member->input_edge(0)->src;
    for (const Node* n : {member, fused}) {
      const AttrValue* cls = n->FindAttr("_class");
      ASSERT_NE(cls, nullptr) << n->name();
      ASSERT_EQ(cls->list().s_size(), 1);
      EXPECT_EQ(cls->list().s(0), absl::StrCat("loc:@g0_", d));
    }
  }
}

// Fused nodes' instance keys are taken: fusing again (all-reduces added
// since, with keys below the fused one) picks a key above it.
TEST(TensorFusionTest, FusedInstanceKeysAreNotReused) {
  Scope root = Scope::NewRootScope();
  BuildGradients(root, 2, {{2}, {3}});  // instances 10, 11 -> 12
  ASSERT_TRUE(root.ok()) << root.status();
  ASSERT_EQ(FuseAllReduces(root.graph())->buckets, 1);
  for (int d = 0; d < 2; ++d) {
    Scope dev = root.WithDevice(Cpu(d));
    ops::CollectiveAllReduce(dev, ops::Const(dev, {1.0f}), 2, 3, 9);
    ops::CollectiveAllReduce(dev, ops::Const(dev, {2.0f}), 2, 3, 11);
  }
  ASSERT_TRUE(root.ok()) << root.status();
  ASSERT_EQ(FuseAllReduces(root.graph())->buckets, 1);
  std::set<int64_t> keys;
  for (const Node* n : root.graph()->nodes()) {
    if (n->op() != kFusedAllReduceOp) continue;
    int64_t key = 0;
    ASSERT_TRUE(n->GetAttr("instance_key", &key).ok());
    keys.insert(key);
  }
  EXPECT_EQ(keys, (std::set<int64_t>{12, 13}));
}

}  // namespace
}  // namespace dflow
