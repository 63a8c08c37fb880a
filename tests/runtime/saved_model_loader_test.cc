// LoadSavedModel and RunSignature: on a SavedModel the test writes with
// dflow's builder (no variables to restore; the main op initializes `w`),
// every error the loader and signatures report, and TensorFlow's own MLP
// SavedModel (restored through RestoreV2) compared with TensorFlow's outputs.
#include "runtime/saved_model_loader.h"

#include <sys/stat.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "graph/npy.h"
#include "gtest/gtest.h"
#include "tests/formats/saved_model_fixture.h"

namespace dflow {
namespace {

using saved_model_testing::WriteFixtureSavedModel;
using ::testing::HasSubstr;

Tensor Batch() {
  return Tensor::FromVector<float>({1, 0, 0, 0, 1, 1}, TensorShape({2, 3}));
}

TEST(SavedModelLoaderTest, LoadsRunsMainOpAndSignature) {
  const std::string dir = WriteFixtureSavedModel("fixture_ok");
  absl::StatusOr<SavedModelBundle> model = LoadSavedModel(dir);
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_EQ(model->signatures().size(), 1u);
  absl::StatusOr<std::map<std::string, Tensor>> out =
      model->RunSignature("serving_default", {{"x", Batch()}}, {"y"});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 1u);
  const Tensor& y = out->at("y");
  ASSERT_EQ(y.shape(), TensorShape({2, 2}));
  // w = [[1,2],[3,4],[5,6]]: row 0 picks [1,2], row 1 sums rows 1 and 2.
  EXPECT_THAT(
      std::vector<float>(y.flat<float>().begin(), y.flat<float>().end()),
      ::testing::ElementsAre(1, 2, 8, 10));
  // No output keys: all of them.
  out = model->RunSignature("serving_default", {{"x", Batch()}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->size(), 2u);
  EXPECT_FLOAT_EQ(out->at("sum").flat<float>()[3], 20);
}

void ExpectError(const absl::Status& s, absl::StatusCode code,
                 const std::vector<std::string>& parts) {
  EXPECT_EQ(s.code(), code) << s;
  for (const std::string& p : parts) EXPECT_THAT(s.message(), HasSubstr(p));
}

TEST(SavedModelLoaderTest, LoadErrors) {
  ExpectError(LoadSavedModel("/no/such/model").status(),
              absl::StatusCode::kNotFound, {"/no/such/model"});
  ExpectError(LoadSavedModel("tests").status(), absl::StatusCode::kNotFound,
              {"saved_model.pb"});
  const std::string dir = WriteFixtureSavedModel("fixture_tags");
  ExpectError(LoadSavedModel(dir, {"train"}).status(),
              absl::StatusCode::kNotFound,
              {"no meta graph with tags {train}", "tag sets are: {serve}"});
}

void CopyFile(const std::string& from, const std::string& to) {
  std::ifstream in(from, std::ios::binary);
  std::ofstream out(to, std::ios::binary);
  out << in.rdbuf();
}

// TensorFlow's MLP with a damaged variables index: the restore op's error,
// named as such.
TEST(SavedModelLoaderTest, RestoreErrorNamesTheRestoreOp) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string dir = std::string(tmp ? tmp : "/tmp") + "/damaged_mlp";
  mkdir(dir.c_str(), 0755);
  mkdir((dir + "/variables").c_str(), 0755);
  const std::string src = "tests/testdata/tf_saved_model/mlp";
  CopyFile(src + "/saved_model.pb", dir + "/saved_model.pb");
  CopyFile(src + "/variables/variables.data-00000-of-00001",
           dir + "/variables/variables.data-00000-of-00001");
  std::ofstream(dir + "/variables/variables.index") << "not an index";
  ExpectError(LoadSavedModel(dir).status(), LoadSavedModel(dir).status().code(),
              {dir, "restoring the variables (op 'save/restore_all')"});
  EXPECT_FALSE(LoadSavedModel(dir).ok());
}

TEST(SavedModelLoaderTest, SignatureErrors) {
  const std::string dir = WriteFixtureSavedModel("fixture_sig");
  absl::StatusOr<SavedModelBundle> model = LoadSavedModel(dir);
  ASSERT_TRUE(model.ok()) << model.status();
  ExpectError(model->RunSignature("predict", {{"x", Batch()}}).status(),
              absl::StatusCode::kNotFound,
              {"no signature 'predict'", "serving_default"});
  ExpectError(model
                  ->RunSignature("serving_default",
                                 {{"x", Batch()}, {"images", Batch()}})
                  .status(),
              absl::StatusCode::kNotFound,
              {"no input 'images'", "inputs are: x"});
  ExpectError(model->RunSignature("serving_default", {}).status(),
              absl::StatusCode::kInvalidArgument,
              {"needs input(s) x", "not given"});
  ExpectError(
      model->RunSignature("serving_default", {{"x", Batch()}}, {"probs"})
          .status(),
      absl::StatusCode::kNotFound,
      {"no output 'probs'", "outputs are: sum, y"});
  ExpectError(model
                  ->RunSignature("serving_default",
                                 {{"x", Tensor::FromVector<int32_t>(
                                            {1, 2, 3}, TensorShape({1, 3}))}})
                  .status(),
              absl::StatusCode::kInvalidArgument,
              {"input 'x' is float", "int32", "convert"});
  ExpectError(
      model
          ->RunSignature(
              "serving_default",
              {{"x", Tensor::FromVector<float>({1, 2}, TensorShape({1, 2}))}})
          .status(),
      absl::StatusCode::kInvalidArgument, {"shape [1,2]", "expects [?,3]"});
}

// TensorFlow's MLP: restored by the graph's own restore op (RestoreV2 reading
// variables/variables.{index,data}), then compared with TensorFlow's outputs.
TEST(SavedModelLoaderTest, TensorFlowMlpMatchesTensorFlow) {
  const std::string dir = "tests/testdata/tf_saved_model/mlp";
  absl::StatusOr<SavedModelBundle> model = LoadSavedModel(dir);
  ASSERT_TRUE(model.ok()) << model.status();
  // The session holds what serving and restoring need, not the saver's
  // SaveV2 or the initializers.
  EXPECT_LT(model->graph_def.node_size(),
            model->meta_graph.graph_def().node_size());
  for (const NodeDef& n : model->graph_def.node()) {
    EXPECT_NE(n.op(), "SaveV2");
    EXPECT_NE(n.op(), "TruncatedNormal");
  }
  absl::StatusOr<Tensor> x =
      ReadNpyFile("tests/testdata/tf_saved_model/mlp_x.npy");
  absl::StatusOr<Tensor> probs =
      ReadNpyFile("tests/testdata/tf_saved_model/mlp_probs.npy");
  absl::StatusOr<Tensor> classes =
      ReadNpyFile("tests/testdata/tf_saved_model/mlp_classes.npy");
  ASSERT_TRUE(x.ok() && probs.ok() && classes.ok());
  absl::StatusOr<std::map<std::string, Tensor>> out =
      model->RunSignature("serving_default", {{"x", *x}});
  ASSERT_TRUE(out.ok()) << out.status();
  const Tensor& p = out->at("probs");
  ASSERT_EQ(p.shape(), probs->shape());
  for (int64_t i = 0; i < p.NumElements(); ++i) {
    EXPECT_NEAR(p.flat<float>()[i], probs->flat<float>()[i], 1e-5) << i;
  }
  const Tensor& c = out->at("classes");
  ASSERT_EQ(c.dtype(), DT_INT64);
  for (int64_t i = 0; i < c.NumElements(); ++i) {
    EXPECT_EQ(c.flat<int64_t>()[i], classes->flat<int64_t>()[i]) << i;
  }
}

}  // namespace
}  // namespace dflow
