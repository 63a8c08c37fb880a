// A small SavedModel written by the tests themselves with dflow's builder:
// no saver (so nothing to restore), a VariableV2 `w` [3,2] set by the main
// op `init` (Assign of a constant), and a signature `serving_default`
// {x: float [?,3]} -> {y: x·w, sum: reduce-free AddV2 of y with itself}.
// It lets the loader, signatures and `dflow run --saved_model` be tested
// without the RestoreV2 kernel.
#ifndef DFLOW_TESTS_FORMATS_SAVED_MODEL_FIXTURE_H_
#define DFLOW_TESTS_FORMATS_SAVED_MODEL_FIXTURE_H_

#include <sys/stat.h>

#include <cstdlib>
#include <string>

#include "google/protobuf/text_format.h"
#include "graph/ops/ops.h"
#include "graph/scope.h"
#include "graph/tensor.h"
#include "gtest/gtest.h"
#include "proto/saved_model.pb.h"

namespace dflow {
namespace saved_model_testing {

// w's value: row-major [3,2].
inline std::vector<float> FixtureWeights() { return {1, 2, 3, 4, 5, 6}; }

inline MetaGraphDef FixtureMetaGraph() {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT,
                              ops::PlaceholderAttrs().Shape({-1, 3}));
  Output w = ops::Variable(root.WithOpName("w"), TensorShape({3, 2}), DT_FLOAT);
  ops::Assign(
      root.WithOpName("init"), w,
      ops::Const(root.WithOpName("w_value"),
                 Tensor::FromVector(FixtureWeights(), TensorShape({3, 2}))));
  Output y = ops::MatMul(root.WithOpName("y"), x, w);
  ops::AddV2(root.WithOpName("sum"), y, y);
  MetaGraphDef meta;
  EXPECT_TRUE(root.ToGraphDef(meta.mutable_graph_def()).ok());
  meta.mutable_meta_info_def()->add_tags("serve");
  (*meta.mutable_collection_def())["saved_model_main_op"]
      .mutable_node_list()
      ->add_value("init");
  SignatureDef& sig = (*meta.mutable_signature_def())["serving_default"];
  sig.set_method_name("tensorflow/serving/predict");
  TensorInfo& in = (*sig.mutable_inputs())["x"];
  in.set_name("x:0");
  in.set_dtype(DT_FLOAT);
  in.mutable_tensor_shape()->add_dim()->set_size(-1);
  in.mutable_tensor_shape()->add_dim()->set_size(3);
  TensorInfo& out = (*sig.mutable_outputs())["y"];
  out.set_name("y:0");
  out.set_dtype(DT_FLOAT);
  TensorInfo& sum = (*sig.mutable_outputs())["sum"];
  sum.set_name("sum:0");
  sum.set_dtype(DT_FLOAT);
  return meta;
}

// Writes the fixture as TEST_TMPDIR/<name>/saved_model.pbtxt and returns
// the directory.
inline std::string WriteFixtureSavedModel(const std::string& name) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string dir = std::string(tmp ? tmp : "/tmp") + "/" + name;
  mkdir(dir.c_str(), 0755);
  SavedModel model;
  model.set_saved_model_schema_version(1);
  *model.add_meta_graphs() = FixtureMetaGraph();
  std::string text;
  EXPECT_TRUE(google::protobuf::TextFormat::PrintToString(model, &text));
  FILE* f = std::fopen((dir + "/saved_model.pbtxt").c_str(), "w");
  EXPECT_NE(f, nullptr);
  std::fwrite(text.data(), 1, text.size(), f);
  std::fclose(f);
  return dir;
}

}  // namespace saved_model_testing
}  // namespace dflow

#endif  // DFLOW_TESTS_FORMATS_SAVED_MODEL_FIXTURE_H_
