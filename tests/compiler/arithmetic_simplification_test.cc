// Arithmetic simplification, rule by rule: each rewrite where it applies
// and where it must not (broadcasting, float x-x, an Identity that changes
// device or reads a variable, targets), control edges kept, a _Retval of a
// bypassed node rewired, and a session computing the same values with the
// pass on as with the graph as built.
#include "compiler/arithmetic_simplification.h"

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
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

using ::testing::ElementsAre;
using ::testing::UnorderedElementsAre;

PassResult Simplify(Graph* g, absl::flat_hash_set<std::string> protect = {}) {
  OptimizationOptions options;
  PassContext ctx;
  ctx.options = &options;
  ctx.protected_nodes = std::move(protect);
  absl::StatusOr<PassResult> r = SimplifyArithmetic(ctx, g);
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

Output Vector4(const Scope& root, const std::string& name) {
  return ops::Placeholder(root.WithOpName(name), DT_FLOAT,
                          ops::PlaceholderAttrs().Shape({4}));
}

TEST(ArithmeticSimplificationTest, MulByOneEitherSide) {
  Scope root = Scope::NewRootScope();
  Output x = Vector4(root, "x");
  Output ones = ops::Const(root.WithOpName("ones"), {1.f, 1.f, 1.f, 1.f});
  Output one = ops::Const(root.WithOpName("one"), 1.0f);
  Output a = ops::Mul(root.WithOpName("a"), x, ones);
  Output b = ops::Mul(root.WithOpName("b"), one, a);
  ops::Neg(root.WithOpName("y"), b);
  ASSERT_TRUE(root.ok()) << root.status();
  Graph* g = root.graph();
  PassResult r = Simplify(g);
  EXPECT_EQ(r.changes, 2);
  EXPECT_EQ(r.what, "2 rewrites (2 x*1)");
  EXPECT_EQ(InputName(g, "y", 0), "x");
  for (const char* gone : {"a", "b", "ones", "one"}) {
    EXPECT_EQ(g->FindNode(gone), nullptr) << gone;
  }
  EXPECT_EQ(g->num_nodes(), 2);
}

TEST(ArithmeticSimplificationTest, MulThatBroadcastsOrScalesStays) {
  Scope root = Scope::NewRootScope();
  Output x = Vector4(root, "x");
  Output unknown = ops::Placeholder(root.WithOpName("unknown"), DT_FLOAT,
                                    ops::PlaceholderAttrs().Shape({-1}));
  Output ones44 = ops::Const(root.WithOpName("ones44"),
                             {1.f, 1.f, 1.f, 1.f, 1.f, 1.f, 1.f, 1.f, 1.f, 1.f,
                              1.f, 1.f, 1.f, 1.f, 1.f, 1.f},
                             TensorShape({4, 4}));
  Output ones4 = ops::Const(root.WithOpName("ones4"), {1.f, 1.f, 1.f, 1.f});
  Output almost = ops::Const(root.WithOpName("almost"), {1.f, 1.f, 2.f, 1.f});
  // [4] * ones([4,4]) is [4,4]: not x.
  ops::Neg(root.WithOpName("y1"), ops::Mul(root.WithOpName("m1"), x, ones44));
  // [?] * ones([4]) is [4] when ? is 1.
  ops::Neg(root.WithOpName("y2"),
           ops::Mul(root.WithOpName("m2"), unknown, ones4));
  // Not every element is 1.
  ops::Neg(root.WithOpName("y3"), ops::Mul(root.WithOpName("m3"), x, almost));
  ASSERT_TRUE(root.ok()) << root.status();
  Graph* g = root.graph();
  EXPECT_EQ(Simplify(g).changes, 0);
  EXPECT_EQ(InputName(g, "y1", 0), "m1");
  EXPECT_EQ(InputName(g, "y2", 0), "m2");
  EXPECT_EQ(InputName(g, "y3", 0), "m3");
}

TEST(ArithmeticSimplificationTest, AddAndSubOfZero) {
  Scope root = Scope::NewRootScope();
  Output x = Vector4(root, "x");
  Output zero = ops::Const(root.WithOpName("zero"), 0.0f);
  ops::Neg(root.WithOpName("y1"), ops::Add(root.WithOpName("a1"), x, zero));
  ops::Neg(root.WithOpName("y2"), ops::AddV2(root.WithOpName("a2"), zero, x));
  ops::Neg(root.WithOpName("y3"), ops::Sub(root.WithOpName("s1"), x, zero));
  // 0 - x is -x.
  ops::Neg(root.WithOpName("y4"), ops::Sub(root.WithOpName("s2"), zero, x));
  ASSERT_TRUE(root.ok()) << root.status();
  Graph* g = root.graph();
  PassResult r = Simplify(g);
  EXPECT_EQ(r.changes, 3);
  EXPECT_EQ(r.what, "3 rewrites (2 x+0, 1 x-0)");
  EXPECT_EQ(InputName(g, "y1", 0), "x");
  EXPECT_EQ(InputName(g, "y2", 0), "x");
  EXPECT_EQ(InputName(g, "y3", 0), "x");
  EXPECT_EQ(InputName(g, "y4", 0), "s2");
  // Still read by s2.
  EXPECT_NE(g->FindNode("zero"), nullptr);
}

TEST(ArithmeticSimplificationTest, IntegerSubOfItselfIsZerosFloatStays) {
  Scope root = Scope::NewRootScope();
  Output i = ops::Placeholder(root.WithOpName("i"), DT_INT32,
                              ops::PlaceholderAttrs().Shape({2, 3}));
  Output f = ops::Placeholder(root.WithOpName("f"), DT_FLOAT,
                              ops::PlaceholderAttrs().Shape({2, 3}));
  ops::Neg(root.WithOpName("yi"), ops::Sub(root.WithOpName("di"), i, i));
  // NaN - NaN is NaN.
  ops::Neg(root.WithOpName("yf"), ops::Sub(root.WithOpName("df"), f, f));
  ASSERT_TRUE(root.ok()) << root.status();
  Graph* g = root.graph();
  PassResult r = Simplify(g);
  EXPECT_EQ(r.changes, 1);
  EXPECT_EQ(r.what, "1 rewrite (1 x-x)");
  EXPECT_EQ(g->FindNode("di"), nullptr);
  const Node* zeros = g->FindNode("yi")->input_edge(0)->src;
  ASSERT_EQ(zeros->op(), "Const");
  Tensor value;
  ASSERT_TRUE(zeros->GetAttr("value", &value).ok());
  EXPECT_EQ(value.dtype(), DT_INT32);
  EXPECT_EQ(value.shape(), TensorShape({2, 3}));
  for (int32_t v : value.flat<int32_t>()) EXPECT_EQ(v, 0);
  EXPECT_EQ(InputName(g, "yf", 0), "df");
}

TEST(ArithmeticSimplificationTest, TransposeOfTransposeComposes) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT,
                              ops::PlaceholderAttrs().Shape({2, 3, 5}));
  Output p = ops::Const(root.WithOpName("p"), {1, 2, 0});
  Output back = ops::Const(root.WithOpName("back"), {2, 0, 1});
  Output t1 = ops::Transpose(root.WithOpName("t1"), x, p);
  // Identity: [1,2,0] then [2,0,1].
  ops::Neg(root.WithOpName("y1"),
           ops::Transpose(root.WithOpName("t2"), t1, back));
  // Not the identity: [1,2,0] twice is [2,0,1].
  ops::Neg(root.WithOpName("y2"), ops::Transpose(root.WithOpName("t3"), t1, p));
  ASSERT_TRUE(root.ok()) << root.status();
  Graph* g = root.graph();
  PassResult r = Simplify(g);
  EXPECT_EQ(r.changes, 2);
  EXPECT_EQ(r.what, "2 rewrites (2 Transpose)");
  EXPECT_EQ(InputName(g, "y1", 0), "x");
  EXPECT_EQ(g->FindNode("t2"), nullptr);
  EXPECT_EQ(InputName(g, "t3", 0), "x");
  const Node* perm = g->FindNode("t3")->input_edge(1)->src;
  Tensor value;
  ASSERT_TRUE(perm->GetAttr("value", &value).ok());
  EXPECT_THAT(std::vector<int32_t>(value.flat<int32_t>().begin(),
                                   value.flat<int32_t>().end()),
              ElementsAre(2, 0, 1));
  EXPECT_EQ(g->FindNode("t3")->output_shape(0), TensorShape({5, 2, 3}));
  // The inner Transpose has no consumer left.
  EXPECT_EQ(g->FindNode("t1"), nullptr);
}

TEST(ArithmeticSimplificationTest, TransposeWithAComputedPermStays) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT,
                              ops::PlaceholderAttrs().Shape({2, 3}));
  Output p = ops::Placeholder(root.WithOpName("p"), DT_INT32);
  Output t1 = ops::Transpose(root.WithOpName("t1"), x, p);
  ops::Neg(root.WithOpName("y"), ops::Transpose(root.WithOpName("t2"), t1, p));
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_EQ(Simplify(root.graph()).changes, 0);
}

TEST(ArithmeticSimplificationTest, ReshapeOfReshapeIsOneReshape) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT,
                              ops::PlaceholderAttrs().Shape({2, 3}));
  Output flat = ops::Reshape(root.WithOpName("flat"), x,
                             ops::Const(root.WithOpName("s1"), {6}));
  Output r = ops::Reshape(root.WithOpName("r"), flat,
                          ops::Const(root.WithOpName("s2"), {3, 2}));
  ops::Neg(root.WithOpName("y"), r);
  ASSERT_TRUE(root.ok()) << root.status();
  Graph* g = root.graph();
  PassResult result = Simplify(g);
  EXPECT_EQ(result.what, "1 rewrite (1 Reshape)");
  EXPECT_EQ(InputName(g, "r", 0), "x");
  EXPECT_EQ(InputName(g, "r", 1), "s2");
  EXPECT_EQ(g->FindNode("flat"), nullptr);
  EXPECT_EQ(g->FindNode("s1"), nullptr);
  EXPECT_EQ(g->FindNode("r")->output_shape(0), TensorShape({3, 2}));
}

TEST(ArithmeticSimplificationTest, ReshapeWhoseInnerHasAnotherConsumerStays) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT,
                              ops::PlaceholderAttrs().Shape({2, 3}));
  Output flat = ops::Reshape(root.WithOpName("flat"), x,
                             ops::Const(root.WithOpName("s1"), {6}));
  ops::Reshape(root.WithOpName("r"), flat,
               ops::Const(root.WithOpName("s2"), {3, 2}));
  ops::Neg(root.WithOpName("uses_flat"), flat);
  ASSERT_TRUE(root.ok()) << root.status();
  Graph* g = root.graph();
  EXPECT_EQ(Simplify(g).changes, 1);
  EXPECT_EQ(InputName(g, "r", 0), "x");
  EXPECT_EQ(InputName(g, "uses_flat", 0), "flat");
}

TEST(ArithmeticSimplificationTest, IdentityChainCollapses) {
  Scope root = Scope::NewRootScope();
  Output x = Vector4(root, "x");
  Output i1 = ops::Identity(root.WithOpName("i1"), x);
  Output i2 = ops::Identity(root.WithOpName("i2"), i1);
  Output i3 = ops::Identity(root.WithOpName("i3"), i2);
  ops::Neg(root.WithOpName("y"), i3);
  ASSERT_TRUE(root.ok()) << root.status();
  Graph* g = root.graph();
  PassResult r = Simplify(g);
  EXPECT_EQ(r.changes, 3);
  EXPECT_EQ(r.what, "3 rewrites (3 Identity)");
  EXPECT_EQ(InputName(g, "y", 0), "x");
  EXPECT_EQ(g->num_nodes(), 2);
}

TEST(ArithmeticSimplificationTest, IdentityThatMovesDeviceReadsRefOrIsTarget) {
  Scope root = Scope::NewRootScope();
  Output x = Vector4(root, "x");
  Output v = ops::Variable(root.WithOpName("v"), TensorShape({4}), DT_FLOAT);
  Output moved =
      ops::Identity(root.WithOpName("moved").WithDevice("/cpu:1"), x);
  Output read = ops::Identity(root.WithOpName("read"), v);
  Output target = ops::Identity(root.WithOpName("target"), x);
  ops::Neg(root.WithOpName("y1"), moved);
  ops::Neg(root.WithOpName("y2"), read);
  ops::Neg(root.WithOpName("y3"), target);
  ASSERT_TRUE(root.ok()) << root.status();
  Graph* g = root.graph();
  EXPECT_EQ(Simplify(g, {"target"}).changes, 0);
  EXPECT_EQ(InputName(g, "y1", 0), "moved");
  EXPECT_EQ(InputName(g, "y2", 0), "read");
  EXPECT_EQ(InputName(g, "y3", 0), "target");
}

TEST(ArithmeticSimplificationTest, AddNOfOneAndCastToItsOwnType) {
  Scope root = Scope::NewRootScope();
  Output x = Vector4(root, "x");
  Output x2 = Vector4(root, "x2");
  ops::Neg(root.WithOpName("y1"), ops::AddN(root.WithOpName("n1"), {x}));
  ops::Neg(root.WithOpName("y2"), ops::AddN(root.WithOpName("n2"), {x, x2}));
  ops::Neg(root.WithOpName("y3"),
           ops::Cast(root.WithOpName("c1"), x, DT_FLOAT));
  ops::Neg(root.WithOpName("y4"),
           ops::Cast(root.WithOpName("c2"), x, DT_DOUBLE));
  ASSERT_TRUE(root.ok()) << root.status();
  Graph* g = root.graph();
  PassResult r = Simplify(g);
  EXPECT_EQ(r.what, "2 rewrites (1 AddN, 1 Cast)");
  EXPECT_EQ(InputName(g, "y1", 0), "x");
  EXPECT_EQ(InputName(g, "y2", 0), "n2");
  EXPECT_EQ(InputName(g, "y3", 0), "x");
  EXPECT_EQ(InputName(g, "y4", 0), "c2");
}

TEST(ArithmeticSimplificationTest, ControlEdgesOfABypassedNodeAreKept) {
  Scope root = Scope::NewRootScope();
  Output x = Vector4(root, "x");
  Operation before = ops::NoOp(root.WithOpName("before"));
  Output id =
      ops::Identity(root.WithOpName("id").WithControlDependencies({before}), x);
  ops::Neg(root.WithOpName("y"), id);
  ops::NoOp(root.WithOpName("after").WithControlDependencies(id));
  ASSERT_TRUE(root.ok()) << root.status();
  Graph* g = root.graph();
  EXPECT_EQ(Simplify(g).changes, 1);
  EXPECT_EQ(g->FindNode("id"), nullptr);
  EXPECT_EQ(InputName(g, "y", 0), "x");
  // y still runs after `before`; `after` after x and `before`.
  EXPECT_THAT(ControlInputNames(g, "y"), ElementsAre("before"));
  EXPECT_THAT(ControlInputNames(g, "after"),
              UnorderedElementsAre("x", "before"));
}

TEST(ArithmeticSimplificationTest,
     AProtectedMulKeepsItsNameAndLosesItsReaders) {
  Scope root = Scope::NewRootScope();
  Output x = Vector4(root, "x");
  Output m = ops::Mul(root.WithOpName("m"), x,
                      ops::Const(root.WithOpName("one"), 1.0f));
  ops::Neg(root.WithOpName("y"), m);
  ASSERT_TRUE(root.ok()) << root.status();
  Graph* g = root.graph();
  EXPECT_EQ(Simplify(g, {"m"}).changes, 1);
  EXPECT_NE(g->FindNode("m"), nullptr);
  EXPECT_EQ(InputName(g, "m", 1), "one");
  EXPECT_EQ(InputName(g, "y", 0), "x");
  // Nothing left to do: a second run changes nothing.
  EXPECT_EQ(Simplify(g, {"m"}).changes, 0);
}

TEST(ArithmeticSimplificationTest, RetvalOfABypassedNodeIsRewired) {
  // _Arg -> Identity -> Identity -> _Retval, as pruning leaves a fetch.
  Graph g;
  auto add = [&](const std::string& name, const std::string& op) {
    NodeDef def;
    def.set_name(name);
    def.set_op(op);
    (*def.mutable_attr())["T"] = MakeAttr(DT_FLOAT);
    if (op == "_Arg" || op == "_Retval") {
      (*def.mutable_attr())["index"] = MakeAttr(0);
    }
    absl::StatusOr<Node*> n = g.AddNode(def);
    EXPECT_TRUE(n.ok()) << n.status();
    return n.ok() ? *n : nullptr;
  };
  Node* arg = add("x", "_Arg");
  Node* i1 = add("i1", "Identity");
  Node* i2 = add("i2", "Identity");
  Node* ret = add("fetch", "_Retval");
  ASSERT_TRUE(g.AddEdge(arg, 0, i1, 0).ok());
  ASSERT_TRUE(g.AddEdge(i1, 0, i2, 0).ok());
  ASSERT_TRUE(g.AddEdge(i2, 0, ret, 0).ok());
  EXPECT_EQ(Simplify(&g).changes, 2);
  EXPECT_EQ(InputName(&g, "fetch", 0), "x");
  EXPECT_EQ(g.num_nodes(), 2);
}

// --- Through a session: the pass on and off give the same values. ---

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The count a pass reported in passes.txt
// ("001  arithmetic_simplification: 5 rewrites (...)").
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

// The towers' gradient average: Mean over the stacked gradients becomes
// their AddN divided by N; a stack along another axis, or of tensors of
// unknown shape, stays.
TEST(ArithmeticSimplificationTest, MeanOfStackedTensorsIsTheirSumOverN) {
  Scope root = Scope::NewRootScope();
  std::vector<Output> grads;
  for (int i = 0; i < 3; ++i) {
    grads.push_back(
        ops::ExpandDims(root, Vector4(root, absl::StrCat("g", i)), 0));
  }
  Output stacked = ops::ConcatV2(root, grads, 0);
  ops::Identity(root.WithOpName("use"),
                ops::Mean(root.WithOpName("average"), stacked, 0));
  // Stacked along axis 1: another computation.
  Output side = ops::ConcatV2(root,
                              {ops::ExpandDims(root, Vector4(root, "h0"), 1),
                               ops::ExpandDims(root, Vector4(root, "h1"), 1)},
                              1);
  ops::Mean(root.WithOpName("side"), side, 0);
  ops::Identity(root.WithOpName("fetch"), ops::Identity(root, stacked));
  ASSERT_TRUE(root.ok()) << root.status();
  Graph* g = root.graph();
  PassResult r = Simplify(g, {"use", "side", "fetch"});
  EXPECT_THAT(r.what, ::testing::HasSubstr("1 mean of stacked"));
  EXPECT_EQ(g->FindNode("average"), nullptr);
  EXPECT_EQ(g->FindNode("use")->input_edge(0)->src->op(), "RealDiv");
  EXPECT_EQ(g->FindNode("side")->op(), "Mean");
  bool found_div = false;
  for (const Node* n : g->nodes()) {
    if (n->op() == "RealDiv") found_div = true;
  }
  EXPECT_TRUE(found_div);
}

// A gradient gate's Identity feeds the stack: bypassing it moves the gate's
// control edge onto the ExpandDims, and the sum that replaces the stack
// waits for it (else an in-place variable update could start before the
// reads the gate orders it after).
TEST(ArithmeticSimplificationTest, MeanOfStackedGatedTensorsKeepsTheGates) {
  Scope root = Scope::NewRootScope();
  std::vector<Output> grads;
  for (int i = 0; i < 2; ++i) {
    Operation gate = ops::NoOp(root.WithOpName(absl::StrCat("gate", i)));
    Output gated = ops::Identity(root.WithControlDependencies(gate),
                                 Vector4(root, absl::StrCat("g", i)));
    grads.push_back(ops::ExpandDims(root, gated, 0));
  }
  ops::Identity(root.WithOpName("use"),
                ops::Mean(root.WithOpName("average"),
                          ops::ConcatV2(root, grads, 0), 0));
  ASSERT_TRUE(root.ok()) << root.status();
  Graph* g = root.graph();
  PassResult r = Simplify(g, {"use"});
  EXPECT_THAT(r.what, ::testing::HasSubstr("1 mean of stacked"));
  const Node* sum = nullptr;
  for (const Node* n : g->nodes()) {
    if (n->op() == "AddN") sum = n;
  }
  ASSERT_NE(sum, nullptr);
  EXPECT_THAT(ControlInputNames(g, sum->name()),
              ::testing::UnorderedElementsAre("gate0", "gate1"));
}

// TensorFlow puts a control_dependencies block's edge on the Const made
// inside it (`v_read * 1.0` after a training step): x*1 becomes x, and its
// consumer waits for that Const, so it still runs after the step.
TEST(ArithmeticSimplificationTest, MulByAnOrderedOneKeepsTheOrder) {
  Scope root = Scope::NewRootScope();
  Operation step = ops::NoOp(root.WithOpName("step"));
  Output one = ops::Const(root.WithOpName("one").WithControlDependencies(step),
                          1.0f);
  ops::Identity(root.WithOpName("use"),
                ops::Mul(root, Vector4(root, "x"), one));
  ASSERT_TRUE(root.ok()) << root.status();
  Graph* g = root.graph();
  Simplify(g, {"use"});
  EXPECT_EQ(InputName(g, "use", 0), "x");
  EXPECT_THAT(ControlInputNames(g, "use"), ::testing::ElementsAre("one"));
}

TEST(ArithmeticSimplificationTest, SessionComputesTheSameWithAndWithoutPass) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT,
                              ops::PlaceholderAttrs().Shape({2, 3, 4}));
  Output k = ops::Placeholder(root.WithOpName("k"), DT_INT32,
                              ops::PlaceholderAttrs().Shape({2, 3}));
  Output p = ops::Const(root.WithOpName("p"), {1, 2, 0});
  Output id = ops::Identity(root.WithOpName("id"),
                            ops::Identity(root.WithOpName("id0"), x));
  Output scaled = ops::Mul(root.WithOpName("scaled"), id,
                           ops::Const(root.WithOpName("one"), 1.0f));
  Output shifted = ops::Add(root.WithOpName("shifted"),
                            ops::Const(root.WithOpName("zero"), 0.0f), scaled);
  Output t =
      ops::Transpose(root.WithOpName("t2"),
                     ops::Transpose(root.WithOpName("t1"), shifted, p), p);
  Output r = ops::Reshape(root.WithOpName("r2"),
                          ops::Reshape(root.WithOpName("r1"), t,
                                       ops::Const(root.WithOpName("s1"), {24})),
                          ops::Const(root.WithOpName("s2"), {6, 4}));
  Output sum = ops::AddN(root.WithOpName("sum"), {r});
  ops::Cast(root.WithOpName("out"), sum, DT_FLOAT);
  // Broadcasting stays: x * ones([3,2,3,4]).
  ops::Mul(
      root.WithOpName("broadcast"), x,
      ops::Const(root.WithOpName("ones"),
                 {1.f, 1.f, 1.f, 1.f, 1.f, 1.f, 1.f, 1.f, 1.f, 1.f, 1.f, 1.f},
                 TensorShape({3, 1, 1, 4})));
  ops::Sub(root.WithOpName("kk"), k, k);
  // Float x - x of an Inf stays NaN.
  ops::Sub(root.WithOpName("xx"), x, x);
  GraphDef def;
  ASSERT_TRUE(root.ToGraphDef(&def).ok()) << root.status();

  std::vector<float> xs(24);
  for (int i = 0; i < 24; ++i) xs[i] = 0.5f * i - 3.0f;
  xs[5] = std::numeric_limits<float>::infinity();
  Tensor xv = Tensor::FromVector<float>(xs, TensorShape({2, 3, 4}));
  Tensor kv =
      Tensor::FromVector<int32_t>({1, -2, 3, 4, 5, 6}, TensorShape({2, 3}));
  const std::vector<std::string> fetches = {"out", "broadcast", "kk", "xx"};
  std::vector<std::vector<Tensor>> results;
  for (bool optimize : {false, true}) {
    SessionOptions options;
    options.optimize_graph = optimize;
    const char* tmp = std::getenv("TEST_TMPDIR");
    options.dump_passes_dir =
        absl::StrCat(tmp ? tmp : "/tmp", "/arith_dump_", optimize);
    absl::StatusOr<std::unique_ptr<Session>> session =
        Session::Create(def, options);
    ASSERT_TRUE(session.ok()) << session.status();
    std::vector<Tensor> out;
    absl::Status s = (*session)->Run({{"x", xv}, {"k", kv}}, fetches, {}, &out);
    ASSERT_TRUE(s.ok()) << s;
    results.push_back(out);
    if (optimize) {
      const std::string passes =
          ReadFile(options.dump_passes_dir + "/sig_0/passes.txt");
      // id (id0 stays: it moves the fed tensor off the host device the
      // _Arg asks for), x*1, x+0, t2 composed into one Transpose, Reshape,
      // AddN, Cast, the integer x-x.
      EXPECT_EQ(ReportedChanges(passes, "arithmetic_simplification"), 8)
          << passes;
    }
  }
  ASSERT_EQ(results[0].size(), fetches.size());
  ASSERT_EQ(results[1].size(), fetches.size());
  for (size_t i = 0; i < fetches.size(); ++i) {
    const Tensor& a = results[0][i];
    const Tensor& b = results[1][i];
    ASSERT_EQ(a.dtype(), b.dtype()) << fetches[i];
    ASSERT_EQ(a.shape(), b.shape()) << fetches[i];
    for (int64_t e = 0; e < a.NumElements(); ++e) {
      if (a.dtype() == DT_INT32) {
        EXPECT_EQ(a.flat<int32_t>()[e], b.flat<int32_t>()[e]) << fetches[i];
      } else {
        const float av = a.flat<float>()[e], bv = b.flat<float>()[e];
        EXPECT_TRUE(av == bv || (std::isnan(av) && std::isnan(bv)))
            << fetches[i] << "[" << e << "]: " << av << " vs " << bv;
      }
    }
  }
  EXPECT_EQ(results[1][0].shape(), TensorShape({6, 4}));
  EXPECT_EQ(results[1][1].shape(), TensorShape({3, 2, 3, 4}));
  for (int32_t v : results[1][2].flat<int32_t>()) EXPECT_EQ(v, 0);
  EXPECT_TRUE(std::isnan(results[1][3].flat<float>()[5]));
}

}  // namespace
}  // namespace dflow
