// The pass pipeline: its table of named passes, turning passes off, the
// summaries and the per-pass dumps.
#include "compiler/optimization_stages.h"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "graph/ops/ops.h"
#include "gtest/gtest.h"

namespace dflow {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

std::string TempDir(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir != nullptr ? dir : "/tmp") + "/" + name;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> NamesOf(PassStage stage) {
  std::vector<std::string> names;
  for (const auto& [name, s] : PassNames()) {
    if (s == stage) names.push_back(name);
  }
  return names;
}

// y = Relu(x * 2): nothing to fuse across devices, some passes may rewrite.
void BuildSmall(const Scope& root) {
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT,
                              ops::PlaceholderAttrs().Shape({2, 2}));
  ops::Relu(root.WithOpName("y"),
            ops::Mul(root.WithOpName("m"), x, ops::Const(root, 2.0f)));
}

TEST(PassNamesTest, UniqueAndStagedInOrder) {
  const auto names = PassNames();
  ASSERT_FALSE(names.empty());
  std::set<std::string> seen;
  bool in_device_specific = false;
  for (const auto& [name, stage] : names) {
    EXPECT_TRUE(seen.insert(name).second) << name << " twice";
    if (stage == PassStage::kDeviceSpecific) in_device_specific = true;
    // The table lists the device-independent stage first.
    EXPECT_FALSE(in_device_specific && stage == PassStage::kDeviceIndependent)
        << name;
  }
  EXPECT_EQ(seen.count("tensor_fusion"), 1u);
  EXPECT_EQ(seen.count("fuse_matmul_update"), 1u);
}

TEST(OptimizationStagesTest, EveryEnabledPassLeavesASummary) {
  Scope root = Scope::NewRootScope();
  BuildSmall(root);
  OptimizationOptions options;
  std::vector<PassSummary> summaries;
  ASSERT_TRUE(RunDeviceIndependentPasses(options, {"y"}, root.graph(),
                                         &summaries)
                  .ok());
  ASSERT_TRUE(RunDeviceSpecificPasses(
                  options, "/job:localhost/replica:0/task:0/device:CPU:0",
                  "CPU", {"y"}, root.graph(), &summaries)
                  .ok());
  std::vector<std::string> ran;
  for (const PassSummary& s : summaries) ran.push_back(s.pass);
  std::vector<std::string> expected = NamesOf(PassStage::kDeviceIndependent);
  for (const std::string& n : NamesOf(PassStage::kDeviceSpecific)) {
    expected.push_back(n);
  }
  EXPECT_EQ(ran, expected);
  for (const PassSummary& s : summaries) {
    EXPECT_GE(s.time, absl::ZeroDuration()) << s.pass;
    EXPECT_GT(s.nodes_before, 0) << s.pass;
  }
  EXPECT_NE(root.graph()->FindNode("y"), nullptr);  // protected
}

TEST(OptimizationStagesTest, DisabledPassesDoNotRun) {
  Scope root = Scope::NewRootScope();
  BuildSmall(root);
  GraphDef before;
  root.graph()->ToGraphDef(&before);

  OptimizationOptions off;
  off.enabled = false;
  std::vector<PassSummary> summaries;
  ASSERT_TRUE(
      RunDeviceIndependentPasses(off, {}, root.graph(), &summaries).ok());
  ASSERT_TRUE(RunDeviceSpecificPasses(off, "/device:CPU:0", "CPU", {},
                                      root.graph(), &summaries)
                  .ok());
  EXPECT_TRUE(summaries.empty());
  GraphDef after;
  root.graph()->ToGraphDef(&after);
  std::string before_text, after_text;  // text: maps in key order
  google::protobuf::TextFormat::PrintToString(before, &before_text);
  google::protobuf::TextFormat::PrintToString(after, &after_text);
  EXPECT_EQ(before_text, after_text);

  OptimizationOptions one_off;
  const std::string skipped = PassNames()[0].first;
  one_off.disabled_passes.insert(skipped);
  ASSERT_TRUE(
      RunDeviceIndependentPasses(one_off, {}, root.graph(), &summaries).ok());
  EXPECT_EQ(summaries.size(),
            NamesOf(PassStage::kDeviceIndependent).size() - 1);
  for (const PassSummary& s : summaries) EXPECT_NE(s.pass, skipped);
}

TEST(PassDumperTest, WritesEachPassGraphAndItsLine) {
  Scope root = Scope::NewRootScope();
  BuildSmall(root);
  const std::string dir = TempDir("dump/nested");
  absl::StatusOr<PassDumper> dumper = PassDumper::Create(dir);
  ASSERT_TRUE(dumper.ok()) << dumper.status();
  ASSERT_TRUE(dumper->active());
  std::vector<PassSummary> summaries;
  ASSERT_TRUE(RunDeviceIndependentPasses(OptimizationOptions(), {},
                                         root.graph(), &summaries, &*dumper)
                  .ok());
  ASSERT_TRUE(RunDeviceSpecificPasses(
                  OptimizationOptions(),
                  "/job:localhost/replica:0/task:0/device:CPU:0", "CPU", {},
                  root.graph(), &summaries, &*dumper)
                  .ok());
  std::vector<std::string> lines =
      absl::StrSplit(ReadFile(dir + "/passes.txt"), '\n', absl::SkipEmpty());
  ASSERT_EQ(lines.size(), summaries.size());
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string number = absl::StrFormat("%03d", i);
    EXPECT_EQ(lines[i], number + "  " + PassSummaryLine(summaries[i]));
    std::string stem = dir + "/" + number + "_" + summaries[i].pass;
    if (!summaries[i].device.empty()) stem += "_CPU_0";
    GraphDef def;
    EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(
        ReadFile(stem + ".pbtxt"), &def))
        << stem;
    EXPECT_THAT(ReadFile(stem + ".dot"), StartsWith("digraph")) << stem;
  }
}

TEST(PassDumperTest, AnEmptyDirectoryDumpsNothing) {
  absl::StatusOr<PassDumper> dumper = PassDumper::Create("");
  ASSERT_TRUE(dumper.ok());
  EXPECT_FALSE(dumper->active());
  Graph g;
  EXPECT_TRUE(dumper->Dump(PassSummary(), g).ok());
}

TEST(PassDumperTest, ADirectoryThatCannotBeMadeIsAnError) {
  const std::string file = TempDir("a_file");
  std::ofstream(file) << "x";
  absl::StatusOr<PassDumper> dumper = PassDumper::Create(file + "/sub");
  ASSERT_FALSE(dumper.ok());
  EXPECT_EQ(dumper.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(dumper.status().message()),
              HasSubstr("cannot create the pass dump directory '" + file +
                        "/sub'"));
}

TEST(PassSummaryLineTest, NamesPassDeviceWhatTimeAndNodes) {
  PassSummary s;
  s.pass = "cse";
  s.what = "3 nodes merged";
  s.time = absl::Microseconds(1500);
  s.nodes_before = 10;
  s.nodes_after = 7;
  EXPECT_EQ(PassSummaryLine(s), "cse: 3 nodes merged (1.50 ms, 10 -> 7 nodes)");
  s.device = "/job:localhost/replica:0/task:0/device:GPU:1";
  s.nodes_after = 10;
  EXPECT_EQ(PassSummaryLine(s), "cse on GPU:1: 3 nodes merged (1.50 ms)");
}

}  // namespace
}  // namespace dflow
