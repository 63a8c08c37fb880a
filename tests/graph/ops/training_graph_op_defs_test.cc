// dflow registers the nn, training, variable, summary and input-pipeline
// ops that TensorFlow-written training graphs carry with TensorFlow 2.21's
// OpDefs (tests/testdata/tf_op_defs/*.pbtxt, written by
// tools/tf_reference/make_training_graph_op_defs.py): the same arguments,
// attrs, defaults, type constraints and flags. Docs are not compared, nor
// the order of an allowed-types list (dflow expands type classes in its own
// order).
#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>

#include "google/protobuf/text_format.h"
#include "google/protobuf/util/message_differencer.h"
#include "graph/op_registry.h"
#include "gtest/gtest.h"
#include "proto/op_def.pb.h"

namespace dflow {
namespace {

void Normalize(OpDef* op) {
  op->clear_summary();
  op->clear_description();
  for (auto* args : {op->mutable_input_arg(), op->mutable_output_arg()}) {
    for (OpDef::ArgDef& a : *args) a.clear_description();
  }
  for (OpDef::AttrDef& a : *op->mutable_attr()) {
    a.clear_description();
    auto* types = a.mutable_allowed_values()->mutable_list()->mutable_type();
    std::sort(types->begin(), types->end());
  }
}

void ExpectSameOpDefs(const std::string& path, int expected_ops) {
  std::ifstream in(path);
  ASSERT_TRUE(in.good()) << path;
  std::stringstream text;
  text << in.rdbuf();
  OpList tf_ops;
  ASSERT_TRUE(
      google::protobuf::TextFormat::ParseFromString(text.str(), &tf_ops));
  ASSERT_EQ(tf_ops.op_size(), expected_ops);
  for (OpDef tf_op : tf_ops.op()) {
    SCOPED_TRACE(tf_op.name());
    auto reg = OpRegistry::Global()->LookUp(tf_op.name());
    ASSERT_TRUE(reg.ok()) << reg.status();
    OpDef ours = (*reg)->op_def;
    Normalize(&ours);
    Normalize(&tf_op);
    std::string diff;
    google::protobuf::util::MessageDifferencer d;
    d.ReportDifferencesToString(&diff);
    EXPECT_TRUE(d.Compare(tf_op, ours)) << diff;
  }
}

TEST(TrainingGraphOpDefsTest, MatchTensorFlow) {
  ExpectSameOpDefs("tests/testdata/tf_op_defs/training_graph_ops.pbtxt", 32);
}

// Queues, readers, tf.Example parsing: seed 001's input pipeline.
TEST(TrainingGraphOpDefsTest, InputPipelineOpsMatchTensorFlow) {
  ExpectSameOpDefs("tests/testdata/tf_op_defs/input_pipeline_ops.pbtxt", 18);
}

}  // namespace
}  // namespace dflow
