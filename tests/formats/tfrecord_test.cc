#include "formats/tfrecord.h"

#include <stdlib.h>

#include <cstdint>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace dflow {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string NewTempDir() {
  const char* base = std::getenv("TEST_TMPDIR");
  std::string pattern =
      absl::StrCat(base != nullptr ? base : "/tmp", "/tfrecord_XXXXXX");
  EXPECT_NE(mkdtemp(pattern.data()), nullptr);
  return pattern;
}

std::string ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void WriteBytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

TfRecordOptions Options(const std::string& compression_type,
                        size_t buffer_bytes = 256 << 10) {
  TfRecordOptions options;
  options.compression_type = compression_type;
  options.buffer_bytes = buffer_bytes;
  return options;
}

void WriteRecords(const std::string& path, const TfRecordOptions& options,
                  const std::vector<std::string>& records) {
  auto writer = TfRecordWriter::Open(path, options);
  ASSERT_TRUE(writer.ok()) << writer.status();
  for (const std::string& record : records) {
    ASSERT_TRUE((*writer)->Write(record).ok());
  }
  ASSERT_TRUE((*writer)->Close().ok());
}

// Bytes that are not all alike, so a misplaced byte shows.
std::string Pattern(size_t n, int seed) {
  std::string s(n, '\0');
  uint32_t x = 2463534242u + seed;
  for (size_t i = 0; i < n; ++i) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    s[i] = static_cast<char>(x);
  }
  return s;
}

// The file of the single record "abc" as TensorFlow writes it (checked
// against tf.io.TFRecordWriter's output): length 3, its masked CRC32C,
// the data, the data's masked CRC32C.
// clang-format off
const char kAbcFile[] = {
    0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  // uint64 length
    '\xb0', '\x99', 0x49, 0x0e,                      // masked crc(length)
    'a',  'b',  'c',                                 // data
    0x6e, 0x57, '\xf1', 0x21,                        // masked crc(data)
};
// clang-format on
std::string AbcFile() { return std::string(kAbcFile, sizeof(kAbcFile)); }

TEST(TfRecordTest, WritesTensorFlowsBytes) {
  const std::string path = NewTempDir() + "/abc.tfrecord";
  WriteRecords(path, Options(""), {"abc"});
  EXPECT_EQ(ReadBytes(path), AbcFile());
}

TEST(TfRecordTest, ReadsHandWrittenBytes) {
  const std::string path = NewTempDir() + "/abc.tfrecord";
  WriteBytes(path, AbcFile());
  auto reader = TfRecordReader::Open(path, {});
  ASSERT_TRUE(reader.ok()) << reader.status();
  EXPECT_EQ((*reader)->offset(), 0);
  std::string record;
  absl::StatusOr<bool> more = (*reader)->Next(&record);
  ASSERT_TRUE(more.ok()) << more.status();
  EXPECT_TRUE(*more);
  EXPECT_EQ(record, "abc");
  EXPECT_EQ((*reader)->offset(), 19);
  more = (*reader)->Next(&record);
  ASSERT_TRUE(more.ok()) << more.status();
  EXPECT_FALSE(*more);
  // The end stays the end.
  more = (*reader)->Next(&record);
  ASSERT_TRUE(more.ok());
  EXPECT_FALSE(*more);
}

class TfRecordCompressionTest : public ::testing::TestWithParam<std::string> {};

TEST_P(TfRecordCompressionTest, RoundTripsEmptySmallAndLargeRecords) {
  const std::string path = NewTempDir() + "/r.tfrecord";
  const std::vector<std::string> records = {"",
                                            "a",
                                            "abc",
                                            std::string("\0\xff\0", 3),
                                            Pattern(1 << 20, 1),
                                            "",
                                            Pattern(1000, 2)};
  WriteRecords(path, Options(GetParam()), records);

  auto reader = TfRecordReader::Open(path, Options(GetParam()));
  ASSERT_TRUE(reader.ok()) << reader.status();
  int64_t offset = 0;
  std::string record;
  for (const std::string& expected : records) {
    absl::StatusOr<bool> more = (*reader)->Next(&record);
    ASSERT_TRUE(more.ok()) << more.status();
    ASSERT_TRUE(*more);
    EXPECT_EQ(record, expected);
    offset += 16 + expected.size();
    EXPECT_EQ((*reader)->offset(), offset);
  }
  absl::StatusOr<bool> more = (*reader)->Next(&record);
  ASSERT_TRUE(more.ok()) << more.status();
  EXPECT_FALSE(*more);

  auto all = ReadAllTfRecords(path, Options(GetParam()));
  ASSERT_TRUE(all.ok()) << all.status();
  EXPECT_EQ(*all, records);
}

TEST_P(TfRecordCompressionTest, EmptyFileHasNoRecords) {
  const std::string path = NewTempDir() + "/empty.tfrecord";
  WriteRecords(path, Options(GetParam()), {});
  auto all = ReadAllTfRecords(path, Options(GetParam()));
  ASSERT_TRUE(all.ok()) << all.status();
  EXPECT_TRUE(all->empty());
  // A zero-byte file too, whatever the compression.
  WriteBytes(path, "");
  all = ReadAllTfRecords(path, Options(GetParam()));
  ASSERT_TRUE(all.ok()) << all.status();
  EXPECT_TRUE(all->empty());
}

TEST_P(TfRecordCompressionTest, ManyRecordsAcrossBufferBoundaries) {
  const std::string path = NewTempDir() + "/many.tfrecord";
  std::vector<std::string> records;
  std::mt19937 rng(7);
  for (int i = 0; i < 50000; ++i) {
    // Mostly small, some larger than the reader's 4 KiB buffer.
    const size_t size = i % 997 == 0 ? 3000 + rng() % 20000 : rng() % 300;
    records.push_back(Pattern(size, i));
  }
  // Small buffers on both sides put record boundaries everywhere in them.
  WriteRecords(path, Options(GetParam(), 4096), records);
  auto all = ReadAllTfRecords(path, Options(GetParam(), 4096));
  ASSERT_TRUE(all.ok()) << all.status();
  ASSERT_EQ(all->size(), records.size());
  for (size_t i = 0; i < records.size(); ++i) {
    ASSERT_EQ((*all)[i], records[i]) << i;
  }
  all = ReadAllTfRecords(path, Options(GetParam()));
  ASSERT_TRUE(all.ok()) << all.status();
  EXPECT_EQ(*all, records);
}

TEST_P(TfRecordCompressionTest, FlushMakesRecordsReadableBeforeClose) {
  const std::string path = NewTempDir() + "/flushed.tfrecord";
  auto writer = TfRecordWriter::Open(path, Options(GetParam()));
  ASSERT_TRUE(writer.ok()) << writer.status();
  ASSERT_TRUE((*writer)->Write("one").ok());
  ASSERT_TRUE((*writer)->Write("two").ok());
  ASSERT_TRUE((*writer)->Flush().ok());

  auto reader = TfRecordReader::Open(path, Options(GetParam()));
  ASSERT_TRUE(reader.ok()) << reader.status();
  std::string record;
  for (const char* expected : {"one", "two"}) {
    absl::StatusOr<bool> more = (*reader)->Next(&record);
    ASSERT_TRUE(more.ok()) << more.status();
    ASSERT_TRUE(*more);
    EXPECT_EQ(record, expected);
  }
  absl::StatusOr<bool> more = (*reader)->Next(&record);
  if (GetParam().empty()) {
    ASSERT_TRUE(more.ok()) << more.status();
    EXPECT_FALSE(*more);
  } else {
    // A compressed stream without its trailer is not a complete file.
    ASSERT_FALSE(more.ok());
    EXPECT_EQ(more.status().code(), absl::StatusCode::kDataLoss);
    EXPECT_THAT(more.status().message(),
                HasSubstr("truncated record at offset 38"));
  }

  ASSERT_TRUE((*writer)->Write("three").ok());
  ASSERT_TRUE((*writer)->Close().ok());
  auto all = ReadAllTfRecords(path, Options(GetParam()));
  ASSERT_TRUE(all.ok()) << all.status();
  EXPECT_THAT(*all, ElementsAre("one", "two", "three"));
}

TEST_P(TfRecordCompressionTest, WriterRefusesWritesAfterClose) {
  const std::string path = NewTempDir() + "/closed.tfrecord";
  auto writer = TfRecordWriter::Open(path, Options(GetParam()));
  ASSERT_TRUE(writer.ok());
  ASSERT_TRUE((*writer)->Close().ok());
  EXPECT_TRUE((*writer)->Close().ok());
  EXPECT_EQ((*writer)->Write("x").code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ((*writer)->Flush().code(), absl::StatusCode::kFailedPrecondition);
}

TEST_P(TfRecordCompressionTest, RandomCorruptionIsAnErrorNeverACrash) {
  const std::string dir = NewTempDir();
  const std::string path = dir + "/good.tfrecord";
  std::vector<std::string> records;
  for (int i = 0; i < 200; ++i) records.push_back(Pattern(i * 7 % 500, i));
  WriteRecords(path, Options(GetParam()), records);
  const std::string good = ReadBytes(path);
  std::mt19937 rng(11);
  for (int trial = 0; trial < 300; ++trial) {
    std::string bad = good;
    const size_t at = rng() % bad.size();
    bad[at] = static_cast<char>(bad[at] ^ (1 + rng() % 255));
    // Some trials also cut the file short.
    if (trial % 3 == 0) bad.resize(rng() % bad.size());
    const std::string bad_path = dir + "/bad.tfrecord";
    WriteBytes(bad_path, bad);
    auto all = ReadAllTfRecords(bad_path, Options(GetParam(), 4096));
    if (all.ok()) {
      // A file cut at a record boundary (or, compressed, to nothing) reads
      // as fewer records; bytes that no checksum covers (the gzip header's
      // time and OS fields) may change unnoticed. Nothing else passes.
      ASSERT_LE(all->size(), records.size());
      EXPECT_EQ(*all, std::vector<std::string>(records.begin(),
                                               records.begin() + all->size()))
          << "flip at " << at;
      if (bad.size() == good.size()) {
        EXPECT_FALSE(GetParam().empty()) << "flip at " << at;
        EXPECT_EQ(all->size(), records.size());
      }
    } else {
      EXPECT_EQ(all.status().code(), absl::StatusCode::kDataLoss)
          << all.status();
      EXPECT_THAT(all.status().message(), HasSubstr(bad_path));
      EXPECT_THAT(all.status().message(), HasSubstr("at offset "));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Compressions, TfRecordCompressionTest,
                         ::testing::Values("", "GZIP", "ZLIB"),
                         [](const ::testing::TestParamInfo<std::string>& p) {
                           return p.param.empty() ? std::string("NONE")
                                                  : p.param;
                         });

// --- Bad input

// Two records: "abc" at offset 0 (19 bytes), "defgh" at offset 19 (21).
std::string TwoRecordFile(const std::string& dir) {
  const std::string path = dir + "/two.tfrecord";
  WriteRecords(path, Options(""), {"abc", "defgh"});
  return path;
}

absl::Status ReadAllStatus(const std::string& path,
                           const TfRecordOptions& options = {}) {
  return ReadAllTfRecords(path, options).status();
}

TEST(TfRecordBadInputTest, BadLengthCrc) {
  const std::string path = TwoRecordFile(NewTempDir());
  std::string bytes = ReadBytes(path);
  bytes[19 + 9] ^= 0x40;  // the second record's length CRC
  WriteBytes(path, bytes);
  const absl::Status status = ReadAllStatus(path);
  EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(status.message(), HasSubstr(path));
  EXPECT_THAT(status.message(), HasSubstr("corrupt record at offset 19"));
  EXPECT_THAT(status.message(), HasSubstr("CRC of its length"));
}

TEST(TfRecordBadInputTest, BadLengthWithoutItsCrc) {
  const std::string path = TwoRecordFile(NewTempDir());
  std::string bytes = ReadBytes(path);
  bytes[19 + 6] = '\x7f';  // a huge length: the CRC must stop it
  WriteBytes(path, bytes);
  const absl::Status status = ReadAllStatus(path);
  EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(status.message(), HasSubstr("corrupt record at offset 19"));
}

TEST(TfRecordBadInputTest, BadDataCrc) {
  const std::string path = TwoRecordFile(NewTempDir());
  std::string bytes = ReadBytes(path);
  bytes[19 + 12 + 2] = 'X';  // "deXgh"
  WriteBytes(path, bytes);

  auto reader = TfRecordReader::Open(path, {});
  ASSERT_TRUE(reader.ok());
  std::string record;
  absl::StatusOr<bool> more = (*reader)->Next(&record);
  ASSERT_TRUE(more.ok() && *more);
  EXPECT_EQ(record, "abc");
  more = (*reader)->Next(&record);
  ASSERT_FALSE(more.ok());
  EXPECT_EQ(more.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(more.status().message(), HasSubstr(path));
  EXPECT_THAT(more.status().message(),
              HasSubstr("corrupt record at offset 19"));
  EXPECT_THAT(more.status().message(), HasSubstr("CRC of its 5 data bytes"));
  EXPECT_EQ((*reader)->offset(), 19);
  // The error sticks.
  absl::StatusOr<bool> again = (*reader)->Next(&record);
  EXPECT_EQ(again.status(), more.status());
}

TEST(TfRecordBadInputTest, TruncatedInEveryPlace) {
  const std::string dir = NewTempDir();
  const std::string good = ReadBytes(TwoRecordFile(dir));
  ASSERT_EQ(good.size(), 40u);
  const std::string path = dir + "/cut.tfrecord";
  // Cut in the header (19 + 1..11), the data (+12..16), the CRC (+17..20).
  for (size_t size = 20; size < 40; ++size) {
    WriteBytes(path, good.substr(0, size));
    auto reader = TfRecordReader::Open(path, {});
    ASSERT_TRUE(reader.ok());
    std::string record;
    absl::StatusOr<bool> more = (*reader)->Next(&record);
    ASSERT_TRUE(more.ok() && *more) << size;
    more = (*reader)->Next(&record);
    ASSERT_FALSE(more.ok()) << size;
    EXPECT_EQ(more.status().code(), absl::StatusCode::kDataLoss);
    EXPECT_THAT(more.status().message(), HasSubstr(path));
    EXPECT_THAT(more.status().message(),
                HasSubstr("truncated record at offset 19"))
        << more.status();
  }
}

TEST(TfRecordBadInputTest, TruncatedLargeRecord) {
  // A record larger than the reader's buffer, read straight into the
  // caller's string, then cut.
  const std::string dir = NewTempDir();
  const std::string path = dir + "/large.tfrecord";
  WriteRecords(path, Options(""), {"x", Pattern(300000, 3)});
  const std::string good = ReadBytes(path);
  WriteBytes(path, good.substr(0, 17 + 12 + 123456));
  const absl::Status status = ReadAllStatus(path, Options("", 4096));
  EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(status.message(),
              HasSubstr("truncated record at offset 17: the file ends after "
                        "123456 of its 300000 data bytes"));
}

TEST(TfRecordBadInputTest, NotAGzipStream) {
  const std::string path = TwoRecordFile(NewTempDir());
  const absl::Status status = ReadAllStatus(path, Options("GZIP"));
  EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(status.message(), HasSubstr(path));
  EXPECT_THAT(status.message(),
              HasSubstr("corrupt GZIP stream in the record at offset 0"));
}

TEST(TfRecordBadInputTest, CorruptGzipStream) {
  const std::string dir = NewTempDir();
  const std::string path = dir + "/c.tfrecord.gz";
  std::vector<std::string> records;
  for (int i = 0; i < 1000; ++i) records.push_back(Pattern(100, i));
  WriteRecords(path, Options("GZIP"), records);
  std::string bytes = ReadBytes(path);
  // Damage the deflate data in the middle.
  for (size_t i = bytes.size() / 2; i < bytes.size() / 2 + 16; ++i) {
    bytes[i] = static_cast<char>(~bytes[i]);
  }
  WriteBytes(path, bytes);
  const absl::Status status = ReadAllStatus(path, Options("GZIP"));
  EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(status.message(), HasSubstr(path));
  EXPECT_THAT(status.message(), HasSubstr("at offset "));
}

TEST(TfRecordBadInputTest, TruncatedGzipStream) {
  const std::string dir = NewTempDir();
  const std::string path = dir + "/t.tfrecord.gz";
  WriteRecords(path, Options("GZIP"), {"abc", "defgh"});
  const std::string bytes = ReadBytes(path);
  // Without the 8-byte trailer every record decodes, but the end is
  // missing; cut shorter, the records are.
  for (size_t cut : {size_t{4}, size_t{8}, size_t{12}, bytes.size() - 10}) {
    WriteBytes(path, bytes.substr(0, bytes.size() - cut));
    const absl::Status status = ReadAllStatus(path, Options("GZIP"));
    EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss) << cut;
    EXPECT_THAT(status.message(), HasSubstr("truncated record at offset "))
        << status;
  }
}

TEST(TfRecordBadInputTest, ConcatenatedGzipFilesReadAsOne) {
  const std::string dir = NewTempDir();
  WriteRecords(dir + "/a.gz", Options("GZIP"), {"a1", "a2"});
  WriteRecords(dir + "/b.gz", Options("GZIP"), {"b1"});
  WriteBytes(dir + "/ab.gz",
             ReadBytes(dir + "/a.gz") + ReadBytes(dir + "/b.gz"));
  auto all = ReadAllTfRecords(dir + "/ab.gz", Options("GZIP"));
  ASSERT_TRUE(all.ok()) << all.status();
  EXPECT_THAT(*all, ElementsAre("a1", "a2", "b1"));
}

TEST(TfRecordBadInputTest, MissingFile) {
  const std::string path = NewTempDir() + "/absent.tfrecord";
  auto reader = TfRecordReader::Open(path, {});
  ASSERT_FALSE(reader.ok());
  EXPECT_EQ(reader.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(reader.status().message(), HasSubstr(path));
  EXPECT_EQ(ReadAllStatus(path).code(), absl::StatusCode::kNotFound);
}

TEST(TfRecordBadInputTest, UnknownCompressionType) {
  const std::string path = TwoRecordFile(NewTempDir());
  auto reader = TfRecordReader::Open(path, Options("gzip"));
  ASSERT_FALSE(reader.ok());
  EXPECT_EQ(reader.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(reader.status().message(), HasSubstr("'gzip'"));
  auto writer = TfRecordWriter::Open(path + ".2", Options("SNAPPY"));
  EXPECT_EQ(writer.status().code(), absl::StatusCode::kInvalidArgument);
  TfRecordOptions bad_level = Options("ZLIB");
  bad_level.compression_level = 12;
  writer = TfRecordWriter::Open(path + ".3", bad_level);
  EXPECT_EQ(writer.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(TfRecordBadInputTest, UnwritableDirectory) {
  auto writer = TfRecordWriter::Open(NewTempDir() + "/no/such/dir/f", {});
  ASSERT_FALSE(writer.ok());
  EXPECT_THAT(writer.status().message(), HasSubstr("no/such/dir/f"));
}

}  // namespace
}  // namespace dflow
