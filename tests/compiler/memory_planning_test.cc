// Memory planning: which nodes may forward an input's buffer, and the
// planned peak on graphs whose figures are computed by hand below.
#include "compiler/memory_planning.h"

#include <string>
#include <vector>

#include "compiler/prune.h"
#include "gmock/gmock.h"
#include "graph/ops/ops.h"
#include "gtest/gtest.h"

namespace dflow {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// _Arg as pruning makes it (the op is registered by runtime/call_frame.cc).
Output Arg(const Scope& root, const std::string& name, int index,
           const TensorShape& shape, const TensorShape* hint = nullptr) {
  OpBuilder b(root.WithOpName(name), kArgOp);
  b.Attr("T", DT_FLOAT).Attr("index", index).Attr("shape", shape);
  if (hint != nullptr) b.Attr(kFeedShapeHintAttr, *hint);
  return b.Finalize();
}

Output Retval(const Scope& root, const std::string& name, int index,
              const Output& x, DataType type = DT_FLOAT) {
  return OpBuilder(root.WithOpName(name), kRetvalOp)
      .Input(x)
      .Attr("T", type)
      .Attr("index", index)
      .Finalize();
}

// The planned input of each output, or nothing when unmarked.
std::vector<int64_t> Plan(const Graph& g, const std::string& node) {
  std::vector<int64_t> plan;
  const Node* n = g.FindNode(node);
  if (n == nullptr) return {-2};
  if (const AttrValue* a = n->FindAttr(kForwardInputAttr)) {
    for (int64_t k : a->list().i()) plan.push_back(k);
  }
  return plan;
}

PassContext Cpu(const OptimizationOptions& options) {
  PassContext ctx;
  ctx.options = &options;
  ctx.device = "/job:localhost/replica:0/task:0/device:CPU:0";
  ctx.device_type = "CPU";
  return ctx;
}

TEST(MemoryPlanningTest, MarksElementwiseOpsOnTheInputWithTheOutputsShape) {
  Scope root = Scope::NewRootScope();
  Output x = Arg(root, "x", 0, TensorShape({4, 3}));
  Output b = Arg(root, "b", 1, TensorShape({3}));
  Output e = ops::Exp(root.WithOpName("exp"), x);
  Output sum = ops::Add(root.WithOpName("add"), e, b);      // x-shaped: 0
  Output rsum = ops::Add(root.WithOpName("radd"), b, sum);  // broadcast: 1
  Output biased = ops::BiasAdd(root.WithOpName("bias"), rsum, b);
  Output relu = ops::Relu(root.WithOpName("relu"), biased);
  Output mm = ops::MatMul(root.WithOpName("matmul"), relu, relu,
                          ops::MatMulAttrs().TransposeB(true));
  Output cast = ops::Cast(root.WithOpName("cast"), mm, DT_INT32);
  Output less = ops::Less(root.WithOpName("less"), mm, mm);
  Retval(root, "r0", 0, cast, DT_INT32);
  Retval(root, "r1", 1, less, DT_BOOL);
  ASSERT_TRUE(root.ok()) << root.status();
  Graph* g = root.graph();

  absl::StatusOr<MemoryPlan> plan = PlanMemory(g, /*mark_forwarding=*/true);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_THAT(Plan(*g, "exp"), ElementsAre(0));
  EXPECT_THAT(Plan(*g, "add"), ElementsAre(0));
  EXPECT_THAT(Plan(*g, "radd"), ElementsAre(1));
  EXPECT_THAT(Plan(*g, "bias"), ElementsAre(0));
  EXPECT_THAT(Plan(*g, "relu"), ElementsAre(0));
  // Not element-wise, another dtype, a bool result, feeds and fetches.
  EXPECT_THAT(Plan(*g, "matmul"), ElementsAre());
  EXPECT_THAT(Plan(*g, "cast"), ElementsAre());
  EXPECT_THAT(Plan(*g, "less"), ElementsAre());
  EXPECT_THAT(Plan(*g, "x"), ElementsAre());
  EXPECT_THAT(Plan(*g, "r0"), ElementsAre());
  EXPECT_EQ(plan->nodes_marked, 5);
}

TEST(MemoryPlanningTest, NeverMarksAVariablesReference) {
  Scope root = Scope::NewRootScope();
  Output v = ops::Variable(root.WithOpName("v"), TensorShape({2, 2}), DT_FLOAT);
  Output y = Arg(root, "y", 0, TensorShape({2, 2}));
  Output c = ops::Const(root.WithOpName("c"), {1.f, 2.f, 3.f, 4.f},
                        TensorShape({2, 2}));
  ops::Add(root.WithOpName("var_y"), v, y);  // the variable is input 0
  ops::Neg(root.WithOpName("neg_var"), v);
  // A Const is marked: it is held by its kernel, so the runtime never
  // takes its buffer (tests/runtime/inplace_forwarding_test.cc).
  ops::Neg(root.WithOpName("neg_const"), c);
  ASSERT_TRUE(root.ok()) << root.status();
  Graph* g = root.graph();
  ASSERT_TRUE(PlanMemory(g, true).ok());
  EXPECT_THAT(Plan(*g, "var_y"), ElementsAre(1));
  EXPECT_THAT(Plan(*g, "neg_var"), ElementsAre());
  EXPECT_THAT(Plan(*g, "neg_const"), ElementsAre(0));
}

// x [10,10] float (400 bytes, a feed: not counted)
//   e = Exp(x)         new buffer E (400)          live 400
//   n = Neg(e)         takes E (its last reader)   live 400
//   s = Square(n)      n has another reader: S     live 800
//   t = Sqrt(n)        last reader of E: takes it  live 800
//   m = Mul(s, t)      takes S; E freed            live 400
//   _Retval(m)         S held until the run returns
Graph* Diamond(Scope* root) {
  Output x = Arg(*root, "x", 0, TensorShape({10, 10}));
  Output e = ops::Exp(root->WithOpName("e"), x);
  Output n = ops::Neg(root->WithOpName("n"), e);
  Output s = ops::Square(root->WithOpName("s"), n);
  Output t = ops::Sqrt(root->WithOpName("t"), n);
  Output m = ops::Mul(root->WithOpName("m"), s, t);
  Retval(*root, "r", 0, m);
  return root->graph();
}

TEST(MemoryPlanningTest, PeakOfADiamondWithForwarding) {
  Scope root = Scope::NewRootScope();
  Graph* g = Diamond(&root);
  ASSERT_TRUE(root.ok()) << root.status();
  absl::StatusOr<MemoryPlan> plan = PlanMemory(g, true);
  ASSERT_TRUE(plan.ok()) << plan.status();
  ASSERT_TRUE(plan->sizes_known) << plan->unknown_reason;
  EXPECT_EQ(plan->tensors, 2);
  EXPECT_EQ(plan->forwarded, 3);
  EXPECT_EQ(plan->peak_bytes, 800);
  EXPECT_EQ(plan->no_reuse_bytes, 800);
  // S is fetched (it leaves the step, so it is the allocator's): the arena
  // holds E alone, 400 bytes rounded up to 64-byte alignment.
  EXPECT_EQ(plan->arena_bytes, 448);
}

// Without forwarding: E(400) n: N(400) s: S t: T m: M
//   after e 400; n 800, E freed 400; s 800; t 1200, N freed 800;
//   m 1200, S and T freed 400.
TEST(MemoryPlanningTest, PeakOfADiamondWithoutForwarding) {
  Scope root = Scope::NewRootScope();
  Graph* g = Diamond(&root);
  ASSERT_TRUE(root.ok()) << root.status();
  absl::StatusOr<MemoryPlan> plan = PlanMemory(g, false);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->nodes_marked, 0);
  EXPECT_EQ(plan->forwarded, 0);
  EXPECT_EQ(plan->tensors, 5);
  EXPECT_EQ(plan->peak_bytes, 1200);
  EXPECT_EQ(plan->no_reuse_bytes, 2000);
  // M is fetched: not in the arena. E [e,n] and S [s,m] never overlap, so
  // they share one region; N and T have one each.
  EXPECT_EQ(plan->arena_bytes, 3 * 448);
}

TEST(MemoryPlanningTest, AliasesCostNothingAndKeepTheirBufferAlive) {
  Scope root = Scope::NewRootScope();
  Output x = Arg(root, "x", 0, TensorShape({10, 10}));
  Output e = ops::Exp(root.WithOpName("e"), x);
  Output view = ops::Identity(root.WithOpName("view"), e);
  // e has two readers (view, neg): neg cannot take it, and the view keeps
  // it alive until sq read it.
  Output neg = ops::Neg(root.WithOpName("neg"), e);
  Output sq = ops::Square(root.WithOpName("sq"), view);
  Retval(root, "r0", 0, neg);
  Retval(root, "r1", 1, sq);
  ASSERT_TRUE(root.ok()) << root.status();
  absl::StatusOr<MemoryPlan> plan = PlanMemory(root.graph(), true);
  ASSERT_TRUE(plan.ok()) << plan.status();
  // E, then neg's buffer while E lives, then sq takes E (view's last read).
  EXPECT_EQ(plan->tensors, 2);
  EXPECT_EQ(plan->forwarded, 1);
  EXPECT_EQ(plan->peak_bytes, 800);
}

TEST(MemoryPlanningTest, UnknownSizesGiveNoFigureAndSayWhy) {
  Scope root = Scope::NewRootScope();
  Output x = Arg(root, "x", 0, TensorShape::Unknown());
  Retval(root, "r", 0, ops::Exp(root.WithOpName("e"), x));
  ASSERT_TRUE(root.ok()) << root.status();
  OptimizationOptions options;
  absl::StatusOr<PassResult> result =
      RunMemoryPlanning(Cpu(options), root.graph());
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_TRUE(result->figures.empty());
  EXPECT_THAT(result->what, HasSubstr("node 'e' (Exp) output 0"));
  EXPECT_THAT(result->what, HasSubstr("unknown size"));
  // Forwarding is still marked: the runtime checks sizes itself.
  EXPECT_THAT(Plan(*root.graph(), "e"), ElementsAre(0));
}

TEST(MemoryPlanningTest, FeedShapeHintSizesTheFigureOnlyAndIsNotLeftBehind) {
  Scope root = Scope::NewRootScope();
  const TensorShape hint({5, 20});
  Output x = Arg(root, "x", 0, TensorShape({-1, 20}), &hint);
  Retval(root, "r", 0,
         ops::Neg(root.WithOpName("n"), ops::Exp(root.WithOpName("e"), x)));
  ASSERT_TRUE(root.ok()) << root.status();
  Graph* g = root.graph();
  const std::vector<TensorShape> before = g->FindNode("e")->output_shapes();
  OptimizationOptions options;
  absl::StatusOr<PassResult> result = RunMemoryPlanning(Cpu(options), g);
  ASSERT_TRUE(result.ok()) << result.status();
  // One buffer of 5 * 20 floats; Neg takes it.
  ASSERT_EQ(result->figures.size(), 2u);
  EXPECT_EQ(result->figures[0].first, "planned_peak_bytes");
  EXPECT_EQ(result->figures[0].second, 400);
  EXPECT_EQ(result->figures[1].first, "arena_bytes");
  EXPECT_EQ(result->figures[1].second, 0);  // fetched: the allocator's
  EXPECT_THAT(result->what, HasSubstr("1 tensors, 1 forwarded in place"));
  EXPECT_EQ(g->FindNode("e")->output_shapes(), before);
  EXPECT_FALSE(g->FindNode("x")->output_shape(0).IsFullyDefined());
}

TEST(MemoryPlanningTest, MarksNothingOffTheCpu) {
  Scope root = Scope::NewRootScope();
  Output x = Arg(root, "x", 0, TensorShape({4}));
  Retval(root, "r", 0, ops::Exp(root.WithOpName("e"), x));
  ASSERT_TRUE(root.ok()) << root.status();
  OptimizationOptions options;
  PassContext ctx = Cpu(options);
  ctx.device_type = "GPU";
  absl::StatusOr<PassResult> result = RunMemoryPlanning(ctx, root.graph());
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->changes, 0);
  EXPECT_THAT(Plan(*root.graph(), "e"), ElementsAre());
  ASSERT_EQ(result->figures.size(), 2u);
  EXPECT_EQ(result->figures[0].second, 16);
}

}  // namespace
}  // namespace dflow
