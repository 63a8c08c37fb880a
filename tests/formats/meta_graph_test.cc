// MetaGraphDef and SavedModel files written by TensorFlow 2.21
// (tools/tf_reference/make_saved_model_reference.py): reading them, the
// decoded collections, lossless round trips, reading any graph file by
// content, the subgraph a SavedModel needs, and every error.
#include "formats/meta_graph.h"

#include <fstream>
#include <sstream>
#include <string>

#include "absl/strings/match.h"
#include "formats/graph_file.h"
#include "formats/saved_model.h"
#include "formats/subgraph.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "tests/formats/saved_model_fixture.h"

namespace dflow {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

constexpr char kDir[] = "tests/testdata/tf_saved_model";
const std::string kTrainMeta = std::string(kDir) + "/train.meta";
const std::string kTextMeta =
    std::string(kDir) + "/unknown_collection.meta.pbtxt";
const std::string kMlp = std::string(kDir) + "/mlp";

std::string TempPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir ? dir : "/tmp") + "/" + name;
}

std::string ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void WriteBytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out << bytes;
}

std::string WriteMeta(const MetaGraphDef& def, const std::string& name) {
  const std::string path = TempPath(name);
  WriteBytes(path, def.SerializeAsString());
  return path;
}

TEST(MetaGraphTest, ReadsTensorFlowTrainingMetaGraph) {
  GraphDefFormat format;
  absl::StatusOr<MetaGraphDef> def = ReadMetaGraphFile(kTrainMeta, &format);
  ASSERT_TRUE(def.ok()) << def.status();
  EXPECT_EQ(format, GraphDefFormat::kBinary);
  EXPECT_GT(def->graph_def().node_size(), 50);
  EXPECT_GT(def->meta_info_def().stripped_op_list().op_size(), 10);
  EXPECT_EQ(def->meta_info_def().tensorflow_version(), "2.21.0");

  absl::StatusOr<MetaGraphInfo> info = DecodeMetaGraph(*def, kTrainMeta);
  ASSERT_TRUE(info.ok()) << info.status();
  ASSERT_TRUE(info->saver_def.has_value());
  EXPECT_EQ(info->saver_def->restore_op_name(), "save/restore_all");
  EXPECT_EQ(info->saver_def->filename_tensor_name(), "save/Const:0");
  EXPECT_EQ(info->saver_def->version(), SaverDef::V2);
  ASSERT_EQ(info->variables.size(), 3u);
  ASSERT_EQ(info->trainable_variables.size(), 2u);
  EXPECT_EQ(info->trainable_variables[0].variable_name, "w:0");
  EXPECT_TRUE(info->trainable_variables[0].is_resource);
  EXPECT_TRUE(info->trainable_variables[0].trainable);
  EXPECT_EQ(info->trainable_variables[0].initializer_name, "w/Assign");
  EXPECT_EQ(info->trainable_variables[0].snapshot_name,
            "w/Read/ReadVariableOp:0");
  ASSERT_EQ(info->global_step.size(), 1u);
  EXPECT_EQ(info->global_step[0].variable_name, "global_step:0");
  EXPECT_THAT(info->NodeList("train_op"), ElementsAre("train"));
  EXPECT_EQ(info->NodeList("summaries").size(), 2u);
  EXPECT_EQ(info->NodeList("losses").size(), 1u);
  EXPECT_THAT(info->NodeList("init_op"), IsEmpty());
  EXPECT_THAT(info->unknown_collections, IsEmpty());
  EXPECT_EQ(info->MainOp(), "");
  // Every node a collection names is in the graph.
  for (const auto& [key, names] : info->node_lists) {
    for (const std::string& name : names) {
      bool found = false;
      for (const NodeDef& n : info->graph_def().node())
        found |= n.name() == NodeNameOf(name);
      EXPECT_TRUE(found) << key << ": " << name;
    }
  }
}

TEST(MetaGraphTest, TextMetaGraphKeepsUnknownCollection) {
  GraphDefFormat format;
  absl::StatusOr<MetaGraphDef> def = ReadMetaGraphFile(kTextMeta, &format);
  ASSERT_TRUE(def.ok()) << def.status();
  EXPECT_EQ(format, GraphDefFormat::kText);
  absl::StatusOr<MetaGraphInfo> info = DecodeMetaGraph(*def, kTextMeta);
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_THAT(info->unknown_collections, ElementsAre("my_custom_thing"));
  const CollectionDef& raw =
      info->meta_graph.collection_def().at("my_custom_thing");
  ASSERT_TRUE(raw.has_bytes_list());
  EXPECT_EQ(raw.bytes_list().value(0), "hello");
  ASSERT_EQ(info->variables.size(), 1u);
  EXPECT_EQ(info->variables[0].variable_name, "v:0");
}

TEST(MetaGraphTest, RoundTripIsLossless) {
  const std::string bytes = ReadBytes(kTrainMeta);
  MetaGraphDef def;
  ASSERT_TRUE(def.ParseFromString(bytes));
  // A SavedObjectGraph (field 7), which dflow does not declare, survives.
  const std::string field7 = std::string("\x3a\x04\x0a\x02\x08\x01", 6);
  MetaGraphDef with7;
  ASSERT_TRUE(with7.ParseFromString(bytes + field7));
  EXPECT_TRUE(absl::StrContains(with7.SerializeAsString(), field7));
  MetaGraphDef again;
  ASSERT_TRUE(again.ParseFromString(def.SerializeAsString()));
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(again, def));
  EXPECT_EQ(def.ByteSizeLong(), bytes.size());
}

TEST(MetaGraphTest, KnownKeyOfWrongKindNamesFileAndKey) {
  MetaGraphDef def;
  (*def.mutable_collection_def())["variables"].mutable_node_list()->add_value(
      "w");
  const std::string path = WriteMeta(def, "wrong_kind.meta");
  absl::StatusOr<MetaGraphInfo> info = ReadMetaGraphInfo(path);
  ASSERT_FALSE(info.ok());
  EXPECT_EQ(info.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(info.status().message(), HasSubstr(path));
  EXPECT_THAT(info.status().message(), HasSubstr("'variables'"));
  EXPECT_THAT(info.status().message(), HasSubstr("node_list"));

  MetaGraphDef def2;
  (*def2.mutable_collection_def())["train_op"].mutable_int64_list()->add_value(
      3);
  info = DecodeMetaGraph(def2, "x.meta");
  ASSERT_FALSE(info.ok());
  EXPECT_THAT(info.status().message(), HasSubstr("'train_op'"));
  EXPECT_THAT(info.status().message(), HasSubstr("int64_list"));
}

TEST(MetaGraphTest, BytesThatDoNotParseNameFileAndKey) {
  for (const char* key : {"trainable_variables", "queue_runners"}) {
    MetaGraphDef def;
    (*def.mutable_collection_def())[key].mutable_bytes_list()->add_value(
        "\xff\xff\xff");
    absl::StatusOr<MetaGraphInfo> info = DecodeMetaGraph(def, "bad.meta");
    ASSERT_FALSE(info.ok()) << key;
    EXPECT_EQ(info.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(info.status().message(), HasSubstr("bad.meta"));
    EXPECT_THAT(info.status().message(), HasSubstr(key));
  }
}

TEST(MetaGraphTest, DecodesQueueRunnersAndMainOp) {
  MetaGraphDef def;
  QueueRunnerDef q;
  q.set_queue_name("input/fifo");
  q.add_enqueue_op_name("input/enqueue");
  q.add_queue_closed_exception_types(error::OUT_OF_RANGE);
  (*def.mutable_collection_def())["queue_runners"]
      .mutable_bytes_list()
      ->add_value(q.SerializeAsString());
  (*def.mutable_collection_def())["legacy_init_op"]
      .mutable_node_list()
      ->add_value("legacy");
  absl::StatusOr<MetaGraphInfo> info = DecodeMetaGraph(def, "q.meta");
  ASSERT_TRUE(info.ok()) << info.status();
  ASSERT_EQ(info->queue_runners.size(), 1u);
  EXPECT_EQ(info->queue_runners[0].queue_name(), "input/fifo");
  EXPECT_EQ(info->MainOp(), "legacy");
  (*info->meta_graph.mutable_collection_def())["saved_model_main_op"];
  info->node_lists["saved_model_main_op"] = {"main"};
  EXPECT_EQ(info->MainOp(), "main");
}

TEST(MetaGraphTest, MissingAndGarbageFiles) {
  absl::StatusOr<MetaGraphDef> def = ReadMetaGraphFile(TempPath("nope.meta"));
  EXPECT_EQ(def.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(def.status().message(), HasSubstr("nope.meta"));
  WriteBytes(TempPath("garbage.meta"), "meta_info_def { nonsense: 1 }");
  def = ReadMetaGraphFile(TempPath("garbage.meta"));
  EXPECT_EQ(def.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(def.status().message(), HasSubstr("garbage.meta"));
  EXPECT_THAT(def.status().message(), HasSubstr("line 1"));
}

TEST(SavedModelTest, ReadsTensorFlowSavedModel) {
  absl::StatusOr<SavedModel> model = ReadSavedModel(kMlp);
  ASSERT_TRUE(model.ok()) << model.status();
  ASSERT_EQ(model->meta_graphs_size(), 1);
  absl::StatusOr<const MetaGraphDef*> serve =
      FindMetaGraph(*model, {"serve"}, kMlp);
  ASSERT_TRUE(serve.ok()) << serve.status();
  EXPECT_EQ(SignatureKeyList(**serve), "serving_default");
  const SignatureDef& sig = (*serve)->signature_def().at("serving_default");
  EXPECT_EQ(sig.inputs().at("x").name(), "x:0");
  EXPECT_EQ(sig.outputs().at("classes").dtype(), DT_INT64);
  EXPECT_TRUE(SavedModelHasVariables(kMlp));
  EXPECT_EQ(SavedModelVariablesPrefix(kMlp), kMlp + "/variables/variables");
  absl::StatusOr<MetaGraphInfo> info = DecodeMetaGraph(**serve, kMlp);
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(info->MainOp(), "init_all_tables");
  EXPECT_EQ(info->trainable_variables.size(), 4u);
}

TEST(SavedModelTest, Errors) {
  absl::StatusOr<SavedModel> model = ReadSavedModel(TempPath("no_such_dir"));
  EXPECT_EQ(model.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(model.status().message(), HasSubstr("no_such_dir"));
  model = ReadSavedModel(kDir);  // a directory without saved_model.pb
  EXPECT_EQ(model.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(model.status().message(), HasSubstr("saved_model.pb"));

  model = ReadSavedModel(kMlp);
  ASSERT_TRUE(model.ok());
  absl::StatusOr<const MetaGraphDef*> m =
      FindMetaGraph(*model, {"serve", "gpu"}, kMlp);
  EXPECT_EQ(m.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(m.status().message(), HasSubstr("{serve, gpu}"));
  EXPECT_THAT(m.status().message(), HasSubstr("tag sets are: {serve}"));
}

TEST(SavedModelTest, TagSetsMatchAsSets) {
  SavedModel model;
  model.add_meta_graphs()->mutable_meta_info_def()->add_tags("train");
  MetaGraphDef* two = model.add_meta_graphs();
  two->mutable_meta_info_def()->add_tags("serve");
  two->mutable_meta_info_def()->add_tags("gpu");
  absl::StatusOr<const MetaGraphDef*> m =
      FindMetaGraph(model, {"gpu", "serve"}, "m");
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(*m, two);
  EXPECT_FALSE(FindMetaGraph(model, {"serve"}, "m").ok());
}

TEST(GraphFileTest, ReadsEveryKindByContent) {
  absl::StatusOr<GraphFile> f = ReadGraphFile(kTrainMeta);
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(f->kind, GraphFileKind::kMetaGraph);
  ASSERT_TRUE(f->meta_graph.has_value());
  EXPECT_EQ(f->graph_def.node_size(), f->meta_graph->graph_def().node_size());

  // The same bytes under a GraphDef's name are still a meta graph.
  WriteBytes(TempPath("train_renamed.pb"), ReadBytes(kTrainMeta));
  f = ReadGraphFile(TempPath("train_renamed.pb"));
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(f->kind, GraphFileKind::kMetaGraph);
  WriteBytes(TempPath("text_meta.pbtxt"), ReadBytes(kTextMeta));
  f = ReadGraphFile(TempPath("text_meta.pbtxt"));
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(f->kind, GraphFileKind::kMetaGraph);
  EXPECT_EQ(f->format, GraphDefFormat::kText);

  for (const std::string& p : {kMlp, kMlp + "/saved_model.pb"}) {
    f = ReadGraphFile(p);
    ASSERT_TRUE(f.ok()) << f.status();
    EXPECT_EQ(f->kind, GraphFileKind::kSavedModel) << p;
    EXPECT_EQ(f->path, kMlp + "/saved_model.pb");
  }
  WriteBytes(TempPath("sm.bin"), ReadBytes(kMlp + "/saved_model.pb"));
  f = ReadGraphFile(TempPath("sm.bin"));
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(f->kind, GraphFileKind::kSavedModel);

  for (const char* p :
       {"tests/testdata/tf/mlp.pb", "tests/testdata/tf/mlp.pbtxt"}) {
    f = ReadGraphFile(p);
    ASSERT_TRUE(f.ok()) << f.status();
    EXPECT_EQ(f->kind, GraphFileKind::kGraphDef) << p;
    EXPECT_FALSE(f->meta_graph.has_value());
  }
  // A GraphDef under a meta graph's name is still a GraphDef.
  WriteBytes(TempPath("graph.meta"), ReadBytes("tests/testdata/tf/mlp.pb"));
  f = ReadGraphFile(TempPath("graph.meta"));
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(f->kind, GraphFileKind::kGraphDef);
}

TEST(GraphFileTest, Errors) {
  absl::StatusOr<GraphFile> f = ReadGraphFile(TempPath("missing.pb"));
  EXPECT_EQ(f.status().code(), absl::StatusCode::kNotFound);
  f = ReadGraphFile(kDir);
  EXPECT_EQ(f.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(f.status().message(), HasSubstr("not a SavedModel"));
  WriteBytes(TempPath("junk.pb"), std::string("\x0a\xff\xff\xff", 4));
  f = ReadGraphFile(TempPath("junk.pb"));
  EXPECT_FALSE(f.ok());
  EXPECT_THAT(f.status().message(), HasSubstr("junk.pb"));
}

TEST(SubgraphTest, KeepsWhatRootsNeed) {
  absl::StatusOr<SavedModel> model = ReadSavedModel(kMlp);
  ASSERT_TRUE(model.ok());
  const GraphDef& full = model->meta_graphs(0).graph_def();
  absl::StatusOr<GraphDef> sub =
      SubgraphNeededFor(full, {"probs:0", "^save/restore_all"}, "mlp");
  ASSERT_TRUE(sub.ok()) << sub.status();
  EXPECT_LT(sub->node_size(), full.node_size());
  bool restore = false, save = false, truncated_normal = false;
  for (const NodeDef& n : sub->node()) {
    restore |= n.op() == "RestoreV2";
    save |= n.op() == "SaveV2";
    truncated_normal |= n.op() == "TruncatedNormal";
  }
  EXPECT_TRUE(restore);
  EXPECT_FALSE(save);
  EXPECT_FALSE(truncated_normal);
  absl::StatusOr<GraphDef> bad = SubgraphNeededFor(full, {"nope:0"}, "mlp");
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(bad.status().message(), HasSubstr("'nope'"));
  EXPECT_EQ(NodeNameOf("^a/b:1"), "a/b");
  EXPECT_EQ(NodeNameOf("a:b"), "a:b");
}

TEST(SubgraphTest, KeepsColocationTargets) {
  GraphDef def;
  NodeDef* a = def.add_node();
  a->set_name("a");
  a->set_op("NoOp");
  NodeDef* b = def.add_node();
  b->set_name("b");
  b->set_op("NoOp");
  (*b->mutable_attr())["_class"].mutable_list()->add_s("loc:@a");
  absl::StatusOr<GraphDef> sub = SubgraphNeededFor(def, {"b"}, "g");
  ASSERT_TRUE(sub.ok());
  EXPECT_EQ(sub->node_size(), 2);
}

}  // namespace
}  // namespace dflow
