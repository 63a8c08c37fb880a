// Common subexpression elimination: what merges (equal ops, attrs,
// devices, inputs and control inputs), what never does (stateful nodes,
// reads of a variable, placeholders, two targets), which node stays, where
// control edges go, and that a session computes the same values with the
// pass on as with the graph as built.
#include "compiler/common_subexpression_elimination.h"

#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "graph/attr_value_util.h"
#include "graph/ops/ops.h"
#include "gtest/gtest.h"
#include "runtime/session.h"

namespace dflow {
namespace {

using ::testing::UnorderedElementsAre;

// `device` set: the pass as it runs on a placed partition (cse_on_device).
PassResult Cse(Graph* g, absl::flat_hash_set<std::string> protect = {},
               std::string device = "") {
  OptimizationOptions options;
  PassContext ctx;
  ctx.options = &options;
  ctx.device = std::move(device);
  ctx.protected_nodes = std::move(protect);
  absl::StatusOr<PassResult> r = EliminateCommonSubexpressions(ctx, g);
  EXPECT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(g->TopologicalOrder().ok());
  EXPECT_TRUE(g->CheckAllInputsConnected().ok());
  return r.ok() ? *r : PassResult{};
}

std::string InputName(const Graph* g, const std::string& node, int i) {
  const Node* n = g->FindNode(node);
  if (n == nullptr || n->input_edge(i) == nullptr) return "<none>";
  return n->input_edge(i)->src->name();
}

std::vector<std::string> ControlInputNames(const Graph* g,
                                           const std::string& node) {
  std::vector<std::string> out;
  for (const Edge* e : g->FindNode(node)->in_edges()) {
    if (e->IsControl()) out.push_back(e->src->name());
  }
  return out;
}

TEST(CseTest, MergesEqualConstsAndThenTheirConsumers) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  Output c1 = ops::Const(root.WithOpName("c1"), 2.0f);
  Output c2 = ops::Const(root.WithOpName("c2"), 2.0f);
  Output m1 = ops::Mul(root.WithOpName("m1"), x, c1);
  Output m2 = ops::Mul(root.WithOpName("m2"), x, c2);
  ops::Add(root.WithOpName("sum"), m1, m2);
  ASSERT_TRUE(root.ok()) << root.status();
  Graph* g = root.graph();
  const int before = g->num_nodes();
  PassResult r = Cse(g);
  EXPECT_EQ(r.changes, 2);
  EXPECT_EQ(r.what, "2 nodes merged");
  EXPECT_EQ(g->num_nodes(), before - 2);
  EXPECT_EQ(g->FindNode("c2"), nullptr);
  EXPECT_EQ(g->FindNode("m2"), nullptr);
  EXPECT_EQ(InputName(g, "m1", 1), "c1");
  EXPECT_EQ(InputName(g, "sum", 0), "m1");
  EXPECT_EQ(InputName(g, "sum", 1), "m1");
  // Nothing left to merge.
  EXPECT_EQ(Cse(g).changes, 0);
}

Node* AddNeg(Graph* g, const std::string& name) {
  NodeDef def;
  def.set_name(name);
  def.set_op("Neg");
  (*def.mutable_attr())["T"] = MakeAttr(DT_FLOAT);
  absl::StatusOr<Node*> n = g->AddNode(def);
  EXPECT_TRUE(n.ok()) << n.status();
  return n.ok() ? *n : nullptr;
}

TEST(CseTest, ConstsMergeByValueWhateverTheirEncoding) {
  // An imported GraphDef may spell 2.0f as float_val or as raw bytes.
  Graph g;
  auto add_const = [&](const std::string& name, const TensorProto& value) {
    NodeDef def;
    def.set_name(name);
    def.set_op("Const");
    (*def.mutable_attr())["dtype"] = MakeAttr(DT_FLOAT);
    *(*def.mutable_attr())["value"].mutable_tensor() = value;
    absl::StatusOr<Node*> n = g.AddNode(def);
    EXPECT_TRUE(n.ok()) << n.status();
  };
  TensorProto typed;
  typed.set_dtype(DT_FLOAT);
  typed.add_float_val(2.0f);
  TensorProto bytes;
  Tensor::Scalar(2.0f).ToProto(&bytes, /*use_tensor_content=*/true);
  TensorProto other;
  Tensor::Scalar(3.0f).ToProto(&other, /*use_tensor_content=*/true);
  ASSERT_NE(typed.SerializeAsString(), bytes.SerializeAsString());
  add_const("typed", typed);
  add_const("bytes", bytes);
  add_const("other", other);
  EXPECT_EQ(Cse(&g).changes, 1);
  EXPECT_NE(g.FindNode("typed"), nullptr);
  EXPECT_EQ(g.FindNode("bytes"), nullptr);
  EXPECT_NE(g.FindNode("other"), nullptr);
}

TEST(CseTest, KeepsTheSmallestIdWhateverTheTopologicalOrder) {
  // "late" has the smaller id, but x's edge to "early" comes first, so the
  // walk meets "early" first.
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  ASSERT_TRUE(root.ok()) << root.status();
  Graph* g = root.graph();
  Node* late = AddNeg(g, "late");
  Node* early = AddNeg(g, "early");
  ASSERT_TRUE(g->AddEdge(x.node(), 0, early, 0).ok());
  ASSERT_TRUE(g->AddEdge(x.node(), 0, late, 0).ok());
  ops::Identity(root.WithOpName("use_early"), Output(early, 0));
  ops::Identity(root.WithOpName("use_late"), Output(late, 0));
  ASSERT_TRUE(root.ok()) << root.status();
  ASSERT_LT(late->id(), early->id());
  absl::StatusOr<std::vector<Node*>> order = g->TopologicalOrder();
  ASSERT_TRUE(order.ok());
  int early_at = -1, late_at = -1;
  for (int i = 0; i < static_cast<int>(order->size()); ++i) {
    if ((*order)[i] == early) early_at = i;
    if ((*order)[i] == late) late_at = i;
  }
  ASSERT_LT(early_at, late_at);
  // use_early and use_late then merge too (use_early has the smaller id).
  EXPECT_EQ(Cse(g).changes, 2);
  EXPECT_NE(g->FindNode("late"), nullptr);
  EXPECT_EQ(g->FindNode("early"), nullptr);
  EXPECT_EQ(g->FindNode("use_late"), nullptr);
  EXPECT_EQ(InputName(g, "use_early", 0), "late");
}

TEST(CseTest, DifferentAttrsDevicesOrInputsStayApart) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  Output c = ops::Const(root.WithOpName("c"), 2.0f);
  ops::Const(root.WithOpName("c_other_value"), 3.0f);
  ops::Const(root.WithOpName("c_other_type"), 2.0);
  ops::Const(root.WithOpName("c_other_device").WithDevice("/cpu:1"), 2.0f);
  ops::Const(root.WithOpName("c_colocated").ColocateWith(x), 2.0f);
  // Mul(x, c) and Mul(c, x): the inputs differ in order.
  ops::Mul(root.WithOpName("xc"), x, c);
  ops::Mul(root.WithOpName("cx"), c, x);
  // Cast with another Truncate.
  ops::Cast(root.WithOpName("cast"), x, DT_INT32);
  ops::Cast(root.WithOpName("cast_truncate"), x, DT_INT32,
            ops::CastAttrs().Truncate(true));
  ASSERT_TRUE(root.ok()) << root.status();
  Graph* g = root.graph();
  const int before = g->num_nodes();
  PassResult r = Cse(g);
  EXPECT_EQ(r.changes, 0);
  EXPECT_EQ(r.what, "0 nodes merged");
  EXPECT_EQ(g->num_nodes(), before);
}

TEST(CseTest, ControlInputsArePartOfTheComputation) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  Operation a = ops::NoOp(root.WithOpName("a"));
  Operation b = ops::NoOp(root.WithOpName("b"));
  ops::Neg(root.WithOpName("after_a").WithControlDependencies({a}), x);
  ops::Neg(root.WithOpName("after_b").WithControlDependencies({b}), x);
  ops::Neg(root.WithOpName("after_ab").WithControlDependencies({a, b}), x);
  Output ab2 =
      ops::Neg(root.WithOpName("after_ba").WithControlDependencies({b, a}), x);
  // A control consumer of the duplicate must end up after the keeper.
  ops::NoOp(root.WithOpName("train").WithControlDependencies(ab2));
  ops::Identity(root.WithOpName("fetch"), ab2);
  ASSERT_TRUE(root.ok()) << root.status();
  Graph* g = root.graph();
  // a and b are two NoOps with no inputs: equal, so they merge first, and
  // then after_a, after_b, after_ab, after_ba all follow one NoOp.
  PassResult r = Cse(g);
  EXPECT_EQ(r.changes, 4);
  EXPECT_NE(g->FindNode("a"), nullptr);
  EXPECT_EQ(g->FindNode("b"), nullptr);
  EXPECT_NE(g->FindNode("after_a"), nullptr);
  EXPECT_EQ(g->FindNode("after_ba"), nullptr);
  EXPECT_THAT(ControlInputNames(g, "train"), UnorderedElementsAre("after_a"));
  EXPECT_EQ(InputName(g, "fetch", 0), "after_a");
  EXPECT_THAT(ControlInputNames(g, "after_a"), UnorderedElementsAre("a"));
}

TEST(CseTest, DifferentControlInputsStayApart) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  Output y = ops::Placeholder(root.WithOpName("y"), DT_FLOAT);
  Output gate = ops::Neg(root.WithOpName("gate"), y);
  ops::Neg(root.WithOpName("free"), x);
  ops::Neg(root.WithOpName("gated").WithControlDependencies(gate), x);
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_EQ(Cse(root.graph()).changes, 0);
  EXPECT_NE(root.graph()->FindNode("gated"), nullptr);
}

TEST(CseTest, NeverMergesStatefulNodesVariableReadsOrPlaceholders) {
  Scope root = Scope::NewRootScope();
  Output shape = ops::Const(root.WithOpName("shape"), {2, 2});
  Output r1 = ops::RandomUniform(root.WithOpName("r1"), shape, DT_FLOAT);
  Output r2 = ops::RandomUniform(root.WithOpName("r2"), shape, DT_FLOAT);
  Output v1 = ops::Variable(root.WithOpName("v1"), TensorShape({2}), DT_FLOAT);
  ops::Variable(root.WithOpName("v2"), TensorShape({2}), DT_FLOAT);
  // Two reads of one variable (ref input): two moments.
  ops::Identity(root.WithOpName("read1"), v1);
  ops::Identity(root.WithOpName("read2"), v1);
  ops::Placeholder(root.WithOpName("p1"), DT_FLOAT);
  ops::Placeholder(root.WithOpName("p2"), DT_FLOAT);
  // Consumers of distinct random values are distinct too.
  ops::Neg(root.WithOpName("n1"), r1);
  ops::Neg(root.WithOpName("n2"), r2);
  ASSERT_TRUE(root.ok()) << root.status();
  Graph* g = root.graph();
  const int before = g->num_nodes();
  EXPECT_EQ(Cse(g).changes, 0);
  EXPECT_EQ(g->num_nodes(), before);
  for (const char* name :
       {"r1", "r2", "v1", "v2", "read1", "read2", "p1", "p2", "n1", "n2"}) {
    EXPECT_NE(g->FindNode(name), nullptr) << name;
  }
}

TEST(CseTest, ReadsOfOneResourceVariableMergeUnlessOrderedApart) {
  Scope root = Scope::NewRootScope();
  Output v = ops::VarHandleOp(root.WithOpName("v"), DT_FLOAT, TensorShape({2}));
  Output w = ops::VarHandleOp(root.WithOpName("w"), DT_FLOAT, TensorShape({2}));
  Output r1 = ops::ReadVariableOp(root.WithOpName("r1"), v, DT_FLOAT);
  Output r2 = ops::ReadVariableOp(root.WithOpName("r2"), v, DT_FLOAT);
  // Another variable: another value.
  ops::ReadVariableOp(root.WithOpName("r_w"), w, DT_FLOAT);
  // A read ordered after a write is another moment.
  Output one = ops::Const(root.WithOpName("one"), {1.f, 1.f});
  Operation write = ops::AssignVariableOp(root.WithOpName("write"), v, one);
  ops::ReadVariableOp(root.WithOpName("r_after").WithControlDependencies(write),
                      v, DT_FLOAT);
  ops::Neg(root.WithOpName("n1"), r1);
  ops::Neg(root.WithOpName("n2"), r2);
  ASSERT_TRUE(root.ok()) << root.status();
  Graph* g = root.graph();
  // r2 joins r1, then n2 joins n1; the handles, the write and the other
  // reads stay.
  EXPECT_EQ(Cse(g).changes, 2);
  EXPECT_EQ(g->FindNode("r2"), nullptr);
  EXPECT_EQ(g->FindNode("n2"), nullptr);
  for (const char* name : {"v", "w", "r1", "r_w", "write", "r_after", "n1"}) {
    EXPECT_NE(g->FindNode(name), nullptr) << name;
  }
}

// Two towers that asked for /gpu:0 and /gpu:1 and were both placed on the
// CPU: apart before placement, one computation on the placed partition.
TEST(CseTest, OnAPlacedPartitionRequestedDevicesAndColocationNoLongerCount) {
  constexpr char kCpu[] = "/job:localhost/replica:0/task:0/device:CPU:0";
  auto build = [&](Scope& root) {
    Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
    Output c = ops::Const(root.WithOpName("c"), 2.0f);
    ops::Mul(root.WithOpName("tower0").WithDevice("/gpu:0"), x, c);
    ops::Mul(root.WithOpName("tower1").WithDevice("/gpu:1").ColocateWith(x), x,
             c);
    ASSERT_TRUE(root.ok()) << root.status();
    for (Node* n : root.graph()->nodes()) n->set_assigned_device(kCpu);
  };
  Scope before = Scope::NewRootScope();
  build(before);
  EXPECT_EQ(Cse(before.graph()).changes, 0);

  Scope placed = Scope::NewRootScope();
  build(placed);
  EXPECT_EQ(Cse(placed.graph(), {}, kCpu).changes, 1);
  EXPECT_NE(placed.graph()->FindNode("tower0"), nullptr);
  EXPECT_EQ(placed.graph()->FindNode("tower1"), nullptr);

  // Assigned devices still count: two partitions' worth of nodes on
  // different devices never merge.
  Scope split = Scope::NewRootScope();
  build(split);
  split.graph()->FindNode("tower1")->set_assigned_device(
      "/job:localhost/replica:0/task:0/device:CPU:1");
  EXPECT_EQ(Cse(split.graph(), {}, kCpu).changes, 0);
}

TEST(CseTest, AProtectedDuplicateKeepsItsName) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  Output first = ops::Neg(root.WithOpName("first"), x);
  ops::Neg(root.WithOpName("target"), x);
  ops::Identity(root.WithOpName("use_first"), first);
  ASSERT_TRUE(root.ok()) << root.status();
  Graph* g = root.graph();
  EXPECT_EQ(Cse(g, {"target"}).changes, 1);
  EXPECT_NE(g->FindNode("target"), nullptr);
  EXPECT_EQ(g->FindNode("first"), nullptr);
  EXPECT_EQ(InputName(g, "use_first", 0), "target");
}

TEST(CseTest, TwoProtectedDuplicatesBothStay) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  ops::Neg(root.WithOpName("t1"), x);
  ops::Neg(root.WithOpName("t2"), x);
  ops::Neg(root.WithOpName("t3"), x);
  ASSERT_TRUE(root.ok()) << root.status();
  Graph* g = root.graph();
  // t3 joins one of the two targets.
  EXPECT_EQ(Cse(g, {"t1", "t2"}).changes, 1);
  EXPECT_NE(g->FindNode("t1"), nullptr);
  EXPECT_NE(g->FindNode("t2"), nullptr);
  EXPECT_EQ(g->FindNode("t3"), nullptr);
}

TEST(CseTest, MergesTwoLongEqualChainsInOneWalk) {
  // Two equal chains of 20000 nodes become one: each node's key names its
  // input's class, so the second chain matches the first link by link.
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  constexpr int kLength = 20000;
  Output a = x, b = x;
  for (int i = 0; i < kLength; ++i) {
    a = ops::Neg(root.WithOpName(absl::StrCat("a", i)), a);
    b = ops::Neg(root.WithOpName(absl::StrCat("b", i)), b);
  }
  ops::Add(root.WithOpName("sum"), a, b);
  ASSERT_TRUE(root.ok()) << root.status();
  Graph* g = root.graph();
  EXPECT_EQ(Cse(g).changes, kLength);
  EXPECT_EQ(g->num_nodes(), kLength + 2);
  const std::string last = absl::StrCat("a", kLength - 1);
  EXPECT_EQ(InputName(g, "sum", 0), last);
  EXPECT_EQ(InputName(g, "sum", 1), last);
}

// --- Through a session: the pass on and off give the same values. ---

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The count a pass reported in passes.txt ("003  cse: 4 nodes merged").
int ReportedChanges(const std::string& passes, const std::string& pass) {
  const std::string tag = absl::StrCat(" ", pass, ": ");
  const size_t at = passes.find(tag);
  if (at == std::string::npos) return -1;
  const size_t start = at + tag.size();
  const size_t end = passes.find(' ', start);
  int n = -1;
  if (!absl::SimpleAtoi(passes.substr(start, end - start), &n)) return -1;
  return n;
}

TEST(CseTest, SessionComputesTheSameWithAndWithoutThePass) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT,
                              ops::PlaceholderAttrs().Shape({2, 3}));
  Output w1 = ops::Const(root.WithOpName("w1"), {1.f, 2.f, 3.f, 4.f, 5.f, 6.f},
                         TensorShape({3, 2}));
  Output w2 = ops::Const(root.WithOpName("w2"), {1.f, 2.f, 3.f, 4.f, 5.f, 6.f},
                         TensorShape({3, 2}));
  Output p1 = ops::MatMul(root.WithOpName("p1"), x, w1);
  Output p2 = ops::MatMul(root.WithOpName("p2"), x, w2);
  Output s1 = ops::Square(root.WithOpName("s1"), p1);
  Output s2 = ops::Square(root.WithOpName("s2"), p2);
  ops::Sub(root.WithOpName("diff"), s1, s2);
  ops::Add(root.WithOpName("sum"), s1, s2);
  GraphDef def;
  ASSERT_TRUE(root.ToGraphDef(&def).ok()) << root.status();

  Tensor feed =
      Tensor::FromVector<float>({1, -2, 3, 0.5f, 4, -1}, TensorShape({2, 3}));
  const std::vector<std::string> fetches = {"diff", "sum", "p2"};
  std::vector<std::vector<Tensor>> results;
  for (bool optimize : {false, true}) {
    SessionOptions options;
    options.optimize_graph = optimize;
    const char* tmp = std::getenv("TEST_TMPDIR");
    options.dump_passes_dir =
        absl::StrCat(tmp ? tmp : "/tmp", "/cse_dump_", optimize);
    absl::StatusOr<std::unique_ptr<Session>> session =
        Session::Create(def, options);
    ASSERT_TRUE(session.ok()) << session.status();
    std::vector<Tensor> out;
    absl::Status s = (*session)->Run({{"x", feed}}, fetches, {}, &out);
    ASSERT_TRUE(s.ok()) << s;
    results.push_back(out);
    if (optimize) {
      // The duplicates (w2, p2, s2) were merged in the compiled graph.
      const std::string passes =
          ReadFile(options.dump_passes_dir + "/sig_0/passes.txt");
      EXPECT_GE(ReportedChanges(passes, "cse"), 3) << passes;
    }
  }
  ASSERT_EQ(results[0].size(), 3u);
  ASSERT_EQ(results[1].size(), 3u);
  for (int i = 0; i < 3; ++i) {
    const Tensor& a = results[0][i];
    const Tensor& b = results[1][i];
    ASSERT_EQ(a.shape(), b.shape()) << fetches[i];
    for (int64_t k = 0; k < a.NumElements(); ++k) {
      EXPECT_EQ(a.flat<float>()[k], b.flat<float>()[k]) << fetches[i] << k;
    }
  }
  // diff is exactly 0 and sum twice a square.
  EXPECT_EQ(results[1][0].flat<float>()[0], 0.0f);
  EXPECT_GT(results[1][1].flat<float>()[0], 0.0f);
}

}  // namespace
}  // namespace dflow
