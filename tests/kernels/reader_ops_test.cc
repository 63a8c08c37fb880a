// TFRecordReaderV2 + ReaderReadV2/ReaderReadUpToV2 through a session, fed
// file names by a FIFO queue as string_input_producer does: records in
// order across files with TensorFlow's keys, OutOfRange once the name
// queue is closed and drained, a partial last batch for UpTo, and the
// errors of a missing or corrupt file.
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "formats/tfrecord.h"
#include "gmock/gmock.h"
#include "graph/ops/ops.h"
#include "graph/scope.h"
#include "gtest/gtest.h"
#include "runtime/session.h"

namespace dflow {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string TempDir() {
  const char* dir = std::getenv("TEST_TMPDIR");
  return dir != nullptr ? dir : "/tmp";
}

void WriteRecords(const std::string& path, std::vector<std::string> records) {
  auto writer = TfRecordWriter::Open(path, {});
  ASSERT_TRUE(writer.ok()) << writer.status();
  for (const std::string& r : records) ASSERT_TRUE((*writer)->Write(r).ok());
  ASSERT_TRUE((*writer)->Close().ok());
}

// "files" (a FIFO queue of names, filled by "add_files" from "names" and
// closed by "close_files"), "reader", "read" and "read_up_to" (fed "n").
std::unique_ptr<Session> ReaderSession() {
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
  Output reader = OpBuilder(root.WithOpName("reader"), "TFRecordReaderV2")
                      .Finalize()
                      .output(0);
  OpBuilder(root.WithOpName("read"), "ReaderReadV2")
      .Input(reader)
      .Input(files)
      .Finalize();
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

absl::Status AddFiles(Session* s, std::vector<std::string> files) {
  const int64_t n = static_cast<int64_t>(files.size());
  return s->Run(
      {{"names", Tensor::FromVector<std::string>(files, TensorShape({n}))}}, {},
      {"add_files"}, nullptr);
}

TEST(ReaderTest, ReadsEveryRecordOfEveryFileInOrder) {
  const std::string a = TempDir() + "/reader_a.tfrecords";
  const std::string b = TempDir() + "/reader_b.tfrecords";
  WriteRecords(a, {"a0", "a1"});
  WriteRecords(b, {});  // an empty file is skipped
  const std::string c = TempDir() + "/reader_c.tfrecords";
  WriteRecords(c, {"c0"});
  auto s = ReaderSession();
  ASSERT_NE(s, nullptr);
  ASSERT_TRUE(AddFiles(s.get(), {a, b, c}).ok());
  ASSERT_TRUE(s->Run({}, {}, {"close_files"}, nullptr).ok());
  std::vector<std::string> keys, values;
  for (int i = 0; i < 3; ++i) {
    std::vector<Tensor> out;
    absl::Status st = s->Run({}, {"read:0", "read:1"}, {}, &out);
    ASSERT_TRUE(st.ok()) << st;
    keys.push_back(out[0].flat<std::string>()[0]);
    values.push_back(out[1].flat<std::string>()[0]);
  }
  EXPECT_THAT(values, ElementsAre("a0", "a1", "c0"));
  EXPECT_THAT(keys, ElementsAre(a + ":0", a + ":1", c + ":0"));
  // The epoch is over: the name queue is closed and empty.
  std::vector<Tensor> out;
  absl::Status end = s->Run({}, {"read:1"}, {}, &out);
  EXPECT_EQ(end.code(), absl::StatusCode::kOutOfRange) << end;
  EXPECT_THAT(end.message(), HasSubstr("FIFOQueue 'files' is closed"));
}

TEST(ReaderTest, ReadUpToReturnsAPartialLastBatch) {
  const std::string a = TempDir() + "/upto_a.tfrecords";
  WriteRecords(a, {"r0", "r1", "r2"});
  auto s = ReaderSession();
  ASSERT_NE(s, nullptr);
  ASSERT_TRUE(AddFiles(s.get(), {a, a}).ok());
  ASSERT_TRUE(s->Run({}, {}, {"close_files"}, nullptr).ok());
  std::vector<std::vector<std::string>> batches;
  for (int i = 0; i < 2; ++i) {
    std::vector<Tensor> out;
    absl::Status st =
        s->Run({{"n", Tensor::Scalar<int64_t>(4)}}, {"read_up_to:1"}, {}, &out);
    ASSERT_TRUE(st.ok()) << st;
    auto flat = out[0].flat<std::string>();
    batches.emplace_back(flat.begin(), flat.end());
  }
  EXPECT_THAT(batches[0], ElementsAre("r0", "r1", "r2", "r0"));
  EXPECT_THAT(batches[1], ElementsAre("r1", "r2"));
}

TEST(ReaderTest, MissingAndCorruptFilesAreNamed) {
  const std::string bad = TempDir() + "/corrupt.tfrecords";
  WriteRecords(bad, {"hello"});
  {
    std::fstream f(bad, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(13);  // inside the record's data
    f.put('X');
  }
  auto s = ReaderSession();
  ASSERT_NE(s, nullptr);
  const std::string missing = TempDir() + "/no_such.tfrecords";
  ASSERT_TRUE(AddFiles(s.get(), {missing, bad}).ok());
  std::vector<Tensor> out;
  absl::Status first = s->Run({}, {"read:1"}, {}, &out);
  ASSERT_FALSE(first.ok());
  EXPECT_THAT(first.message(), HasSubstr("TFRecordReader 'reader'"));
  EXPECT_THAT(first.message(), HasSubstr(missing));
  absl::Status second = s->Run({}, {"read:1"}, {}, &out);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.code(), absl::StatusCode::kDataLoss) << second;
  EXPECT_THAT(second.message(), HasSubstr(bad));
  EXPECT_THAT(second.message(), HasSubstr("offset 0"));
}

// A reader and a queue under one shared_name are two resources with one
// name: the second to run is refused, naming both.
TEST(ReaderTest, AResourceNameHoldsOneKindOfResource) {
  Scope root = Scope::NewRootScope();
  OpBuilder(root.WithOpName("queue"), "FIFOQueueV2")
      .Attr("component_types", std::vector<DataType>{DT_STRING})
      .Attr("shared_name", "shared")
      .Finalize();
  OpBuilder(root.WithOpName("reader"), "TFRecordReaderV2")
      .Attr("shared_name", "shared")
      .Finalize();
  GraphDef def;
  ASSERT_TRUE(root.ToGraphDef(&def).ok()) << root.status();
  auto s = Session::Create(def, SessionOptions());
  ASSERT_TRUE(s.ok()) << s.status();
  ASSERT_TRUE((*s)->Run({}, {}, {"queue"}, nullptr).ok());
  absl::Status clash = (*s)->Run({}, {}, {"reader"}, nullptr);
  ASSERT_FALSE(clash.ok());
  EXPECT_THAT(clash.message(),
              HasSubstr("resource 'shared' is FIFOQueue 'queue', not a "
                        "TFRecord reader"));
}

}  // namespace
}  // namespace dflow
