// The MatMul -> ApplyGradientDescent fusion: what it rewrites, what it
// leaves alone. (That the fused kernel computes the same update is checked
// by tests/training/training_test.cc, running both forms.)
#include "compiler/fuse_matmul_update.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "graph/ops/ops.h"
#include "gtest/gtest.h"

namespace dflow {
namespace {

using ::testing::ElementsAre;

struct Update {
  Output var, lr, a, b, product;
  Output apply;
};

// var [3,4] -= lr * a^T b with a [2,3], b [2,4].
Update Build(const Scope& root, const std::string& matmul_device = "") {
  Update u;
  u.var = ops::Variable(root.WithOpName("w"), TensorShape({3, 4}), DT_FLOAT);
  u.lr = ops::Const(root.WithOpName("lr"), 0.1f);
  u.a = ops::Placeholder(root.WithOpName("a"), DT_FLOAT);
  u.b = ops::Placeholder(root.WithOpName("b"), DT_FLOAT);
  u.product = ops::MatMul(root.WithOpName("grad").WithDevice(matmul_device),
                          u.a, u.b, ops::MatMulAttrs().TransposeA(true));
  u.apply = OpBuilder(root.WithOpName("update"), "ApplyGradientDescent")
                .Input(u.var)
                .Input(u.lr)
                .Input(u.product)
                .Finalize();
  ops::NoOp(root.WithOpName("train").WithControlDependencies(u.apply));
  return u;
}

TEST(FuseMatMulUpdateTest, FusesAProductFeedingOnlyTheUpdate) {
  Scope root = Scope::NewRootScope();
  Build(root);
  ASSERT_TRUE(root.ok()) << root.status();
  Graph* g = root.graph();
  absl::StatusOr<int> fused = FuseMatMulIntoGradientDescent(g);
  ASSERT_TRUE(fused.ok()) << fused.status();
  EXPECT_EQ(*fused, 1);
  EXPECT_EQ(g->FindNode("grad"), nullptr);
  Node* update = g->FindNode("update");
  ASSERT_NE(update, nullptr);
  EXPECT_EQ(update->op(), kFusedMatMulApplyGradientDescentOp);
  std::vector<std::string> inputs;
  for (int i = 0; i < update->num_inputs(); ++i) {
    inputs.push_back(update->input_edge(i)->src->name());
  }
  EXPECT_THAT(inputs, ElementsAre("w", "lr", "a", "b"));
  bool ta = false, tb = true;
  ASSERT_TRUE(update->GetAttr("transpose_a", &ta).ok());
  ASSERT_TRUE(update->GetAttr("transpose_b", &tb).ok());
  EXPECT_TRUE(ta);
  EXPECT_FALSE(tb);
  // The control edge to "train" survived.
  Node* train = g->FindNode("train");
  ASSERT_EQ(train->in_edges().size(), 1u);
  EXPECT_EQ(train->in_edges()[0]->src, update);
  EXPECT_TRUE(g->TopologicalOrder().ok());
}

TEST(FuseMatMulUpdateTest, LeavesAProductWithAnotherConsumer) {
  Scope root = Scope::NewRootScope();
  Update u = Build(root);
  ops::Identity(root.WithOpName("fetch_grad"), u.product);
  absl::StatusOr<int> fused = FuseMatMulIntoGradientDescent(root.graph());
  ASSERT_TRUE(fused.ok()) << fused.status();
  EXPECT_EQ(*fused, 0);
  EXPECT_EQ(root.graph()->FindNode("update")->op(), "ApplyGradientDescent");
}

TEST(FuseMatMulUpdateTest, LeavesAProductOnAnotherDevice) {
  // A tower's gradient on its GPU stays there.
  Scope root = Scope::NewRootScope();
  Build(root, "/gpu:1");
  absl::StatusOr<int> fused = FuseMatMulIntoGradientDescent(root.graph());
  ASSERT_TRUE(fused.ok()) << fused.status();
  EXPECT_EQ(*fused, 0);
}

// The product reaches the update through a gradient gate (GATE_OP): an
// Identity waiting for a NoOp that runs after this gradient and another
// one, which reads the variable. The fused update takes the gate's control
// edge, so it still starts after that read; the gate no longer waits for
// the product.
TEST(FuseMatMulUpdateTest, FusesThroughAGradientGateKeepingItsWait) {
  Scope root = Scope::NewRootScope();
  Update u;
  u.var = ops::Variable(root.WithOpName("w"), TensorShape({3, 4}), DT_FLOAT);
  u.lr = ops::Const(root.WithOpName("lr"), 0.1f);
  u.a = ops::Placeholder(root.WithOpName("a"), DT_FLOAT);
  u.b = ops::Placeholder(root.WithOpName("b"), DT_FLOAT);
  u.product = ops::MatMul(root.WithOpName("grad"), u.a, u.b,
                          ops::MatMulAttrs().TransposeA(true));
  Output other = ops::MatMul(root.WithOpName("other_grad"), u.b, u.var,
                             ops::MatMulAttrs().TransposeB(true));
  Operation gate = ops::NoOp(root.WithOpName("tuple/group_deps")
                                 .WithControlDependencies(
                                     {u.product.op(), other.op()}));
  Output gated = ops::Identity(
      root.WithOpName("tuple/control_dependency").WithControlDependencies(gate),
      u.product);
  ops::Identity(
      root.WithOpName("tuple/control_dependency_1").WithControlDependencies(gate),
      other);
  OpBuilder(root.WithOpName("update"), "ApplyGradientDescent")
      .Input(u.var)
      .Input(u.lr)
      .Input(gated)
      .Finalize();
  ASSERT_TRUE(root.ok()) << root.status();
  Graph* g = root.graph();
  absl::StatusOr<int> fused = FuseMatMulIntoGradientDescent(g);
  ASSERT_TRUE(fused.ok()) << fused.status();
  EXPECT_EQ(*fused, 1);
  EXPECT_EQ(g->FindNode("grad"), nullptr);
  EXPECT_EQ(g->FindNode("tuple/control_dependency"), nullptr);
  Node* update = g->FindNode("update");
  ASSERT_NE(update, nullptr);
  EXPECT_EQ(update->op(), kFusedMatMulApplyGradientDescentOp);
  std::vector<std::string> control_in;
  for (const Edge* e : update->in_edges()) {
    if (e->IsControl()) control_in.push_back(e->src->name());
  }
  EXPECT_THAT(control_in, ElementsAre("tuple/group_deps"));
  std::vector<std::string> gate_waits;
  for (const Edge* e : g->FindNode("tuple/group_deps")->in_edges()) {
    gate_waits.push_back(e->src->name());
  }
  EXPECT_THAT(gate_waits, ElementsAre("other_grad"));
  EXPECT_TRUE(g->TopologicalOrder().ok());
}

TEST(FuseMatMulUpdateTest, LeavesAGatedProductSomethingElseWaitsFor) {
  // A NoOp the update does not wait for (a target of the user's) needs the
  // product computed: no fusion.
  Scope root = Scope::NewRootScope();
  Update u = Build(root);
  ops::NoOp(root.WithOpName("after_grad").WithControlDependencies(
      u.product.op()));
  absl::StatusOr<int> fused = FuseMatMulIntoGradientDescent(root.graph());
  ASSERT_TRUE(fused.ok()) << fused.status();
  EXPECT_EQ(*fused, 0);
}

}  // namespace
}  // namespace dflow
