// tf.while_loop graphs written by TensorFlow 2.21 (tools/tf_reference/
// make_loop_reference.py): the TF1 style (Enter/Merge/Switch/LoopCond/
// NextIteration/Exit) runs on the executor's frames and must give
// TensorFlow's values for every case, including a loop whose body never
// runs (n = 0), nested loops, a conditional inside a loop, a captured
// constant, a loop variable that grows, a gradient through a loop (its
// accumulators are StackV2 stacks: pushes forward, pops backward) and a
// frozen LSTM dynamic_rnn and its input gradient (TensorArrayV3 read,
// write, scatter, gather and gradient arrays), TensorArray split, concat,
// scatter and gather with their gradients, a bidirectional LSTM
// (ReverseSequence), tf.print in a loop and a string loop variable. Also the bad inputs: an
// Exit of no loop, inputs from two frames, and a loop that never ends (the
// step's deadline ends it). The same loops in the functional style
// (StatelessWhile, cond and body in the library) run through
// compiler/lower_functional_while.h and must give the same values; its
// errors (a missing, mismatched or recursive function) name the node and
// the function.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "gmock/gmock.h"
#include "graph/graph_def_file.h"
#include "gtest/gtest.h"
#include "runtime/session.h"
#include "tests/runtime/tf_reference_cases.h"

namespace dflow {
namespace {

using ::testing::HasSubstr;

constexpr char kDir[] = "tests/testdata/tf_loops/";

using testing_tf::Floats;
using testing_tf::ReadFile;
using testing_tf::Vector;

GraphDef Load(const std::string& name) {
  return testing_tf::LoadGraph(kDir + name);
}

// Runs every case of `model` ("n | x | out" lines) on its graph in `style`.
void CheckModel(const std::string& model, const std::string& style,
                const SessionOptions& options = {}) {
  SCOPED_TRACE(model + "_" + style);
  absl::StatusOr<std::unique_ptr<Session>> session =
      Session::Create(Load(model + "_" + style + ".pb"), options);
  ASSERT_TRUE(session.ok()) << session.status();
  const int checked =
      testing_tf::RunCases(session->get(), ReadFile(kDir + model + ".cases"));
  EXPECT_EQ(checked, 4);
}

class TfLoopsTest : public ::testing::TestWithParam<std::string> {};

TEST_P(TfLoopsTest, FrameStyleGivesTensorFlowsValues) {
  CheckModel(GetParam(), "v1");
}

// Gradients through loops and the LSTM: their functional forms carry
// TensorLists (DT_VARIANT values).
INSTANTIATE_TEST_SUITE_P(Models, TfLoopsTest,
                         ::testing::Values("counter", "sum_to_n", "nested",
                                           "cond_in_loop", "const_capture",
                                           "shape_grows", "loop_grad", "rnn",
                                           "rnn_grad", "cond_grad_in_loop",
                                           "partial_array",
                                           "array_split_concat",
                                           "array_scatter_gather",
                                           "bidirectional_rnn",
                                           "print_in_loop", "string_loop"));

// TensorFlow 2 captures a trained variable in a functional While as a
// resource loop variable the body passes through: it enters the lowered
// loop once, as a constant. The graph is the control-flow probe's
// train_gd_while_resource (tools/tf_probe/control_flow_probe.py): W (3) is
// a resource variable, v = v * W + x three times, loss = sum(v * v),
// trained by GradientDescent; the step's loss is TensorFlow's.
TEST(TfLoopsTest, FunctionalLoopOverACapturedResourceVariableTrains) {
  absl::StatusOr<std::unique_ptr<Session>> session =
      Session::Create(Load("resource_train_v2.pb"));
  ASSERT_TRUE(session.ok()) << session.status();
  ASSERT_TRUE((*session)->Run({}, {}, {"init"}, nullptr).ok());
  std::vector<Tensor> out;
  const absl::Status s = (*session)->Run(
      {{"tgwr/x", Vector({1, 2, 3})}, {"tgwr/n", Tensor::Scalar<int32_t>(3)}},
      {"tgwr/Sum:0"}, {"GradientDescent"}, &out);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_NEAR(out[0].data<float>()[0], 67.26766204833984, 1e-4);
}

TEST(TfLoopsTest, LoopWithItsBodyOnAnotherDevice) {
  SessionOptions options;
  options.device_count = {{"CPU", 2}};
  CheckModel("device_loop", "v1", options);
}

TEST_P(TfLoopsTest, FunctionalStyleGivesTensorFlowsValues) {
  CheckModel(GetParam(), "v2");
}

TEST_P(TfLoopsTest, FunctionalStyleIsLoweredWithOptimizationOff) {
  SessionOptions options;
  options.optimize_graph = false;
  CheckModel(GetParam(), "v2", options);
}

TEST(TfLoopsTest, FunctionalLoopWithItsBodyOnAnotherDevice) {
  SessionOptions options;
  options.device_count = {{"CPU", 2}};
  CheckModel("device_loop", "v2", options);
}

// The name of the graph's (only) While or StatelessWhile node, and its
// function attr `attr` ("cond" or "body").
std::string LoopFunction(const GraphDef& def, const std::string& attr,
                         std::string* node = nullptr) {
  for (const NodeDef& n : def.node()) {
    if (n.op() == "While" || n.op() == "StatelessWhile") {
      if (node != nullptr) *node = n.name();
      return n.attr().at(attr).func().name();
    }
  }
  return "";
}

FunctionDef* FindFunction(GraphDef* def, const std::string& name) {
  for (FunctionDef& f : *def->mutable_library()->mutable_function()) {
    if (f.signature().name() == name) return &f;
  }
  return nullptr;
}

absl::Status RunCounter(const GraphDef& def) {
  absl::StatusOr<std::unique_ptr<Session>> session = Session::Create(def);
  if (!session.ok()) return session.status();
  std::vector<Tensor> out;
  return (*session)->Run(
      {{"x", Vector({1, 2, 3})}, {"n", Tensor::Scalar<int32_t>(3)}}, {"out"},
      {}, &out);
}

// passes.txt of one run of `model` (x = [1, 2, 3], n = 2) dumped to `dir`.
std::string PassesOfRun(const std::string& model, const std::string& dir) {
  SessionOptions options;
  options.dump_passes_dir = ::testing::TempDir() + "/" + dir;
  absl::StatusOr<std::unique_ptr<Session>> session =
      Session::Create(Load(model), options);
  EXPECT_TRUE(session.ok()) << session.status();
  if (!session.ok()) return "";
  std::vector<Tensor> out;
  absl::Status s = (*session)->Run(
      {{"x", Vector({1, 2, 3})}, {"n", Tensor::Scalar<int32_t>(2)}}, {"out"},
      {}, &out);
  EXPECT_TRUE(s.ok()) << s;
  return ReadFile(options.dump_passes_dir + "/sig_0/passes.txt");
}

TEST(LowerFunctionalWhileTest, ShowsInThePassDump) {
  // The outer loop, then the one its body holds.
  EXPECT_THAT(PassesOfRun("nested_v2.pb", "while_dump"),
              HasSubstr("lower_functional_while: 2 While lowered"));
}

TEST(LowerFunctionalWhileTest, IfInTheBodyIsLoweredToo) {
  const std::string passes = PassesOfRun("cond_in_loop_v2.pb", "while_if_dump");
  EXPECT_THAT(passes, HasSubstr("1 While lowered"));
  EXPECT_THAT(passes, HasSubstr("1 If in their bodies"));
}

TEST(LowerFunctionalWhileTest, MissingFunctionIsAnErrorNamingNodeAndFunction) {
  GraphDef def = Load("counter_v2.pb");
  std::string node;
  const std::string missing = LoopFunction(def, "body", &node);
  ASSERT_FALSE(missing.empty());
  auto* functions = def.mutable_library()->mutable_function();
  for (int i = 0; i < functions->size(); ++i) {
    if (functions->Get(i).signature().name() == missing) {
      functions->DeleteSubrange(i, 1);
      break;
    }
  }
  absl::Status s = RunCounter(def);
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound) << s;
  EXPECT_THAT(s.message(), HasSubstr("node '" + node + "'"));
  EXPECT_THAT(s.message(), HasSubstr("'" + missing + "'"));
  EXPECT_THAT(s.message(), HasSubstr("export the graph with its library"));
}

TEST(LowerFunctionalWhileTest, BodyOfTheWrongArityIsAnError) {
  GraphDef def = Load("counter_v2.pb");
  std::string node;
  const std::string body = LoopFunction(def, "body", &node);
  FunctionDef* f = FindFunction(&def, body);
  ASSERT_NE(f, nullptr);
  OpDef::ArgDef* extra = f->mutable_signature()->add_input_arg();
  extra->set_name("extra");
  extra->set_type(DT_FLOAT);
  absl::Status s = RunCounter(def);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(s.message(), HasSubstr("node '" + node + "'"));
  EXPECT_THAT(s.message(), HasSubstr("body function '" + body + "'"));
  EXPECT_THAT(s.message(), HasSubstr("loop variables (T)"));
}

TEST(LowerFunctionalWhileTest, CondOfTheWrongTypeIsAnError) {
  GraphDef def = Load("counter_v2.pb");
  std::string node;
  const std::string cond = LoopFunction(def, "cond", &node);
  FunctionDef* f = FindFunction(&def, cond);
  ASSERT_NE(f, nullptr);
  ASSERT_GT(f->signature().input_arg_size(), 0);
  // Loop variable 0 is TensorFlow's int32 loop counter.
  f->mutable_signature()->mutable_input_arg(0)->set_type(DT_STRING);
  absl::Status s = RunCounter(def);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(s.message(), HasSubstr("cond function '" + cond + "'"));
  EXPECT_THAT(s.message(), HasSubstr("argument 0"));
  EXPECT_THAT(s.message(), HasSubstr("int32"));
}

TEST(LowerFunctionalWhileTest, RecursiveBodyIsAnError) {
  GraphDef def = Load("counter_v2.pb");
  std::string node;
  const std::string body = LoopFunction(def, "body", &node);
  FunctionDef* f = FindFunction(&def, body);
  ASSERT_NE(f, nullptr);
  NodeDef* call = f->add_node_def();
  call->set_name("again");
  call->set_op("StatelessWhile");
  (*call->mutable_attr())["cond"].mutable_func()->set_name(
      LoopFunction(def, "cond"));
  (*call->mutable_attr())["body"].mutable_func()->set_name(body);
  absl::Status s = RunCounter(def);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(s.message(), HasSubstr("node '" + node + "'"));
  EXPECT_THAT(s.message(), HasSubstr("calls itself"));
  EXPECT_THAT(s.message(), HasSubstr(body));
}

// The counter loop with `LoopCond`'s input replaced by `true`: it never
// ends, and the deadline stops it with DeadlineExceeded.
TEST(TfLoopsTest, EndlessLoopEndsAtTheDeadline) {
  GraphDef def = Load("counter_v1.pb");
  NodeDef* t = def.add_node();
  t->set_name("always");
  t->set_op("Const");
  (*t->mutable_attr())["dtype"].set_type(DT_BOOL);
  TensorProto* value = (*t->mutable_attr())["value"].mutable_tensor();
  value->set_dtype(DT_BOOL);
  value->add_bool_val(true);
  bool replaced = false;
  for (NodeDef& n : *def.mutable_node()) {
    if (n.op() == "LoopCond") {
      t->add_input(absl::StrCat("^", n.input(0)));  // inside the frame
      n.set_input(0, "always");
      replaced = true;
    }
  }
  ASSERT_TRUE(replaced);
  absl::StatusOr<std::unique_ptr<Session>> session = Session::Create(def);
  ASSERT_TRUE(session.ok()) << session.status();
  RunOptions run_options;
  run_options.timeout_ms = 200;
  std::vector<Tensor> out;
  RunMetadata metadata;
  absl::Status s = (*session)->Run(
      run_options,
      {{"x", Vector({1, 2, 3})}, {"n", Tensor::Scalar<int32_t>(1)}}, {"out"},
      {}, &out, &metadata);
  EXPECT_EQ(s.code(), absl::StatusCode::kDeadlineExceeded) << s;
}

TEST(TfLoopsTest, ExitOutsideEveryLoopIsAnError) {
  GraphDef def = Load("counter_v1.pb");
  NodeDef* exit = def.add_node();
  exit->set_name("stray_exit");
  exit->set_op("Exit");
  exit->add_input("x");
  (*exit->mutable_attr())["T"].set_type(DT_FLOAT);
  for (NodeDef& n : *def.mutable_node()) {
    if (n.name() == "out") n.add_input("^stray_exit");
  }
  absl::StatusOr<std::unique_ptr<Session>> session = Session::Create(def);
  ASSERT_TRUE(session.ok()) << session.status();
  std::vector<Tensor> out;
  absl::Status s = (*session)->Run(
      {{"x", Vector({1, 2, 3})}, {"n", Tensor::Scalar<int32_t>(1)}}, {"out"},
      {}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(s.message(), HasSubstr("stray_exit"));
  EXPECT_THAT(s.message(), HasSubstr("outside every loop"));
}

TEST(TfLoopsTest, InputsFromTwoFramesAreAnError) {
  GraphDef def = Load("counter_v1.pb");
  // A node reading both the loop's body (inside the frame) and x (outside).
  std::string body;
  for (const NodeDef& n : def.node()) {
    if (n.op() == "Identity" && absl::StartsWith(n.name(), "while/")) {
      body = n.name();
      break;
    }
  }
  ASSERT_FALSE(body.empty());
  NodeDef* mixed = def.add_node();
  mixed->set_name("mixed");
  mixed->set_op("AddV2");
  mixed->add_input(body);
  mixed->add_input("n");
  (*mixed->mutable_attr())["T"].set_type(DT_INT32);
  for (NodeDef& n : *def.mutable_node()) {
    if (n.name() == "out") n.add_input("^mixed");
  }
  absl::StatusOr<std::unique_ptr<Session>> session = Session::Create(def);
  ASSERT_TRUE(session.ok()) << session.status();
  std::vector<Tensor> out;
  absl::Status s = (*session)->Run(
      {{"x", Vector({1, 2, 3})}, {"n", Tensor::Scalar<int32_t>(1)}}, {"out"},
      {}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(s.message(), HasSubstr("node 'mixed'"));
  EXPECT_THAT(s.message(), HasSubstr("two frames"));
}

}  // namespace
}  // namespace dflow
