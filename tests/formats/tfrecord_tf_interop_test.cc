// dflow and TensorFlow read each other's TFRecord files, plain, GZIP and
// ZLIB. TensorFlow's side is tools/tf_reference/tfrecord_interop.py, run
// with the python3 on PATH; the tests skip when it cannot import TensorFlow.
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "formats/tfrecord.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace dflow {
namespace {

// The file name part and TensorFlow's compression_type, as in the script.
struct Compression {
  const char* name;
  const char* type;
};
constexpr Compression kCompressions[] = {
    {"none", ""}, {"gzip", "GZIP"}, {"zlib", "ZLIB"}};

// The script's exit status for "cannot import tensorflow"; 127 is the
// shell's for "no python3".
constexpr int kNoTensorFlow = 77;
constexpr int kNoPython = 127;

// The script's records(); change them together.
std::vector<std::string> Records() {
  std::vector<std::string> out = {"", "abc"};
  std::string bytes;
  for (int i = 0; i < 256; ++i) bytes.push_back(static_cast<char>(i));
  out.push_back(bytes);
  std::string large(1 << 20, '\0');
  for (uint64_t i = 0; i < large.size(); ++i) {
    large[i] = static_cast<char>(((i * 2654435761u) >> 13) & 0xff);
  }
  out.push_back(large);
  for (int i = 0; i < 3000; ++i) {
    std::string record;
    for (int k = 0; k < i % 7; ++k) absl::StrAppend(&record, "record ", i, ";");
    out.push_back(record);
  }
  return out;
}

std::string NewTempDir() {
  const char* base = std::getenv("TEST_TMPDIR");
  std::string pattern =
      absl::StrCat(base != nullptr ? base : "/tmp", "/tfrecord_tf_XXXXXX");
  EXPECT_NE(mkdtemp(pattern.data()), nullptr);
  return pattern;
}

std::string ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string ScriptPath() {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const char* workspace = std::getenv("TEST_WORKSPACE");
  const std::string relative = "tools/tf_reference/tfrecord_interop.py";
  if (srcdir == nullptr || workspace == nullptr) return relative;
  return absl::StrCat(srcdir, "/", workspace, "/", relative);
}

// Runs the script with `verb` on `dir`; its exit status and output.
int RunScript(const std::string& verb, const std::string& dir,
              std::string* output) {
  const std::string command =
      absl::StrCat("TF_CPP_MIN_LOG_LEVEL=3 python3 '", ScriptPath(), "' ", verb,
                   " '", dir, "' 2>&1");
  FILE* p = popen(command.c_str(), "r");
  if (p == nullptr) return -1;
  char buf[4096];
  while (fgets(buf, sizeof(buf), p) != nullptr) *output += buf;
  const int status = pclose(p);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(TfRecordTfInteropTest, DflowReadsTensorFlowsFiles) {
  const std::string dir = NewTempDir();
  std::string output;
  const int rc = RunScript("write", dir, &output);
  if (rc == kNoTensorFlow || rc == kNoPython) {
    GTEST_SKIP() << "python3 cannot import tensorflow: " << output;
  }
  ASSERT_EQ(rc, 0) << output;

  const std::vector<std::string> expected = Records();
  for (const Compression& c : kCompressions) {
    SCOPED_TRACE(c.name);
    TfRecordOptions options;
    options.compression_type = c.type;
    const std::string path = absl::StrCat(dir, "/tf_", c.name, ".tfrecord");
    auto reader = TfRecordReader::Open(path, options);
    ASSERT_TRUE(reader.ok()) << reader.status();
    std::string record;
    int64_t offset = 0;
    for (size_t i = 0; i < expected.size(); ++i) {
      absl::StatusOr<bool> more = (*reader)->Next(&record);
      ASSERT_TRUE(more.ok()) << more.status();
      ASSERT_TRUE(*more) << "only " << i << " records";
      ASSERT_EQ(record, expected[i]) << "record " << i;
      offset += 16 + record.size();
      ASSERT_EQ((*reader)->offset(), offset);
    }
    absl::StatusOr<bool> more = (*reader)->Next(&record);
    ASSERT_TRUE(more.ok()) << more.status();
    EXPECT_FALSE(*more) << "more records than TensorFlow wrote";
  }

  // Uncompressed, the format leaves no choices: dflow's bytes are
  // TensorFlow's.
  const std::string mine = dir + "/dflow_none.tfrecord";
  auto writer = TfRecordWriter::Open(mine, {});
  ASSERT_TRUE(writer.ok()) << writer.status();
  for (const std::string& record : expected) {
    ASSERT_TRUE((*writer)->Write(record).ok());
  }
  ASSERT_TRUE((*writer)->Close().ok());
  EXPECT_TRUE(ReadBytes(mine) == ReadBytes(dir + "/tf_none.tfrecord"));
}

TEST(TfRecordTfInteropTest, TensorFlowReadsDflowsFiles) {
  const std::string dir = NewTempDir();
  const std::vector<std::string> records = Records();
  for (const Compression& c : kCompressions) {
    TfRecordOptions options;
    options.compression_type = c.type;
    auto writer = TfRecordWriter::Open(
        absl::StrCat(dir, "/dflow_", c.name, ".tfrecord"), options);
    ASSERT_TRUE(writer.ok()) << writer.status();
    for (size_t i = 0; i < records.size(); ++i) {
      ASSERT_TRUE((*writer)->Write(records[i]).ok());
      // A flush mid-stream must leave a file TensorFlow still reads.
      if (i == 100) {
        ASSERT_TRUE((*writer)->Flush().ok());
      }
    }
    ASSERT_TRUE((*writer)->Close().ok());
  }
  std::string output;
  const int rc = RunScript("check", dir, &output);
  if (rc == kNoTensorFlow || rc == kNoPython) {
    GTEST_SKIP() << "python3 cannot import tensorflow: " << output;
  }
  EXPECT_EQ(rc, 0) << output;
  EXPECT_THAT(output, ::testing::HasSubstr("TF-OK")) << output;
}

}  // namespace
}  // namespace dflow
