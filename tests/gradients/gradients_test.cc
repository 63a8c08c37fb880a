// AddSymbolicGradients: paths, sums, StopGradient, pruning, errors, name
// scopes, colocation, variables. The per-op gradients have their own tests.
#include "graph/gradients/gradients.h"

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gmock/gmock.h"
#include "graph/op_registry.h"
#include "graph/ops/ops.h"
#include "gtest/gtest.h"
#include "runtime/session.h"
#include "tests/gradients/gradient_checker.h"

namespace dflow {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

DFLOW_REGISTER_OP("GradTestNoGradient")
    .Input("x: float")
    .Output("y: float")
    .SetShapeFn(shape_fns::UnchangedShape)
    .Doc("An op with no gradient function, for the error test.");

Tensor Doubles(std::vector<double> v, TensorShape shape) {
  return Tensor::FromVector<double>(v, shape);
}

std::vector<double> Values(const Tensor& t) {
  auto f = t.flat<double>();
  return std::vector<double>(f.begin(), f.end());
}

// Runs `fetches` of the scope's graph with `feeds`.
std::vector<Tensor> RunGraph(const Scope& root, const FeedList& feeds,
                        const std::vector<Output>& fetches,
                        const std::vector<std::string>& init = {}) {
  GraphDef def;
  EXPECT_TRUE(root.ToGraphDef(&def).ok()) << root.status();
  auto session = Session::Create(def);
  EXPECT_TRUE(session.ok()) << session.status();
  if (!init.empty()) {
    absl::Status s = (*session)->Run({}, {}, init, nullptr);
    EXPECT_TRUE(s.ok()) << s;
  }
  std::vector<std::string> names;
  for (const Output& o : fetches) names.push_back(o.name());
  std::vector<Tensor> out;
  absl::Status s = (*session)->Run(feeds, names, {}, &out);
  EXPECT_TRUE(s.ok()) << s;
  return out;
}

std::vector<std::string> NodesUnder(const Scope& root,
                                    const std::string& prefix) {
  std::vector<std::string> names;
  for (Node* n : root.graph()->nodes()) {
    if (absl::StartsWith(n->name(), prefix)) names.push_back(n->name());
  }
  return names;
}

TEST(GradientsTest, MatMulMatchesFiniteDifferences) {
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      Scope root = Scope::NewRootScope();
      Output a = ops::Placeholder(root, DT_DOUBLE);
      Output b = ops::Placeholder(root, DT_DOUBLE);
      Output c = ops::MatMul(root, a, b,
                             ops::MatMulAttrs().TransposeA(ta).TransposeB(tb));
      Tensor av = Doubles({1, -2, 3, 0.5, 4, -1}, ta ? TensorShape({3, 2})
                                                     : TensorShape({2, 3}));
      Tensor bv = Doubles({0.3, 2, -1, 1.5, 0.7, -0.2, 1, 2, 3, -4, 5, 0.1},
                          tb ? TensorShape({4, 3}) : TensorShape({3, 4}));
      auto error = ComputeGradientError(root, {a, b}, {av, bv}, {c});
      ASSERT_TRUE(error.ok()) << error.status();
      EXPECT_LT(*error, 1e-8) << "transpose_a=" << ta << " transpose_b=" << tb;
    }
  }
}

TEST(GradientsTest, PathsThroughSeveralConsumersAreSummed) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_DOUBLE);
  Output y = ops::Add(root, ops::Mul(root, x, x), x);  // x^2 + x
  auto grads = AddSymbolicGradients(root, {y}, {x});
  ASSERT_TRUE(grads.ok()) << grads.status();
  EXPECT_EQ((*grads)[0].node()->op(), "AddN");
  EXPECT_EQ((*grads)[0].node()->name(), "gradients/x_grad/AddN");
  auto out = RunGraph(root, {{"x", Doubles({3, -1}, TensorShape({2}))}}, *grads);
  EXPECT_THAT(Values(out[0]), ElementsAre(7, -1));  // 2x + 1
}

TEST(GradientsTest, StopGradientEndsAPath) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_DOUBLE);
  Output y = ops::Mul(root, x, ops::StopGradient(root, x));
  auto grads = AddSymbolicGradients(root, {y}, {x});
  ASSERT_TRUE(grads.ok()) << grads.status();
  auto out = RunGraph(root, {{"x", Doubles({3, -2}, TensorShape({2}))}}, *grads);
  EXPECT_THAT(Values(out[0]), ElementsAre(3, -2));  // not 2x
}

TEST(GradientsTest, InputsNotOnAPathGetNoOps) {
  Scope root = Scope::NewRootScope();
  Output data = ops::Placeholder(root.WithOpName("data"), DT_DOUBLE);
  Output w = ops::Placeholder(root.WithOpName("w"), DT_DOUBLE);
  Output y = ops::MatMul(root.WithOpName("y"), data, w);
  auto grads = AddSymbolicGradients(root, {y}, {w});
  ASSERT_TRUE(grads.ok()) << grads.status();
  // Only the seed and dW = data^T g ("MatMul_1", as in TensorFlow: dData
  // = g w^T was built first, as "MatMul", then removed).
  EXPECT_THAT(NodesUnder(root, "gradients/"),
              ElementsAre("gradients/OnesLike", "gradients/y_grad/MatMul_1"));
  EXPECT_EQ((*grads)[0].node()->name(), "gradients/y_grad/MatMul_1");
}

TEST(GradientsTest, NothingIsBuiltForOpsNoXDependsOn) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_DOUBLE);
  Output c = ops::Placeholder(root.WithOpName("c"), DT_DOUBLE);
  Output side = ops::MatMul(root.WithOpName("side"), c, c);  // no x here
  Output y = ops::Add(root.WithOpName("y"), ops::Mul(root, x, x), side);
  auto grads = AddSymbolicGradients(root, {y}, {x});
  ASSERT_TRUE(grads.ok()) << grads.status();
  for (const std::string& name : NodesUnder(root, "gradients/")) {
    EXPECT_FALSE(absl::StrContains(name, "side_grad")) << name;
  }
}

TEST(GradientsTest, MissingGradientFunctionNamesTheNodeAndOp) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  Output y = OpBuilder(root.NewSubScope("tower_0").WithOpName("odd"),
                       "GradTestNoGradient")
                 .Input(x)
                 .Finalize();
  auto grads = AddSymbolicGradients(root, {y}, {x});
  ASSERT_FALSE(grads.ok());
  EXPECT_EQ(grads.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(grads.status().message(),
              HasSubstr("node 'tower_0/odd' (GradTestNoGradient)"));
  EXPECT_THAT(grads.status().message(), HasSubstr("DFLOW_REGISTER_GRADIENT"));
}

TEST(GradientsTest, ANoGradientOpOffThePathIsFine) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  Output other = ops::Placeholder(root.WithOpName("other"), DT_FLOAT);
  Output odd = OpBuilder(root, "GradTestNoGradient").Input(other).Finalize();
  Output y = ops::Mul(root, x, odd);
  EXPECT_TRUE(AddSymbolicGradients(root, {y}, {x}).ok());
}

TEST(GradientsTest, GradientScopesMirrorForwardScopes) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  Output w = ops::Placeholder(root.WithOpName("w"), DT_FLOAT);
  Scope tower = root.NewSubScope("tower_0");
  Output y = ops::MatMul(tower, x, w);
  ASSERT_EQ(y.node()->name(), "tower_0/MatMul");
  auto grads = AddSymbolicGradients(root, {y}, {w});
  ASSERT_TRUE(grads.ok()) << grads.status();
  EXPECT_EQ((*grads)[0].node()->name(), "gradients/tower_0/MatMul_grad/MatMul_1");
  // A second call gets a scope of its own.
  auto again = AddSymbolicGradients(root, {y}, {w});
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ((*again)[0].node()->name(),
            "gradients_1/tower_0/MatMul_grad/MatMul_1");
}

TEST(GradientsTest, ColocatedGradientsTakeTheForwardOpsDeviceAndGroup) {
  Scope root = Scope::NewRootScope().WithDevice("/cpu:0");
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  Output w = ops::Placeholder(root.WithOpName("w"), DT_FLOAT);
  Scope tower = root.NewSubScope("tower_1").WithDevice("/gpu:1");
  Output y = ops::MatMul(tower, x, w);
  for (bool colocate : {false, true}) {
    auto grads = AddSymbolicGradients(
        root, {y}, {w},
        {}, GradientOptions().ColocateGradientsWithOps(colocate));
    ASSERT_TRUE(grads.ok()) << grads.status();
    const Node* g = (*grads)[0].node();
    std::vector<std::string> groups;
    const bool has_class = g->GetAttr("_class", &groups).ok();
    if (colocate) {
      EXPECT_EQ(g->requested_device(), "/device:GPU:1");
      ASSERT_TRUE(has_class);
      EXPECT_THAT(groups, ElementsAre("loc:@tower_1/MatMul"));
    } else {
      EXPECT_EQ(g->requested_device(), "/device:CPU:0");
      EXPECT_FALSE(has_class);
    }
  }
}

TEST(GradientsTest, UnconnectedXsGetZerosOrNothing) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_DOUBLE);
  Output u = ops::Placeholder(root.WithOpName("u"), DT_DOUBLE);
  Output y = ops::Mul(root, x, x);
  auto zeros = AddSymbolicGradients(root, {y}, {x, u});
  ASSERT_TRUE(zeros.ok()) << zeros.status();
  auto out = RunGraph(root,
                 {{"x", Doubles({1, 2}, TensorShape({2}))},
                  {"u", Doubles({5, 6, 7}, TensorShape({3}))}},
                 *zeros);
  EXPECT_THAT(Values(out[0]), ElementsAre(2, 4));
  EXPECT_THAT(Values(out[1]), ElementsAre(0, 0, 0));

  auto none = AddSymbolicGradients(
      root, {y}, {x, u}, {},
      GradientOptions().UnconnectedGradients(
          GradientOptions::Unconnected::kNone));
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_TRUE((*none)[0].valid());
  EXPECT_FALSE((*none)[1].valid());
}

TEST(GradientsTest, GradientOfXWithRespectToItselfIsTheSeed) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_DOUBLE);
  Output dy = ops::Placeholder(root.WithOpName("dy"), DT_DOUBLE);
  auto grads = AddSymbolicGradients(root, {x}, {x}, {dy});
  ASSERT_TRUE(grads.ok()) << grads.status();
  EXPECT_EQ((*grads)[0].node()->name(), "dy");
}

TEST(GradientsTest, BadArgumentsAreClearErrors) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  Output i = ops::Placeholder(root.WithOpName("i"), DT_INT32);
  Output dy = ops::Placeholder(root.WithOpName("dy"), DT_DOUBLE);
  Output y = ops::Mul(root, x, x);

  auto wrong_count = AddSymbolicGradients(root, {y}, {x}, {dy, dy});
  EXPECT_THAT(wrong_count.status().message(), HasSubstr("2 grad_ys for 1 ys"));
  auto wrong_dtype = AddSymbolicGradients(root, {y}, {x}, {dy});
  EXPECT_THAT(wrong_dtype.status().message(),
              HasSubstr("grad_ys[0] 'dy' is double but ys[0]"));
  auto int_y = AddSymbolicGradients(root, {i}, {x});
  EXPECT_THAT(int_y.status().message(),
              HasSubstr("ys[0] 'i' is int32; only floating-point"));
  auto invalid = AddSymbolicGradients(root, {Output()}, {x});
  EXPECT_THAT(invalid.status().message(), HasSubstr("ys[0] is invalid"));
  Scope other = Scope::NewRootScope();
  Output z = ops::Placeholder(other, DT_FLOAT);
  auto foreign = AddSymbolicGradients(root, {y}, {z});
  EXPECT_THAT(foreign.status().message(), HasSubstr("another graph"));
}

TEST(GradientsTest, ReferenceVariablesAreXs) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_DOUBLE);
  Output w = ops::Variable(root.WithOpName("w"), TensorShape({2, 1}),
                           DT_DOUBLE);
  ops::Assign(root.WithOpName("init"), w,
              ops::Const(root, Doubles({1, 2}, TensorShape({2, 1}))));
  Output y = ops::MatMul(root, x, w);
  auto grads = AddSymbolicGradients(root, {y}, {w});
  ASSERT_TRUE(grads.ok()) << grads.status();
  EXPECT_EQ((*grads)[0].dtype(), DT_DOUBLE);
  auto out = RunGraph(root, {{"x", Doubles({1, 2, 3, 4}, TensorShape({2, 2}))}},
                 *grads, {"init"});
  EXPECT_THAT(Values(out[0]), ElementsAre(4, 6));  // column sums of x
}

TEST(GradientsTest, ResourceVariablesAreXs) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_DOUBLE);
  Output h = ops::VarHandleOp(root.WithOpName("v"), DT_DOUBLE,
                              TensorShape({2, 1}));
  ops::AssignVariableOp(root.WithOpName("init"), h,
                        ops::Const(root, Doubles({1, 2}, TensorShape({2, 1}))));
  Output y = ops::MatMul(root, x, ops::ReadVariableOp(root, h, DT_DOUBLE));
  auto grads = AddSymbolicGradients(root, {y}, {h});
  ASSERT_TRUE(grads.ok()) << grads.status();
  auto out = RunGraph(root, {{"x", Doubles({1, 2, 3, 4}, TensorShape({2, 2}))}},
                 *grads, {"init"});
  EXPECT_THAT(Values(out[0]), ElementsAre(4, 6));
}

// TensorFlow #2441: with colocate_gradients_with_ops each tower's backward
// pass runs on the tower's device, not where ComputeGradients was called.
TEST(GradientsTest, ColocatedTowerGradientsRunOnTheTowersDevices) {
  Scope root = Scope::NewRootScope();
  Scope cpu = root.WithDevice("/cpu:0");
  Output x = ops::Placeholder(cpu.WithOpName("x"), DT_FLOAT);
  Output w = ops::Placeholder(cpu.WithOpName("w"), DT_FLOAT);
  std::vector<Output> grads;
  for (int i = 0; i < 2; ++i) {
    Scope tower = root.NewSubScope("tower_" + std::to_string(i))
                      .WithDevice("/gpu:" + std::to_string(i));
    Output y = ops::MatMul(tower, ops::MatMul(tower, x, w), w);
    // Called from the CPU scope, as the seed's tower loop does.
    auto g = AddSymbolicGradients(
        cpu, {y}, {w}, {}, GradientOptions().ColocateGradientsWithOps(true));
    ASSERT_TRUE(g.ok()) << g.status();
    grads.push_back((*g)[0]);
  }
  ops::AddN(cpu.WithOpName("sum"), grads);
  GraphDef def;
  ASSERT_TRUE(root.ToGraphDef(&def).ok()) << root.status();
  SessionOptions options;
  options.fake_gpus = 2;
  auto session = Session::Create(def, options);
  ASSERT_TRUE(session.ok()) << session.status();
  RunOptions run_options;
  run_options.collect_step_stats = true;
  RunMetadata metadata;
  std::vector<Tensor> out;
  Tensor m = Tensor::FromVector<float>({1, 2, 3, 4}, TensorShape({2, 2}));
  absl::Status s = (*session)->Run(run_options, {{"x", m}, {"w", m}}, {"sum"},
                                   {}, &out, &metadata);
  ASSERT_TRUE(s.ok()) << s;
  int checked = 0;
  for (const NodeExecStats& stats : metadata.step_stats) {
    for (int i = 0; i < 2; ++i) {
      const std::string prefix = "gradients" + std::string(i ? "_1" : "") +
                                 "/tower_" + std::to_string(i) + "/";
      if (absl::StartsWith(stats.node, prefix)) {
        EXPECT_THAT(stats.device, testing::EndsWith("GPU:" + std::to_string(i)))
            << stats.node;
        ++checked;
      }
    }
  }
  // Per tower: both operands' gradients of the outer MatMul and w's of the
  // inner one (the AddN summing w's two paths sits with w, on the CPU).
  EXPECT_EQ(checked, 6);
}

// A gradient and an update of the same variable in one step: the gradient
// must use the value the forward op read, whichever runs first.
TEST(GradientsTest, ForwardAndGradientReadOneSnapshotOfAVariable) {
  Scope root = Scope::NewRootScope();
  Output w = ops::Variable(root.WithOpName("w"), TensorShape({1}), DT_FLOAT);
  ops::Assign(root.WithOpName("init"), w, ops::Const(root, {2.0f}));
  Output y = ops::Mul(root.WithOpName("y"), w, w);
  auto grads = AddSymbolicGradients(root, {y}, {w});
  ASSERT_TRUE(grads.ok()) << grads.status();
  // y now reads w through one Identity, which its gradient reuses.
  Node* read = root.graph()->FindNode("w/read");
  ASSERT_NE(read, nullptr);
  EXPECT_EQ(y.node()->input_edge(0)->src, read);
  EXPECT_EQ(y.node()->input_edge(1)->src, read);
  // The update does not wait for the gradient's readers of w.
  ops::Identity(root.WithOpName("grad"), (*grads)[0]);
  ops::AssignSub(root.WithOpName("update"), w, ops::Const(root, {1.0f}));
  GraphDef def;
  ASSERT_TRUE(root.ToGraphDef(&def).ok()) << root.status();
  SessionOptions options;
  options.num_threads = 2;
  auto session = Session::Create(def, options);
  ASSERT_TRUE(session.ok()) << session.status();
  ASSERT_TRUE((*session)->Run({}, {}, {"init"}, nullptr).ok());
  for (int step = 0; step < 200; ++step) {
    std::vector<Tensor> out;
    absl::Status s = (*session)->Run({}, {"y", "grad"}, {"update"}, &out);
    ASSERT_TRUE(s.ok()) << s;
    const float w_read = std::sqrt(out[0].flat<float>()[0]);
    EXPECT_FLOAT_EQ(out[1].flat<float>()[0], 2 * w_read) << "step " << step;
    ASSERT_TRUE((*session)->Run({}, {}, {"init"}, nullptr).ok());
  }
}

}  // namespace
}  // namespace dflow
