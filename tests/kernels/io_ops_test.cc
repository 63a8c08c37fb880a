// The Saver ops run the save/restore subgraphs TensorFlow's
// tf.compat.v1.train.Saver builds (tests/testdata/tf_checkpoints, written by
// tools/tf_reference/make_checkpoint_reference.py): restore from TF's files,
// save again, and compare; plus the string ops' and kernels' errors.
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "formats/tensor_bundle.h"
#include "gmock/gmock.h"
#include "graph/graph_def_file.h"
#include "graph/ops/ops.h"
#include "graph/scope.h"
#include "gtest/gtest.h"
#include "runtime/session.h"

namespace dflow {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr char kDir[] = "tests/testdata/tf_checkpoints/";

std::string TempPrefix(const std::string& name) {
  const char* base = std::getenv("TEST_TMPDIR");
  return absl::StrCat(base != nullptr ? base : "/tmp", "/io_ops_", name);
}

// dflow has no Select op yet: the sharded Saver's Select between its s3://
// and local temporary names becomes the local one (its `e` input), which is
// what Select computes for a local prefix.
void ReplaceSelect(GraphDef* def) {
  GraphDef out;
  for (const NodeDef& node : def->node()) {
    if (node.op() == "StaticRegexFullMatch") continue;
    NodeDef* copy = out.add_node();
    *copy = node;
    if (node.op() != "Select") continue;
    copy->set_op("Identity");
    copy->clear_input();
    copy->add_input(node.input(2));
    copy->mutable_attr()->erase("T");
    (*copy->mutable_attr())["T"].set_type(DT_STRING);
  }
  *out.mutable_versions() = def->versions();
  *def = out;
}

std::unique_ptr<Session> LoadSession(const std::string& file, int cpus) {
  absl::StatusOr<GraphDef> def = ReadGraphDefFile(std::string(kDir) + file);
  EXPECT_TRUE(def.ok()) << def.status();
  if (!def.ok()) return nullptr;
  ReplaceSelect(&*def);
  SessionOptions options;
  options.device_count["CPU"] = cpus;
  absl::StatusOr<std::unique_ptr<Session>> session =
      Session::Create(*def, options);
  EXPECT_TRUE(session.ok()) << session.status();
  return session.ok() ? *std::move(session) : nullptr;
}

// Every tensor of the two bundles is equal (dtype, shape, bytes via CRC).
void ExpectSameBundles(const std::string& a, const std::string& b) {
  auto ra = BundleReader::Open(a);
  auto rb = BundleReader::Open(b);
  ASSERT_TRUE(ra.ok()) << ra.status();
  ASSERT_TRUE(rb.ok()) << rb.status();
  ASSERT_EQ((*ra)->entries().size(), (*rb)->entries().size());
  for (const auto& [name, entry] : (*ra)->entries()) {
    ASSERT_TRUE((*rb)->Contains(name)) << name;
    const BundleEntryProto& other = (*rb)->entries().at(name);
    EXPECT_EQ(entry.dtype(), other.dtype()) << name;
    EXPECT_EQ(entry.size(), other.size()) << name;
    EXPECT_EQ(entry.crc32c(), other.crc32c()) << name;
    EXPECT_TRUE((*rb)->Read(name).ok()) << name;
  }
}

TEST(IoOpsTest, TfSaverGraphRestoresThenSaves) {
  auto session = LoadSession("basic_graph.pb", 1);
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  absl::Status s = session->Run(
      {{"save/Const:0", Tensor::Scalar(std::string(kDir) + "basic-7")}}, {},
      {"save/restore_all"}, &out);
  ASSERT_TRUE(s.ok()) << s;
  s = session->Run({}, {"v_f32:0", "v_str:0", "r_f32/Read/ReadVariableOp:0"},
                   {}, &out);
  ASSERT_TRUE(s.ok()) << s;
  ASSERT_EQ(out.size(), 3u);
  EXPECT_THAT(out[0].flat<float>(),
              ElementsAre(1.5f, -2.f, 3.25f, 4.f, 5.f, 6.f));
  EXPECT_EQ(out[1].flat<std::string>()[0], "hello");
  EXPECT_THAT(out[2].flat<float>(), ElementsAre(0.5f, 0.25f));

  const std::string saved = TempPrefix("basic");
  s = session->Run({{"save/Const:0", Tensor::Scalar(saved)}},
                   {"save/control_dependency:0"}, {}, &out);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(out[0].flat<std::string>()[0], saved);
  ExpectSameBundles(std::string(kDir) + "basic-7", saved);
}

TEST(IoOpsTest, ShardedTfSaverGraphOnTwoCpus) {
  auto session = LoadSession("sharded_graph.pb", 2);
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  absl::Status s = session->Run(
      {{"save/Const:0", Tensor::Scalar(std::string(kDir) + "sharded-3")}}, {},
      {"save/restore_all"}, &out);
  ASSERT_TRUE(s.ok()) << s;
  s = session->Run({}, {"a:0", "b:0"}, {}, &out);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_THAT(out[0].flat<float>(), ElementsAre(0, 1, 2, 3, 4, 5));
  EXPECT_THAT(out[1].flat<int64_t>(), ElementsAre(10, 20, 30));

  // ShardedFilename + StringJoin("_temp/part") + two SaveV2 +
  // MergeV2Checkpoints.
  const std::string saved = TempPrefix("sharded");
  s = session->Run({{"save/Const:0", Tensor::Scalar(saved)}},
                   {"save/Identity:0"}, {}, &out);
  ASSERT_TRUE(s.ok()) << s;
  auto reader = BundleReader::Open(saved);
  ASSERT_TRUE(reader.ok()) << reader.status();
  EXPECT_EQ((*reader)->num_shards(), 2);
  ExpectSameBundles(std::string(kDir) + "sharded-3", saved);
}

TEST(IoOpsTest, RestoreV2Errors) {
  Scope root = Scope::NewRootScope();
  auto prefix = ops::Placeholder(root.WithOpName("prefix"), DT_STRING);
  auto names = ops::Const(root.WithOpName("names"),
                          Tensor::FromVector<std::string>({"v_f32"}));
  auto slices = ops::Const(root.WithOpName("slices"),
                           Tensor::FromVector<std::string>({""}));
  ops::RestoreV2(root.WithOpName("restore_as_int"), prefix, names, slices,
                 {DT_INT32});
  auto missing = ops::Const(root.WithOpName("missing"),
                            Tensor::FromVector<std::string>({"v_f31"}));
  ops::RestoreV2(root.WithOpName("restore_missing"), prefix, missing, slices,
                 {DT_FLOAT});
  auto sliced = ops::Const(root.WithOpName("sliced"),
                           Tensor::FromVector<std::string>({"4 2 0,2:-"}));
  ops::RestoreV2(root.WithOpName("restore_slice"), prefix, names, sliced,
                 {DT_FLOAT});
  GraphDef def;
  ASSERT_TRUE(root.ToGraphDef(&def).ok());
  auto session = Session::Create(def);
  ASSERT_TRUE(session.ok()) << session.status();
  std::vector<Tensor> out;
  const Tensor basic = Tensor::Scalar(std::string(kDir) + "basic-7");
  absl::Status s =
      (*session)->Run({{"prefix", basic}}, {"restore_as_int:0"}, {}, &out);
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
  EXPECT_THAT(s.message(), HasSubstr("'restore_as_int'"));
  EXPECT_THAT(s.message(), HasSubstr("float"));
  s = (*session)->Run({{"prefix", basic}}, {"restore_missing:0"}, {}, &out);
  EXPECT_TRUE(absl::IsNotFound(s)) << s;
  EXPECT_THAT(s.message(), HasSubstr("'v_f32'"));
  s = (*session)->Run({{"prefix", basic}}, {"restore_slice:0"}, {}, &out);
  EXPECT_TRUE(absl::IsUnimplemented(s)) << s;
  s = (*session)->Run(
      {{"prefix", Tensor::Scalar(std::string(kDir) + "partitioned")}},
      {"restore_missing:0"}, {}, &out);
  EXPECT_FALSE(s.ok());
  s = (*session)->Run({{"prefix", Tensor::Scalar(TempPrefix("none"))}},
                      {"restore_as_int:0"}, {}, &out);
  EXPECT_TRUE(absl::IsNotFound(s)) << s;
}

TEST(IoOpsTest, StringOps) {
  Scope root = Scope::NewRootScope();
  auto base = ops::Const(root.WithOpName("base"), Tensor::Scalar("/x/model"));
  ops::ShardedFilename(root.WithOpName("shard"), base,
                       ops::Const(root, int32_t{1}),
                       ops::Const(root, int32_t{2}));
  ops::StringJoin(root.WithOpName("join"),
                  {base, ops::Const(root, Tensor::FromVector<std::string>(
                                              {"_a", "_b"}))},
                  "/");
  GraphDef def;
  ASSERT_TRUE(root.ToGraphDef(&def).ok());
  auto session = Session::Create(def);
  ASSERT_TRUE(session.ok()) << session.status();
  std::vector<Tensor> out;
  absl::Status s = (*session)->Run({}, {"shard:0", "join:0"}, {}, &out);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(out[0].flat<std::string>()[0], "/x/model-00001-of-00002");
  EXPECT_THAT(out[1].flat<std::string>(),
              ElementsAre("/x/model/_a", "/x/model/_b"));
}

}  // namespace
}  // namespace dflow
