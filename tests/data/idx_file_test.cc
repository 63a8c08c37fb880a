// ReadIdxFile: round trips of IDX files the test writes itself (plain and
// gzipped through zlib's gzwrite), and each kind of broken file, whose error
// must name the file and what was expected and found.
#include "data/idx_file.h"

#include <zlib.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/data/idx_test_util.h"

namespace dflow {
namespace {

using ::dflow::idx_testing::IdxBytes;
using ::dflow::idx_testing::MakeTempDir;
using ::dflow::idx_testing::Uint8Idx;
using ::dflow::idx_testing::Uint8Payload;
using ::dflow::idx_testing::WriteFile;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

std::string Message(const absl::Status& status) {
  return std::string(status.message());
}

std::string ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class IdxFileTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    dir_ = MakeTempDir(absl::StrCat(
        ::testing::UnitTest::GetInstance()->current_test_info()->name(), "_",
        GetParam() ? "gz" : "raw"));
  }
  bool gzip() const { return GetParam(); }
  // Writes `bytes` as `name` (plus ".gz" when gzipping) and returns the path.
  std::string Write(const std::string& name, const std::string& bytes) {
    const std::string path =
        absl::StrCat(dir_, "/", name, gzip() ? ".gz" : "");
    WriteFile(path, bytes, gzip());
    return path;
  }

  std::string dir_;
};

TEST_P(IdxFileTest, RoundTripsEveryRank) {
  const std::vector<std::vector<uint32_t>> shapes = {
      {5}, {3, 4}, {2, 3, 4}, {0}, {0, 28, 28}, {4, 0, 2}};
  int file = 0;
  for (const std::vector<uint32_t>& dims : shapes) {
    const std::string path =
        Write(absl::StrCat("rt", file++), Uint8Idx(dims));
    absl::StatusOr<Tensor> t = ReadIdxFile(path);
    ASSERT_TRUE(t.ok()) << t.status();
    EXPECT_EQ(t->dtype(), DT_UINT8);
    ASSERT_EQ(t->shape().rank(), static_cast<int>(dims.size()));
    for (size_t d = 0; d < dims.size(); ++d) {
      EXPECT_EQ(t->shape().dim(static_cast<int>(d)), dims[d]) << path;
    }
    const std::string expected = Uint8Payload(t->NumElements());
    ASSERT_EQ(t->TotalBytes(), expected.size());
    if (!expected.empty()) {
      EXPECT_EQ(std::memcmp(t->raw_data(), expected.data(), expected.size()),
                0)
          << path;
    }
  }
}

// Larger than zlib's 1 MiB buffer and its first read, so the data crosses
// several buffer refills.
TEST_P(IdxFileTest, RoundTripsAFileLargerThanTheReadBuffer) {
  const std::vector<uint32_t> dims = {3000, 28, 28};
  const std::string path = Write("big", Uint8Idx(dims));
  absl::StatusOr<Tensor> t = ReadIdxFile(path, 3);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->shape(), TensorShape({3000, 28, 28}));
  const std::string expected = Uint8Payload(3000 * 28 * 28);
  EXPECT_EQ(std::memcmp(t->raw_data(), expected.data(), expected.size()), 0);
}

TEST_P(IdxFileTest, ExpectedRankSelectsLabelsOrImages) {
  const std::string labels = Write("labels", Uint8Idx({6}));
  const std::string images = Write("images", Uint8Idx({2, 3, 3}));
  EXPECT_TRUE(ReadIdxFile(labels, 1).ok());
  EXPECT_TRUE(ReadIdxFile(images, 3).ok());

  absl::StatusOr<Tensor> t = ReadIdxFile(images, 1);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(t.status()),
              AllOf(HasSubstr(images), HasSubstr("0x00000803"),
                    HasSubstr("3 dimensions"), HasSubstr("expected 0x00000801"),
                    Not(HasSubstr("0x00000802"))));
  t = ReadIdxFile(labels, 3);
  ASSERT_FALSE(t.ok());
  EXPECT_THAT(Message(t.status()),
              AllOf(HasSubstr(labels), HasSubstr("magic number is 0x00000801"),
                    HasSubstr("expected 0x00000803")));
}

TEST_P(IdxFileTest, WrongElementTypeNamesFoundAndExpectedMagic) {
  // A float32 image file (type byte 0x0D): valid IDX, not one dflow reads.
  const std::string path =
      Write("float", IdxBytes(0x00000D03, {1, 2, 2}, std::string(16, '\0')));
  absl::StatusOr<Tensor> t = ReadIdxFile(path);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(t.status()),
              AllOf(HasSubstr(path), HasSubstr("0x00000D03"),
                    HasSubstr("float32"), HasSubstr("0x00000801"),
                    HasSubstr("0x00000802"), HasSubstr("0x00000803")));
}

TEST_P(IdxFileTest, NonIdxFileIsRejectedByItsMagic) {
  // A zip file's signature where the magic number belongs.
  const std::string path = Write("zip", std::string("PK\x03\x04 more bytes"));
  absl::StatusOr<Tensor> t = ReadIdxFile(path);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(t.status()),
              AllOf(HasSubstr(path), HasSubstr("0x504B0304"),
                    HasSubstr("not an IDX header")));
}

TEST_P(IdxFileTest, DimensionCountOutOfRange) {
  for (uint32_t magic : {0x00000800u, 0x00000804u}) {
    const int rank = magic & 0xFF;
    const std::string path =
        Write(absl::StrCat("rank", rank),
              IdxBytes(magic, std::vector<uint32_t>(rank, 1), "x"));
    absl::StatusOr<Tensor> t = ReadIdxFile(path);
    ASSERT_FALSE(t.ok()) << path;
    EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(Message(t.status()),
                AllOf(HasSubstr(path),
                      HasSubstr(absl::StrCat(rank, " dimensions")),
                      HasSubstr("expected 0x00000801")));
  }
}

TEST_P(IdxFileTest, NegativeDimensionSize) {
  const std::string path =
      Write("negative", IdxBytes(0x00000803, {2, 0xFFFFFFFF, 3}, ""));
  absl::StatusOr<Tensor> t = ReadIdxFile(path);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(t.status()),
              AllOf(HasSubstr(path), HasSubstr("dimension 1 has size -1")));
}

TEST_P(IdxFileTest, FileShorterThanTheMagicNumber) {
  for (const std::string& bytes : {std::string(), std::string("\0\0", 2)}) {
    const std::string path = Write(absl::StrCat("short", bytes.size()), bytes);
    absl::StatusOr<Tensor> t = ReadIdxFile(path);
    ASSERT_FALSE(t.ok());
    EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(Message(t.status()),
                AllOf(HasSubstr(path),
                      HasSubstr(absl::StrCat("has ", bytes.size(), " bytes"))));
  }
}

TEST_P(IdxFileTest, HeaderCutShort) {
  // Three dimensions announced, two and a half written.
  std::string bytes = IdxBytes(0x00000803, {2, 3}, "");
  bytes += std::string(2, '\0');
  const std::string path = Write("header", bytes);
  absl::StatusOr<Tensor> t = ReadIdxFile(path);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(t.status()),
              AllOf(HasSubstr(path), HasSubstr("need 12 bytes, found 10")));
}

TEST_P(IdxFileTest, TruncatedPayloadNamesExpectedAndFoundBytes) {
  const std::string path = Write(
      "truncated", IdxBytes(0x00000803, {2, 3, 4}, Uint8Payload(20)));
  absl::StatusOr<Tensor> t = ReadIdxFile(path);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(t.status()),
              AllOf(HasSubstr(path), HasSubstr("truncated"),
                    HasSubstr("[2,3,4] needs 24 bytes"),
                    HasSubstr("found 20")));
}

TEST_P(IdxFileTest, TrailingBytesNameExpectedAndFoundBytes) {
  const std::string path =
      Write("trailing", IdxBytes(0x00000801, {24}, Uint8Payload(27)));
  absl::StatusOr<Tensor> t = ReadIdxFile(path);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(t.status()),
              AllOf(HasSubstr(path), HasSubstr("trailing bytes"),
                    HasSubstr("needs 24 bytes"), HasSubstr("found 27")));
}

// Trailing data far beyond the read buffer is still counted exactly.
TEST_P(IdxFileTest, ManyTrailingBytesAreCounted) {
  const std::string path = Write(
      "many_trailing", IdxBytes(0x00000801, {10}, Uint8Payload(10 + 3000000)));
  absl::StatusOr<Tensor> t = ReadIdxFile(path);
  ASSERT_FALSE(t.ok());
  EXPECT_THAT(Message(t.status()),
              AllOf(HasSubstr("needs 10 bytes"), HasSubstr("found 3000010")));
}

INSTANTIATE_TEST_SUITE_P(PlainAndGzipped, IdxFileTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? "Gzipped" : "Plain";
                         });

TEST(IdxFileErrorsTest, MissingFileIsNotFoundNamingThePath) {
  const std::string dir = MakeTempDir("missing");
  for (const std::string& path :
       {dir + "/train-images-idx3-ubyte", dir + "/no_such_dir/labels"}) {
    absl::StatusOr<Tensor> t = ReadIdxFile(path);
    ASSERT_FALSE(t.ok());
    EXPECT_EQ(t.status().code(), absl::StatusCode::kNotFound);
    EXPECT_THAT(Message(t.status()), HasSubstr(path));
  }
}

TEST(IdxFileErrorsTest, DirectoryIsRejected) {
  const std::string dir = MakeTempDir("a_directory");
  absl::StatusOr<Tensor> t = ReadIdxFile(dir);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(t.status()),
              AllOf(HasSubstr(dir), HasSubstr("is a directory")));
}

TEST(IdxFileErrorsTest, BadExpectedRank) {
  absl::StatusOr<Tensor> t = ReadIdxFile("whatever", 4);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(t.status()), HasSubstr("expected_rank 4"));
}

// A download cut off mid-stream: the gzip data just stops.
TEST(IdxFileErrorsTest, TruncatedGzipStreamIsReportedAsTruncated) {
  const std::string dir = MakeTempDir("cut_gzip");
  const std::string full = dir + "/full.gz";
  WriteFile(full, Uint8Idx({500, 28, 28}), /*gzip=*/true);
  const std::string compressed = ReadBytes(full);
  ASSERT_GT(compressed.size(), 100u);
  const std::string path = dir + "/cut.gz";
  WriteFile(path, compressed.substr(0, compressed.size() / 2));
  absl::StatusOr<Tensor> t = ReadIdxFile(path);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(t.status()),
              AllOf(HasSubstr(path), HasSubstr("truncated"),
                    HasSubstr("needs 392000 bytes"),
                    HasSubstr("(after decompression)")));
}

// A gzip header followed by bytes that are not deflate data.
TEST(IdxFileErrorsTest, CorruptGzipDataIsDataLoss) {
  const std::string dir = MakeTempDir("corrupt_gzip");
  const std::string full = dir + "/full.gz";
  WriteFile(full, Uint8Idx({50, 28, 28}), /*gzip=*/true);
  std::string compressed = ReadBytes(full);
  ASSERT_GT(compressed.size(), 30u);
  // Past the 10-byte gzip header: a block type of 3 is invalid deflate.
  for (size_t i = 10; i < compressed.size(); ++i) compressed[i] = '\xff';
  const std::string path = dir + "/corrupt.gz";
  WriteFile(path, compressed);
  absl::StatusOr<Tensor> t = ReadIdxFile(path);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), absl::StatusCode::kDataLoss) << t.status();
  EXPECT_THAT(Message(t.status()),
              AllOf(HasSubstr(path), HasSubstr("gzip")));
}

}  // namespace
}  // namespace dflow
