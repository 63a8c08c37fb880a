// Constant folding with a fake evaluator (the compiler links no kernels):
// what folds, what must not, how the Consts replace the nodes (names,
// devices, colocation, control edges), and the size limit. That the real
// CPU kernels compute the same values is
// tests/runtime/kernel_constant_evaluator_test.cc; that a session's results
// do not change is tests/runtime/constant_folding_session_test.cc.
#include "compiler/constant_folding.h"

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "graph/ops/ops.h"
#include "gtest/gtest.h"
#include "tests/compiler/fake_kernel_query.h"

namespace dflow {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;

// Computes AddV2, Mul (float, same shape or a scalar operand), Identity,
// Fill (float) and Split (of a vector, along 0); anything else is
// Unimplemented. Remembers which nodes it was asked about.
class FakeEvaluator : public ConstantEvaluator {
 public:
  absl::StatusOr<std::vector<Tensor>> Evaluate(
      const Node& node, const std::vector<Tensor>& in) const override {
    asked.push_back(node.name());
    const std::string& op = node.op();
    if (op == "Identity") return std::vector<Tensor>{in[0]};
    if (op == "AddV2" || op == "Mul") {
      if (in[0].dtype() != DT_FLOAT) return absl::UnimplementedError("dtype");
      const Tensor& big = in[0].NumElements() >= in[1].NumElements() ? in[0]
                                                                     : in[1];
      Tensor out(DT_FLOAT, big.shape());
      for (int64_t i = 0; i < big.NumElements(); ++i) {
        const float a = in[0].flat<float>()[in[0].NumElements() == 1 ? 0 : i];
        const float b = in[1].flat<float>()[in[1].NumElements() == 1 ? 0 : i];
        out.flat<float>()[i] = op == "Mul" ? a * b : a + b;
      }
      return std::vector<Tensor>{out};
    }
    if (op == "Fill") {
      TensorShape shape;
      for (int32_t d : in[0].flat<int32_t>()) shape.AddDim(d);
      Tensor out(DT_FLOAT, shape);
      for (float& v : out.flat<float>()) v = in[1].flat<float>()[0];
      return std::vector<Tensor>{out};
    }
    if (op == "Split") {
      int64_t n = 0;
      if (absl::Status s = node.GetAttr("num_split", &n); !s.ok()) return s;
      const int64_t part = in[1].NumElements() / n;
      std::vector<Tensor> outs;
      for (int64_t k = 0; k < n; ++k) {
        Tensor t(DT_FLOAT, TensorShape({part}));
        for (int64_t i = 0; i < part; ++i) {
          t.flat<float>()[i] = in[1].flat<float>()[k * part + i];
        }
        outs.push_back(t);
      }
      return outs;
    }
    return absl::UnimplementedError(absl::StrCat("fake: no ", op));
  }
  mutable std::vector<std::string> asked;
};

struct Folder {
  FakeEvaluator evaluator;
  OptimizationOptions options;
  PassContext ctx;
  Folder() {
    options.evaluator = &evaluator;
    ctx.options = &options;
  }
  absl::StatusOr<PassResult> Run(Graph* g) { return FoldConstants(ctx, g); }
};

// The value of a Const node, as floats.
std::vector<float> FloatsOf(const Node* n) {
  EXPECT_NE(n, nullptr);
  if (n == nullptr) return {};
  EXPECT_EQ(n->op(), "Const") << n->name();
  Tensor t = *Tensor::FromProto(n->FindAttr("value")->tensor());
  EXPECT_EQ(t.dtype(), DT_FLOAT);
  return std::vector<float>(t.flat<float>().begin(), t.flat<float>().end());
}

template <typename T>
std::vector<T> ValuesOf(const Node* n) {
  EXPECT_NE(n, nullptr);
  if (n == nullptr) return {};
  EXPECT_EQ(n->op(), "Const") << n->name();
  Tensor t = *Tensor::FromProto(n->FindAttr("value")->tensor());
  return std::vector<T>(t.flat<T>().begin(), t.flat<T>().end());
}

std::vector<std::string> ControlInputs(const Node* n) {
  std::vector<std::string> names;
  for (const Edge* e : n->in_edges()) {
    if (e->IsControl()) names.push_back(e->src->name());
  }
  return names;
}

std::vector<std::string> ControlOutputs(const Node* n) {
  std::vector<std::string> names;
  for (const Edge* e : n->out_edges()) {
    if (e->IsControl()) names.push_back(e->dst->name());
  }
  return names;
}

TEST(ConstantFoldingTest, FoldsAChainIntoOneConstKeepingTheLastName) {
  Scope root = Scope::NewRootScope();
  Output a = ops::Const(root.WithOpName("a"), 2.0f);
  Output b = ops::Const(root.WithOpName("b"), 3.0f);
  Output c = ops::AddV2(root.WithOpName("c"), a, b);
  Output d = ops::Mul(root.WithOpName("d"), c, a);
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  ops::Mul(root.WithOpName("y"), d, x);
  ASSERT_TRUE(root.ok()) << root.status();
  Graph* g = root.graph();

  Folder f;
  absl::StatusOr<PassResult> r = f.Run(g);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->changes, 2);
  EXPECT_THAT(r->what, HasSubstr("2 nodes folded into 1 constants"));
  EXPECT_THAT(f.evaluator.asked, ElementsAre("c", "d"));
  EXPECT_EQ(g->FindNode("c"), nullptr);
  EXPECT_THAT(FloatsOf(g->FindNode("d")), ElementsAre(10.0f));  // (2+3)*2
  // The Consts only the folded nodes read are gone too.
  EXPECT_EQ(g->FindNode("a"), nullptr);
  EXPECT_EQ(g->FindNode("b"), nullptr);
  Node* y = g->FindNode("y");
  ASSERT_NE(y, nullptr);
  EXPECT_EQ(y->op(), "Mul");
  EXPECT_EQ(y->input_edge(0)->src->name(), "d");
  EXPECT_EQ(y->input_edge(1)->src->name(), "x");
  EXPECT_EQ(g->num_nodes(), 3);
  EXPECT_TRUE(g->TopologicalOrder().ok());
}

TEST(ConstantFoldingTest, ShapeOfAFullyKnownInputFoldsNotOfAPartialOne) {
  Scope root = Scope::NewRootScope();
  Output p = ops::Placeholder(root.WithOpName("p"), DT_FLOAT,
                              ops::PlaceholderAttrs().Shape({2, 3}));
  Output q = ops::Placeholder(root.WithOpName("q"), DT_FLOAT,
                              ops::PlaceholderAttrs().Shape(
                                  TensorShape({TensorShape::kUnknownDim, 784})));
  Output shape_p = ops::Shape(root.WithOpName("shape_p"), p);
  Output size_p = ops::Size(root.WithOpName("size_p"), p);
  Output shape_q = ops::Shape(root.WithOpName("shape_q"), q);
  Output rank_q = ops::Rank(root.WithOpName("rank_q"), q);
  Output u = ops::Placeholder(root.WithOpName("u"), DT_FLOAT);
  ops::Identity(root.WithOpName("o1"), ops::Reshape(root, u, shape_p));
  ops::Identity(root.WithOpName("o2"), shape_q);
  ops::Identity(root.WithOpName("o3"), size_p);
  ops::Identity(root.WithOpName("o4"), rank_q);
  ASSERT_TRUE(root.ok()) << root.status();
  Graph* g = root.graph();

  Folder f;
  absl::StatusOr<PassResult> r = f.Run(g);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(ValuesOf<int32_t>(g->FindNode("shape_p")), ElementsAre(2, 3));
  EXPECT_THAT(ValuesOf<int32_t>(g->FindNode("size_p")), ElementsAre(6));
  // [?,784] has rank 2 whatever is fed, but no known shape.
  EXPECT_THAT(ValuesOf<int32_t>(g->FindNode("rank_q")), ElementsAre(2));
  EXPECT_EQ(g->FindNode("shape_q")->op(), "Shape");
  // The Consts still wait for the input they no longer read (an unfed
  // Placeholder must still fail the step).
  EXPECT_THAT(ControlInputs(g->FindNode("shape_p")), ElementsAre("p"));
  EXPECT_THAT(ControlInputs(g->FindNode("rank_q")), ElementsAre("q"));
  // The shape ops and the Identity consumers are never evaluated here;
  // Identity's input is not constant.
  EXPECT_THAT(f.evaluator.asked, IsEmpty());
}

TEST(ConstantFoldingTest, AnOutputOverTheSizeLimitStaysComputedAtRunTime) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  Output one = ops::Const(root.WithOpName("one"), 1.0f);
  Output big = ops::Fill(root.WithOpName("big"),
                         ops::Const(root.WithOpName("dims_big"), {100}), one);
  Output small = ops::Fill(root.WithOpName("small"),
                           ops::Const(root.WithOpName("dims_small"), {10}),
                           one);
  // Computed from the big value: not folded either.
  Output twice = ops::Mul(root.WithOpName("twice"), big, 2.0f);
  ops::AddV2(root.WithOpName("y"), twice, x);
  ops::AddV2(root.WithOpName("z"), small, x);
  ASSERT_TRUE(root.ok()) << root.status();
  Graph* g = root.graph();

  Folder f;
  f.options.constant_folding.max_constant_bytes = 100;  // 25 floats
  absl::StatusOr<PassResult> r = f.Run(g);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->changes, 1);
  EXPECT_THAT(r->what, HasSubstr("1 skipped over the size limit"));
  EXPECT_EQ(g->FindNode("big")->op(), "Fill");
  EXPECT_EQ(g->FindNode("twice")->op(), "Mul");
  EXPECT_EQ(FloatsOf(g->FindNode("small")), std::vector<float>(10, 1.0f));
  EXPECT_NE(g->FindNode("one"), nullptr);  // big still reads it

  // With a higher limit both fold.
  Scope root2 = Scope::NewRootScope();
  Output x2 = ops::Placeholder(root2.WithOpName("x"), DT_FLOAT);
  Output big2 = ops::Fill(root2.WithOpName("big"),
                          ops::Const(root2.WithOpName("dims"), {100}),
                          ops::Const(root2.WithOpName("one"), 1.0f));
  ops::AddV2(root2.WithOpName("y"), big2, x2);
  Folder f2;
  f2.options.constant_folding.max_constant_bytes = 400;
  ASSERT_TRUE(f2.Run(root2.graph()).ok());
  EXPECT_EQ(FloatsOf(root2.graph()->FindNode("big")).size(), 100u);
}

TEST(ConstantFoldingTest, StatefulAndReferenceNodesAreNeverFolded) {
  Scope root = Scope::NewRootScope();
  Output r = ops::RandomUniform(root.WithOpName("random"),
                                ops::Const(root.WithOpName("dims"), {2}),
                                DT_FLOAT);
  Output v = ops::Variable(root.WithOpName("v"), TensorShape({2}), DT_FLOAT);
  Output read = ops::Identity(root.WithOpName("read"), v);
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  ops::AddV2(root.WithOpName("y"), r, x);
  ops::AddV2(root.WithOpName("z"), read, x);
  ASSERT_TRUE(root.ok()) << root.status();
  Graph* g = root.graph();

  Folder f;
  absl::StatusOr<PassResult> result = f.Run(g);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->changes, 0);
  EXPECT_THAT(f.evaluator.asked, IsEmpty());
  EXPECT_EQ(g->FindNode("random")->op(), "RandomUniform");
  EXPECT_EQ(g->FindNode("read")->op(), "Identity");
}

TEST(ConstantFoldingTest, ProtectedTargetsKeepTheirNameAndOp) {
  Scope root = Scope::NewRootScope();
  Output a = ops::Const(root.WithOpName("a"), 2.0f);
  Output t = ops::AddV2(root.WithOpName("target"), a, a);
  ops::Identity(root.WithOpName("after"), t);
  ASSERT_TRUE(root.ok()) << root.status();
  Graph* g = root.graph();

  Folder f;
  f.ctx.protected_nodes.insert("target");
  absl::StatusOr<PassResult> r = f.Run(g);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->changes, 0);
  EXPECT_EQ(g->FindNode("target")->op(), "AddV2");
  EXPECT_EQ(g->FindNode("after")->op(), "Identity");
}

TEST(ConstantFoldingTest, ControlEdgesInAndOutAreKept) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  Output gate = ops::Identity(root.WithOpName("gate"), x);
  Output gate2 = ops::Identity(root.WithOpName("gate2"), x);
  Output a = ops::Const(root.WithOpName("a"), 2.0f);
  // A Const under a control dependency: what reads it waited for gate2.
  Output b = ops::Const(
      root.WithOpName("b").WithControlDependencies(gate2), 3.0f);
  Output mid = ops::AddV2(
      root.WithOpName("mid").WithControlDependencies(gate), a, b);
  Output c = ops::Mul(root.WithOpName("c"), mid, a);
  ops::NoOp(root.WithOpName("after").WithControlDependencies(c));
  ops::NoOp(root.WithOpName("after_mid").WithControlDependencies(mid));
  ops::Mul(root.WithOpName("y"), c, x);
  ASSERT_TRUE(root.ok()) << root.status();
  Graph* g = root.graph();

  Folder f;
  absl::StatusOr<PassResult> r = f.Run(g);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->changes, 2);
  Node* folded = g->FindNode("c");
  EXPECT_THAT(FloatsOf(folded), ElementsAre(10.0f));
  // The Const waits for everything the folded computation waited for.
  EXPECT_THAT(ControlInputs(folded), UnorderedElementsAre("gate", "gate2"));
  // Control out-edges of the folded node move to its Const.
  EXPECT_THAT(ControlOutputs(folded), ElementsAre("after"));
  // `mid` had no data consumer left: what waited for it waits for what
  // `mid` waited for.
  EXPECT_EQ(g->FindNode("mid"), nullptr);
  EXPECT_THAT(ControlInputs(g->FindNode("after_mid")),
              UnorderedElementsAre("gate", "gate2"));
  EXPECT_TRUE(g->TopologicalOrder().ok());
}

TEST(ConstantFoldingTest, MultiOutputNodesBecomeOneConstPerUsedOutput) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  OutputList parts =
      ops::Split(root.WithOpName("split").WithDevice("/device:CPU:0"),
                 ops::Const(root.WithOpName("axis"), 0),
                 ops::Const(root.WithOpName("v"), {1.0f, 2.0f, 3.0f, 4.0f,
                                                   5.0f, 6.0f}),
                 3);
  ASSERT_EQ(parts.size(), 3u);
  ops::AddV2(root.WithOpName("y0"), parts[0], x);
  ops::AddV2(root.WithOpName("y2"), parts[2], x);
  ASSERT_TRUE(root.ok()) << root.status();
  Graph* g = root.graph();

  Folder f;
  absl::StatusOr<PassResult> r = f.Run(g);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->changes, 1);
  EXPECT_THAT(r->what, HasSubstr("1 nodes folded into 2 constants"));
  EXPECT_EQ(g->FindNode("split"), nullptr);
  EXPECT_EQ(g->FindNode("split/folded_1"), nullptr);  // no consumer
  EXPECT_THAT(FloatsOf(g->FindNode("split/folded_0")), ElementsAre(1, 2));
  EXPECT_THAT(FloatsOf(g->FindNode("split/folded_2")), ElementsAre(5, 6));
  EXPECT_EQ(g->FindNode("split/folded_2")->requested_device(),
            "/device:CPU:0");
  EXPECT_EQ(g->FindNode("y2")->input_edge(0)->src->name(), "split/folded_2");
}

TEST(ConstantFoldingTest, KeepsTheRequestedDeviceAndColocation) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  Output a = ops::Const(root.WithOpName("a"), 2.0f);
  Output c = ops::AddV2(
      root.WithOpName("c").WithDevice("/device:GPU:1").ColocateWith(x), a, a);
  ops::Mul(root.WithOpName("y"), c, x);
  ASSERT_TRUE(root.ok()) << root.status();
  Graph* g = root.graph();
  ASSERT_NE(g->FindNode("c")->FindAttr("_class"), nullptr);

  Folder f;
  ASSERT_TRUE(f.Run(g).ok());
  Node* folded = g->FindNode("c");
  EXPECT_THAT(FloatsOf(folded), ElementsAre(4.0f));
  EXPECT_EQ(folded->requested_device(), "/device:GPU:1");
  const AttrValue* cls = folded->FindAttr("_class");
  ASSERT_NE(cls, nullptr);
  ASSERT_EQ(cls->list().s_size(), 1);
  EXPECT_EQ(cls->list().s(0), "loc:@x");
}

TEST(ConstantFoldingTest, AnEvaluationErrorLeavesTheNodeForRunTime) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  Output a = ops::Const(root.WithOpName("a"), 2.0f);
  Output s = ops::Sub(root.WithOpName("s"), a, a);  // the fake has no Sub
  Output m = ops::Mul(root.WithOpName("m"), s, a);
  ops::Mul(root.WithOpName("y"), m, x);
  ASSERT_TRUE(root.ok()) << root.status();
  Graph* g = root.graph();

  Folder f;
  absl::StatusOr<PassResult> r = f.Run(g);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->changes, 0);
  EXPECT_EQ(g->FindNode("s")->op(), "Sub");
  EXPECT_EQ(g->FindNode("m")->op(), "Mul");
  EXPECT_THAT(r->what, HasSubstr("1 not evaluable"));
}

TEST(ConstantFoldingTest, AStaticallyHugeOutputIsNotEvenEvaluated) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  Output huge = ops::Fill(root.WithOpName("huge"),
                          ops::Const(root.WithOpName("dims"), {100000, 100000}),
                          1.0f);
  ops::AddV2(root.WithOpName("y"), huge, x);
  ASSERT_TRUE(root.ok()) << root.status();
  Graph* g = root.graph();

  Folder f;
  absl::StatusOr<PassResult> r = f.Run(g);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->changes, 0);
  EXPECT_THAT(f.evaluator.asked, IsEmpty());  // 40 GB never computed
  EXPECT_THAT(r->what, HasSubstr("1 skipped over the size limit"));
  EXPECT_EQ(g->FindNode("huge")->op(), "Fill");
}

TEST(ConstantFoldingTest, KeepsANodeWhoseConstCouldNotBePlacedWhereItRuns) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  Output a = ops::Const(root.WithOpName("a"), 2.0f);
  Output c = ops::AddV2(root.WithOpName("c"), a, a);
  ops::Mul(root.WithOpName("y"), c, x);
  ASSERT_TRUE(root.ok()) << root.status();

  // AddV2 may run on a GPU (the query's default), a Const only on the CPU.
  FakeKernelQuery kernels;
  kernels.Kernels("Const", {"CPU"});
  Folder f;
  f.options.kernels = &kernels;
  absl::StatusOr<PassResult> r = f.Run(root.graph());
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->changes, 0);
  EXPECT_EQ(root.graph()->FindNode("c")->op(), "AddV2");

  // With Consts everywhere it folds.
  FakeKernelQuery everywhere;
  f.options.kernels = &everywhere;
  r = f.Run(root.graph());
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->changes, 1);
  EXPECT_THAT(FloatsOf(root.graph()->FindNode("c")), ElementsAre(4.0f));
}

TEST(ConstantFoldingTest, WithoutAnEvaluatorNothingChanges) {
  Scope root = Scope::NewRootScope();
  Output a = ops::Const(root.WithOpName("a"), 2.0f);
  ops::Identity(root.WithOpName("y"), ops::AddV2(root.WithOpName("c"), a, a));
  OptimizationOptions options;
  PassContext ctx;
  ctx.options = &options;
  absl::StatusOr<PassResult> r = FoldConstants(ctx, root.graph());
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->changes, 0);
  EXPECT_EQ(r->what, "no evaluator");
  EXPECT_EQ(root.graph()->FindNode("c")->op(), "AddV2");
}

}  // namespace
}  // namespace dflow
