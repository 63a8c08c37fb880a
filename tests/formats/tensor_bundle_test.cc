#include "formats/tensor_bundle.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace dflow {
namespace {

using ::testing::HasSubstr;

std::string NewTempDir() {
  const char* base = std::getenv("TEST_TMPDIR");
  std::string pattern = absl::StrCat(base ? base : "/tmp", "/bundleXXXXXX");
  char* dir = mkdtemp(pattern.data());
  EXPECT_NE(dir, nullptr);
  return pattern;
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void WriteAll(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
}

bool Exists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

// A bundle of every kind of tensor the writer handles.
std::string WriteSample(const std::string& dir) {
  const std::string prefix = dir + "/sample";
  BundleWriter writer(prefix);
  EXPECT_TRUE(writer.Add("f32", Tensor::FromVector<float>({1.5f, -2.f, 3.f, 4.f},
                                                          TensorShape({2, 2})))
                  .ok());
  EXPECT_TRUE(writer.Add("f64", Tensor::Scalar<double>(2.5)).ok());
  EXPECT_TRUE(writer.Add("i32", Tensor::FromVector<int32_t>({1, -2, 3})).ok());
  EXPECT_TRUE(writer.Add("i64", Tensor::FromVector<int64_t>({1ll << 40})).ok());
  EXPECT_TRUE(
      writer.Add("bool", Tensor::FromVector<bool>({true, false, true})).ok());
  EXPECT_TRUE(writer
                  .Add("str", Tensor::FromVector<std::string>(
                                  {"a", "", std::string(300, 'x')}))
                  .ok());
  EXPECT_TRUE(writer.Add("empty", Tensor(DT_FLOAT, TensorShape({0, 3}))).ok());
  EXPECT_TRUE(writer.Finish().ok());
  return prefix;
}

TEST(TensorBundleTest, RoundTripsEveryDtype) {
  const std::string prefix = WriteSample(NewTempDir());
  EXPECT_TRUE(Exists(prefix + ".index"));
  EXPECT_TRUE(Exists(prefix + ".data-00000-of-00001"));
  auto reader = BundleReader::Open(prefix);
  ASSERT_TRUE(reader.ok()) << reader.status();
  std::vector<std::string> names;
  for (const auto& info : (*reader)->ListTensors()) names.push_back(info.name);
  EXPECT_THAT(names, ::testing::ElementsAre("bool", "empty", "f32", "f64",
                                            "i32", "i64", "str"));
  auto f32 = (*reader)->Read("f32");
  ASSERT_TRUE(f32.ok()) << f32.status();
  EXPECT_EQ(f32->shape(), TensorShape({2, 2}));
  EXPECT_THAT(f32->flat<float>(), ::testing::ElementsAre(1.5f, -2.f, 3.f, 4.f));
  auto f64 = (*reader)->Read("f64");
  ASSERT_TRUE(f64.ok());
  EXPECT_EQ(f64->shape(), TensorShape({}));
  EXPECT_EQ(f64->flat<double>()[0], 2.5);
  auto i64 = (*reader)->Read("i64");
  ASSERT_TRUE(i64.ok());
  EXPECT_EQ(i64->flat<int64_t>()[0], 1ll << 40);
  auto b = (*reader)->Read("bool");
  ASSERT_TRUE(b.ok());
  EXPECT_THAT(b->flat<bool>(), ::testing::ElementsAre(true, false, true));
  auto s = (*reader)->Read("str");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_THAT(s->flat<std::string>(),
              ::testing::ElementsAre("a", "", std::string(300, 'x')));
  auto e = (*reader)->Read("empty");
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_EQ(e->shape(), TensorShape({0, 3}));
  auto info = (*reader)->Lookup("i32");
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->dtype, DT_INT32);
  EXPECT_EQ(info->shape, TensorShape({3}));
}

TEST(TensorBundleTest, WriterLeavesNoTemporaryFiles) {
  const std::string dir = NewTempDir();
  WriteSample(dir);
  {
    BundleWriter abandoned(dir + "/abandoned");
    ASSERT_TRUE(abandoned.Add("x", Tensor::Scalar<float>(1)).ok());
  }  // dropped before Finish
  std::vector<std::string> files;
  std::string listing;
  for (const char* name : {"sample.index", "sample.data-00000-of-00001"}) {
    EXPECT_TRUE(Exists(dir + "/" + name)) << name;
  }
  EXPECT_FALSE(Exists(dir + "/abandoned.index"));
  EXPECT_FALSE(Exists(dir + "/abandoned.data-00000-of-00001"));
  FILE* ls = popen(("ls " + dir).c_str(), "r");
  char buf[256];
  while (fgets(buf, sizeof(buf), ls)) listing += buf;
  pclose(ls);
  EXPECT_THAT(listing, ::testing::Not(HasSubstr(".tmp")));
}

TEST(TensorBundleTest, RejectsDuplicateAndEmptyNames) {
  BundleWriter writer(NewTempDir() + "/dup");
  ASSERT_TRUE(writer.Add("x", Tensor::Scalar<float>(1)).ok());
  EXPECT_THAT(std::string(writer.Add("x", Tensor::Scalar<float>(2)).message()),
              HasSubstr("added twice"));
  EXPECT_FALSE(writer.Add("", Tensor::Scalar<float>(2)).ok());
}

TEST(TensorBundleTest, BadCrcNamesTensorAndFile) {
  const std::string prefix = WriteSample(NewTempDir());
  const std::string data_path = prefix + ".data-00000-of-00001";
  std::string data = ReadAll(data_path);
  // f32 is the third tensor in name order: bool (3 bytes), empty (0), f32.
  data[3] ^= 0x40;
  WriteAll(data_path, data);
  auto reader = BundleReader::Open(prefix);
  ASSERT_TRUE(reader.ok());
  auto f32 = (*reader)->Read("f32");
  ASSERT_FALSE(f32.ok());
  EXPECT_EQ(f32.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(std::string(f32.status().message()), HasSubstr("'f32'"));
  EXPECT_THAT(std::string(f32.status().message()), HasSubstr(data_path));
  EXPECT_THAT(std::string(f32.status().message()), HasSubstr("CRC32C"));
  // The other tensors still read.
  EXPECT_TRUE((*reader)->Read("bool").ok());
  EXPECT_TRUE((*reader)->Read("str").ok());
}

TEST(TensorBundleTest, BadStringLengthChecksum) {
  const std::string prefix = WriteSample(NewTempDir());
  auto reader = BundleReader::Open(prefix);
  ASSERT_TRUE(reader.ok());
  const int64_t offset = (*reader)->entries().at("str").offset();
  reader->reset();
  const std::string data_path = prefix + ".data-00000-of-00001";
  std::string data = ReadAll(data_path);
  data[offset] = 2;  // the first length: "a" becomes 2 bytes long
  WriteAll(data_path, data);
  reader = BundleReader::Open(prefix);
  auto s = (*reader)->Read("str");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(std::string(s.status().message()), HasSubstr("'str'"));
}

TEST(TensorBundleTest, TruncatedDataShard) {
  const std::string prefix = WriteSample(NewTempDir());
  const std::string data_path = prefix + ".data-00000-of-00001";
  std::string data = ReadAll(data_path);
  ASSERT_EQ(truncate(data_path.c_str(), static_cast<off_t>(data.size() - 10)),
            0);
  auto reader = BundleReader::Open(prefix);
  ASSERT_TRUE(reader.ok());
  auto s = (*reader)->Read("str");  // the last tensor in the shard
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(std::string(s.status().message()), HasSubstr("truncated"));
  EXPECT_THAT(std::string(s.status().message()), HasSubstr(data_path));
}

TEST(TensorBundleTest, MissingShardFile) {
  const std::string prefix = WriteSample(NewTempDir());
  ASSERT_EQ(unlink((prefix + ".data-00000-of-00001").c_str()), 0);
  auto reader = BundleReader::Open(prefix);
  ASSERT_TRUE(reader.ok());
  auto s = (*reader)->Read("f32");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(s.status().message()),
              HasSubstr("sample.data-00000-of-00001"));
}

TEST(TensorBundleTest, MissingIndex) {
  auto reader = BundleReader::Open(NewTempDir() + "/nothing");
  ASSERT_FALSE(reader.ok());
  EXPECT_EQ(reader.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(reader.status().message()),
              HasSubstr("nothing.index"));
}

TEST(TensorBundleTest, CorruptIndex) {
  const std::string dir = NewTempDir();
  WriteAll(dir + "/garbage.index", "this is not a table, not at all......"
                                   "..........................");
  auto garbage = BundleReader::Open(dir + "/garbage");
  ASSERT_FALSE(garbage.ok());
  EXPECT_EQ(garbage.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(std::string(garbage.status().message()),
              HasSubstr("garbage.index"));

  // One flipped bit in a block: LevelDB's block CRC catches it.
  const std::string prefix = WriteSample(dir);
  std::string index = ReadAll(prefix + ".index");
  index[10] ^= 0x01;
  WriteAll(prefix + ".index", index);
  auto flipped = BundleReader::Open(prefix);
  ASSERT_FALSE(flipped.ok());
  EXPECT_EQ(flipped.status().code(), absl::StatusCode::kDataLoss);
}

TEST(TensorBundleTest, NotFoundListsNearNames) {
  const std::string prefix = WriteSample(NewTempDir());
  auto reader = BundleReader::Open(prefix);
  ASSERT_TRUE(reader.ok());
  auto s = (*reader)->Read("f33");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(s.status().message()), HasSubstr("'f33'"));
  EXPECT_THAT(std::string(s.status().message()), HasSubstr("'f32'"));
}

TEST(TensorBundleTest, MergeBundlesRenumbersShards) {
  const std::string dir = NewTempDir();
  {
    BundleWriter a(dir + "/tmp/part-00000-of-00002");
    ASSERT_TRUE(a.Add("a", Tensor::FromVector<float>({1, 2})).ok());
    ASSERT_TRUE(a.Finish().ok());
    BundleWriter b(dir + "/tmp/part-00001-of-00002");
    ASSERT_TRUE(b.Add("b", Tensor::FromVector<int64_t>({3})).ok());
    ASSERT_TRUE(b.Add("c", Tensor::FromVector<std::string>({"z"})).ok());
    ASSERT_TRUE(b.Finish().ok());
  }
  ASSERT_TRUE(MergeBundles({dir + "/tmp/part-00000-of-00002",
                            dir + "/tmp/part-00001-of-00002"},
                           dir + "/merged")
                  .ok());
  EXPECT_TRUE(Exists(dir + "/merged.data-00000-of-00002"));
  EXPECT_TRUE(Exists(dir + "/merged.data-00001-of-00002"));
  EXPECT_FALSE(Exists(dir + "/tmp/part-00000-of-00002.index"));
  auto reader = BundleReader::Open(dir + "/merged");
  ASSERT_TRUE(reader.ok()) << reader.status();
  EXPECT_EQ((*reader)->num_shards(), 2);
  EXPECT_EQ((*reader)->entries().at("c").shard_id(), 1);
  auto c = (*reader)->Read("c");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->flat<std::string>()[0], "z");
  auto a = (*reader)->Read("a");
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->flat<float>()[1], 2.f);

  EXPECT_FALSE(MergeBundles({dir + "/missing"}, dir + "/m2").ok());
  EXPECT_FALSE(MergeBundles({dir + "/missing"}, dir + "/m2",
                            /*allow_missing_files=*/true)
                   .ok());
}

TEST(TensorBundleTest, DeleteBundleRemovesEveryFile) {
  const std::string dir = NewTempDir();
  const std::string prefix = WriteSample(dir);
  const std::string other = dir + "/sample-2";
  BundleWriter w(other);
  ASSERT_TRUE(w.Add("x", Tensor::Scalar<float>(1)).ok());
  ASSERT_TRUE(w.Finish().ok());
  ASSERT_TRUE(DeleteBundle(prefix).ok());
  EXPECT_FALSE(Exists(prefix + ".index"));
  EXPECT_FALSE(Exists(prefix + ".data-00000-of-00001"));
  EXPECT_TRUE(Exists(other + ".index"));
  EXPECT_TRUE(Exists(other + ".data-00000-of-00001"));
}

}  // namespace
}  // namespace dflow
