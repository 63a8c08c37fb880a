// Loops cut across devices (compiler/partition.h, "Loops across devices"):
// every partition that receives inside a loop gets a control loop driven by
// the loop's LoopCond, and every transfer inside a loop is keyed by frame
// instance and iteration. Checked three ways:
// - TensorFlow-written loops (tests/testdata/tf_loops: counters, nested
//   loops, a conditional inside a loop, a loop's gradient on stacks, a captured
//   tensor, a growing vector, an LSTM on TensorArrays and its gradient) with
//   their nodes asked,
//   one by one, for alternating devices (soft placement settles what must stay
//   together): TensorFlow's values on two CPUs and on a CPU and a (fake) GPU,
//   which has memory of its own and so copies at the cut;
// - an RNN built with ops::WhileLoop whose step runs on the other CPU,
//   with its gradients: bit for bit the values of one device;
// - the partitions themselves: the control loop's nodes and the frame-keyed
//   transfers appear in the step stats, once per iteration.
#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "graph/gradients/gradients.h"
#include "graph/ops/control_flow_builders.h"
#include "graph/ops/ops.h"
#include "gtest/gtest.h"
#include "runtime/session.h"
#include "tests/runtime/tf_reference_cases.h"

namespace dflow {
namespace {

constexpr char kDir[] = "tests/testdata/tf_loops/";

// `def` with node i asked for devices[i % devices.size()].
GraphDef Scatter(GraphDef def, const std::vector<std::string>& devices) {
  for (int i = 0; i < def.node_size(); ++i) {
    def.mutable_node(i)->set_device(devices[i % devices.size()]);
  }
  return def;
}

struct Split {
  std::string name;
  std::vector<std::string> devices;
  SessionOptions options;
};

Split TwoCpus() {
  Split split{"two_cpus", {"/device:CPU:0", "/device:CPU:1"}, {}};
  split.options.device_count = {{"CPU", 2}};
  split.options.allow_soft_placement = true;
  return split;
}

Split CpuAndGpu() {
  Split split{"cpu_and_gpu", {"/device:CPU:0", "/device:GPU:0"}, {}};
  split.options.fake_gpus = 1;
  split.options.allow_soft_placement = true;
  return split;
}

class TfLoopAcrossDevicesTest : public ::testing::TestWithParam<std::string> {};

void CheckScattered(const std::string& model, const Split& split) {
  SCOPED_TRACE(model + " on " + split.name);
  const GraphDef def =
      Scatter(testing_tf::LoadGraph(absl::StrCat(kDir, model, "_v1.pb")),
              split.devices);
  absl::StatusOr<std::unique_ptr<Session>> session =
      Session::Create(def, split.options);
  ASSERT_TRUE(session.ok()) << session.status();
  const int checked = testing_tf::RunCases(
      session->get(),
      testing_tf::ReadFile(absl::StrCat(kDir, model, ".cases")));
  EXPECT_EQ(checked, 4);
}

TEST_P(TfLoopAcrossDevicesTest, ScatteredOverTwoCpusGivesTensorFlowsValues) {
  CheckScattered(GetParam(), TwoCpus());
}

TEST_P(TfLoopAcrossDevicesTest, ScatteredOverCpuAndGpuGivesTensorFlowsValues) {
  CheckScattered(GetParam(), CpuAndGpu());
}

INSTANTIATE_TEST_SUITE_P(Models, TfLoopAcrossDevicesTest,
                         ::testing::Values("counter", "sum_to_n", "nested",
                                           "cond_in_loop", "const_capture",
                                           "shape_grows", "loop_grad", "rnn",
                                           "rnn_grad", "device_loop"));

// h = tanh(h * w + x_t), t = 0..5, the step on `step_device`; loss and the
// gradients for h0, w and x.
GraphDef RnnGraph(const std::string& step_device) {
  Scope root = Scope::NewRootScope();
  auto h0 = ops::Placeholder(root.WithOpName("h0"), DT_FLOAT);
  auto w = ops::Placeholder(root.WithOpName("w"), DT_FLOAT);
  auto xs = ops::Placeholder(root.WithOpName("xs"), DT_FLOAT);  // [6, 3]
  BranchResult out = ops::WhileLoop(
      root, {ops::Const(root, 0), h0},
      [](const Scope& s, const std::vector<Output>& v) -> CondResult {
        return ops::Less(s, v[0], 6);
      },
      [&](const Scope& s, const std::vector<Output>& v) -> BranchResult {
        Output x_t = ops::GatherV2(s, xs, v[0], 0);
        const Scope step = s.WithDevice(step_device);
        Output h =
            ops::Tanh(step, ops::Add(step, ops::Mul(step, v[1], w), x_t));
        return std::vector<Output>{ops::Add(s, v[0], 1), h};
      });
  EXPECT_TRUE(out.ok()) << out.status();
  Output loss = ops::Sum(root.WithOpName("loss"), (*out)[1], {0});
  absl::StatusOr<std::vector<Output>> grads =
      AddSymbolicGradients(root, {loss}, {h0, w, xs});
  EXPECT_TRUE(grads.ok()) << grads.status();
  for (size_t i = 0; i < grads->size(); ++i) {
    ops::Identity(root.WithOpName(absl::StrCat("g", i)), (*grads)[i]);
  }
  GraphDef def;
  EXPECT_TRUE(root.ToGraphDef(&def).ok());
  return def;
}

std::vector<Tensor> RunRnn(const GraphDef& def, const SessionOptions& options,
                           RunMetadata* metadata) {
  absl::StatusOr<std::unique_ptr<Session>> session =
      Session::Create(def, options);
  EXPECT_TRUE(session.ok()) << session.status();
  if (!session.ok()) return {};
  RunOptions run_options;
  run_options.timeout_ms = 10000;
  run_options.collect_step_stats = true;
  std::vector<Tensor> out;
  absl::Status s = (*session)->Run(
      run_options,
      {{"h0", Tensor::FromVector<float>({0.1f, -0.2f, 0.3f})},
       {"w", Tensor::FromVector<float>({0.5f, 0.9f, -0.7f})},
       {"xs", Tensor::FromVector<float>(
                  {0.1f, 0.2f, -0.1f, 0.3f, -0.2f, 0.0f, 0.05f, 0.1f, 0.2f,
                   -0.3f, 0.2f, 0.1f, 0.0f, -0.1f, 0.25f, 0.4f, -0.4f, 0.1f},
                  TensorShape({6, 3}))}},
      {"loss", "g0", "g1", "g2"}, {}, &out, metadata);
  EXPECT_TRUE(s.ok()) << s;
  return out;
}

TEST(WhileLoopAcrossDevicesTest, RnnStepOnTheOtherCpuEqualsOneDevice) {
  const GraphDef def = RnnGraph("/device:CPU:1");
  SessionOptions one;
  one.allow_soft_placement = true;  // CPU:1 does not exist: CPU:0
  RunMetadata unused;
  const std::vector<Tensor> expected = RunRnn(def, one, &unused);
  SessionOptions two = one;
  two.device_count = {{"CPU", 2}};
  RunMetadata metadata;
  const std::vector<Tensor> got = RunRnn(def, two, &metadata);
  ASSERT_EQ(expected.size(), 4u);
  ASSERT_EQ(got.size(), 4u);
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_EQ(got[i].NumElements(), expected[i].NumElements());
    for (int64_t k = 0; k < got[i].NumElements(); ++k) {
      EXPECT_EQ(got[i].data<float>()[k], expected[i].data<float>()[k])
          << "output " << i << " element " << k;
    }
  }
  // The cut is real: CPU:1 ran a control loop and received inside the loop
  // once per iteration (6 with the body, and the last, whose values are
  // dead), in the forward loop and in the gradient's loop.
  int control_merges = 0, recvs_in_loop = 0;
  std::vector<int64_t> merge_iterations;
  for (const NodeExecStats& s : metadata.step_stats) {
    if (!absl::StrContains(s.device, "CPU:1")) continue;
    if (absl::StartsWith(s.node, "control_loop/") && s.op == "Merge") {
      ++control_merges;
      if (s.frame == "while") merge_iterations.push_back(s.iteration);
    }
    if (s.op == "_Recv" && !s.frame.empty()) ++recvs_in_loop;
  }
  EXPECT_GE(control_merges, 7);
  EXPECT_GT(recvs_in_loop, 7);
  std::sort(merge_iterations.begin(), merge_iterations.end());
  EXPECT_EQ(merge_iterations, (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6}));
}

// A value that crosses devices dead (a branch not taken) makes its _Recv
// dead as a whole: what waits on it through a control edge does not run,
// on the receiving device as on the sending one. (The control loops rely
// on it: their Enter waits so on a loop variable's input.) Here without
// loops: an AssignAdd on CPU:1 after a branch op on CPU:0.
TEST(DeadTransferTest, ControlEdgeFromADeadValueSkipsTheNode) {
  Scope root = Scope::NewRootScope();
  const Scope cpu0 = root.WithDevice("/device:CPU:0");
  const Scope cpu1 = root.WithDevice("/device:CPU:1");
  auto pred = ops::Placeholder(root.WithOpName("pred"), DT_BOOL);
  const Operation sw = OpBuilder(cpu0.WithOpName("switch"), "Switch")
                           .Input(ops::Const(cpu0, 1.0f))
                           .Input(pred)
                           .Finalize();
  auto taken = ops::Identity(cpu0.WithOpName("taken"), sw.output(1));
  auto v = ops::Variable(cpu1.WithOpName("v"), TensorShape({}), DT_FLOAT);
  ops::Assign(cpu1.WithOpName("init"), v, ops::Const(cpu1, 0.0f));
  ops::AssignAdd(cpu1.WithOpName("bump").WithControlDependencies({taken.op()}),
                 v, ops::Const(cpu1, 1.0f));
  ASSERT_TRUE(root.ok()) << root.status();
  GraphDef def;
  ASSERT_TRUE(root.ToGraphDef(&def).ok());
  SessionOptions options;
  options.device_count = {{"CPU", 2}};
  absl::StatusOr<std::unique_ptr<Session>> session =
      Session::Create(def, options);
  ASSERT_TRUE(session.ok()) << session.status();
  std::vector<Tensor> out;
  ASSERT_TRUE((*session)->Run({}, {}, {"init"}, &out).ok());
  for (bool p : {false, true, false}) {
    absl::Status s = (*session)->Run({{"pred", Tensor::Scalar<bool>(p)}}, {},
                                     {"bump"}, &out);
    ASSERT_TRUE(s.ok()) << s;
  }
  ASSERT_TRUE((*session)->Run({}, {"v"}, {}, &out).ok());
  EXPECT_EQ(out[0].data<float>()[0], 1.0f);  // only the step with pred true
}

}  // namespace
}  // namespace dflow
