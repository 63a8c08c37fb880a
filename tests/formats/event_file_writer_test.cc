// Event files: the name TensorFlow gives them, the version event first,
// summaries and the graph as Event records, a bad summary refused; and
// TensorBoard's own reader (tools/tf_reference/check_event_file.py, skipped
// without tensorboard) sees the scalars, histograms and graph that dflow's
// summary ops and writer produced over three steps.
#include "formats/event_file_writer.h"

#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "graph/ops/ops.h"
#include "graph/scope.h"
#include "gtest/gtest.h"
#include "proto/summary.pb.h"
#include "runtime/run_metadata_proto.h"
#include "runtime/session.h"

namespace dflow {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

std::string NewTempDir(const char* name) {
  const char* base = std::getenv("TEST_TMPDIR");
  std::string pattern =
      absl::StrCat(base != nullptr ? base : "/tmp", "/", name, "_XXXXXX");
  EXPECT_NE(mkdtemp(pattern.data()), nullptr);
  return pattern;
}

TEST(EventFileWriterTest, NamesTheFileAsTensorFlowDoes) {
  EXPECT_EQ(EventFileName(1700000000, "host", ".v2"),
            "events.out.tfevents.1700000000.host.v2");
  EXPECT_EQ(EventFileName(12, "h", ""), "events.out.tfevents.0000000012.h");
}

TEST(EventFileWriterTest, WritesTheVersionThenEventsAsRecords) {
  const std::string dir = NewTempDir("events") + "/run/train";
  auto writer = EventFileWriter::Open(dir);
  ASSERT_TRUE(writer.ok()) << writer.status();
  const std::string path = (*writer)->path();
  EXPECT_THAT(std::filesystem::path(path).filename().string(),
              StartsWith("events.out.tfevents."));
  Summary summary;
  Summary::Value* v = summary.add_value();
  v->set_tag("loss");
  v->set_simple_value(0.5f);
  ASSERT_TRUE((*writer)->AddSummary(summary.SerializeAsString(), 7).ok());
  GraphDef graph;
  graph.add_node()->set_name("x");
  ASSERT_TRUE((*writer)->AddGraph(graph).ok());
  absl::Status bad = (*writer)->AddSummary("\xff\xff", 8);
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.message(), HasSubstr("not a serialized Summary proto"));
  ASSERT_TRUE((*writer)->Close().ok());

  auto records = ReadAllTfRecords(path, {});
  ASSERT_TRUE(records.ok()) << records.status();
  ASSERT_EQ(records->size(), 3u);
  Event first, second, third;
  ASSERT_TRUE(first.ParseFromString((*records)[0]));
  ASSERT_TRUE(second.ParseFromString((*records)[1]));
  ASSERT_TRUE(third.ParseFromString((*records)[2]));
  EXPECT_EQ(first.file_version(), "brain.Event:2");
  EXPECT_GT(first.wall_time(), 1.6e9);
  EXPECT_EQ(second.step(), 7);
  EXPECT_EQ(second.summary().value(0).tag(), "loss");
  EXPECT_EQ(second.summary().value(0).simple_value(), 0.5f);
  GraphDef read;
  ASSERT_TRUE(read.ParseFromString(third.graph_def()));
  EXPECT_EQ(read.node(0).name(), "x");
}

std::string ScriptPath() {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const char* workspace = std::getenv("TEST_WORKSPACE");
  const std::string relative = "tools/tf_reference/check_event_file.py";
  if (srcdir == nullptr || workspace == nullptr) return relative;
  return absl::StrCat(srcdir, "/", workspace, "/", relative);
}

TEST(EventFileWriterTest, TensorBoardReadsScalarsHistogramsAndTheGraph) {
  // loss = mean(w * x); summaries of loss (scalar) and w (histogram).
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  Output w =
      ops::Const(root.WithOpName("w"), {1.f, 2.f, 3.f, 4.f}, TensorShape({4}));
  Output loss = ops::Mean(root.WithOpName("loss"), ops::Mul(root, w, x), {0});
  Output scalar = ops::ScalarSummary(root, Tensor::Scalar("loss"), loss);
  Output histogram = ops::HistogramSummary(root, Tensor::Scalar("weights"), w);
  ops::MergeSummary(root.WithOpName("summaries"), {scalar, histogram});
  GraphDef graph;
  ASSERT_TRUE(root.ToGraphDef(&graph).ok()) << root.status();
  auto session = Session::Create(graph, SessionOptions());
  ASSERT_TRUE(session.ok()) << session.status();

  const std::string dir = NewTempDir("tensorboard");
  auto writer = EventFileWriter::Open(dir);
  ASSERT_TRUE(writer.ok()) << writer.status();
  ASSERT_TRUE((*writer)->AddGraph(graph).ok());
  for (int step = 0; step < 3; ++step) {
    std::vector<Tensor> out;
    const float f = static_cast<float>(step + 1);
    ASSERT_TRUE((*session)
                    ->Run({{"x", Tensor::FromVector<float>({f, f, f, f})}},
                          {"summaries"}, {}, &out)
                    .ok());
    ASSERT_TRUE(
        (*writer)->AddSummary(out[0].flat<std::string>()[0], step).ok());
  }
  // One traced step's stats, as add_run_metadata writes them.
  RunOptions traced;
  traced.collect_step_stats = true;
  RunMetadata metadata;
  std::vector<Tensor> out;
  ASSERT_TRUE((*session)
                  ->Run(traced,
                        {{"x", Tensor::FromVector<float>({1, 1, 1, 1})}},
                        {"summaries"}, {}, &out, &metadata)
                  .ok());
  ASSERT_FALSE(metadata.step_stats.empty());
  ASSERT_TRUE(
      (*writer)
          ->AddRunMetadata("step3",
                           RunMetadataToProto(metadata, 1700000000000000), 3)
          .ok());
  ASSERT_TRUE((*writer)->Close().ok());

  const std::string command =
      absl::StrCat("python3 '", ScriptPath(), "' '", dir, "' 2>&1");
  FILE* p = popen(command.c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string output;
  char buf[4096];
  while (fgets(buf, sizeof(buf), p) != nullptr) output += buf;
  const int status = pclose(p);
  const int rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (rc == 77 || rc == 127) {
    GTEST_SKIP() << "python3 cannot import tensorboard: " << output;
  }
  ASSERT_EQ(rc, 0) << output;
  // mean(w * x) = 2.5 x.
  EXPECT_THAT(output, HasSubstr("scalar loss 0 2.5\n"));
  EXPECT_THAT(output, HasSubstr("scalar loss 1 5\n"));
  EXPECT_THAT(output, HasSubstr("scalar loss 2 7.5\n"));
  EXPECT_THAT(output, HasSubstr("histogram weights 2 4 1 4 10\n"));
  EXPECT_THAT(output,
              HasSubstr(absl::StrCat("graph ", graph.node_size(), "\n")));
  // One device, every node the step ran.
  EXPECT_THAT(output, HasSubstr(absl::StrCat("run_metadata step3 1 ",
                                             metadata.step_stats.size(), " ")));
}

}  // namespace
}  // namespace dflow
