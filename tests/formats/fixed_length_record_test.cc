// FixedLengthRecordReader: the record layout of TensorFlow's
// FixedLengthRecordReader (header, record, footer, hop) on a 20-byte file
// 0, 1, ..., 19, with the records TensorFlow 2.21's reader returns for the
// same file and options (tools/tf_reference/check_fixed_length_reader.py
// prints them); GZIP and ZLIB files; option and file errors.
#include "formats/fixed_length_record.h"

#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "formats/zlib_stream.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace dflow {
namespace {

using ::testing::ElementsAreArray;
using ::testing::HasSubstr;

std::string TempPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir != nullptr ? dir : "/tmp") + "/" + name;
}

std::string Bytes0To19() {
  std::string bytes;
  for (int i = 0; i < 20; ++i) bytes.push_back(static_cast<char>(i));
  return bytes;
}

void WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out << bytes;
}

// Every record of `path`, each as its byte values.
std::vector<std::vector<int>> ReadAll(const std::string& path,
                                      const FixedLengthRecordOptions& o) {
  std::vector<std::vector<int>> records;
  auto reader = FixedLengthRecordReader::Open(path, o);
  EXPECT_TRUE(reader.ok()) << reader.status();
  if (!reader.ok()) return records;
  std::string record;
  while (true) {
    absl::StatusOr<bool> more = (*reader)->Next(&record);
    EXPECT_TRUE(more.ok()) << more.status();
    if (!more.ok() || !*more) break;
    records.emplace_back(record.begin(), record.end());
  }
  return records;
}

FixedLengthRecordOptions Options(int64_t header, int64_t record, int64_t footer,
                                 int64_t hop) {
  FixedLengthRecordOptions o;
  o.header_bytes = header;
  o.record_bytes = record;
  o.footer_bytes = footer;
  o.hop_bytes = hop;
  return o;
}

struct LayoutCase {
  FixedLengthRecordOptions options;
  std::vector<std::vector<int>> tensorflow_records;
};

class LayoutTest : public ::testing::TestWithParam<LayoutCase> {};

TEST_P(LayoutTest, GivesTensorFlowsRecords) {
  const std::string path = TempPath("layout.bin");
  WriteFile(path, Bytes0To19());
  EXPECT_THAT(ReadAll(path, GetParam().options),
              ElementsAreArray(GetParam().tensorflow_records));
}

INSTANTIATE_TEST_SUITE_P(
    TensorFlow, LayoutTest,
    ::testing::Values(
        // A trailing 2 bytes too short for a record are no record.
        LayoutCase{Options(0, 3, 0, 0),
                   {{0, 1, 2},
                    {3, 4, 5},
                    {6, 7, 8},
                    {9, 10, 11},
                    {12, 13, 14},
                    {15, 16, 17}}},
        LayoutCase{
            Options(2, 3, 1, 0),
            {{2, 3, 4}, {5, 6, 7}, {8, 9, 10}, {11, 12, 13}, {14, 15, 16}}},
        // Overlapping records, the last ending right before the footer.
        LayoutCase{Options(2, 3, 1, 2),
                   {{2, 3, 4},
                    {4, 5, 6},
                    {6, 7, 8},
                    {8, 9, 10},
                    {10, 11, 12},
                    {12, 13, 14},
                    {14, 15, 16},
                    {16, 17, 18}}},
        // Hops longer than a record skip bytes between records.
        LayoutCase{Options(2, 3, 0, 5),
                   {{2, 3, 4}, {7, 8, 9}, {12, 13, 14}, {17, 18, 19}}},
        LayoutCase{
            Options(1, 4, 3, 0),
            {{1, 2, 3, 4}, {5, 6, 7, 8}, {9, 10, 11, 12}, {13, 14, 15, 16}}}));

TEST(FixedLengthRecordTest, ReadsCompressedFiles) {
  for (ZlibWrapper wrapper : {ZlibWrapper::kGzip, ZlibWrapper::kZlib}) {
    SCOPED_TRACE(std::string(ZlibWrapperName(wrapper)));
    auto z = ZlibCompressor::Create(wrapper, -1);
    ASSERT_TRUE(z.ok()) << z.status();
    std::string packed;
    ASSERT_TRUE((*z)->Compress(Bytes0To19(), &packed).ok());
    ASSERT_TRUE((*z)->Finish(&packed).ok());
    const std::string path = TempPath("compressed.bin");
    WriteFile(path, packed);
    FixedLengthRecordOptions o = Options(2, 3, 1, 0);
    o.encoding = std::string(ZlibWrapperName(wrapper));
    EXPECT_THAT(
        ReadAll(path, o),
        ElementsAreArray(std::vector<std::vector<int>>{
            {2, 3, 4}, {5, 6, 7}, {8, 9, 10}, {11, 12, 13}, {14, 15, 16}}));
  }
}

TEST(FixedLengthRecordTest, CutGzipFileIsDataLoss) {
  auto z = ZlibCompressor::Create(ZlibWrapper::kGzip, -1);
  ASSERT_TRUE(z.ok());
  std::string packed;
  ASSERT_TRUE((*z)->Compress(std::string(5000, 'x'), &packed).ok());
  ASSERT_TRUE((*z)->Finish(&packed).ok());
  const std::string path = TempPath("cut.gz");
  WriteFile(path, packed.substr(0, packed.size() - 6));
  FixedLengthRecordOptions o = Options(0, 100, 0, 0);
  o.encoding = "GZIP";
  auto reader = FixedLengthRecordReader::Open(path, o);
  ASSERT_TRUE(reader.ok());
  std::string record;
  absl::StatusOr<bool> more = true;
  while (more.ok() && *more) more = (*reader)->Next(&record);
  EXPECT_EQ(more.status().code(), absl::StatusCode::kDataLoss) << more.status();
  EXPECT_THAT(more.status().message(), HasSubstr(path));
}

TEST(FixedLengthRecordTest, BadOptionsAndMissingFilesAreErrors) {
  EXPECT_THAT(ValidateFixedLengthRecordOptions(Options(0, 0, 0, 0)).message(),
              HasSubstr("record_bytes must be positive"));
  EXPECT_EQ(ValidateFixedLengthRecordOptions(Options(-1, 3, 0, 0)).code(),
            absl::StatusCode::kInvalidArgument);
  FixedLengthRecordOptions o = Options(0, 3, 0, 0);
  o.encoding = "BZIP2";
  EXPECT_THAT(ValidateFixedLengthRecordOptions(o).message(),
              HasSubstr("unknown encoding 'BZIP2'"));
  auto missing = FixedLengthRecordReader::Open(TempPath("missing.bin"),
                                               Options(0, 3, 0, 0));
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
}

TEST(FixedLengthRecordTest, ReadsRecordsLongerThanItsReadBuffer) {
  // Records of 300,001 bytes cross the reader's 256 KiB reads.
  std::string bytes;
  for (int i = 0; i < 3 * 300001 + 7; ++i) {
    bytes.push_back(static_cast<char>(i % 251));
  }
  const std::string path = TempPath("long.bin");
  WriteFile(path, bytes);
  auto reader = FixedLengthRecordReader::Open(path, Options(7, 300001, 0, 0));
  ASSERT_TRUE(reader.ok());
  std::string record;
  for (int k = 0; k < 3; ++k) {
    absl::StatusOr<bool> more = (*reader)->Next(&record);
    ASSERT_TRUE(more.ok() && *more) << k;
    EXPECT_EQ(record, bytes.substr(7 + k * 300001, 300001)) << k;
  }
  absl::StatusOr<bool> more = (*reader)->Next(&record);
  ASSERT_TRUE(more.ok());
  EXPECT_FALSE(*more);
}

}  // namespace
}  // namespace dflow
