// dflow reads the V2 checkpoints TensorFlow 2.21 wrote
// (tools/tf_reference/make_checkpoint_reference.py), and TensorFlow's table
// and CRC conventions agree with LevelDB's and crcutil's.
#include <string>

#include "formats/tensor_bundle.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace dflow {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr char kDir[] = "tests/testdata/tf_checkpoints/";

TEST(TfCheckpointTest, ReadsEveryDtype) {
  auto reader = BundleReader::Open(std::string(kDir) + "basic-7");
  ASSERT_TRUE(reader.ok()) << reader.status();
  EXPECT_EQ((*reader)->num_shards(), 1);
  std::vector<std::string> names;
  for (const auto& info : (*reader)->ListTensors()) names.push_back(info.name);
  EXPECT_THAT(names, ElementsAre("r_f32", "scope/v_f64", "v_bool", "v_empty",
                                 "v_f32", "v_i32", "v_i64", "v_str"));

  auto f32 = (*reader)->Read("v_f32");
  ASSERT_TRUE(f32.ok()) << f32.status();
  EXPECT_EQ(f32->shape(), TensorShape({2, 3}));
  EXPECT_THAT(f32->flat<float>(), ElementsAre(1.5f, -2.f, 3.25f, 4.f, 5.f, 6.f));
  auto f64 = (*reader)->Read("scope/v_f64");
  ASSERT_TRUE(f64.ok()) << f64.status();
  EXPECT_EQ(f64->shape(), TensorShape({}));
  EXPECT_EQ(f64->flat<double>()[0], 2.718281828459045);
  auto i32 = (*reader)->Read("v_i32");
  ASSERT_TRUE(i32.ok()) << i32.status();
  EXPECT_THAT(i32->flat<int32_t>(), ElementsAre(7, -8, 9, 2147483647));
  auto i64 = (*reader)->Read("v_i64");
  ASSERT_TRUE(i64.ok()) << i64.status();
  EXPECT_THAT(i64->flat<int64_t>(), ElementsAre(1, -2, 3, int64_t{1} << 40));
  auto b = (*reader)->Read("v_bool");
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_THAT(b->flat<bool>(), ElementsAre(true, false, true));
  auto s = (*reader)->Read("v_str");
  ASSERT_TRUE(s.ok()) << s.status();
  std::string long_string;
  for (int i = 0; i < 20; ++i) long_string += "checkpoint";
  EXPECT_THAT(s->flat<std::string>(), ElementsAre("hello", "", long_string));
  auto e = (*reader)->Read("v_empty");
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_EQ(e->shape(), TensorShape({0, 3}));
  auto r = (*reader)->Read("r_f32");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(r->flat<float>(), ElementsAre(0.5f, 0.25f));
}

TEST(TfCheckpointTest, ReadsShardedSave) {
  auto reader = BundleReader::Open(std::string(kDir) + "sharded-3");
  ASSERT_TRUE(reader.ok()) << reader.status();
  EXPECT_EQ((*reader)->num_shards(), 2);
  EXPECT_NE((*reader)->entries().at("a").shard_id(),
            (*reader)->entries().at("b").shard_id());
  auto a = (*reader)->Read("a");
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_THAT(a->flat<float>(), ElementsAre(0, 1, 2, 3, 4, 5));
  auto b = (*reader)->Read("b");
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_THAT(b->flat<int64_t>(), ElementsAre(10, 20, 30));
}

TEST(TfCheckpointTest, PartitionedVariableIsAClearError) {
  auto reader = BundleReader::Open(std::string(kDir) + "partitioned");
  ASSERT_TRUE(reader.ok()) << reader.status();
  auto p = (*reader)->Read("p");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(std::string(p.status().message()), HasSubstr("partitioned"));
  EXPECT_THAT(std::string(p.status().message()), HasSubstr("'p'"));
}

// dflow's writer produces the same entries (dtype, shape, size, CRC) and
// data bytes as TensorFlow for the same tensors.
TEST(TfCheckpointTest, WriterMatchesTensorFlowBytes) {
  auto tf = BundleReader::Open(std::string(kDir) + "basic-7");
  ASSERT_TRUE(tf.ok());
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string prefix = std::string(tmp ? tmp : "/tmp") + "/rewritten";
  {
    BundleWriter writer(prefix);
    for (const auto& info : (*tf)->ListTensors()) {
      auto t = (*tf)->Read(info.name);
      ASSERT_TRUE(t.ok()) << t.status();
      ASSERT_TRUE(writer.Add(info.name, *t).ok());
    }
    ASSERT_TRUE(writer.Finish().ok());
  }
  auto ours = BundleReader::Open(prefix);
  ASSERT_TRUE(ours.ok()) << ours.status();
  for (const auto& [name, entry] : (*tf)->entries()) {
    const BundleEntryProto& mine = (*ours)->entries().at(name);
    EXPECT_EQ(mine.SerializeAsString(), entry.SerializeAsString()) << name;
  }
}

}  // namespace
}  // namespace dflow
