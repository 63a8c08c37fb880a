// The element-wise fusion: which trees it finds, the program it writes,
// what it leaves alone. (The kernel against the unfused kernels, and
// sessions with the pass on and off, are in tests/kernels/
// fused_kernels_test.cc.)
#include "compiler/fuse_elementwise.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "graph/ops/ops.h"
#include "gtest/gtest.h"

namespace dflow {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::UnorderedElementsAre;

PassContext Cpu(const OptimizationOptions& options,
                absl::flat_hash_set<std::string> protected_nodes = {}) {
  PassContext ctx;
  ctx.options = &options;
  ctx.device = "/job:localhost/replica:0/task:0/device:CPU:0";
  ctx.device_type = "CPU";
  ctx.protected_nodes = std::move(protected_nodes);
  return ctx;
}

PassResult RunPass(const PassContext& ctx, Graph* g) {
  absl::StatusOr<PassResult> r = FuseElementwise(ctx, g);
  EXPECT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(g->TopologicalOrder().ok());
  return r.ok() ? *r : PassResult{};
}

std::vector<std::string> InputNames(const Node* n) {
  std::vector<std::string> names;
  for (int i = 0; i < n->num_inputs(); ++i) {
    names.push_back(n->input_edge(i)->src->name());
  }
  return names;
}

Output Input(const Scope& root, const std::string& name,
             const TensorShape& shape, DataType type = DT_FLOAT) {
  return ops::Placeholder(root.WithOpName(name), type,
                          ops::PlaceholderAttrs().Shape(shape));
}

TEST(FuseElementwiseTest, FusesATreeIntoOneProgram) {
  // y = Relu(x * 2 + z) - Exp(z), x and z [8,4], 2 a scalar.
  Scope root = Scope::NewRootScope();
  auto x = Input(root, "x", {8, 4});
  auto z = Input(root, "z", {8, 4});
  auto two = ops::Const(root.WithOpName("two"), 2.0f);
  auto before = ops::NoOp(root.WithOpName("before"));
  auto mul = ops::Mul(root.WithOpName("mul").WithControlDependencies({before}),
                      x, two);
  auto add = ops::AddV2(root.WithOpName("add"), mul, z);
  auto relu = ops::Relu(root.WithOpName("relu"), add);
  auto exp = ops::Exp(root.WithOpName("exp"), z);
  auto y = ops::Sub(root.WithOpName("y"), relu, exp);
  ops::Identity(root.WithOpName("out"), y);
  ops::NoOp(root.WithOpName("after").WithControlDependencies(y));
  ASSERT_TRUE(root.ok()) << root.status();
  Graph* g = root.graph();
  OptimizationOptions options;
  PassResult r = RunPass(Cpu(options), g);
  EXPECT_EQ(r.changes, 1);
  EXPECT_EQ(r.what, "1 chain of 5 ops fused");
  for (const char* gone : {"mul", "add", "relu", "exp"}) {
    EXPECT_EQ(g->FindNode(gone), nullptr) << gone;
  }
  Node* fused = g->FindNode("y");
  ASSERT_NE(fused, nullptr);
  ASSERT_EQ(fused->op(), kFusedElementwiseOp);
  EXPECT_THAT(InputNames(fused), ElementsAre("x", "two", "z"));
  std::vector<std::string> program;
  std::vector<int64_t> operands;
  ASSERT_TRUE(fused->GetAttr("ops", &program).ok());
  ASSERT_TRUE(fused->GetAttr("operands", &operands).ok());
  // Post-order from the root: inputs 0..2, results 3..7.
  EXPECT_THAT(program, ElementsAre("Mul", "AddV2", "Relu", "Exp", "Sub"));
  EXPECT_THAT(operands, ElementsAre(0, 1, 3, 2, 4, 2, 5, 6));
  std::vector<std::string> control_in, out;
  for (const Edge* e : fused->in_edges()) {
    if (e->IsControl()) control_in.push_back(e->src->name());
  }
  for (const Edge* e : fused->out_edges()) out.push_back(e->dst->name());
  EXPECT_THAT(control_in, ElementsAre("before"));
  EXPECT_THAT(out, UnorderedElementsAre("out", "after"));
  EXPECT_EQ(fused->output_shape(0), TensorShape({8, 4}));
}

TEST(FuseElementwiseTest, AResultReadTwiceByOneOpIsInside) {
  // Mul(e, e) with e = Exp(x): one input, two ops.
  Scope root = Scope::NewRootScope();
  auto x = Input(root, "x", {16});
  auto e = ops::Exp(root.WithOpName("e"), x);
  ops::Mul(root.WithOpName("sq"), e, e);
  Graph* g = root.graph();
  OptimizationOptions options;
  EXPECT_EQ(RunPass(Cpu(options), g).what, "1 chain of 2 ops fused");
  Node* fused = g->FindNode("sq");
  std::vector<int64_t> operands;
  ASSERT_TRUE(fused->GetAttr("operands", &operands).ok());
  EXPECT_THAT(InputNames(fused), ElementsAre("x"));
  EXPECT_THAT(operands, ElementsAre(0, 1, 1));
}

TEST(FuseElementwiseTest, AResultWithAnotherReaderEndsATree) {
  // t = Tanh(Neg(x)) is read by Square and by "fetch": Neg+Tanh is one
  // tree (rooted at t), Square+Sqrt another that reads t.
  Scope root = Scope::NewRootScope();
  auto x = Input(root, "x", {4, 4});
  auto t = ops::Tanh(root.WithOpName("t"), ops::Neg(root.WithOpName("n"), x));
  ops::Identity(root.WithOpName("fetch"), t);
  ops::Sqrt(root.WithOpName("s"), ops::Square(root.WithOpName("q"), t));
  Graph* g = root.graph();
  OptimizationOptions options;
  EXPECT_EQ(RunPass(Cpu(options), g).what, "2 chains of 4 ops fused");
  EXPECT_EQ(g->FindNode("t")->op(), kFusedElementwiseOp);
  EXPECT_EQ(g->FindNode("s")->op(), kFusedElementwiseOp);
  EXPECT_EQ(g->FindNode("s")->input_edge(0)->src, g->FindNode("t"));
}

TEST(FuseElementwiseTest, ProtectedOrControlledResultsEndATree) {
  for (const bool use_protection : {true, false}) {
    Scope root = Scope::NewRootScope();
    auto x = Input(root, "x", {4});
    auto n = ops::Neg(root.WithOpName("n"), x);
    if (!use_protection) {
      ops::NoOp(root.WithOpName("after").WithControlDependencies(n));
    }
    ops::Exp(root.WithOpName("e"), n);
    OptimizationOptions options;
    PassResult r = RunPass(use_protection ? Cpu(options, {"n"}) : Cpu(options),
                           root.graph());
    EXPECT_EQ(r.changes, 0) << use_protection;
    EXPECT_EQ(root.graph()->FindNode("n")->op(), "Neg");
  }
}

TEST(FuseElementwiseTest, BroadcastsOtherThanScalarsAreLeftAlone) {
  // [4,1] + [1,3] broadcasts to [4,3]; [3] repeats over rows: neither is
  // a scalar, so those ops stay; Neg of the [4,3] result and the Exp
  // after it fuse on their own.
  Scope root = Scope::NewRootScope();
  auto col = Input(root, "col", {4, 1});
  auto row = Input(root, "row", {1, 3});
  auto vec = Input(root, "vec", {3});
  auto sum = ops::AddV2(root.WithOpName("sum"), col, row);
  auto scaled = ops::Mul(root.WithOpName("scaled"), sum, vec);
  ops::Exp(root.WithOpName("e"), ops::Neg(root.WithOpName("n"), scaled));
  Graph* g = root.graph();
  OptimizationOptions options;
  EXPECT_EQ(RunPass(Cpu(options), g).what, "1 chain of 2 ops fused");
  EXPECT_EQ(g->FindNode("sum")->op(), "AddV2");
  EXPECT_EQ(g->FindNode("scaled")->op(), "Mul");
  EXPECT_EQ(g->FindNode("e")->op(), kFusedElementwiseOp);
}

TEST(FuseElementwiseTest, ScalarsOfHigherRankAndUnknownShapesAreLeftAlone) {
  Scope root = Scope::NewRootScope();
  // [1,1] * [3] is [1,3]: the one-element operand changes the rank.
  auto v = Input(root, "v", {3});
  auto one = Input(root, "one", {1, 1});
  ops::Neg(root.WithOpName("n1"), ops::Mul(root.WithOpName("m1"), v, one));
  // Unknown dimensions: nothing is known to match.
  auto u = Input(root, "u", TensorShape({-1, 3}));
  ops::Neg(root.WithOpName("n2"), ops::Exp(root.WithOpName("e2"), u));
  Graph* g = root.graph();
  OptimizationOptions options;
  EXPECT_EQ(RunPass(Cpu(options), g).changes, 0);
}

TEST(FuseElementwiseTest, ScalarChainsAndScalarOperandsFuse) {
  // Exp(s) * x - 1 with s [] and the constant [1] (rank 1 <= rank 2).
  Scope root = Scope::NewRootScope();
  auto x = Input(root, "x", {2, 5});
  auto s = Input(root, "s", {});
  auto one = ops::Const(root.WithOpName("one"), {1.0f});
  auto y =
      ops::Sub(root.WithOpName("y"), ops::Mul(root, ops::Exp(root, s), x), one);
  Graph* g = root.graph();
  OptimizationOptions options;
  EXPECT_EQ(RunPass(Cpu(options), g).what, "1 chain of 3 ops fused");
  EXPECT_EQ(g->FindNode("y")->op(), kFusedElementwiseOp);
  EXPECT_EQ(g->FindNode("y")->output_shape(0), TensorShape({2, 5}));
  (void)y;
}

TEST(FuseElementwiseTest, MixedTypesAndIntegersAreLeftAlone) {
  Scope root = Scope::NewRootScope();
  auto i = Input(root, "i", {4}, DT_INT32);
  ops::Neg(root.WithOpName("n"), ops::Square(root.WithOpName("q"), i));
  auto d = Input(root, "d", {4}, DT_DOUBLE);
  auto f = ops::Cast(root.WithOpName("c"), ops::Exp(root.WithOpName("e"), d),
                     DT_FLOAT);
  ops::Neg(root.WithOpName("nf"), f);
  Graph* g = root.graph();
  OptimizationOptions options;
  EXPECT_EQ(RunPass(Cpu(options), g).changes, 0);
}

TEST(FuseElementwiseTest, OtherDeviceTypesAreLeftAlone) {
  Scope root = Scope::NewRootScope();
  auto x = Input(root, "x", {4});
  ops::Exp(root.WithOpName("e"), ops::Neg(root.WithOpName("n"), x));
  OptimizationOptions options;
  PassContext ctx = Cpu(options);
  ctx.device_type = "GPU";
  PassResult r = RunPass(ctx, root.graph());
  EXPECT_EQ(r.changes, 0);
  EXPECT_THAT(r.what, HasSubstr("GPU"));
  EXPECT_EQ(root.graph()->FindNode("e")->op(), "Exp");
}

TEST(FuseElementwiseTest, NodesAskingForOtherDevicesAreLeftAlone) {
  Scope root = Scope::NewRootScope();
  auto x = Input(root, "x", {4});
  auto n = ops::Neg(root.WithOpName("n").WithDevice("/cpu:1"), x);
  ops::Exp(root.WithOpName("e").WithDevice("/cpu:0"), n);
  OptimizationOptions options;
  EXPECT_EQ(RunPass(Cpu(options), root.graph()).changes, 0);
}

// AddN does not broadcast: an operand of partly known shape has the sum's
// (known) shape. Sub broadcasts, so there it ends the tree.
TEST(FuseElementwiseTest, AddNOperandsOfPartlyKnownShapeFuse) {
  Scope root = Scope::NewRootScope();
  auto known = Input(root, "known", {4, 3});
  auto partly = Input(root, "partly", TensorShape({-1, 3}));
  auto sum = ops::AddN(root.WithOpName("sum"), {partly, known});
  ops::Identity(root.WithOpName("out"), ops::Neg(root.WithOpName("neg"), sum));
  auto diff = ops::Sub(root.WithOpName("diff"), partly, known);
  ops::Identity(root.WithOpName("out2"),
                ops::Neg(root.WithOpName("neg2"), diff));
  ASSERT_TRUE(root.ok()) << root.status();
  Graph* g = root.graph();
  OptimizationOptions options;
  EXPECT_EQ(RunPass(Cpu(options), g).what, "1 chain of 2 ops fused");
  EXPECT_EQ(g->FindNode("neg")->op(), kFusedElementwiseOp);
  EXPECT_THAT(InputNames(g->FindNode("neg")), ElementsAre("partly", "known"));
  EXPECT_EQ(g->FindNode("diff")->op(), "Sub");
}

// Soft placement put a tower's op, which asks for a GPU, on the CPU beside
// the op that reads it: placed on one device, they fuse.
TEST(FuseElementwiseTest, PlacedOnOneDeviceFusesWhateverTheyAskedFor) {
  Scope root = Scope::NewRootScope();
  auto x = Input(root, "x", {4});
  auto n = ops::Neg(root.WithOpName("n").WithDevice("/gpu:0"), x);
  ops::Exp(root.WithOpName("e").WithDevice("/cpu:0"), n);
  const std::string cpu = "/job:localhost/replica:0/task:0/device:CPU:0";
  for (Node* node : root.graph()->nodes()) node->set_assigned_device(cpu);
  OptimizationOptions options;
  EXPECT_EQ(RunPass(Cpu(options), root.graph()).changes, 1);
  EXPECT_EQ(root.graph()->FindNode("e")->op(), kFusedElementwiseOp);
  EXPECT_EQ(root.graph()->FindNode("e")->assigned_device(), cpu);
}

TEST(FuseElementwiseTest, LongChainsAreCutAtTheLimit) {
  Scope root = Scope::NewRootScope();
  Output v = Input(root, "x", {8});
  const int length = kMaxFusedOps + 5;
  for (int i = 0; i < length; ++i) v = ops::Neg(root, v);
  Graph* g = root.graph();
  OptimizationOptions options;
  PassResult r = RunPass(Cpu(options), g);
  EXPECT_EQ(r.what, absl::StrCat("2 chains of ", length, " ops fused"));
  int fused = 0;
  for (Node* n : g->nodes()) fused += n->op() == kFusedElementwiseOp;
  EXPECT_EQ(fused, 2);
}

// The towers' gradient average: RealDiv(AddN(g0 + w, g1 + w), 2), and an
// AddN of 5 (two of the kernel's groups of 4).
TEST(FuseElementwiseTest, AddNBecomesTheAddsItsKernelComputesInItsOrder) {
  Scope root = Scope::NewRootScope();
  auto g0 = Input(root, "g0", {6});
  auto g1 = Input(root, "g1", {6});
  auto w = Input(root, "w", {6});
  // The weight decay's gradient, read by both towers' sums: computed once.
  auto decay = ops::Mul(root.WithOpName("decay"), w,
                        ops::Const(root.WithOpName("c"), 0.004f));
  auto t0 = ops::AddN(root.WithOpName("t0"), {g0, decay});
  auto t1 = ops::AddN(root.WithOpName("t1"), {g1, decay});
  auto sum = ops::AddN(root.WithOpName("sum"), {t0, t1});
  auto mean = ops::RealDiv(root.WithOpName("mean"), sum,
                           ops::Const(root.WithOpName("two"), 2.0f));
  ops::Identity(root.WithOpName("out"), mean);
  auto five = ops::AddN(root.WithOpName("five"), {g0, g1, w, g0, g1});
  ops::Identity(root.WithOpName("out5"),
                ops::Neg(root.WithOpName("neg"), five));
  // One input: AddN's identity, nothing to fuse.
  ops::Identity(root.WithOpName("out1"),
                ops::Neg(root.WithOpName("neg1"),
                         ops::AddN(root.WithOpName("one"), {g0})));
  ASSERT_TRUE(root.ok()) << root.status();
  Graph* g = root.graph();
  OptimizationOptions options;
  PassResult r = RunPass(Cpu(options), g);
  EXPECT_EQ(r.what, "2 chains of 10 ops fused");
  EXPECT_EQ(g->FindNode("decay"), nullptr);
  Node* fused = g->FindNode("mean");
  ASSERT_EQ(fused->op(), kFusedElementwiseOp);
  EXPECT_THAT(InputNames(fused), ElementsAre("w", "c", "g0", "g1", "two"));
  std::vector<std::string> program;
  std::vector<int64_t> operands;
  ASSERT_TRUE(fused->GetAttr("ops", &program).ok());
  ASSERT_TRUE(fused->GetAttr("operands", &operands).ok());
  // Inputs 0..4, results 5..9: d = w * c; ((g0 + d) + (g1 + d)) / 2.
  EXPECT_THAT(program, ElementsAre("Mul", "Add", "Add", "Add", "RealDiv"));
  EXPECT_THAT(operands, ElementsAre(0, 1, 2, 5, 3, 5, 6, 7, 8, 4));
  Node* fused5 = g->FindNode("neg");
  ASSERT_EQ(fused5->op(), kFusedElementwiseOp);
  EXPECT_THAT(InputNames(fused5), ElementsAre("g0", "g1", "w"));
  ASSERT_TRUE(fused5->GetAttr("ops", &program).ok());
  ASSERT_TRUE(fused5->GetAttr("operands", &operands).ok());
  // (((g0 + g1) + w) + g0) + g1: the first group of 4, then the group of
  // the fifth added to it; then Neg.
  EXPECT_THAT(program, ElementsAre("Add", "Add", "Add", "Add", "Neg"));
  EXPECT_THAT(operands, ElementsAre(0, 1, 3, 2, 4, 0, 5, 1, 6));
  EXPECT_EQ(g->FindNode("one")->op(), "AddN");
}

}  // namespace
}  // namespace dflow
