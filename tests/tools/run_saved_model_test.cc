// `dflow run` for real work: --saved_model (signature keys as feeds and
// fetches), --steps, --save and --restore, graphs read from TensorFlow's
// .meta files, and every error of those flags with its exit code.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "graph/graph_def_file.h"
#include "graph/npy.h"
#include "gtest/gtest.h"
#include "tests/formats/saved_model_fixture.h"
#include "tests/tools/tool_test_util.h"
#include "tools/inspect.h"
#include "tools/run.h"

namespace dflow {
namespace {

using saved_model_testing::FixtureMetaGraph;
using saved_model_testing::WriteFixtureSavedModel;
using ::testing::HasSubstr;
using ::testing::Not;
using tool_testing::Result;
using tool_testing::TempPath;

constexpr char kTf[] = "tests/testdata/tf_saved_model";

Result DflowRun(const std::vector<std::string>& args) {
  return tool_testing::RunVerb(RunRun, args);
}

std::string BatchNpy(const std::string& name) {
  const std::string path = TempPath(name);
  EXPECT_TRUE(WriteNpyFile(path, Tensor::FromVector<float>({1, 0, 0, 0, 1, 1},
                                                           TensorShape({2, 3})))
                  .ok());
  return path;
}

// The fixture's graph alone, as a text GraphDef: `init` sets w, `y` = x·w.
std::string FixtureGraph() {
  const std::string path = TempPath("fixture_graph.pbtxt");
  EXPECT_TRUE(WriteGraphDefFile(path, FixtureMetaGraph().graph_def(),
                                GraphDefFormat::kText)
                  .ok());
  return path;
}

TEST(RunSavedModelTest, FeedsAndFetchesBySignatureKey) {
  const std::string dir = WriteFixtureSavedModel("run_sm");
  Result r = DflowRun({"--saved_model", dir, "--feed", "x=" + BatchNpy("x.npy"),
                       "--fetch", "y", "--out", TempPath("sm_out")});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("saved model: " + dir +
                               " {serve}, signature serving_default"));
  EXPECT_THAT(r.out, HasSubstr("feed x: float [2,3]"));
  EXPECT_THAT(r.out, HasSubstr("fetch y: float [2,2]\n  values: 1 2 8 10"));
  EXPECT_THAT(r.out, Not(HasSubstr("fetch sum")));
  absl::StatusOr<Tensor> y = ReadNpyFile(TempPath("sm_out/y.npy"));
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_FLOAT_EQ(y->flat<float>()[3], 10);
}

TEST(RunSavedModelTest, WithoutFetchEveryOutputAndTagsAsSet) {
  const std::string dir = WriteFixtureSavedModel("run_sm_all");
  Result r = DflowRun({"--saved_model", dir, "--tag", "serve", "--signature",
                       "serving_default", "--feed", "x=" + BatchNpy("x2.npy")});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("fetch sum: float [2,2]\n  values: 2 4 16 20"));
  EXPECT_THAT(r.out, HasSubstr("fetch y: float [2,2]"));
}

TEST(RunSavedModelTest, StepsPrintEachStepAndWarmMedian) {
  const std::string dir = WriteFixtureSavedModel("run_sm_steps");
  Result r =
      DflowRun({"--saved_model", dir, "--feed", "x=" + BatchNpy("x3.npy"),
                "--fetch", "y", "--steps", "4"});
  ASSERT_EQ(r.rc, 0) << r.err;
  for (int i = 1; i <= 4; ++i) {
    EXPECT_THAT(r.out, HasSubstr(absl::StrCat("step ", i, ": ")));
  }
  EXPECT_THAT(r.out, HasSubstr("  fetch y: float [2,2]\n    values: 1 2 8 10"));
  EXPECT_THAT(r.out, HasSubstr("steps: 4, first "));
  EXPECT_THAT(r.out, HasSubstr("warm median"));
  EXPECT_THAT(r.out, HasSubstr("(steps 2..4)"));
}

TEST(RunSavedModelTest, Errors) {
  const std::string dir = WriteFixtureSavedModel("run_sm_err");
  const std::string x = "x=" + BatchNpy("x4.npy");
  const std::string ints = TempPath("ints.npy");
  ASSERT_TRUE(WriteNpyFile(ints, Tensor::FromVector<int32_t>(
                                     {1, 2, 3}, TensorShape({1, 3})))
                  .ok());
  struct Case {
    std::vector<std::string> args;
    std::vector<std::string> messages;
  };
  for (const Case& c : std::vector<Case>{
           {{"--saved_model", TempPath("no_model"), "--feed", x},
            {"no_model", "does not exist"}},
           {{"--saved_model", "tests", "--feed", x}, {"saved_model.pb"}},
           {{"--saved_model", dir, "--tag", "train", "--feed", x},
            {"no meta graph with tags {train}", "tag sets are: {serve}"}},
           {{"--saved_model", dir, "--signature", "predict", "--feed", x},
            {"no signature 'predict'", "serving_default"}},
           {{"--saved_model", dir, "--feed", "images=" + ints},
            {"no input 'images'", "inputs are: x"}},
           {{"--saved_model", dir}, {"needs input(s) x"}},
           {{"--saved_model", dir, "--feed", x, "--fetch", "probs"},
            {"no output 'probs'", "outputs are: sum, y"}},
           {{"--saved_model", dir, "--feed", "x=" + ints},
            {"input 'x' is float", "int32"}},
       }) {
    Result r = DflowRun(c.args);
    EXPECT_EQ(r.rc, 1) << c.args[1] << ": " << r.out << r.err;
    for (const std::string& m : c.messages) EXPECT_THAT(r.err, HasSubstr(m));
  }
}

TEST(RunSavedModelTest, UsageErrorsExitWithTwo) {
  const std::string dir = WriteFixtureSavedModel("run_sm_usage");
  const std::string graph = FixtureGraph();
  struct Case {
    std::vector<std::string> args;
    const char* message;
  };
  for (const Case& c : std::vector<Case>{
           {{"--saved_model", dir, "--graph", graph}, "not both"},
           {{"--saved_model", dir, "--target", "init"},
            "--target and --init name graph nodes"},
           {{"--saved_model", dir, "--restore", TempPath("p")},
            "restores its own variables"},
           {{"--graph", graph, "--fetch", "y", "--tag", "serve"},
            "--tag and --signature go with --saved_model"},
           {{"--graph", graph, "--fetch", "y", "--steps", "0"},
            "--steps must be a positive integer, not '0'"},
           {{"--graph", graph, "--fetch", "y", "--steps", "many"},
            "--steps must be a positive integer"},
       }) {
    Result r = DflowRun(c.args);
    EXPECT_EQ(r.rc, 2) << c.message << ": " << r.out << r.err;
    EXPECT_THAT(r.err, HasSubstr(c.message));
  }
}

TEST(RunSaveRestoreTest, SaveThenRestoreWithDflowSaver) {
  const std::string graph = FixtureGraph();
  const std::string x = "x=" + BatchNpy("x5.npy");
  const std::string prefix = TempPath("ckpt_dir/model");
  Result r = DflowRun({"--graph", graph, "--init", "init", "--feed", x,
                       "--fetch", "y", "--steps", "2", "--save", prefix});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("save: wrote " + prefix + " (1 variable(s))"));
  // A fresh session restores w instead of running init.
  r = DflowRun(
      {"--graph", graph, "--restore", prefix, "--feed", x, "--fetch", "y"});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_THAT(r.out,
              HasSubstr("restore " + prefix + ": 1 variable(s) (dflow Saver)"));
  EXPECT_THAT(r.out, HasSubstr("fetch y: float [2,2]\n  values: 1 2 8 10"));
  // Neither: w was never set.
  r = DflowRun({"--graph", graph, "--feed", x, "--fetch", "y"});
  EXPECT_EQ(r.rc, 1);
  // A prefix with no checkpoint.
  r = DflowRun({"--graph", graph, "--restore", TempPath("nothing_here"),
                "--feed", x, "--fetch", "y"});
  EXPECT_EQ(r.rc, 1);
  EXPECT_THAT(r.err, HasSubstr("--restore"));
  EXPECT_THAT(r.err, HasSubstr("nothing_here"));
  // Saving a variable no step set.
  r = DflowRun({"--graph", graph, "--fetch", "w_value", "--save",
                TempPath("ckpt_dir/uninit")});
  EXPECT_EQ(r.rc, 1);
  EXPECT_THAT(r.err, HasSubstr("--save"));
}

// TensorFlow's training .meta: only what the run needs is loaded (its
// summaries, DivNoNan and saver ops are not dflow ops).
TEST(RunMetaGraphTest, RunsTheMetaGraphsGraph) {
  const std::string meta = std::string(kTf) + "/train.meta";
  const std::string x = std::string("x=") + kTf + "/train_x.npy";
  Result r = DflowRun({"--graph", meta, "--init", "init", "--feed", x,
                       "--fetch", "add", "--steps", "2"});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("nodes of a MetaGraphDef)"));
  EXPECT_THAT(r.out, HasSubstr("fetch add: float [2,1]\n    values: 0 0"));
  r = DflowRun({"--graph", meta, "--fetch", "no_such_node"});
  EXPECT_EQ(r.rc, 1);
  EXPECT_THAT(r.err, HasSubstr("no node 'no_such_node'"));
}

// --restore on a .meta with a SaverDef runs the graph's own restore op,
// reading TensorFlow's checkpoint.
TEST(RunMetaGraphTest, RestoresTensorFlowCheckpointWithGraphsRestoreOp) {
  const std::string meta = std::string(kTf) + "/train.meta";
  const std::string x = std::string("x=") + kTf + "/train_x.npy";
  const std::string prefix = std::string(kTf) + "/train_ckpt/model.ckpt-7";
  Result r = DflowRun(
      {"--graph", meta, "--restore", prefix, "--feed", x, "--fetch", "add"});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("ran the graph's restore op save/restore_all"));
  EXPECT_THAT(r.out, HasSubstr("fetch add: float [2,1]\n  values: 1.5 6.5"));
  // dflow's Saver writes TensorFlow's format: the graph's restore op reads
  // back what --save wrote.
  const std::string saved = TempPath("from_meta/model");
  r = DflowRun({"--graph", meta, "--restore", prefix, "--feed", x, "--fetch",
                "add", "--save", saved});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("save: wrote " + saved));
  r = DflowRun(
      {"--graph", meta, "--restore", saved, "--feed", x, "--fetch", "add"});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("values: 1.5 6.5"));
  // A prefix with no checkpoint: the restore op's error, named.
  r = DflowRun({"--graph", meta, "--restore", TempPath("none/model"), "--feed",
                x, "--fetch", "add"});
  EXPECT_EQ(r.rc, 1);
  EXPECT_THAT(r.err, HasSubstr("the graph's restore op 'save/restore_all'"));
}

TEST(RunSavedModelTest, TensorFlowMlpSavedModel) {
  Result r = DflowRun({"--saved_model", std::string(kTf) + "/mlp", "--feed",
                       std::string("x=") + kTf + "/mlp_x.npy", "--out",
                       TempPath("mlp_out")});
  ASSERT_EQ(r.rc, 0) << r.err;
  absl::StatusOr<Tensor> got = ReadNpyFile(TempPath("mlp_out/probs.npy"));
  absl::StatusOr<Tensor> want =
      ReadNpyFile(std::string(kTf) + "/mlp_probs.npy");
  ASSERT_TRUE(got.ok() && want.ok());
  ASSERT_EQ(got->shape(), want->shape());
  for (int64_t i = 0; i < got->NumElements(); ++i) {
    EXPECT_NEAR(got->flat<float>()[i], want->flat<float>()[i], 1e-5);
  }
}

// `dflow inspect` on a .meta: the GraphDef summary, then saver and
// collections (an unknown key listed, not an error).
TEST(InspectMetaGraphTest, PrintsSaverAndCollections) {
  Result r = tool_testing::RunVerb(
      RunInspect, {"--graph", std::string(kTf) + "/train.meta"});
  EXPECT_THAT(r.out, HasSubstr("(binary MetaGraphDef, producer"));
  EXPECT_THAT(r.out, HasSubstr("ops ("));
  EXPECT_THAT(r.out, HasSubstr("saver: restore op save/restore_all, filename "
                               "tensor save/Const:0"));
  EXPECT_THAT(r.out, HasSubstr("format V2"));
  EXPECT_THAT(r.out, HasSubstr("trainable_variables (2):"));
  EXPECT_THAT(r.out, HasSubstr("train_op: train"));
  EXPECT_THAT(r.out, HasSubstr("summaries: loss:0, w_1:0"));
  r = tool_testing::RunVerb(
      RunInspect,
      {"--graph", std::string(kTf) + "/unknown_collection.meta.pbtxt"});
  EXPECT_EQ(r.rc, 0) << r.out;  // an unknown collection is no error
  EXPECT_THAT(r.out, HasSubstr("(text MetaGraphDef"));
  EXPECT_THAT(r.out, HasSubstr("my_custom_thing: 1 entries (not a TensorFlow "
                               "collection dflow knows; kept as is)"));
  r = tool_testing::RunVerb(RunInspect, {"--graph", std::string(kTf) + "/mlp"});
  EXPECT_THAT(r.out, HasSubstr("SavedModel"));
  EXPECT_THAT(r.out, HasSubstr("tags: {serve}"));
  EXPECT_THAT(r.out, HasSubstr("serving_default (tensorflow/serving/predict)"));
  EXPECT_THAT(r.out, HasSubstr("input  x"));
  EXPECT_THAT(r.out, HasSubstr("saved_model_main_op: init_all_tables"));
}

}  // namespace
}  // namespace dflow
