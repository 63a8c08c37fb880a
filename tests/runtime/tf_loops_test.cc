// tf.while_loop graphs written by TensorFlow 2.21 (tools/tf_reference/
// make_loop_reference.py): the TF1 style (Enter/Merge/Switch/LoopCond/
// NextIteration/Exit) runs on the executor's frames and must give
// TensorFlow's values for every case, including a loop whose body never
// runs (n = 0), nested loops, a conditional inside a loop, a captured
// constant, a loop variable that grows, a gradient through a loop (its
// accumulators are StackV2 stacks: pushes forward, pops backward) and a
// frozen LSTM dynamic_rnn and its input gradient (TensorArrayV3 read,
// write, scatter, gather and gradient arrays). Also the bad inputs: an
// Exit of no loop, inputs from two frames, and a loop that never ends (the
// step's deadline ends it).
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

namespace dflow {
namespace {

using ::testing::HasSubstr;

constexpr char kDir[] = "tests/testdata/tf_loops/";

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<float> Floats(absl::string_view text) {
  std::vector<float> out;
  for (absl::string_view v :
       absl::StrSplit(text, ' ', absl::SkipWhitespace())) {
    float f = 0;
    EXPECT_TRUE(absl::SimpleAtof(v, &f)) << v;
    out.push_back(f);
  }
  return out;
}

GraphDef Load(const std::string& name) {
  absl::StatusOr<GraphDef> def = ReadGraphDefFile(kDir + name);
  EXPECT_TRUE(def.ok()) << def.status();
  return def.ok() ? *def : GraphDef();
}

Tensor Vector(const std::vector<float>& v) {
  Tensor t(DT_FLOAT, TensorShape({static_cast<int64_t>(v.size())}));
  for (size_t i = 0; i < v.size(); ++i) t.data<float>()[i] = v[i];
  return t;
}

// Runs every case of `model` ("n | x | out" lines) on its graph in `style`.
void CheckModel(const std::string& model, const std::string& style,
                const SessionOptions& options = {}) {
  SCOPED_TRACE(model + "_" + style);
  absl::StatusOr<std::unique_ptr<Session>> session =
      Session::Create(Load(model + "_" + style + ".pb"), options);
  ASSERT_TRUE(session.ok()) << session.status();
  const std::string cases = ReadFile(kDir + model + ".cases");
  int checked = 0;
  for (absl::string_view line :
       absl::StrSplit(cases, '\n', absl::SkipWhitespace())) {
    if (absl::StartsWith(line, "#")) continue;
    std::vector<std::string> parts = absl::StrSplit(line, '|');
    ASSERT_EQ(parts.size(), 3u) << line;
    const std::vector<float> n = Floats(parts[0]);
    const std::vector<float> want = Floats(parts[2]);
    std::vector<Tensor> out;
    absl::Status s = (*session)->Run(
        {{"x", Vector(Floats(parts[1]))},
         {"n", Tensor::Scalar<int32_t>(static_cast<int32_t>(n[0]))}},
        {"out"}, {}, &out);
    ASSERT_TRUE(s.ok()) << s << " (" << line << ")";
    ASSERT_EQ(out[0].NumElements(), static_cast<int64_t>(want.size())) << line;
    for (size_t i = 0; i < want.size(); ++i) {
      EXPECT_NEAR(out[0].data<float>()[i], want[i],
                  1e-5 * std::max(1.0f, std::fabs(want[i])))
          << line;
    }
    ++checked;
  }
  EXPECT_EQ(checked, 4);
}

class TfLoopsTest : public ::testing::TestWithParam<std::string> {};

TEST_P(TfLoopsTest, FrameStyleGivesTensorFlowsValues) {
  CheckModel(GetParam(), "v1");
}

INSTANTIATE_TEST_SUITE_P(Models, TfLoopsTest,
                         ::testing::Values("counter", "sum_to_n", "nested",
                                           "cond_in_loop", "const_capture",
                                           "shape_grows", "loop_grad", "rnn",
                                           "rnn_grad"));

TEST(TfLoopsTest, LoopWithItsBodyOnAnotherDevice) {
  SessionOptions options;
  options.device_count = {{"CPU", 2}};
  CheckModel("device_loop", "v1", options);
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
