// The parsing and file ops on a graph TensorFlow 2.21 wrote, against
// TensorFlow's values (tools/tf_reference/make_parsing_more_reference.py):
// DecodeCSV (every dtype, defaults, na_value, TensorFlow's quoting rules,
// other delimiters, select_cols), SerializeTensor byte for byte for every
// dtype, ParseTensor of TensorFlow's bytes, DecodeCompressed,
// DecodePaddedRaw, DecodeJSONExample and ReadFile; TensorFlow's bad inputs
// give TensorFlow's error code and words. Then the file ops under
// TEST_TMPDIR (WriteFile, ReadFile, MatchingFiles) and a TF1 input
// pipeline: a text-line reader fed by a file-name queue into DecodeCSV.
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "graph/graph_def_file.h"
#include "graph/ops/ops.h"
#include "graph/scope.h"
#include "graph/tensor.h"
#include "gtest/gtest.h"
#include "runtime/session.h"

namespace dflow {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr char kDir[] = "tests/testdata/tf_parsing_more/";

std::string TempDir() {
  const char* dir = std::getenv("TEST_TMPDIR");
  return dir != nullptr ? dir : "/tmp";
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void WriteAll(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
}

std::unique_ptr<Session> TfGraphSession() {
  absl::StatusOr<GraphDef> def = ReadGraphDefFile(std::string(kDir) + "graph.pb");
  EXPECT_TRUE(def.ok()) << def.status();
  if (!def.ok()) return nullptr;
  absl::StatusOr<std::unique_ptr<Session>> s = Session::Create(*def);
  EXPECT_TRUE(s.ok()) << s.status();
  return s.ok() ? *std::move(s) : nullptr;
}

// Whether two tensors are the same: dtype, shape and every byte (strings
// element by element), so NaNs and -0 count too.
void ExpectSameTensor(const Tensor& got, const Tensor& want) {
  ASSERT_EQ(got.dtype(), want.dtype());
  ASSERT_EQ(got.shape(), want.shape());
  if (want.dtype() == DT_STRING) {
    for (int64_t i = 0; i < want.NumElements(); ++i) {
      EXPECT_EQ(got.data<std::string>()[i], want.data<std::string>()[i])
          << "element " << i;
    }
    return;
  }
  ASSERT_EQ(got.TotalBytes(), want.TotalBytes());
  if (want.TotalBytes() == 0) return;
  EXPECT_EQ(std::memcmp(got.raw_data(), want.raw_data(), want.TotalBytes()), 0)
      << "got " << got.DebugString(8) << " want " << want.DebugString(8);
}

TEST(ParsingMoreOpsTest, TensorFlowsGraphGivesTensorFlowsValues) {
  absl::StatusOr<GraphDef> expected =
      ReadGraphDefFile(std::string(kDir) + "expected.pb");
  ASSERT_TRUE(expected.ok()) << expected.status();
  ASSERT_GT(expected->node_size(), 100);
  const std::string read_path = TempDir() + "/read_file.bin";
  WriteAll(read_path, ReadAll(std::string(kDir) + "read_file.bin"));
  auto session = TfGraphSession();
  ASSERT_NE(session, nullptr);
  std::vector<std::string> fetches;
  std::vector<Tensor> wants;
  for (const NodeDef& node : expected->node()) {
    fetches.push_back(node.name());
    absl::StatusOr<Tensor> want =
        Tensor::FromProto(node.attr().at("value").tensor());
    ASSERT_TRUE(want.ok()) << node.name() << ": " << want.status();
    wants.push_back(*std::move(want));
  }
  std::vector<Tensor> got;
  absl::Status run = session->Run(
      {{"read_path", Tensor::Scalar<std::string>(read_path)}}, fetches, {},
      &got);
  ASSERT_TRUE(run.ok()) << run;
  ASSERT_EQ(got.size(), wants.size());
  for (size_t i = 0; i < got.size(); ++i) {
    SCOPED_TRACE(fetches[i]);
    ExpectSameTensor(got[i], wants[i]);
  }
}

TEST(ParsingMoreOpsTest, BadInputsGiveTensorFlowsErrors) {
  std::ifstream in(std::string(kDir) + "errors.txt");
  ASSERT_TRUE(in.good());
  auto session = TfGraphSession();
  ASSERT_NE(session, nullptr);
  std::string line;
  int checked = 0;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    std::vector<std::string> halves =
        absl::StrSplit(line, absl::MaxSplits(" | ", 1));
    ASSERT_EQ(halves.size(), 2u) << line;
    std::vector<std::string> head = absl::StrSplit(halves[0], ' ');
    ASSERT_EQ(head.size(), 3u) << line;
    int code = 0;
    ASSERT_TRUE(absl::SimpleAtoi(head[1], &code)) << line;
    SCOPED_TRACE(head[0]);
    std::vector<Tensor> out;
    const absl::Status s = session->Run({}, {head[0]}, {}, &out);
    EXPECT_EQ(static_cast<int>(s.code()), code) << head[2] << " vs " << s;
    EXPECT_THAT(std::string(s.message()), HasSubstr(halves[1]));
    ++checked;
  }
  EXPECT_GE(checked, 15);
}

// ---- The file ops, on files of TEST_TMPDIR.

std::unique_ptr<Session> SessionOf(const Scope& root) {
  GraphDef def;
  EXPECT_TRUE(root.ToGraphDef(&def).ok()) << root.status();
  auto s = Session::Create(def, SessionOptions());
  EXPECT_TRUE(s.ok()) << s.status();
  return s.ok() ? *std::move(s) : nullptr;
}

TEST(FileOpsTest, WriteFileCreatesDirectoriesAndReadFileReadsItBack) {
  Scope root = Scope::NewRootScope();
  Output name = ops::Placeholder(root.WithOpName("name"), DT_STRING);
  Output contents = ops::Placeholder(root.WithOpName("contents"), DT_STRING);
  ops::WriteFile(root.WithOpName("write"), name, contents);
  ops::ReadFile(root.WithOpName("read"), name);
  auto s = SessionOf(root);
  ASSERT_NE(s, nullptr);
  const std::string path = TempDir() + "/file_ops/new/dir/f.bin";
  const std::string bytes("a\0b\n\xff", 5);
  FeedList feeds = {{"name", Tensor::Scalar<std::string>(path)},
                    {"contents", Tensor::Scalar<std::string>(bytes)}};
  ASSERT_TRUE(s->Run(feeds, {}, {"write"}, nullptr).ok());
  EXPECT_EQ(ReadAll(path), bytes);
  // A second write replaces the file.
  feeds[1].second = Tensor::Scalar<std::string>("short");
  ASSERT_TRUE(s->Run(feeds, {}, {"write"}, nullptr).ok());
  std::vector<Tensor> out;
  ASSERT_TRUE(s->Run({feeds[0]}, {"read"}, {}, &out).ok());
  EXPECT_EQ(out[0].data<std::string>()[0], "short");
  // A missing file is NotFound, a directory FailedPrecondition, as in TF.
  const std::string missing = TempDir() + "/file_ops/no_such_file";
  absl::Status st = s->Run(
      {{"name", Tensor::Scalar<std::string>(missing)}}, {"read"}, {}, &out);
  EXPECT_EQ(st.code(), absl::StatusCode::kNotFound) << st;
  EXPECT_THAT(std::string(st.message()),
              HasSubstr(missing + "; No such file or directory"));
  st = s->Run({{"name", Tensor::Scalar<std::string>(TempDir())}}, {"read"}, {},
              &out);
  EXPECT_EQ(st.code(), absl::StatusCode::kFailedPrecondition) << st;
  EXPECT_THAT(std::string(st.message()), HasSubstr("Is a directory"));
  // A name that is not a scalar.
  st = s->Run({{"name", Tensor::FromVector<std::string>({"a", "b"})}},
              {"read"}, {}, &out);
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument) << st;
}

TEST(FileOpsTest, MatchingFilesGlobsLikeTensorFlowAndSorts) {
  const std::string dir = TempDir() + "/matching";
  ASSERT_EQ(std::system(("mkdir -p " + dir + "/d1 " + dir + "/.h").c_str()), 0);
  for (const char* f : {"/b.txt", "/a.txt", "/.hidden.txt", "/d1/c.txt",
                        "/.h/x.txt", "/a.csv"}) {
    WriteAll(dir + f, "x");
  }
  Scope root = Scope::NewRootScope();
  Output pattern = ops::Placeholder(root.WithOpName("pattern"), DT_STRING);
  ops::MatchingFiles(root.WithOpName("match"), pattern);
  auto s = SessionOf(root);
  ASSERT_NE(s, nullptr);
  auto match = [&](Tensor patterns) {
    std::vector<Tensor> out;
    absl::Status st = s->Run({{"pattern", std::move(patterns)}}, {"match"}, {},
                             &out);
    EXPECT_TRUE(st.ok()) << st;
    std::vector<std::string> names;
    if (!st.ok()) return names;
    for (int64_t i = 0; i < out[0].NumElements(); ++i) {
      names.push_back(out[0].data<std::string>()[i].substr(dir.size()));
    }
    return names;
  };
  auto one = [&](const std::string& p) {
    return match(Tensor::Scalar<std::string>(dir + p));
  };
  // What TensorFlow 2.21 gives for the same tree (hidden files match '*').
  EXPECT_THAT(one("/*.txt"), ElementsAre("/.hidden.txt", "/a.txt", "/b.txt"));
  EXPECT_THAT(one("/*"), ElementsAre("/.h", "/.hidden.txt", "/a.csv", "/a.txt",
                                     "/b.txt", "/d1"));
  EXPECT_THAT(one("/*/*.txt"), ElementsAre("/.h/x.txt", "/d1/c.txt"));
  EXPECT_THAT(one("/?.txt"), ElementsAre("/a.txt", "/b.txt"));
  EXPECT_THAT(one("/[ab].txt"), ElementsAre("/a.txt", "/b.txt"));
  EXPECT_THAT(one("/a.txt"), ElementsAre("/a.txt"));
  EXPECT_THAT(one("/zz*"), ElementsAre());
  EXPECT_THAT(one("/no_dir/*"), ElementsAre());
  // Several patterns: all matches sorted together.
  EXPECT_THAT(match(Tensor::FromVector<std::string>(
                  {dir + "/b.txt", dir + "/*.csv", dir + "/a.txt"})),
              ElementsAre("/a.csv", "/a.txt", "/b.txt"));
}

// A TF1 input pipeline: file names in a FIFO queue, a text-line reader
// skipping a header line, DecodeCSV of each line.
TEST(FileOpsTest, TextLineReaderFeedsDecodeCsv) {
  const std::string a = TempDir() + "/lines_a.csv";
  const std::string b = TempDir() + "/lines_b.csv";
  WriteAll(a, "x,y\n1,\"p,q\"\r\n2,\n");
  WriteAll(b, "x,y\n3,last");  // no final newline
  Scope root = Scope::NewRootScope();
  const std::vector<DataType> string_type = {DT_STRING};
  Output files = OpBuilder(root.WithOpName("files"), "FIFOQueueV2")
                     .Attr("component_types", string_type)
                     .Finalize()
                     .output(0);
  OpBuilder(root.WithOpName("add_files"), "QueueEnqueueManyV2")
      .Input(files)
      .InputList({ops::Const(root, Tensor::FromVector<std::string>({a, b}))})
      .Finalize();
  OpBuilder(root.WithOpName("close_files"), "QueueCloseV2")
      .Input(files)
      .Finalize();
  Output reader = OpBuilder(root.WithOpName("reader"), "TextLineReaderV2")
                      .Attr("skip_header_lines", int64_t{1})
                      .Finalize()
                      .output(0);
  Operation read = OpBuilder(root.WithOpName("read"), "ReaderReadV2")
                       .Input(reader)
                       .Input(files)
                       .Finalize();
  std::vector<Output> columns = ops::DecodeCSV(
      root.WithOpName("csv"), read.output(1),
      {ops::Const(root, Tensor::FromVector<int64_t>({-1})),
       ops::Const(root, Tensor::FromVector<std::string>({"none"}))});
  ASSERT_EQ(columns.size(), 2u);
  auto s = SessionOf(root);
  ASSERT_NE(s, nullptr);
  ASSERT_TRUE(s->Run({}, {}, {"add_files"}, nullptr).ok());
  ASSERT_TRUE(s->Run({}, {}, {"close_files"}, nullptr).ok());
  std::vector<std::string> keys, text;
  std::vector<int64_t> numbers;
  for (int i = 0; i < 3; ++i) {
    std::vector<Tensor> out;
    absl::Status st = s->Run({}, {"read:0", "csv:0", "csv:1"}, {}, &out);
    ASSERT_TRUE(st.ok()) << st;
    keys.push_back(out[0].data<std::string>()[0]);
    numbers.push_back(out[1].data<int64_t>()[0]);
    text.push_back(out[2].data<std::string>()[0]);
  }
  // Keys count lines from 1, the header included, as TensorFlow's do.
  EXPECT_THAT(keys, ElementsAre(a + ":2", a + ":3", b + ":2"));
  EXPECT_THAT(numbers, ElementsAre(1, 2, 3));
  EXPECT_THAT(text, ElementsAre("p,q", "none", "last"));
  std::vector<Tensor> out;
  EXPECT_EQ(s->Run({}, {"read:1"}, {}, &out).code(),
            absl::StatusCode::kOutOfRange);
}

}  // namespace
}  // namespace dflow
