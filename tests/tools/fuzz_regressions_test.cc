// The inputs tools/fuzz.sh found crashing dflow (issue 20 item 3), each
// replayed through the public path that reads that kind of file, as a
// user would meet it; each must end in an error naming the file, never an
// abort.
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "formats/tensor_bundle.h"
#include "gmock/gmock.h"
#include "graph/tensor.h"
#include "gtest/gtest.h"
#include "tests/tools/tool_test_util.h"
#include "tools/run.h"

namespace dflow {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using tool_testing::Result;
using tool_testing::TempPath;

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void WriteAll(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

// A graph with one variable, for `dflow run --restore`.
std::string VariableGraph() {
  const std::string path = TempPath("fuzz_regress_var.pbtxt");
  WriteAll(path,
           "node { name: 'v' op: 'VariableV2' attr { key: 'dtype' value { "
           "type: DT_FLOAT } } attr { key: 'shape' value { shape { dim { "
           "size: 1 } } } } }\n");
  return path;
}

// checkpoint_fuzzer: a .index whose footer (LevelDB's last 48 bytes, not
// checksummed) claims an index block of 2^40 bytes. LevelDB allocates a
// block's size before reading it: std::bad_alloc, then abort.
TEST(FuzzRegressionsTest, CheckpointIndexWithHugeFooterBlockIsDataLoss) {
  const std::string prefix = TempPath("fuzz_regress_ckpt");
  BundleWriter writer(prefix);
  ASSERT_TRUE(writer.Add("v", Tensor::FromVector<float>({1.0f})).ok());
  ASSERT_TRUE(writer.Finish().ok());
  const std::string index_path = BundleIndexFilename(prefix);
  std::string index = ReadAll(index_path);
  ASSERT_GT(index.size(), 48u);
  // Both handles: offset 0, size 2^40 (varint64), zero padding, then the
  // original magic number.
  std::string footer;
  for (int handle = 0; handle < 2; ++handle) {
    footer.push_back(0);
    uint64_t size = uint64_t{1} << 40;
    while (size >= 0x80) {
      footer.push_back(static_cast<char>((size & 0x7f) | 0x80));
      size >>= 7;
    }
    footer.push_back(static_cast<char>(size));
  }
  footer.resize(40, '\0');
  footer += index.substr(index.size() - 8);
  index.replace(index.size() - 48, 48, footer);
  WriteAll(index_path, index);

  Result r = tool_testing::RunVerb(
      RunRun,
      {"--graph", VariableGraph(), "--restore", prefix, "--fetch", "v"});
  EXPECT_EQ(r.rc, 1);
  EXPECT_THAT(r.err,
              AllOf(HasSubstr(index_path), HasSubstr("does not lie within")));
}

// checkpoint_fuzzer's sizes: an entry's size is checked against the shard
// before any allocation; a shard shorter than the entry is DataLoss.
TEST(FuzzRegressionsTest, CheckpointShardShorterThanEntryIsDataLoss) {
  const std::string prefix = TempPath("fuzz_regress_short");
  BundleWriter writer(prefix);
  ASSERT_TRUE(writer.Add("v", Tensor::FromVector<float>({1.0f})).ok());
  ASSERT_TRUE(writer.Finish().ok());
  WriteAll(BundleDataFilename(prefix, 0, 1), "ab");
  Result r = tool_testing::RunVerb(
      RunRun,
      {"--graph", VariableGraph(), "--restore", prefix, "--fetch", "v"});
  EXPECT_EQ(r.rc, 1);
  EXPECT_THAT(r.err, HasSubstr("truncated"));
}

}  // namespace
}  // namespace dflow
