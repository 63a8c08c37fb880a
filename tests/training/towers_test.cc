// Data-parallel towers (graph/training/towers.h): MakeParallel splits,
// replicates and joins against the same model on one device, shares its
// variables and names/places its towers; AverageGradients against
// hand-computed means and its errors; and the equivalence of N-tower
// parameter-server training with one device at the same global batch.
#include "graph/training/towers.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "graph/ops/ops.h"
#include "graph/training/training.h"
#include "gtest/gtest.h"
#include "runtime/session.h"
#include "tests/kernels/gemm_variant.h"

namespace dflow {
namespace {

using ::testing::ElementsAre;
using ::testing::FloatNear;
using ::testing::HasSubstr;
using ::testing::Pointwise;

constexpr int kIn = 12;
constexpr int kHidden = 8;
constexpr int kClasses = 5;

std::vector<float> Floats(const Tensor& t) {
  auto f = t.flat<float>();
  return std::vector<float>(f.begin(), f.end());
}

// Deterministic values in [-1, 1) (a small LCG: the test must not depend on
// a random op's sequence).
Tensor Values(TensorShape shape, uint32_t seed, float scale = 1.0f) {
  Tensor t(DT_FLOAT, shape);
  uint32_t state = seed * 2654435761u + 1;
  for (float& v : t.flat<float>()) {
    state = state * 1664525u + 1013904223u;
    v = scale * (static_cast<float>(state >> 8) / 8388608.0f - 1.0f);
  }
  return t;
}

Tensor Labels(int rows, int offset) {
  Tensor t(DT_INT32, TensorShape({rows}));
  for (int i = 0; i < rows; ++i) {
    t.flat<int32_t>()[i] = (i * 3 + offset) % kClasses;
  }
  return t;
}

absl::StatusOr<std::unique_ptr<Session>> NewSession(const Scope& root, int cpus,
                                                    bool optimize = false) {
  GraphDef def;
  if (absl::Status s = root.ToGraphDef(&def); !s.ok()) return s;
  SessionOptions options;
  options.device_count = {{"CPU", cpus}};
  // By default the graphs run as built: the fusion pass turns a one-device
  // ApplyGradientDescent of a MatMul into one GEMM, which rounds
  // differently, so the equivalence tests compare the plain graphs.
  options.optimize_graph = optimize;
  return Session::Create(def, options);
}

std::vector<std::string> CpuDevices(int n) {
  std::vector<std::string> devices;
  for (int i = 0; i < n; ++i) devices.push_back(absl::StrCat("/cpu:", i));
  return devices;
}

struct MlpVars {
  Output w1, b1, w2, b2;
};

// The two-layer network both sides build: logits = relu(x w1 + b1) w2 + b2.
Output Logits(const Scope& s, const Output& x, const MlpVars& v) {
  Output hidden = ops::Relu(s, ops::Add(s, ops::MatMul(s, x, v.w1), v.b1));
  return ops::Add(s, ops::MatMul(s, hidden, v.w2), v.b2);
}

// Fixed initial values, built as constants in `root`.
struct InitialValues {
  Output w1, b1, w2, b2;
  explicit InitialValues(const Scope& root)
      : w1(ops::Const(root, Values({kIn, kHidden}, 1, 0.5f))),
        b1(ops::Const(root, Values({kHidden}, 2, 0.1f))),
        w2(ops::Const(root, Values({kHidden, kClasses}, 3, 0.5f))),
        b2(ops::Const(root, Values({kClasses}, 4, 0.1f))) {}
};

// Variables through a tower's GetVariable.
MlpVars TowerVars(train::TowerContext& tower, const InitialValues& init) {
  MlpVars v;
  v.w1 = tower.GetVariable("layer1/weights", {kIn, kHidden}, DT_FLOAT,
                           train::ValueInitializer(init.w1));
  v.b1 = tower.GetVariable("layer1/biases", {kHidden}, DT_FLOAT,
                           train::ValueInitializer(init.b1));
  v.w2 = tower.GetVariable("layer2/weights", {kHidden, kClasses}, DT_FLOAT,
                           train::ValueInitializer(init.w2));
  v.b2 = tower.GetVariable("layer2/biases", {kClasses}, DT_FLOAT,
                           train::ValueInitializer(init.b2));
  return v;
}

int CountOps(const GraphDef& def, const std::string& op) {
  return static_cast<int>(
      std::count_if(def.node().begin(), def.node().end(),
                    [&](const NodeDef& n) { return n.op() == op; }));
}

// --- MakeParallel ---

// Runs the logits of a batch of `rows` through `towers` towers and through
// the same network built once; returns {towers, single}.
std::pair<std::vector<float>, std::vector<float>> TowersAndSingle(int towers,
                                                                  int rows) {
  Scope root = Scope::NewRootScope();
  InitialValues init(root);
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT,
                              ops::PlaceholderAttrs().Shape({rows, kIn}));
  absl::StatusOr<train::ParallelModel> model = train::MakeParallel(
      root, CpuDevices(towers), {x},
      [&](train::TowerContext& tower, const std::vector<Output>& in) {
        return std::vector<Output>{
            Logits(tower.scope(), in[0], TowerVars(tower, init))};
      });
  EXPECT_TRUE(model.ok()) << model.status();
  if (!model.ok()) return {};
  ops::Identity(root.WithOpName("parallel"), model->outputs[0]);
  MlpVars v{init.w1, init.b1, init.w2, init.b2};  // the same values as consts
  ops::Identity(root.WithOpName("single_logits"),
                Logits(root.NewSubScope("single"), x, v));
  train::GlobalVariablesInitializer(root);

  auto session = NewSession(root, towers);
  EXPECT_TRUE(session.ok()) << session.status();
  if (!session.ok()) return {};
  EXPECT_TRUE((*session)->Run({}, {}, {"init"}, nullptr).ok());
  std::vector<Tensor> out;
  absl::Status s = (*session)->Run({{"x", Values({rows, kIn}, 9)}},
                                   {"parallel", "single_logits"}, {}, &out);
  EXPECT_TRUE(s.ok()) << s;
  if (!s.ok()) return {};
  EXPECT_EQ(out[0].shape(), TensorShape({rows, kClasses}));
  return {Floats(out[0]), Floats(out[1])};
}

TEST(MakeParallelTest, ValuesEqualTheModelOnOneDevice) {
  if (const std::string why = UnsupportedGemmVariant(); !why.empty()) {
    GTEST_SKIP() << why;
  }
  // Each row's logits depend on that row only, so splitting the batch and
  // joining the results changes nothing, bit for bit: Gemm computes every
  // row the same way whatever the batch (kernel_util_gemm_library.h). The
  // BUILD file runs this on other hosts' kernels too (towers_test_<variant>).
  for (int towers : {1, 2, 4}) {
    auto [parallel, single] = TowersAndSingle(towers, 8);
    ASSERT_EQ(parallel.size(), 8u * kClasses);
    EXPECT_EQ(parallel, single) << towers << " towers";
  }
}

TEST(MakeParallelTest, UnevenBatchIsSplitWithSplitV) {
  if (const std::string why = UnsupportedGemmVariant(); !why.empty()) {
    GTEST_SKIP() << why;
  }
  auto [parallel, single] = TowersAndSingle(4, 7);  // parts 2, 2, 2, 1
  ASSERT_EQ(parallel.size(), 7u * kClasses);
  EXPECT_EQ(parallel, single);
}

TEST(MakeParallelTest, VariablesAreSharedAndTowersPlaced) {
  Scope root = Scope::NewRootScope();
  InitialValues init(root);
  Output x =
      ops::Placeholder(root.WithOpName("x").WithDevice("/cpu:0"), DT_FLOAT,
                       ops::PlaceholderAttrs().Shape({-1, kIn}));
  absl::StatusOr<train::ParallelModel> model = train::MakeParallel(
      root, CpuDevices(3), {x},
      [&](train::TowerContext& tower, const std::vector<Output>& in) {
        EXPECT_EQ(tower.num_towers(), 3);
        EXPECT_EQ(tower.device(), absl::StrCat("/cpu:", tower.index()));
        EXPECT_EQ(tower.scope().name_scope(),
                  absl::StrCat("tower_", tower.index()));
        return std::vector<Output>{
            Logits(tower.scope(), in[0], TowerVars(tower, init))};
      });
  ASSERT_TRUE(model.ok()) << model.status();
  ASSERT_EQ(model->variables.size(), 4u);
  EXPECT_EQ(model->variables[0].node()->name(), "layer1/weights");
  EXPECT_EQ(model->tower_outputs.size(), 3u);
  EXPECT_EQ(model->outputs[0].shape(), TensorShape({-1, kClasses}));
  ops::Identity(root.WithOpName("logits"), model->outputs[0]);
  train::GlobalVariablesInitializer(root);

  GraphDef def;
  ASSERT_TRUE(root.ToGraphDef(&def).ok()) << root.status();
  EXPECT_EQ(CountOps(def, "VariableV2"), 4);  // one per variable, not per tower
  EXPECT_EQ(CountOps(def, "Split"), 1);
  EXPECT_EQ(CountOps(def, "ConcatV2"), 1);
  int tower_ops = 0;
  for (const NodeDef& n : def.node()) {
    if (n.op() == "VariableV2") {
      EXPECT_THAT(n.device(), HasSubstr("CPU:0")) << n.name();
    }
    for (int i = 0; i < 3; ++i) {
      if (absl::StartsWith(n.name(), absl::StrCat("tower_", i, "/"))) {
        ++tower_ops;
        EXPECT_THAT(n.device(), HasSubstr(absl::StrCat("CPU:", i))) << n.name();
      }
    }
  }
  EXPECT_EQ(tower_ops, 3 * 5);  // MatMul, Add, Relu, MatMul, Add per tower

  // Placed and run: every tower's MatMul ran on its own logical CPU.
  auto session = NewSession(root, 3);
  ASSERT_TRUE(session.ok()) << session.status();
  ASSERT_TRUE((*session)->Run({}, {}, {"init"}, nullptr).ok());
  RunOptions run_options;
  run_options.collect_step_stats = true;
  RunMetadata metadata;
  std::vector<Tensor> out;
  absl::Status s = (*session)->Run(run_options, {{"x", Values({6, kIn}, 5)}},
                                   {"logits"}, {}, &out, &metadata);
  ASSERT_TRUE(s.ok()) << s;
  int matmuls = 0;
  for (const NodeExecStats& stats : metadata.step_stats) {
    for (int i = 0; i < 3; ++i) {
      if (stats.node == absl::StrCat("tower_", i, "/MatMul")) {
        ++matmuls;
        EXPECT_THAT(stats.device, HasSubstr(absl::StrCat("CPU:", i)));
      }
    }
  }
  EXPECT_EQ(matmuls, 3);
}

TEST(MakeParallelTest, ScalarOutputsAreStacked) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Const(root, Values({4, 3}, 6));
  absl::StatusOr<train::ParallelModel> model = train::MakeParallel(
      root, CpuDevices(2), {x},
      [](train::TowerContext& tower, const std::vector<Output>& in) {
        return std::vector<Output>{ops::Sum(tower.scope(), in[0], {0, 1})};
      });
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_EQ(model->outputs[0].shape(), TensorShape({2}));
  ops::Identity(root.WithOpName("sums"), model->outputs[0]);
  auto session = NewSession(root, 2);
  ASSERT_TRUE(session.ok()) << session.status();
  std::vector<Tensor> out;
  ASSERT_TRUE((*session)->Run({}, {"sums"}, {}, &out).ok());
  const std::vector<float> xv = Floats(Values({4, 3}, 6));
  float first = 0, second = 0;
  for (int i = 0; i < 6; ++i) first += xv[i];
  for (int i = 6; i < 12; ++i) second += xv[i];
  EXPECT_THAT(Floats(out[0]), Pointwise(FloatNear(1e-5), {first, second}));
}

TEST(MakeParallelTest, Errors) {
  auto identity = [](train::TowerContext& tower,
                     const std::vector<Output>& in) {
    return std::vector<Output>{ops::Identity(tower.scope(), in[0])};
  };
  {
    Scope root = Scope::NewRootScope();
    Output x = ops::Const(root.WithOpName("scalar"), 1.0f);
    auto model = train::MakeParallel(root, CpuDevices(2), {x}, identity);
    ASSERT_FALSE(model.ok());
    EXPECT_THAT(model.status().message(), HasSubstr("input 0 'scalar'"));
    EXPECT_THAT(model.status().message(), HasSubstr("scalar"));
  }
  {
    Scope root = Scope::NewRootScope();
    Output x = ops::Const(root.WithOpName("small"), {1.0f, 2.0f});
    auto model = train::MakeParallel(root, CpuDevices(3), {x}, identity);
    ASSERT_FALSE(model.ok());
    EXPECT_THAT(model.status().message(),
                HasSubstr("'small' has 2 rows (shape [2]), fewer than the 3"));
  }
  {
    Scope root = Scope::NewRootScope();
    Output x = ops::Const(root, {1.0f, 2.0f});
    auto model = train::MakeParallel(root, {}, {x}, identity);
    ASSERT_FALSE(model.ok());
    EXPECT_THAT(model.status().message(), HasSubstr("no devices"));
  }
  {
    // Tower 1 asks for the variable with another shape.
    Scope root = Scope::NewRootScope();
    Output x = ops::Const(root, {1.0f, 2.0f});
    auto model = train::MakeParallel(
        root, CpuDevices(2), {x},
        [](train::TowerContext& tower, const std::vector<Output>& in) {
          Output w = tower.GetVariable("w", {tower.index() + 1}, DT_FLOAT,
                                       train::ZerosInitializer());
          return std::vector<Output>{ops::Mul(tower.scope(), in[0], w)};
        });
    ASSERT_FALSE(model.ok());
    EXPECT_THAT(model.status().message(),
                HasSubstr("tower 1 asked for variable 'w' as float[2] but it "
                          "was made as float[1]"));
  }
  {
    Scope root = Scope::NewRootScope();
    Output x = ops::Const(root, {1.0f, 2.0f});
    auto model = train::MakeParallel(
        root, CpuDevices(2), {x},
        [](train::TowerContext& tower, const std::vector<Output>& in) {
          std::vector<Output> out{ops::Identity(tower.scope(), in[0])};
          if (tower.index() == 1) out.push_back(in[0]);
          return out;
        });
    ASSERT_FALSE(model.ok());
    EXPECT_THAT(model.status().message(),
                HasSubstr("tower 1 on /cpu:1 returned 2 outputs but tower 0 "
                          "returned 1"));
  }
}

// --- AverageGradients ---

TEST(AverageGradientsTest, MeanOfTheTowersAsTheSeedsWriteIt) {
  Scope root = Scope::NewRootScope();
  Output w =
      train::NewVariable(root, "w", {2}, DT_FLOAT, train::ZerosInitializer());
  Output b =
      train::NewVariable(root, "b", {}, DT_FLOAT, train::ZerosInitializer());
  Output unused = train::NewVariable(root, "unused", {1}, DT_FLOAT,
                                     train::ZerosInitializer());
  std::vector<std::vector<train::GradAndVar>> tower_grads = {
      {{ops::Const(root, {1.0f, 2.0f}), w},
       {ops::Const(root, 4.0f), b},
       {Output(), unused}},
      {{ops::Const(root, {3.0f, 5.0f}), w},
       {ops::Const(root, -1.0f), b},
       {Output(), unused}},
      {{ops::Const(root, {2.0f, -1.0f}), w},
       {ops::Const(root, 0.5f), b},
       {Output(), unused}},
  };
  auto averaged =
      train::AverageGradients(root.WithDevice("/cpu:0"), tower_grads);
  ASSERT_TRUE(averaged.ok()) << averaged.status();
  ASSERT_EQ(averaged->size(), 3u);
  EXPECT_EQ((*averaged)[0].var.node(), w.node());
  EXPECT_EQ((*averaged)[1].var.node(), b.node());
  EXPECT_FALSE((*averaged)[2].grad.valid());  // no tower had one: left alone
  EXPECT_EQ((*averaged)[2].var.node(), unused.node());
  // The seeds' structure: ExpandDims per tower, ConcatV2, Mean, on /cpu:0.
  const Node* mean = (*averaged)[0].grad.node();
  EXPECT_EQ(mean->op(), "Mean");
  EXPECT_EQ(mean->name(), "average_gradients/w/Mean");
  EXPECT_THAT(mean->requested_device(), HasSubstr("CPU:0"));
  const Node* concat = mean->input_edge(0)->src;  // data input 0
  EXPECT_EQ(concat->op(), "ConcatV2");
  EXPECT_EQ(concat->input_edge(0)->src->op(), "ExpandDims");
  ops::Identity(root.WithOpName("gw"), (*averaged)[0].grad);
  ops::Identity(root.WithOpName("gb"), (*averaged)[1].grad);

  auto session = NewSession(root, 1);
  ASSERT_TRUE(session.ok()) << session.status();
  std::vector<Tensor> out;
  ASSERT_TRUE((*session)->Run({}, {"gw", "gb"}, {}, &out).ok());
  EXPECT_THAT(Floats(out[0]), Pointwise(FloatNear(1e-6), {2.0f, 2.0f}));
  EXPECT_EQ(out[1].shape(), TensorShape({}));
  EXPECT_NEAR(out[1].flat<float>()[0], 3.5f / 3, 1e-6);
}

TEST(AverageGradientsTest, Errors) {
  Scope root = Scope::NewRootScope();
  Output w =
      train::NewVariable(root, "w", {1}, DT_FLOAT, train::ZerosInitializer());
  Output v =
      train::NewVariable(root, "v", {1}, DT_FLOAT, train::ZerosInitializer());
  Output g = ops::Const(root, {1.0f});
  EXPECT_THAT(train::AverageGradients(root, {}).status().message(),
              HasSubstr("no towers"));
  EXPECT_THAT(
      train::AverageGradients(root, {{{g, w}}, {{g, v}}}).status().message(),
      HasSubstr("variable 0 is 'w' in tower 0 but 'v' in tower 1"));
  EXPECT_THAT(train::AverageGradients(root, {{{g, w}}, {{g, w}, {g, v}}})
                  .status()
                  .message(),
              HasSubstr("tower 1 has 2 variables but tower 0 has 1"));
  EXPECT_THAT(train::AverageGradients(root, {{{g, w}}, {{Output(), w}}})
                  .status()
                  .message(),
              HasSubstr("variable 'w' has a gradient in towers 0 but none in "
                        "towers 1"));
}

TEST(RegularizationTest, TotalLossOfOneNameScope) {
  Scope root = Scope::NewRootScope();
  Output w = ops::Const(root, {1.0f, 2.0f});  // L2: 2.5
  for (const char* tower : {"tower_1", "tower_10", "tower_2"}) {
    train::L2Regularizer(root.NewSubScope(tower), 1.0f, w);
  }
  ops::Identity(root.WithOpName("one"), train::TotalRegularizationLoss(
                                            root.NewSubScope("a"), "tower_1"));
  ops::Identity(root.WithOpName("all"),
                train::TotalRegularizationLoss(root.NewSubScope("b")));
  ops::Identity(root.WithOpName("none"), train::TotalRegularizationLoss(
                                             root.NewSubScope("c"), "tower_3"));
  auto session = NewSession(root, 1);
  ASSERT_TRUE(session.ok()) << session.status();
  std::vector<Tensor> out;
  ASSERT_TRUE((*session)->Run({}, {"one", "all", "none"}, {}, &out).ok());
  EXPECT_FLOAT_EQ(out[0].flat<float>()[0], 2.5f);  // not tower_10's
  EXPECT_FLOAT_EQ(out[1].flat<float>()[0], 7.5f);
  EXPECT_FLOAT_EQ(out[2].flat<float>()[0], 0.0f);
}

// --- Equivalence with one device ---

constexpr int kBatch = 16;
constexpr int kSteps = 5;
constexpr float kLearningRate = 0.5f;
constexpr float kL2 = 1e-3f;

// The cross-entropy of one batch plus the L2 terms of the weights built in
// `s`'s name scope.
Output Loss(const Scope& s, const Output& x, const Output& labels,
            const MlpVars& v) {
  train::L2Regularizer(s.WithNameScopePath("layer1"), kL2, v.w1);
  train::L2Regularizer(s.WithNameScopePath("layer2"), kL2, v.w2);
  Output xent = ops::Mean(
      s,
      ops::SparseSoftmaxCrossEntropyWithLogits(s, Logits(s, x, v), labels).loss,
      0);
  return ops::Add(s, xent, train::TotalRegularizationLoss(s, s.name_scope()));
}

struct Training {
  Scope root = Scope::NewRootScope();
  std::vector<Output> vars;
  std::string train_op;
};

enum class Strategy { kParameterServer, kAllReduce };

// kSteps of SGD on the two-layer network: `towers` towers on as many
// logical CPUs with `strategy`, or (towers == 0) one device with Minimize.
Training BuildTraining(int towers,
                       Strategy strategy = Strategy::kParameterServer) {
  Training t;
  Scope cpu = t.root.WithDevice("/cpu:0");
  InitialValues init(cpu);
  Output x = ops::Placeholder(cpu.WithOpName("x"), DT_FLOAT,
                              ops::PlaceholderAttrs().Shape({kBatch, kIn}));
  Output labels = ops::Placeholder(cpu.WithOpName("labels"), DT_INT32,
                                   ops::PlaceholderAttrs().Shape({kBatch}));
  Output step = train::GetOrCreateGlobalStep(cpu);
  train::GradientDescentOptimizer opt(kLearningRate);
  absl::StatusOr<Operation> train_op;
  if (towers == 0) {
    MlpVars v;
    v.w1 = train::NewVariable(cpu, "layer1/weights", {kIn, kHidden}, DT_FLOAT,
                              train::ValueInitializer(init.w1));
    v.b1 = train::NewVariable(cpu, "layer1/biases", {kHidden}, DT_FLOAT,
                              train::ValueInitializer(init.b1));
    v.w2 = train::NewVariable(cpu, "layer2/weights", {kHidden, kClasses},
                              DT_FLOAT, train::ValueInitializer(init.w2));
    v.b2 = train::NewVariable(cpu, "layer2/biases", {kClasses}, DT_FLOAT,
                              train::ValueInitializer(init.b2));
    train_op = opt.Minimize(cpu, Loss(cpu, x, labels, v), step);
    t.vars = {v.w1, v.b1, v.w2, v.b2};
  } else {
    const bool all_reduce = strategy == Strategy::kAllReduce;
    absl::StatusOr<train::ParallelModel> model = train::MakeParallel(
        t.root, CpuDevices(towers), {x, labels},
        [&](train::TowerContext& tower, const std::vector<Output>& in) {
          return std::vector<Output>{
              Loss(tower.scope(), in[0], in[1], TowerVars(tower, init))};
        },
        train::ParallelOptions().MirroredVariables(all_reduce));
    EXPECT_TRUE(model.ok()) << model.status();
    if (!model.ok()) return t;
    train_op = all_reduce
                   ? train::AllReduceMinimize(cpu, opt, *model, 0, step)
                   : train::ParameterServerMinimize(cpu, opt, *model, 0, step);
    // Every replica (all-reduce), or the shared variables once.
    for (const auto& vars : model->tower_variables) {
      t.vars.insert(t.vars.end(), vars.begin(), vars.end());
      if (!all_reduce) break;
    }
  }
  EXPECT_TRUE(train_op.ok()) << train_op.status();
  if (train_op.ok()) t.train_op = train_op->name();
  train::GlobalVariablesInitializer(t.root);
  return t;
}

// The weights after kSteps steps of BuildTraining(towers, strategy): the
// four variables, then (all-reduce) the other towers' replicas of them.
// With `optimize` the session runs its optimization passes (tensor fusion
// among them) and `ops_run`, when given, receives the op of every node the
// last step ran.
std::vector<std::vector<float>> Train(
    int towers, Strategy strategy = Strategy::kParameterServer,
    bool optimize = false, std::vector<std::string>* ops_run = nullptr) {
  Training t = BuildTraining(towers, strategy);
  if (t.train_op.empty()) return {};
  auto session = NewSession(t.root, std::max(towers, 1), optimize);
  EXPECT_TRUE(session.ok()) << session.status();
  if (!session.ok()) return {};
  EXPECT_TRUE((*session)->Run({}, {}, {"init"}, nullptr).ok());
  for (int i = 0; i < kSteps; ++i) {
    RunOptions options;
    options.collect_step_stats = ops_run != nullptr && i + 1 == kSteps;
    RunMetadata metadata;
    absl::Status s = (*session)->Run(
        options,
        {{"x", Values({kBatch, kIn}, 100 + i)}, {"labels", Labels(kBatch, i)}},
        {}, {t.train_op}, nullptr, &metadata);
    EXPECT_TRUE(s.ok()) << s;
    if (options.collect_step_stats) {
      for (const NodeExecStats& n : metadata.step_stats) {
        ops_run->push_back(n.op);
      }
    }
  }
  std::vector<std::string> names;
  for (const Output& v : t.vars) names.push_back(v.node()->name());
  names.push_back("global_step");
  std::vector<Tensor> out;
  absl::Status s = (*session)->Run({}, names, {}, &out);
  EXPECT_TRUE(s.ok()) << s;
  if (!s.ok()) return {};
  EXPECT_EQ(out.back().flat<int64_t>()[0], kSteps);
  out.pop_back();
  std::vector<std::vector<float>> weights;
  for (const Tensor& w : out) weights.push_back(Floats(w));
  return weights;
}

TEST(ParameterServerTest, GradientsOnTheirTowersOneUpdateOnTheVariables) {
  Training t = BuildTraining(2);
  ASSERT_FALSE(t.train_op.empty());
  GraphDef def;
  ASSERT_TRUE(t.root.ToGraphDef(&def).ok()) << t.root.status();
  int gradient_ops[2] = {0, 0}, averages = 0, updates = 0;
  for (const NodeDef& n : def.node()) {
    for (int i = 0; i < 2; ++i) {
      // The gradients of tower i's forward ops ("tower_i/gradients/tower_i/
      // MatMul_grad/..."); those of a variable's "read" snapshot (summing the
      // MatMul's and the L2 term's) stay with it, as in TensorFlow.
      if (absl::StartsWith(
              n.name(),
              absl::StrCat("tower_", i, "/gradients/tower_", i, "/"))) {
        ++gradient_ops[i];
        EXPECT_THAT(n.device(), HasSubstr(absl::StrCat("CPU:", i))) << n.name();
      }
    }
    if (absl::StartsWith(n.name(), "average_gradients/")) {
      ++averages;
      EXPECT_THAT(n.device(), HasSubstr("CPU:0")) << n.name();
    }
    if (n.op() == "ApplyGradientDescent") {
      ++updates;
      EXPECT_THAT(n.device(), HasSubstr("CPU:0")) << n.name();
    }
  }
  EXPECT_GT(gradient_ops[0], 10);
  EXPECT_EQ(gradient_ops[0], gradient_ops[1]);
  EXPECT_EQ(CountOps(def, "Mean"), 2 * 1 + 4);  // xent per tower, 4 averages
  EXPECT_GT(averages, 4 * 3);
  EXPECT_EQ(updates, 4);  // one per variable, not per tower
}

// The largest |a - b| over the first single.size() tensors of `parallel`.
float LargestDifference(const std::vector<std::vector<float>>& parallel,
                        const std::vector<std::vector<float>>& single) {
  float worst = 0;
  for (size_t k = 0; k < single.size(); ++k) {
    EXPECT_EQ(parallel[k].size(), single[k].size());
    for (size_t j = 0; j < single[k].size() && j < parallel[k].size(); ++j) {
      worst = std::max(worst, std::abs(parallel[k][j] - single[k][j]));
    }
  }
  return worst;
}

TEST(TowerEquivalenceTest, NTowersMatchOneDeviceWithEitherStrategy) {
  const std::vector<std::vector<float>> single = Train(0);
  ASSERT_EQ(single.size(), 4u);
  // The weights moved: the comparison below is not of initial values.
  EXPECT_NE(single[0], Floats(Values({kIn, kHidden}, 1, 0.5f)));
  float largest = 0;
  for (const auto& w : single) {
    for (float v : w) largest = std::max(largest, std::abs(v));
  }
  for (Strategy strategy : {Strategy::kParameterServer, Strategy::kAllReduce}) {
    const char* name =
        strategy == Strategy::kAllReduce ? "all-reduce" : "parameter server";
    for (int towers : {1, 2, 4}) {
      const std::vector<std::vector<float>> parallel = Train(towers, strategy);
      const size_t replicas = strategy == Strategy::kAllReduce ? towers : 1;
      ASSERT_EQ(parallel.size(), 4u * replicas) << name << " " << towers;
      // Every tower applied the same all-reduced update: its replicas equal
      // tower 0's bit for bit.
      for (size_t i = 1; i < replicas; ++i) {
        for (size_t k = 0; k < 4; ++k) {
          EXPECT_EQ(parallel[4 * i + k], parallel[k])
              << name << ": tower " << i << " variable " << k;
        }
      }
      const float worst = LargestDifference(parallel, single);
      if (towers == 1) {
        // One tower computes what one device does, and the average of one
        // gradient (the seeds' Mean over one row, or an all-reduce of one
        // member) is exact: bitwise equal.
        EXPECT_EQ(worst, 0.0f) << name;
        continue;
      }
      // Mean of per-tower means vs one mean over the batch, and per-tower
      // partial sums in the weight gradients: a few ulps apart.
      EXPECT_LE(worst, 1e-6f * largest) << name << ", " << towers << " towers";
      std::cout << name << ", " << towers << " towers: largest difference "
                << worst << " (relative to the largest weight "
                << worst / largest << ")\n";
    }
  }
}

TEST(AllReduceTest, ReplicasOnTheirTowersCollectivesAndUpdatesThere) {
  Training t = BuildTraining(2, Strategy::kAllReduce);
  ASSERT_FALSE(t.train_op.empty());
  EXPECT_EQ(t.train_op, "allreduce_update");
  GraphDef def;
  ASSERT_TRUE(t.root.ToGraphDef(&def).ok()) << t.root.status();
  std::map<std::string, std::string> device;
  for (const NodeDef& n : def.node()) device[n.name()] = n.device();
  EXPECT_THAT(device["layer1/weights"], HasSubstr("CPU:0"));
  EXPECT_THAT(device["layer1/weights/replica_1"], HasSubstr("CPU:1"));
  EXPECT_EQ(CountOps(def, "VariableV2"), 2 * 4 + 1);  // + global_step
  EXPECT_EQ(CountOps(def, "CollectiveAllReduce"), 2 * 4);
  EXPECT_EQ(CountOps(def, "ApplyGradientDescent"), 2 * 4);
  for (int i = 0; i < 2; ++i) {
    const std::string ar = absl::StrCat(
        "tower_", i, "/allreduce/layer2/biases/CollectiveAllReduce");
    ASSERT_TRUE(device.count(ar)) << ar;
    EXPECT_THAT(device[ar], HasSubstr(absl::StrCat("CPU:", i)));
    const std::string update =
        absl::StrCat("tower_", i, "/GradientDescent/update_layer2/biases",
                     i == 0 ? "" : "/replica_1", "/ApplyGradientDescent");
    ASSERT_TRUE(device.count(update)) << update;
    EXPECT_THAT(device[update], HasSubstr(absl::StrCat("CPU:", i)));
  }
  // Only the first replica is trainable: the collection lists each once.
  EXPECT_EQ(train::TrainableVariables(t.root).size(), 4u);
}

// Sessions fuse the per-variable all-reduces (SessionOptions::
// tensor_fusion_threshold_bytes); the rank-order reduction makes fused and
// unfused training bitwise equal.
TEST(AllReduceTest, TensorFusionOnAndOffTrainTheSameBits) {
  for (int towers : {2, 4}) {
    std::vector<std::string> ops;
    const auto fused = Train(towers, Strategy::kAllReduce, true, &ops);
    const auto plain = Train(towers, Strategy::kAllReduce);
    // One fused all-reduce per tower replaced the 4 per-variable ones.
    EXPECT_EQ(std::count(ops.begin(), ops.end(), "_FusedCollectiveAllReduce"),
              towers);
    EXPECT_EQ(std::count(ops.begin(), ops.end(), "CollectiveAllReduce"), 0);
    ASSERT_EQ(fused.size(), plain.size());
    ASSERT_FALSE(plain.empty());
    for (size_t i = 0; i < plain.size(); ++i) {
      ASSERT_EQ(fused[i].size(), plain[i].size());
      EXPECT_EQ(0, std::memcmp(fused[i].data(), plain[i].data(),
                               plain[i].size() * sizeof(float)))
          << "towers " << towers << ", variable " << i;
    }
  }
}

TEST(AllReduceTest, StrategyAndVariablesMustAgree) {
  for (bool mirrored : {false, true}) {
    Scope root = Scope::NewRootScope();
    Output x = ops::Const(root, Values({4, 2}, 7));
    auto model = train::MakeParallel(
        root, CpuDevices(2), {x},
        [](train::TowerContext& tower, const std::vector<Output>& in) {
          Output w = tower.GetVariable("w", {2, 1}, DT_FLOAT,
                                       train::ZerosInitializer());
          return std::vector<Output>{ops::Sum(
              tower.scope(), ops::MatMul(tower.scope(), in[0], w), {0, 1})};
        },
        train::ParallelOptions().MirroredVariables(mirrored));
    ASSERT_TRUE(model.ok()) << model.status();
    train::GradientDescentOptimizer opt(0.1f);
    if (mirrored) {
      EXPECT_THAT(
          train::ParameterServerMinimize(root, opt, *model, 0)
              .status()
              .message(),
          HasSubstr("mirrored (one replica per tower); use AllReduceMinimize"));
      EXPECT_THAT(train::AllReduceMinimize(root, opt, *model, 0, Output(),
                                           {ops::Const(root, 1.0f)})
                      .status()
                      .message(),
                  HasSubstr("is not one of the model's variables"));
      EXPECT_THAT(
          train::AllReduceMinimize(root, opt, *model, 3).status().message(),
          HasSubstr("loss_index 3 but the towers have 1 outputs"));
    } else {
      EXPECT_THAT(
          train::AllReduceMinimize(root, opt, *model, 0).status().message(),
          HasSubstr("shared, not mirrored"));
    }
  }
}

}  // namespace
}  // namespace dflow
