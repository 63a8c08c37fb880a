// The training library end to end: variables and the initializer,
// optimizers (reference and resource variables) against hand-computed
// updates, the global step, learning-rate decay, L2 regularization, moving
// averages, and where the optimizer's ops are placed.
#include "graph/training/training.h"

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "graph/ops/ops.h"
#include "gtest/gtest.h"
#include "runtime/session.h"

namespace dflow {
namespace {

using ::testing::ElementsAre;
using ::testing::FloatNear;
using ::testing::HasSubstr;
using ::testing::Pointwise;

std::vector<float> Floats(const Tensor& t) {
  auto f = t.flat<float>();
  return std::vector<float>(f.begin(), f.end());
}

class Trainer {
 public:
  explicit Trainer(const Scope& root) {
    GraphDef def;
    absl::Status s = root.ToGraphDef(&def);
    EXPECT_TRUE(s.ok()) << s;
    auto session = Session::Create(def);
    EXPECT_TRUE(session.ok()) << session.status();
    session_ = *std::move(session);
  }
  void Target(const std::string& name) {
    absl::Status s = session_->Run({}, {}, {name}, nullptr);
    ASSERT_TRUE(s.ok()) << s;
  }
  Tensor Fetch(const std::string& name) {
    std::vector<Tensor> out;
    absl::Status s = session_->Run({}, {name}, {}, &out);
    EXPECT_TRUE(s.ok()) << s;
    return out.empty() ? Tensor() : out[0];
  }

 private:
  std::unique_ptr<Session> session_;
};

// loss = sum((w - target)^2): gradient 2 (w - target).
Output QuadraticLoss(const Scope& root, const Output& w,
                     std::initializer_list<float> target) {
  return ops::Sum(root.WithOpName("loss"),
                  ops::Square(root, ops::Sub(root, train::ReadValue(root, w),
                                             ops::Const(root, target))),
                  0);
}

TEST(TrainingTest, VariablesAndTheInitializer) {
  Scope root = Scope::NewRootScope();
  Scope layer = root.NewSubScope("layer1");
  Output w = train::NewVariable(layer, "weights", {20, 30}, DT_FLOAT,
                                train::TruncatedNormalInitializer(0.1, 7));
  train::NewVariable(layer, "biases", {30}, DT_FLOAT,
                                train::ConstantInitializer(0.25));
  Output step = train::GetOrCreateGlobalStep(root);
  EXPECT_EQ(train::GetOrCreateGlobalStep(root).node(), step.node());
  EXPECT_EQ(w.node()->name(), "layer1/weights");
  EXPECT_EQ(train::InitializerOf(root, w).name(), "layer1/weights/Assign");
  EXPECT_EQ(train::TrainableVariables(root).size(), 2u);
  EXPECT_EQ(train::GlobalVariables(root).size(), 3u);
  Operation init = train::GlobalVariablesInitializer(root);
  EXPECT_EQ(init.name(), "init");

  Trainer t(root);
  t.Target("init");
  for (float v : Floats(t.Fetch("layer1/weights"))) {
    EXPECT_LE(std::abs(v), 0.2f);  // truncated at two standard deviations
  }
  EXPECT_THAT(Floats(t.Fetch("layer1/biases")), testing::Each(0.25f));
  EXPECT_EQ(t.Fetch("global_step").flat<int64_t>()[0], 0);
}

TEST(TrainingTest, GradientDescentStepAndGlobalStep) {
  for (bool resource : {false, true}) {
    Scope root = Scope::NewRootScope();
    Output w = train::NewVariable(
        root, "w", {2}, DT_FLOAT,
        train::ValueInitializer(ops::Const(root, {1.0f, -2.0f})),
        train::VariableOptions().Resource(resource));
    Output step = train::GetOrCreateGlobalStep(root);
    Output loss = QuadraticLoss(root, w, {3.0f, 0.0f});
    train::GradientDescentOptimizer opt(0.1f);
    auto train_op = opt.Minimize(root, loss, step);
    ASSERT_TRUE(train_op.ok()) << train_op.status();
    train::GlobalVariablesInitializer(root);
    ops::Identity(root.WithOpName("value"), train::ReadValue(root, w));

    Trainer t(root);
    t.Target("init");
    t.Target(train_op->name());
    // w -= 0.1 * 2 * (w - target)
    EXPECT_THAT(Floats(t.Fetch("value")),
                Pointwise(FloatNear(1e-6), {1.4f, -1.6f}));
    t.Target(train_op->name());
    EXPECT_THAT(Floats(t.Fetch("value")),
                Pointwise(FloatNear(1e-6), {1.72f, -1.28f}));
    EXPECT_EQ(t.Fetch("global_step").flat<int64_t>()[0], 2);
  }
}

TEST(TrainingTest, MomentumKeepsAVelocitySlot) {
  for (bool nesterov : {false, true}) {
    Scope root = Scope::NewRootScope();
    Output w = train::NewVariable(
        root, "w", {1}, DT_FLOAT,
        train::ValueInitializer(ops::Const(root, {1.0f})));
    Output loss = QuadraticLoss(root, w, {0.0f});
    train::MomentumOptimizer opt(0.1f, 0.9f, nesterov);
    auto train_op = opt.Minimize(root, loss);
    ASSERT_TRUE(train_op.ok()) << train_op.status();
    Output slot = opt.GetSlot(w, "momentum");
    ASSERT_TRUE(slot.valid());
    EXPECT_EQ(slot.node()->name(), "w/Momentum");
    train::GlobalVariablesInitializer(root);

    Trainer t(root);
    t.Target("init");
    // Hand-computed: g = 2w; accum = 0.9 accum + g;
    // w -= 0.1 accum (or 0.1 g + 0.1 * 0.9 accum with Nesterov).
    double wv = 1, accum = 0;
    for (int i = 0; i < 3; ++i) {
      t.Target(train_op->name());
      const double g = 2 * wv;
      accum = 0.9 * accum + g;
      wv -= nesterov ? 0.1 * g + 0.1 * 0.9 * accum : 0.1 * accum;
      EXPECT_NEAR(t.Fetch("w").flat<float>()[0], wv, 1e-5) << "step " << i;
      EXPECT_NEAR(t.Fetch("w/Momentum").flat<float>()[0], accum, 1e-5);
    }
  }
}

TEST(TrainingTest, AdamMatchesItsFormula) {
  for (bool resource : {false, true}) {
    Scope root = Scope::NewRootScope();
    Output w = train::NewVariable(
        root, "w", {2}, DT_FLOAT,
        train::ValueInitializer(ops::Const(root, {1.0f, -0.5f})),
        train::VariableOptions().Resource(resource));
    Output loss = QuadraticLoss(root, w, {0.0f, 0.0f});
    train::AdamOptimizer opt(0.01f);
    auto train_op = opt.Minimize(root, loss);
    ASSERT_TRUE(train_op.ok()) << train_op.status();
    EXPECT_EQ(opt.GetSlot(w, "m").node()->name(), "w/Adam");
    EXPECT_EQ(opt.GetSlot(w, "v").node()->name(), "w/Adam_1");
    train::GlobalVariablesInitializer(root);
    ops::Identity(root.WithOpName("value"), train::ReadValue(root, w));

    Trainer t(root);
    t.Target("init");
    double wv[2] = {1, -0.5}, m[2] = {0, 0}, v[2] = {0, 0};
    double b1p = 0.9, b2p = 0.999;
    for (int step = 0; step < 3; ++step) {
      t.Target(train_op->name());
      const double lr_t = 0.01 * std::sqrt(1 - b2p) / (1 - b1p);
      for (int i = 0; i < 2; ++i) {
        const double g = 2 * wv[i];
        m[i] += (g - m[i]) * 0.1;
        v[i] += (g * g - v[i]) * 0.001;
        wv[i] -= lr_t * m[i] / (std::sqrt(v[i]) + 1e-8);
      }
      b1p *= 0.9;
      b2p *= 0.999;
      std::vector<float> got = Floats(t.Fetch("value"));
      EXPECT_NEAR(got[0], wv[0], 1e-5);
      EXPECT_NEAR(got[1], wv[1], 1e-5);
    }
    EXPECT_NEAR(t.Fetch("beta1_power").flat<float>()[0], b1p, 1e-6);
  }
}

TEST(TrainingTest, UpdatesAndSlotsAreColocatedWithTheirVariable) {
  Scope root = Scope::NewRootScope();
  Output w = train::NewVariable(root.WithDevice("/cpu:0"), "w", {1},
                                DT_FLOAT, train::ZerosInitializer());
  Output loss =
      QuadraticLoss(root.WithDevice("/gpu:0"), w, {1.0f});
  train::MomentumOptimizer opt(0.1f, 0.9f);
  auto train_op = opt.Minimize(root, loss);
  ASSERT_TRUE(train_op.ok()) << train_op.status();
  for (const char* name : {"Momentum/update_w/ApplyMomentum", "w/Momentum"}) {
    Node* n = root.graph()->FindNode(name);
    ASSERT_NE(n, nullptr) << name;
    std::vector<std::string> groups;
    ASSERT_TRUE(n->GetAttr("_class", &groups).ok()) << name;
    EXPECT_THAT(groups, ElementsAre("loc:@w")) << name;
    EXPECT_EQ(n->requested_device(), "/device:CPU:0") << name;
  }
}

TEST(TrainingTest, ExponentialDecay) {
  for (bool staircase : {false, true}) {
    Scope root = Scope::NewRootScope();
    Output step = train::GetOrCreateGlobalStep(root);
    Output lr = train::ExponentialDecay(
        root, 0.1f, step, 100, 0.5f,
        train::ExponentialDecayOptions().Staircase(staircase));
    ops::AssignAdd(root.WithOpName("bump"), step,
                                 ops::Const(root, Tensor::Scalar<int64_t>(150)));
    train::GlobalVariablesInitializer(root);
    Trainer t(root);
    t.Target("init");
    EXPECT_NEAR(t.Fetch(lr.name()).flat<float>()[0], 0.1, 1e-7);
    t.Target("bump");
    const double expected = staircase ? 0.05 : 0.1 * std::pow(0.5, 1.5);
    EXPECT_NEAR(t.Fetch(lr.name()).flat<float>()[0], expected, 1e-7);
  }
}

TEST(TrainingTest, L2RegularizationIsCollected) {
  Scope root = Scope::NewRootScope();
  Output w1 = train::NewVariable(
      root, "w1", {2}, DT_FLOAT,
      train::ValueInitializer(ops::Const(root, {1.0f, 2.0f})));
  Output w2 = train::NewVariable(
      root, "w2", {1}, DT_FLOAT,
      train::ValueInitializer(ops::Const(root, {3.0f})));
  train::L2Regularizer(root, 0.5f, w1);
  train::L2Regularizer(root, 0.5f, w2);
  Output total = train::TotalRegularizationLoss(root);
  train::GlobalVariablesInitializer(root);
  Trainer t(root);
  t.Target("init");
  // 0.5 * (1 + 4) / 2 + 0.5 * 9 / 2
  EXPECT_NEAR(t.Fetch(total.name()).flat<float>()[0], 3.5, 1e-6);
}

TEST(TrainingTest, MovingAverageStartsAtTheInitialValueAndFollows) {
  Scope root = Scope::NewRootScope();
  Output w = train::NewVariable(
      root, "w", {2}, DT_FLOAT,
      train::ValueInitializer(ops::Const(root, {1.0f, 2.0f})));
  Output step = train::GetOrCreateGlobalStep(root);
  train::ExponentialMovingAverage ema(0.99f, step);
  auto update = ema.Apply(root, {w});
  ASSERT_TRUE(update.ok()) << update.status();
  EXPECT_EQ(ema.AverageName(w), "w/ExponentialMovingAverage");
  EXPECT_EQ(ema.Average(w).node()->name(), "w/ExponentialMovingAverage");
  ops::Assign(root.WithOpName("set_w"), w, ops::Const(root, {3.0f, 4.0f}));
  train::GlobalVariablesInitializer(root);

  Trainer t(root);
  t.Target("init");
  EXPECT_THAT(Floats(t.Fetch("w/ExponentialMovingAverage")),
              ElementsAre(1.0f, 2.0f));
  t.Target("set_w");
  t.Target(update->name());
  // step 0: decay = min(0.99, 1/10) = 0.1; shadow -= 0.9 (shadow - w).
  EXPECT_THAT(Floats(t.Fetch("w/ExponentialMovingAverage")),
              Pointwise(FloatNear(1e-6), {2.8f, 3.8f}));
}

TEST(TrainingTest, ClearErrors) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  train::GradientDescentOptimizer opt(0.1f);
  auto no_vars = opt.Minimize(root, ops::Square(root, x));
  EXPECT_THAT(no_vars.status().message(), HasSubstr("no variables"));

  Output w = train::NewVariable(root, "w", {1}, DT_FLOAT,
                                train::ZerosInitializer());
  auto unconnected = opt.Minimize(root, ops::Square(root, x), Output(), {w});
  EXPECT_THAT(unconnected.status().message(),
              HasSubstr("no variable has a gradient"));

  Output plain = ops::Variable(root.WithOpName("plain"), {1}, DT_FLOAT);
  train::ExponentialMovingAverage ema(0.9f);
  auto foreign = ema.Apply(root, {plain});
  EXPECT_THAT(foreign.status().message(),
              HasSubstr("'plain' was not made with train::NewVariable"));
}

// Sessions fuse a weight gradient's MatMul into its SGD update
// (SessionOptions::optimize_graph); the result must not change, and a value
// fetched before the update keeps its numbers.
TEST(TrainingTest, FusedUpdateMatchesTheUnfusedGraph) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  Output w = train::NewVariable(root, "w", {3, 2}, DT_FLOAT,
                                train::TruncatedNormalInitializer(1.0, 5));
  Output y = ops::MatMul(root, x, w);
  Output loss = ops::Sum(root.WithOpName("loss"), ops::Square(root, y), {0, 1});
  train::GradientDescentOptimizer opt(0.05f);
  auto train_op = opt.Minimize(root, loss);
  ASSERT_TRUE(train_op.ok()) << train_op.status();
  train::GlobalVariablesInitializer(root);
  GraphDef def;
  ASSERT_TRUE(root.ToGraphDef(&def).ok());
  const Tensor xv =
      Tensor::FromVector<float>({1, -2, 0.5f, 3, 1, -1, 0, 2, 1, -1, 1, 1},
                                TensorShape({4, 3}));
  std::vector<std::vector<float>> results;
  for (bool optimize : {false, true}) {
    SessionOptions options;
    options.optimize_graph = optimize;
    auto session = Session::Create(def, options);
    ASSERT_TRUE(session.ok()) << session.status();
    ASSERT_TRUE((*session)->Run({}, {}, {"init"}, nullptr).ok());
    std::vector<Tensor> before;
    ASSERT_TRUE((*session)->Run({}, {"w"}, {}, &before).ok());
    const std::vector<float> before_values = Floats(before[0]);
    bool ran_fused = false;
    for (int step = 0; step < 3; ++step) {
      RunOptions run_options;
      run_options.collect_step_stats = true;
      RunMetadata metadata;
      std::vector<Tensor> none;
      absl::Status s = (*session)->Run(run_options, {{"x", xv}}, {},
                                       {train_op->name()}, &none, &metadata);
      ASSERT_TRUE(s.ok()) << s;
      for (const NodeExecStats& n : metadata.step_stats) {
        ran_fused |= n.op == "_FusedMatMulApplyGradientDescent";
      }
    }
    EXPECT_EQ(ran_fused, optimize);
    EXPECT_EQ(Floats(before[0]), before_values) << "optimize=" << optimize;
    std::vector<Tensor> after;
    ASSERT_TRUE((*session)->Run({}, {"w"}, {}, &after).ok());
    EXPECT_NE(Floats(after[0]), before_values);
    results.push_back(Floats(after[0]));
  }
  EXPECT_THAT(results[1], Pointwise(FloatNear(1e-5), results[0]));
}

// An optimizer gates each op's gradients as TensorFlow's (GATE_OP): w2's
// gradient reaches its update only after the gradient for the hidden layer
// (a MatMul reading w2) is computed, so the in-place update of the
// reference variable never runs under that read. Training gives the same
// weights as with resource variables (which copy on write).
TEST(TrainingTest, OptimizerGatesEachOpsGradients) {
  std::vector<std::vector<float>> trained;
  for (bool resource : {false, true}) {
    Scope root = Scope::NewRootScope();
    Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
    const auto options = train::VariableOptions().Resource(resource);
    Output w1 = train::NewVariable(root, "w1", {3, 5}, DT_FLOAT,
                                   train::TruncatedNormalInitializer(1.0, 7),
                                   options);
    Output w2 = train::NewVariable(root, "w2", {5, 2}, DT_FLOAT,
                                   train::TruncatedNormalInitializer(1.0, 8),
                                   options);
    Output hidden =
        ops::Relu(root, ops::MatMul(root, x, train::ReadValue(root, w1)));
    Output y = ops::MatMul(root.WithOpName("y"), hidden,
                           train::ReadValue(root, w2));
    Output loss =
        ops::Sum(root.WithOpName("loss"), ops::Square(root, y), {0, 1});
    train::GradientDescentOptimizer opt(0.05f);
    auto train_op = opt.Minimize(root, loss);
    ASSERT_TRUE(train_op.ok()) << train_op.status();
    train::GlobalVariablesInitializer(root);
    ops::Identity(root.WithOpName("w2_value"), train::ReadValue(root, w2));
    GraphDef def;
    ASSERT_TRUE(root.ToGraphDef(&def).ok());

    // y's gradient function: both of its gradients wait for one NoOp that
    // waits for both products.
    const NodeDef* gate = nullptr;
    for (const NodeDef& n : def.node()) {
      if (n.op() == "NoOp" &&
          n.name().find("y_grad/tuple/group_deps") != std::string::npos) {
        gate = &n;
      }
    }
    ASSERT_NE(gate, nullptr);
    EXPECT_EQ(gate->input_size(), 2);
    int gated = 0;
    for (const NodeDef& n : def.node()) {
      if (n.op() != "Identity") continue;
      for (const std::string& in : n.input()) {
        gated += in == "^" + gate->name();
      }
    }
    EXPECT_EQ(gated, 2);

    const Tensor xv =
        Tensor::FromVector<float>({1, -2, 0.5f, 3, 1, -1, 0, 2, 1, -1, 1, 1},
                                  TensorShape({4, 3}));
    auto session = Session::Create(def);
    ASSERT_TRUE(session.ok()) << session.status();
    ASSERT_TRUE((*session)->Run({}, {}, {"init"}, nullptr).ok());
    for (int step = 0; step < 5; ++step) {
      absl::Status st =
          (*session)->Run({{"x", xv}}, {}, {train_op->name()}, nullptr);
      ASSERT_TRUE(st.ok()) << st;
    }
    std::vector<Tensor> out;
    ASSERT_TRUE((*session)->Run({}, {"w2_value"}, {}, &out).ok());
    trained.push_back(Floats(out[0]));
  }
  EXPECT_THAT(trained[0], Pointwise(FloatNear(1e-5), trained[1]));
}

}  // namespace
}  // namespace dflow
