// The image, audio, text and tensor summaries and TF2's summary-writer ops
// against TensorFlow (tools/tf_reference/make_summary_more_reference.py):
//  - TF1's ops on a TF-written graph give TensorFlow's serialized Summary
//    bytes; where a PNG's bytes differ (zlib builds may compress the same
//    pixels differently), the decoded pixels and every other field must
//    match;
//  - TF2's writer graph (tf.summary.* under writer.as_default) run by dflow
//    writes an event file in which TensorBoard's own reader
//    (tools/tf_reference/dump_summary_events.py; skipped without
//    TensorBoard) sees what it sees in TensorFlow's: tags, steps, values,
//    decoded images;
//  - bad inputs (image ranks and channels, max_outputs, writers never
//    opened or closed, a log directory that cannot be made) are errors
//    that say what is wrong.
#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "graph/graph_def_file.h"
#include "graph/ops/ops.h"
#include "graph/scope.h"
#include "gtest/gtest.h"
#include "kernels/cpu/image_ops_codec_io.h"
#include "proto/summary.pb.h"
#include "runtime/session.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/kernels/tf_value_cases.h"

namespace dflow {
namespace {

using ::testing::HasSubstr;
namespace tv = testing_tf_values;

constexpr char kDir[] = "tests/testdata/tf_summary_more/";

// The pixels of a PNG (8-bit, its own channels).
std::vector<uint8_t> PngPixels(const std::string& png) {
  std::vector<uint8_t> pixels;
  std::string error;
  const bool ok = codec_io::PngDecode(
      png, 0, 8,
      [&](int frames, int h, int w, int c) {
        pixels.resize(static_cast<size_t>(frames) * h * w * c);
        return pixels.data();
      },
      &error);
  EXPECT_TRUE(ok) << error;
  return pixels;
}

// Expects two serialized Summaries to be equal: their bytes, or, when
// only PNG bytes differ, their decoded pixels and all else. Returns
// whether the bytes were equal.
bool ExpectSameSummary(const std::string& name, const std::string& got,
                       const std::string& want) {
  if (got == want) return true;
  Summary g, w;
  EXPECT_TRUE(g.ParseFromString(got)) << name;
  EXPECT_TRUE(w.ParseFromString(want)) << name;
  EXPECT_EQ(g.value_size(), w.value_size()) << name;
  for (int i = 0; i < std::min(g.value_size(), w.value_size()); ++i) {
    Summary::Value* gv = g.mutable_value(i);
    Summary::Value* wv = w.mutable_value(i);
    if (gv->has_image() && wv->has_image()) {
      EXPECT_EQ(PngPixels(gv->image().encoded_image_string()),
                PngPixels(wv->image().encoded_image_string()))
          << name << " value " << i << " (" << wv->tag() << ")";
      gv->mutable_image()->clear_encoded_image_string();
      wv->mutable_image()->clear_encoded_image_string();
    }
  }
  EXPECT_EQ(g.SerializeAsString(), w.SerializeAsString())
      << name << ": beyond the PNG bytes\n got: " << g.DebugString()
      << "\nwant: " << w.DebugString();
  return false;
}

TEST(SummaryMoreOpsTest, Tf1SummariesAreTensorFlows) {
  std::vector<tv::Line> lines = tv::ReadLines(std::string(kDir) + "cases.txt");
  std::vector<tv::StringFetch> want =
      tv::ReadStringFetches(std::string(kDir) + "strings.txt");
  ASSERT_GE(want.size(), 10u);
  for (const tv::StringFetch& f : want) {
    lines.push_back(tv::Line{"fetch", f.line.name, "string", {}, {}});
  }
  std::vector<const tv::Line*> fetched;
  std::vector<Tensor> outputs;
  tv::RunGraph(kDir, lines, &fetched, &outputs);
  ASSERT_EQ(outputs.size(), want.size());
  int identical = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    ASSERT_EQ(want[i].values.size(), 1u) << want[i].line.name;
    identical += ExpectSameSummary(want[i].line.name,
                                   *outputs[i].data<std::string>(),
                                   want[i].values[0]);
  }
  // The summaries without images are TensorFlow's bytes exactly.
  EXPECT_GE(identical, 6) << "of " << want.size();
}

Tensor Clip(int frames) {
  Tensor t(DT_FLOAT, TensorShape({2, frames}));
  for (int i = 0; i < 2 * frames; ++i) {
    t.data<float>()[i] = 0.05f * static_cast<float>(i % 31) - 0.7f;
  }
  return t;
}

TEST(SummaryMoreOpsTest, AudioSummaryIsV2WithAnAttrRate) {
  // TensorFlow no longer builds AudioSummary (deprecated at GraphDef 15):
  // it must be AudioSummaryV2 with the rate given as an input.
  Scope root = Scope::NewRootScope();
  Output clip = ops::Placeholder(root, DT_FLOAT);
  Output v1 = ops::AudioSummary(root, Tensor::Scalar("a"), clip, 16000.4f, 2);
  Output v2 = ops::AudioSummaryV2(root, Tensor::Scalar("a"), clip,
                                  Tensor::Scalar(16000.4f), 2);
  auto out1 = RunKernel(v1.node(), {Tensor::Scalar("a"), Clip(9)});
  auto out2 = RunKernel(v2.node(), {Tensor::Scalar("a"), Clip(9),
                                    Tensor::Scalar(16000.4f)});
  ASSERT_TRUE(out1.ok()) << out1.status();
  ASSERT_TRUE(out2.ok()) << out2.status();
  EXPECT_EQ(*(*out1)[0].data<std::string>(), *(*out2)[0].data<std::string>());
  Summary s;
  ASSERT_TRUE(s.ParseFromString(*(*out1)[0].data<std::string>()));
  ASSERT_EQ(s.value_size(), 2);
  EXPECT_EQ(s.value(1).tag(), "a/audio/1");
  EXPECT_EQ(s.value(1).audio().length_frames(), 9);
  // 44-byte header + 9 frames of 16 bits.
  EXPECT_EQ(s.value(1).audio().encoded_audio_string().size(), 44u + 18u);
}

std::string NewDir(const std::string& name) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string dir =
      absl::StrCat(tmp == nullptr ? "/tmp" : tmp, "/summary_more_", name);
  std::filesystem::remove_all(dir);
  return dir;
}

// The script's output on `dir`, or a skip (rc 77) when TensorBoard is
// missing.
struct Dump {
  int rc = -1;
  std::string text;
};
Dump DumpEvents(const std::string& dir) {
  const std::string command =
      // TensorFlow's and Abseil's start-up logs go to stderr: kept apart.
      absl::StrCat("python3 tools/tf_reference/dump_summary_events.py '", dir,
                   "' 2>'", dir, "/dump_stderr.txt'");
  Dump d;
  FILE* p = popen(command.c_str(), "r");
  if (p == nullptr) return d;
  char buf[4096];
  while (fgets(buf, sizeof(buf), p) != nullptr) d.text += buf;
  const int status = pclose(p);
  d.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return d;
}

FeedList StepFeeds(int k) {
  FeedList feeds;
  for (const tv::Line& line :
       tv::ReadLines(absl::StrCat(kDir, "writer_step", k, ".txt"))) {
    feeds.emplace_back(line.name, tv::FeedTensor(line));
  }
  return feeds;
}

TEST(SummaryMoreOpsTest, Tf2WriterEventsAreWhatTensorBoardSeesInTfs) {
  absl::StatusOr<GraphDef> def =
      ReadGraphDefFile(std::string(kDir) + "writer_graph.pb");
  ASSERT_TRUE(def.ok()) << def.status();
  auto session = Session::Create(*def);
  ASSERT_TRUE(session.ok()) << session.status();
  const std::string dir = NewDir("writer");
  std::vector<Tensor> out;
  ASSERT_TRUE(
      (*session)->Run({{"logdir", Tensor::Scalar(dir)}}, {}, {"init"}, &out)
          .ok());
  // A second init keeps the open file (TensorFlow's LookupOrCreate).
  ASSERT_TRUE(
      (*session)->Run({{"logdir", Tensor::Scalar(dir)}}, {}, {"init"}, &out)
          .ok());
  for (int k = 0; k < 2; ++k) {
    absl::Status s = (*session)->Run(StepFeeds(k), {}, {"write"}, &out);
    ASSERT_TRUE(s.ok()) << s;
  }
  ASSERT_TRUE((*session)->Run({}, {}, {"flush"}, &out).ok());
  ASSERT_TRUE((*session)->Run({}, {}, {"close"}, &out).ok());
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    EXPECT_THAT(e.path().filename().string(),
                ::testing::StartsWith("events.out.tfevents."));
    EXPECT_THAT(e.path().filename().string(), ::testing::EndsWith(".v2"));
    ++files;
  }
  EXPECT_EQ(files, 1);

  const Dump got = DumpEvents(dir);
  if (got.rc == 77 || got.rc == 127) {
    GTEST_SKIP() << "python3 cannot read event files with TensorBoard: "
                 << got.text;
  }
  ASSERT_EQ(got.rc, 0) << got.text;
  std::ifstream in(std::string(kDir) + "events.txt");
  std::stringstream want;
  want << in.rdbuf();
  EXPECT_EQ(got.text, want.str());
}

// --- Bad inputs. ---

absl::Status RunImage(const Tensor& images, int64_t max_images = 3) {
  Scope root = Scope::NewRootScope();
  Output s = ops::ImageSummary(root, Tensor::Scalar("t"),
                               ops::Placeholder(root, images.dtype()),
                               max_images);
  if (!root.ok()) return root.status();
  return RunKernel(s.node(), {Tensor::Scalar("t"), images}).status();
}

TEST(SummaryMoreOpsTest, BadImagesAreErrors) {
  absl::Status rank3 = RunImage(Tensor(DT_FLOAT, TensorShape({2, 3, 3})));
  EXPECT_EQ(rank3.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(rank3.message()),
              HasSubstr("Tensor must be 4-D with last dim 1, 3, or 4"));
  absl::Status channels5 =
      RunImage(Tensor(DT_UINT8, TensorShape({1, 2, 2, 5})));
  EXPECT_EQ(channels5.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(channels5.message()), HasSubstr("[1,2,2,5]"));
  absl::Status none = RunImage(Tensor(DT_FLOAT, TensorShape({1, 2, 2, 3})), 0);
  EXPECT_FALSE(none.ok());
  EXPECT_THAT(std::string(none.message()), HasSubstr("max_images"));
  // An empty batch is fine: no images.
  EXPECT_TRUE(RunImage(Tensor(DT_FLOAT, TensorShape({0, 2, 2, 3}))).ok());
}

TEST(SummaryMoreOpsTest, BadAudioIsAnError) {
  Scope root = Scope::NewRootScope();
  Output clip = ops::Placeholder(root, DT_FLOAT);
  Output s = ops::AudioSummaryV2(root, Tensor::Scalar("a"), clip,
                                 ops::Placeholder(root, DT_FLOAT));
  auto rank1 = RunKernel(s.node(), {Tensor::Scalar("a"),
                                    Tensor::FromVector<float>({0.5f}),
                                    Tensor::Scalar(8000.f)});
  ASSERT_FALSE(rank1.ok());
  EXPECT_THAT(std::string(rank1.status().message()),
              HasSubstr("Tensor must be 3-D or 2-D"));
  auto rate0 = RunKernel(s.node(),
                         {Tensor::Scalar("a"), Clip(3), Tensor::Scalar(0.f)});
  ASSERT_FALSE(rate0.ok());
  EXPECT_THAT(std::string(rate0.status().message()),
              HasSubstr("sample_rate must be > 0"));
  Scope bad = Scope::NewRootScope();
  ops::AudioSummaryV2(bad, Tensor::Scalar("a"), ops::Placeholder(bad, DT_FLOAT),
                      Tensor::Scalar(8000.f), 0);
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("max_outputs"));
}

// A writer graph by the builder: "init" opens `logdir`, "write" writes a
// scalar, "close" closes.
GraphDef WriterGraph(const std::string& logdir) {
  Scope root = Scope::NewRootScope();
  Output w = ops::SummaryWriter(root.WithOpName("writer"), "w");
  ops::CreateSummaryFileWriter(root.WithOpName("init"), w,
                               Tensor::Scalar(logdir), Tensor::Scalar(10),
                               Tensor::Scalar(1000), Tensor::Scalar(".v2"));
  ops::WriteScalarSummary(root.WithOpName("write"), w,
                          Tensor::Scalar(int64_t{3}), Tensor::Scalar("loss"),
                          Tensor::Scalar(1.5f));
  ops::WriteHistogramSummary(root.WithOpName("write_nan"), w,
                             Tensor::Scalar(int64_t{3}), Tensor::Scalar("h"),
                             Tensor::FromVector<float>({1.f, NAN}));
  ops::WriteImageSummary(root.WithOpName("write_bad_color"), w,
                         Tensor::Scalar(int64_t{3}), Tensor::Scalar("im"),
                         Tensor(DT_FLOAT, TensorShape({1, 2, 2, 3})),
                         Tensor::FromVector<uint8_t>({255, 0}));
  ops::CloseSummaryWriter(root.WithOpName("close"), w);
  GraphDef def;
  EXPECT_TRUE(root.ToGraphDef(&def).ok()) << root.status();
  return def;
}

TEST(SummaryMoreOpsTest, WritersNeverOpenedOrClosedAreErrors) {
  const std::string dir = NewDir("errors");
  auto session = Session::Create(WriterGraph(dir));
  ASSERT_TRUE(session.ok()) << session.status();
  std::vector<Tensor> out;
  absl::Status before = (*session)->Run({}, {}, {"write"}, &out);
  EXPECT_EQ(before.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(before.message()),
              HasSubstr("has no event file yet: run its "
                        "CreateSummaryFileWriter"));
  EXPECT_THAT(std::string(before.message()), HasSubstr("'write'"));
  ASSERT_TRUE((*session)->Run({}, {}, {"init"}, &out).ok());
  ASSERT_TRUE((*session)->Run({}, {}, {"write"}, &out).ok());
  absl::Status nan = (*session)->Run({}, {}, {"write_nan"}, &out);
  EXPECT_THAT(std::string(nan.message()),
              HasSubstr("Nan in summary histogram for: h"));
  absl::Status color = (*session)->Run({}, {}, {"write_bad_color"}, &out);
  EXPECT_THAT(std::string(color.message()),
              HasSubstr("expected depth <= bad_color.size"));
  ASSERT_TRUE((*session)->Run({}, {}, {"close"}, &out).ok());
  absl::Status after = (*session)->Run({}, {}, {"write"}, &out);
  EXPECT_EQ(after.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(after.message()), HasSubstr("was closed"));
  absl::Status close_again = (*session)->Run({}, {}, {"close"}, &out);
  EXPECT_EQ(close_again.code(), absl::StatusCode::kNotFound);
  // init opens a new file; the write goes there.
  ASSERT_TRUE((*session)->Run({}, {}, {"init"}, &out).ok());
  EXPECT_TRUE((*session)->Run({}, {}, {"write"}, &out).ok());
}

TEST(SummaryMoreOpsTest, ALogdirThatCannotBeMadeIsAnError) {
  // A directory under a regular file cannot be created.
  const std::string file = NewDir("plain_file");
  std::ofstream(file) << "x";
  auto session = Session::Create(WriterGraph(file + "/logs"));
  ASSERT_TRUE(session.ok()) << session.status();
  std::vector<Tensor> out;
  absl::Status s = (*session)->Run({}, {}, {"init"}, &out);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("cannot create the summary log directory"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("plain_file/logs"));
}

}  // namespace
}  // namespace dflow
