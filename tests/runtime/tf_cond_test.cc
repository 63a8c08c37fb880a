// tf.cond graphs written by TensorFlow 2.21 in both control-flow styles
// (tools/tf_reference/make_cond_reference.py): Switch/Merge graphs run on
// the executor's dead tensors, functional If/StatelessIf graphs through the
// lowering pass; both must give TensorFlow's values. Also the lowering's
// errors (a missing or recursive branch function) and its dump line.
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

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

constexpr char kDir[] = "tests/testdata/tf_cond/";

using testing_tf::Floats;
using testing_tf::ReadFile;
using testing_tf::Vector;

GraphDef Load(const std::string& name) {
  return testing_tf::LoadGraph(kDir + name);
}

// Runs every case of `model` on its graph in `style` ("v1" or "v2").
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
    std::vector<std::string> parts = absl::StrSplit(line, '|');
    ASSERT_EQ(parts.size(), 3u) << line;
    std::vector<float> pq = Floats(parts[0]);
    std::vector<float> x = Floats(parts[1]);
    std::vector<float> want = Floats(parts[2]);
    std::vector<Tensor> out;
    absl::Status s = (*session)->Run({{"x", Vector(x)},
                                      {"p", Tensor::Scalar<bool>(pq[0] != 0)},
                                      {"q", Tensor::Scalar<bool>(pq[1] != 0)}},
                                     {"out"}, {}, &out);
    ASSERT_TRUE(s.ok()) << s << " (" << line << ")";
    ASSERT_EQ(out[0].NumElements(), static_cast<int64_t>(want.size()));
    for (size_t i = 0; i < want.size(); ++i) {
      EXPECT_NEAR(out[0].data<float>()[i], want[i], 1e-5) << line;
    }
    ++checked;
  }
  EXPECT_EQ(checked, 4);
}

class TfCondTest : public ::testing::TestWithParam<std::string> {};

TEST_P(TfCondTest, SwitchMergeStyleGivesTensorFlowsValues) {
  CheckModel(GetParam(), "v1");
}

TEST_P(TfCondTest, FunctionalStyleGivesTensorFlowsValues) {
  CheckModel(GetParam(), "v2");
}

TEST_P(TfCondTest, FunctionalStyleIsLoweredWithOptimizationOff) {
  SessionOptions options;
  options.optimize_graph = false;
  CheckModel(GetParam(), "v2", options);
}

TEST_P(TfCondTest, BothStylesAcrossTwoDevices) {
  SessionOptions options;
  options.device_count = {{"CPU", 2}};
  for (const char* style : {"v1", "v2"}) {
    GraphDef def = Load(GetParam() + "_" + style + ".pb");
    // The branches' work on CPU:1, the rest on CPU:0.
    for (NodeDef& n : *def.mutable_node()) {
      const bool branch = n.op() == "If" || n.op() == "StatelessIf" ||
                          (n.name().find("cond") == 0 && n.op() != "Switch" &&
                           n.op() != "Merge");
      if (branch) n.set_device("/device:CPU:1");
    }
    absl::StatusOr<std::unique_ptr<Session>> session =
        Session::Create(def, options);
    ASSERT_TRUE(session.ok()) << session.status();
    const std::string cases = ReadFile(kDir + GetParam() + ".cases");
    for (absl::string_view line :
         absl::StrSplit(cases, '\n', absl::SkipWhitespace())) {
      std::vector<std::string> parts = absl::StrSplit(line, '|');
      std::vector<float> pq = Floats(parts[0]);
      std::vector<float> want = Floats(parts[2]);
      std::vector<Tensor> out;
      absl::Status s =
          (*session)->Run({{"x", Vector(Floats(parts[1]))},
                           {"p", Tensor::Scalar<bool>(pq[0] != 0)},
                           {"q", Tensor::Scalar<bool>(pq[1] != 0)}},
                          {"out"}, {}, &out);
      ASSERT_TRUE(s.ok()) << s << " " << style << " (" << line << ")";
      for (size_t i = 0; i < want.size(); ++i) {
        EXPECT_NEAR(out[0].data<float>()[i], want[i], 1e-5) << style << line;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Models, TfCondTest,
                         ::testing::Values("simple", "consts", "nested",
                                           "two_outputs", "grad", "grad2"));

TEST(LowerFunctionalIfTest, ShowsInThePassDump) {
  SessionOptions options;
  options.dump_passes_dir = ::testing::TempDir() + "/cond_dump";
  absl::StatusOr<std::unique_ptr<Session>> session =
      Session::Create(Load("nested_v2.pb"), options);
  ASSERT_TRUE(session.ok()) << session.status();
  std::vector<Tensor> out;
  ASSERT_TRUE((*session)
                  ->Run({{"x", Vector({1, 2, 3})},
                         {"p", Tensor::Scalar<bool>(true)},
                         {"q", Tensor::Scalar<bool>(true)}},
                        {"out"}, {}, &out)
                  .ok());
  const std::string passes =
      ReadFile(options.dump_passes_dir + "/sig_0/passes.txt");
  // The outer If, then the one its then-branch calls.
  EXPECT_THAT(passes, HasSubstr("lower_functional_if: 2 If (or Case in a branch) lowered"));
}

TEST(LowerFunctionalIfTest, MissingFunctionIsAnErrorNamingNodeAndFunction) {
  GraphDef def = Load("simple_v2.pb");
  std::string missing;
  for (const NodeDef& n : def.node()) {
    if (n.name() == "cond") missing = n.attr().at("then_branch").func().name();
  }
  auto* functions = def.mutable_library()->mutable_function();
  for (int i = 0; i < functions->size(); ++i) {
    if (functions->Get(i).signature().name() == missing) {
      functions->DeleteSubrange(i, 1);
      break;
    }
  }
  absl::StatusOr<std::unique_ptr<Session>> session = Session::Create(def);
  ASSERT_TRUE(session.ok()) << session.status();
  std::vector<Tensor> out;
  absl::Status s = (*session)->Run(
      {{"x", Vector({1, 2, 3})}, {"p", Tensor::Scalar<bool>(true)}}, {"out"},
      {}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound) << s;
  EXPECT_THAT(s.message(), HasSubstr("node 'cond'"));
  EXPECT_THAT(s.message(), HasSubstr("'" + missing + "'"));
}

TEST(LowerFunctionalIfTest, RecursiveFunctionIsAnError) {
  GraphDef def = Load("simple_v2.pb");
  std::string then_name;
  for (const NodeDef& n : def.node()) {
    if (n.name() == "cond")
      then_name = n.attr().at("then_branch").func().name();
  }
  for (FunctionDef& f : *def.mutable_library()->mutable_function()) {
    if (f.signature().name() != then_name) continue;
    NodeDef* call = f.add_node_def();
    call->set_name("again");
    call->set_op("StatelessIf");
    (*call->mutable_attr())["then_branch"].mutable_func()->set_name(then_name);
    (*call->mutable_attr())["else_branch"].mutable_func()->set_name(then_name);
  }
  absl::StatusOr<std::unique_ptr<Session>> session = Session::Create(def);
  ASSERT_TRUE(session.ok()) << session.status();
  std::vector<Tensor> out;
  absl::Status s = (*session)->Run(
      {{"x", Vector({1, 2, 3})}, {"p", Tensor::Scalar<bool>(true)}}, {"out"},
      {}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(s.message(), HasSubstr("calls itself"));
  EXPECT_THAT(s.message(), HasSubstr(then_name));
}

}  // namespace
}  // namespace dflow
