// FixedLengthRecordReaderV2 through a session, read as cifar10_input's
// read_cifar10 reads CIFAR-10's binary batches: file names from a queue,
// records of 1 label byte + 32*32*3 pixel bytes (channel-major), DecodeRaw
// to uint8, the label and the [3, 32, 32] -> [32, 32, 3] image sliced out.
// The files are made here in that format (CIFAR-10 cannot be downloaded).
// Also: TensorFlow's keys, OutOfRange at the end of the epoch, ReadUpTo,
// and the errors of bad attrs and a missing file.
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "graph/ops/ops.h"
#include "graph/scope.h"
#include "gtest/gtest.h"
#include "runtime/session.h"

namespace dflow {
namespace {

using ::testing::HasSubstr;

constexpr int kImageBytes = 32 * 32 * 3;
constexpr int kRecordBytes = 1 + kImageBytes;

std::string TempPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir != nullptr ? dir : "/tmp") + "/" + name;
}

// The pixel of image `image` at (channel, row, column), as stored.
uint8_t Pixel(int image, int c, int y, int x) {
  return static_cast<uint8_t>((image * 31 + c * 7 + y * 3 + x) % 256);
}

// A CIFAR-10 batch file of `n` records: labels first_label, +1, ... (mod
// 10), images from Pixel(first_image + i, ...).
void WriteCifarFile(const std::string& path, int n, int first_image) {
  std::string bytes;
  for (int i = 0; i < n; ++i) {
    bytes.push_back(static_cast<char>((first_image + i) % 10));
    for (int c = 0; c < 3; ++c) {
      for (int y = 0; y < 32; ++y) {
        for (int x = 0; x < 32; ++x) {
          bytes.push_back(static_cast<char>(Pixel(first_image + i, c, y, x)));
        }
      }
    }
  }
  std::ofstream(path, std::ios::binary) << bytes;
}

// "files" (queue filled by "add_files" from "names", closed by
// "close_files"), the reader "reader", and read_cifar10's outputs "key",
// "label" (int32 [1]) and "image" (float [32, 32, 3]); "read_up_to" reads
// "n" raw records.
std::unique_ptr<Session> CifarSession(int64_t record_bytes = kRecordBytes) {
  Scope root = Scope::NewRootScope();
  const std::vector<DataType> string_type = {DT_STRING};
  Output files = OpBuilder(root.WithOpName("files"), "FIFOQueueV2")
                     .Attr("component_types", string_type)
                     .Finalize()
                     .output(0);
  Output names = ops::Placeholder(root.WithOpName("names"), DT_STRING);
  OpBuilder(root.WithOpName("add_files"), "QueueEnqueueManyV2")
      .Input(files)
      .InputList({names})
      .Finalize();
  OpBuilder(root.WithOpName("close_files"), "QueueCloseV2")
      .Input(files)
      .Finalize();
  Output reader =
      OpBuilder(root.WithOpName("reader"), "FixedLengthRecordReaderV2")
          .Attr("record_bytes", record_bytes)
          .Finalize()
          .output(0);
  Operation read = OpBuilder(root.WithOpName("read"), "ReaderReadV2")
                       .Input(reader)
                       .Input(files)
                       .Finalize();
  ops::Identity(root.WithOpName("key"), read.output(0));
  Output bytes = ops::DecodeRaw(root, read.output(1), DT_UINT8);
  ops::Cast(root.WithOpName("label"),
            ops::StridedSlice(root, bytes, {0}, {1}, {1}), DT_INT32);
  Output major = ops::Reshape(
      root, ops::StridedSlice(root, bytes, {1}, {kRecordBytes}, {1}),
      {3, 32, 32});
  ops::Cast(root.WithOpName("image"), ops::Transpose(root, major, {1, 2, 0}),
            DT_FLOAT);
  Output n = ops::Placeholder(root.WithOpName("n"), DT_INT64);
  OpBuilder(root.WithOpName("read_up_to"), "ReaderReadUpToV2")
      .Input(reader)
      .Input(files)
      .Input(n)
      .Finalize();
  GraphDef def;
  EXPECT_TRUE(root.ToGraphDef(&def).ok()) << root.status();
  auto s = Session::Create(def, SessionOptions());
  EXPECT_TRUE(s.ok()) << s.status();
  return s.ok() ? *std::move(s) : nullptr;
}

absl::Status AddFiles(Session* s, const std::vector<std::string>& files) {
  const int64_t n = static_cast<int64_t>(files.size());
  return s->Run(
      {{"names", Tensor::FromVector<std::string>(files, TensorShape({n}))}}, {},
      {"add_files"}, nullptr);
}

TEST(CifarReaderTest, ReadsLabelsAndImagesOfEveryRecordInOrder) {
  const std::string a = TempPath("data_batch_1.bin");
  const std::string b = TempPath("data_batch_2.bin");
  WriteCifarFile(a, 3, 0);
  WriteCifarFile(b, 2, 3);
  auto s = CifarSession();
  ASSERT_NE(s, nullptr);
  ASSERT_TRUE(AddFiles(s.get(), {a, b}).ok());
  ASSERT_TRUE(s->Run({}, {}, {"close_files"}, nullptr).ok());
  for (int i = 0; i < 5; ++i) {
    SCOPED_TRACE(i);
    std::vector<Tensor> out;
    absl::Status st = s->Run({}, {"key", "label", "image"}, {}, &out);
    ASSERT_TRUE(st.ok()) << st;
    EXPECT_EQ(
        out[0].flat<std::string>()[0],
        i < 3 ? a + ":" + std::to_string(i) : b + ":" + std::to_string(i - 3));
    ASSERT_EQ(out[1].NumElements(), 1);
    EXPECT_EQ(out[1].data<int32_t>()[0], i % 10);
    ASSERT_EQ(out[2].shape(), TensorShape({32, 32, 3}));
    const float* image = out[2].data<float>();
    int wrong = 0;
    for (int y = 0; y < 32; ++y) {
      for (int x = 0; x < 32; ++x) {
        for (int c = 0; c < 3; ++c) {
          wrong += image[(y * 32 + x) * 3 + c] != Pixel(i, c, y, x);
        }
      }
    }
    EXPECT_EQ(wrong, 0);
  }
  std::vector<Tensor> out;
  absl::Status end = s->Run({}, {"label"}, {}, &out);
  EXPECT_EQ(end.code(), absl::StatusCode::kOutOfRange) << end;
}

TEST(CifarReaderTest, ReadUpToReturnsWholeRecordsAndAPartialLastBatch) {
  const std::string a = TempPath("upto_batch.bin");
  WriteCifarFile(a, 3, 0);
  auto s = CifarSession();
  ASSERT_NE(s, nullptr);
  ASSERT_TRUE(AddFiles(s.get(), {a}).ok());
  ASSERT_TRUE(s->Run({}, {}, {"close_files"}, nullptr).ok());
  std::vector<Tensor> out;
  absl::Status st =
      s->Run({{"n", Tensor::Scalar<int64_t>(2)}}, {"read_up_to:1"}, {}, &out);
  ASSERT_TRUE(st.ok()) << st;
  ASSERT_EQ(out[0].NumElements(), 2);
  EXPECT_EQ(out[0].flat<std::string>()[1].size(), size_t{kRecordBytes});
  EXPECT_EQ(out[0].flat<std::string>()[1][0], 1);  // the second label
  st = s->Run({{"n", Tensor::Scalar<int64_t>(2)}}, {"read_up_to:1"}, {}, &out);
  ASSERT_TRUE(st.ok()) << st;
  EXPECT_EQ(out[0].NumElements(), 1);
}

TEST(CifarReaderTest, MissingFileIsAnErrorNamingReaderAndFile) {
  auto s = CifarSession();
  ASSERT_NE(s, nullptr);
  const std::string missing = TempPath("no_such_batch.bin");
  ASSERT_TRUE(AddFiles(s.get(), {missing}).ok());
  std::vector<Tensor> out;
  absl::Status st = s->Run({}, {"label"}, {}, &out);
  EXPECT_EQ(st.code(), absl::StatusCode::kNotFound) << st;
  EXPECT_THAT(st.message(), HasSubstr("FixedLengthRecordReader 'reader'"));
  EXPECT_THAT(st.message(), HasSubstr(missing));
}

TEST(CifarReaderTest, NonPositiveRecordBytesIsAnErrorNamingTheNode) {
  auto s = CifarSession(/*record_bytes=*/0);
  ASSERT_NE(s, nullptr);
  std::vector<Tensor> out;
  absl::Status st = s->Run({}, {"label"}, {}, &out);
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument) << st;
  EXPECT_THAT(st.message(), HasSubstr("reader"));
  EXPECT_THAT(st.message(), HasSubstr("record_bytes must be positive"));
}

}  // namespace
}  // namespace dflow
