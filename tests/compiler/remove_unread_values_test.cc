// Removing stateless nodes whose outputs feed only control edges: the
// gradient `tuple` pattern, cascades, what is never removed, and that a
// session computes the same with the pass as without.
#include "compiler/remove_unread_values.h"

#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "graph/ops/ops.h"
#include "gtest/gtest.h"
#include "runtime/session.h"

namespace dflow {
namespace {

using ::testing::HasSubstr;
using ::testing::UnorderedElementsAre;

PassResult Remove(Graph* g, absl::flat_hash_set<std::string> protect = {}) {
  OptimizationOptions options;
  PassContext ctx;
  ctx.options = &options;
  ctx.protected_nodes = std::move(protect);
  absl::StatusOr<PassResult> r = RemoveUnreadValues(ctx, g);
  EXPECT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(g->TopologicalOrder().ok());
  EXPECT_TRUE(g->CheckAllInputsConnected().ok());
  return r.ok() ? *r : PassResult{};
}

std::vector<std::string> ControlInputNames(const Graph* g,
                                           const std::string& node) {
  std::vector<std::string> out;
  for (const Edge* e : g->FindNode(node)->in_edges()) {
    if (e->IsControl()) out.push_back(e->src->name());
  }
  return out;
}

// TensorFlow's MatMul gradient: both products joined by a tuple. Only dW
// is read; dX (the input's gradient) feeds just the tuple's NoOp.
struct MatMulGradient {
  Scope root = Scope::NewRootScope();
  void Build() {
    Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT,
                                ops::PlaceholderAttrs().Shape({2, 3}));
    Output w = ops::Const(root.WithOpName("w"), {1.f, 2.f, 3.f, 4.f, 5.f, 6.f},
                          TensorShape({3, 2}));
    Output dy = ops::Placeholder(root.WithOpName("dy"), DT_FLOAT,
                                 ops::PlaceholderAttrs().Shape({2, 2}));
    Output dx = ops::MatMul(root.WithOpName("dx"), dy, w,
                            ops::MatMulAttrs().TransposeB(true));
    Output dw = ops::MatMul(root.WithOpName("dw"), x, dy,
                            ops::MatMulAttrs().TransposeA(true));
    Operation group =
        ops::NoOp(root.WithOpName("group_deps")
                      .WithControlDependencies({dx.op(), dw.op()}));
    ops::Identity(root.WithOpName("dw_out").WithControlDependencies({group}),
                  dw);
  }
};

TEST(RemoveUnreadValuesTest, DropsTheUnreadProductOfAGradientTuple) {
  MatMulGradient m;
  m.Build();
  ASSERT_TRUE(m.root.ok()) << m.root.status();
  Graph* g = m.root.graph();
  PassResult r = Remove(g);
  // dx goes, and then w, which only dx read.
  EXPECT_EQ(r.changes, 2);
  EXPECT_EQ(r.what, "2 nodes whose values nobody reads (Const x1, MatMul x1)");
  EXPECT_EQ(g->FindNode("dx"), nullptr);
  EXPECT_EQ(g->FindNode("w"), nullptr);
  ASSERT_NE(g->FindNode("dw"), nullptr);
  // The NoOp still runs after what dx ran after (dy is fed by name).
  EXPECT_THAT(ControlInputNames(g, "group_deps"),
              UnorderedElementsAre("dw", "dy"));
  EXPECT_EQ(Remove(g).changes, 0);
}

TEST(RemoveUnreadValuesTest, RemovalCascadesToInputsLeftUnread) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  Output c = ops::Const(root.WithOpName("c"), 2.0f);
  Output m = ops::Mul(root.WithOpName("m"), x, c);
  Output n = ops::Neg(root.WithOpName("n"), m);
  ops::Identity(root.WithOpName("out").WithControlDependencies(n), x);
  ASSERT_TRUE(root.ok()) << root.status();
  Graph* g = root.graph();
  PassResult r = Remove(g);
  EXPECT_EQ(r.changes, 3);
  EXPECT_EQ(r.what,
            "3 nodes whose values nobody reads (Const x1, Mul x1, "
            "Neg x1)");
  EXPECT_EQ(g->FindNode("n"), nullptr);
  EXPECT_EQ(g->FindNode("m"), nullptr);
  EXPECT_EQ(g->FindNode("c"), nullptr);
  // The placeholder stays (each is fed by name) and keeps the order.
  EXPECT_THAT(ControlInputNames(g, "out"), UnorderedElementsAre("x"));
}

// An initializer: Assign is not a stateful op in TensorFlow's schema, but
// it writes the variable through its ref input.
TEST(RemoveUnreadValuesTest, KeepsAssignmentsThroughRefs) {
  Scope root = Scope::NewRootScope();
  Output v = ops::Variable(root.WithOpName("v"), TensorShape({2}), DT_FLOAT);
  Output value =
      ops::Const(root.WithOpName("value"), {1.f, 2.f}, TensorShape({2}));
  Output assign = ops::Assign(root.WithOpName("assign"), v, value);
  ops::NoOp(root.WithOpName("init").WithControlDependencies(assign));
  ASSERT_TRUE(root.ok()) << root.status();
  ASSERT_FALSE(assign.node()->IsStateful());
  EXPECT_EQ(Remove(root.graph()).changes, 0);
  EXPECT_NE(root.graph()->FindNode("assign"), nullptr);
}

TEST(RemoveUnreadValuesTest, KeepsEffectsTargetsNoOpsAndDataReads) {
  Scope root = Scope::NewRootScope();
  Output shape = ops::Const(root.WithOpName("shape"), {2}, TensorShape({1}));
  Output random =
      ops::RandomUniform(root.WithOpName("random"), shape, DT_FLOAT);
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  Output target = ops::Neg(root.WithOpName("target"), x);
  Output read = ops::Square(root.WithOpName("read"), x);
  Operation noop = ops::NoOp(root.WithOpName("noop"));
  ops::Identity(root.WithOpName("out").WithControlDependencies(
                    {random.op(), target.op(), noop}),
                read);
  ASSERT_TRUE(root.ok()) << root.status();
  Graph* g = root.graph();
  PassResult r = Remove(g, {"target"});
  EXPECT_EQ(r.changes, 0);
  for (const char* name : {"shape", "random", "target", "read", "noop"}) {
    EXPECT_NE(g->FindNode(name), nullptr) << name;
  }
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(RemoveUnreadValuesTest, SessionComputesTheSameWithAndWithoutThePass) {
  MatMulGradient m;
  m.Build();
  GraphDef def;
  ASSERT_TRUE(m.root.ToGraphDef(&def).ok()) << m.root.status();
  const Tensor x =
      Tensor::FromVector<float>({1, -2, 3, 0.5f, 4, -1}, TensorShape({2, 3}));
  const Tensor dy =
      Tensor::FromVector<float>({0.5f, -1, 2, 0.25f}, TensorShape({2, 2}));
  std::vector<std::vector<Tensor>> results;
  for (bool optimize : {false, true}) {
    SessionOptions options;
    options.optimize_graph = optimize;
    const char* tmp = std::getenv("TEST_TMPDIR");
    options.dump_passes_dir =
        absl::StrCat(tmp ? tmp : "/tmp", "/unread_dump_", optimize);
    absl::StatusOr<std::unique_ptr<Session>> session =
        Session::Create(def, options);
    ASSERT_TRUE(session.ok()) << session.status();
    std::vector<Tensor> out;
    absl::Status s =
        (*session)->Run({{"x", x}, {"dy", dy}}, {"dw_out"}, {}, &out);
    ASSERT_TRUE(s.ok()) << s;
    results.push_back(out);
    if (optimize) {
      EXPECT_THAT(ReadFile(options.dump_passes_dir + "/sig_0/passes.txt"),
                  HasSubstr("remove_unread_values: 2 nodes whose values "
                            "nobody reads (Const x1, MatMul x1)"));
    }
  }
  ASSERT_EQ(results[0].size(), 1u);
  ASSERT_EQ(results[1].size(), 1u);
  ASSERT_EQ(results[0][0].shape(), TensorShape({3, 2}));
  for (int64_t k = 0; k < 6; ++k) {
    EXPECT_EQ(results[0][0].flat<float>()[k], results[1][0].flat<float>()[k]);
  }
  // dW = x^T dy: its first entry is 1*0.5 + 0.5*2.
  EXPECT_FLOAT_EQ(results[1][0].flat<float>()[0], 1.5f);
}

}  // namespace
}  // namespace dflow
