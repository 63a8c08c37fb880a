// How a session drives the compiler's passes: SessionOptions that turn them
// off or dump them, the errors for bad pass options, the log lines, and the
// planned peak in RunMetadata.
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "compiler/optimization_stages.h"
#include "gmock/gmock.h"
#include "graph/ops/ops.h"
#include "gtest/gtest.h"
#include "runtime/session.h"

namespace dflow {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

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

// x[?,4] -> y = Relu(x*2 + 1); z = Neg(y).
GraphDef SmallGraph() {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT,
                              ops::PlaceholderAttrs().Shape({-1, 4}));
  Output y = ops::Relu(
      root.WithOpName("y"),
      ops::AddV2(root.WithOpName("add"),
                 ops::Mul(root.WithOpName("mul"), x, ops::Const(root, 2.0f)),
                 ops::Const(root, 1.0f)));
  ops::Neg(root.WithOpName("z"), y);
  GraphDef def;
  root.graph()->ToGraphDef(&def);
  return def;
}

Tensor Batch(int rows) {
  std::vector<float> values(rows * 4);
  for (size_t i = 0; i < values.size(); ++i) values[i] = 0.25f * i - 3.0f;
  return Tensor::FromVector<float>(values, TensorShape({rows, 4}));
}

TEST(SessionPassesTest, DumpsEverySignatureInItsOwnFolder) {
  SessionOptions options;
  options.dump_passes_dir = TempDir("session_dump");
  absl::StatusOr<std::unique_ptr<Session>> session =
      Session::Create(SmallGraph(), options);
  ASSERT_TRUE(session.ok()) << session.status();
  std::vector<Tensor> out;
  ASSERT_TRUE((*session)->Run({{"x", Batch(2)}}, {"y"}, {}, &out).ok());
  ASSERT_TRUE((*session)->Run({{"x", Batch(2)}}, {"z"}, {}, &out).ok());
  ASSERT_TRUE((*session)->Run({{"x", Batch(3)}}, {"z"}, {}, &out).ok());
  const std::string sig0 =
      ReadFile(options.dump_passes_dir + "/sig_0/passes.txt");
  const std::string sig1 =
      ReadFile(options.dump_passes_dir + "/sig_1/passes.txt");
  EXPECT_THAT(sig0,
              HasSubstr("000  prune: 5 of 7 nodes kept, 1 fed, 1 fetched"));
  EXPECT_THAT(sig1,
              HasSubstr("000  prune: 6 of 7 nodes kept, 1 fed, 1 fetched"));
  for (const auto& [name, stage] : PassNames()) {
    EXPECT_THAT(sig0, HasSubstr("  " + name)) << name;
  }
  // The third run reuses the second signature's plan: no sig_2.
  EXPECT_EQ(ReadFile(options.dump_passes_dir + "/sig_2/passes.txt"), "");
}

TEST(SessionPassesTest, UnknownDisabledPassIsAnErrorListingThePasses) {
  SessionOptions options;
  options.disabled_passes = {"constant_fold"};
  absl::StatusOr<std::unique_ptr<Session>> session =
      Session::Create(SmallGraph(), options);
  ASSERT_FALSE(session.ok());
  EXPECT_EQ(session.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(session.status().message()),
              HasSubstr("SessionOptions.disabled_passes names "
                        "'constant_fold', which is no pass; the passes are " +
                        PassNames()[0].first));
}

TEST(SessionPassesTest, OffDisabledAndOnGiveTheSameValues) {
  std::vector<std::vector<float>> results;
  for (int mode = 0; mode < 3; ++mode) {
    SessionOptions options;
    options.optimize_graph = mode != 0;
    if (mode == 1) {
      for (const auto& [name, stage] : PassNames()) {
        options.disabled_passes.push_back(name);
      }
    }
    absl::StatusOr<std::unique_ptr<Session>> session =
        Session::Create(SmallGraph(), options);
    ASSERT_TRUE(session.ok()) << session.status();
    std::vector<Tensor> out;
    ASSERT_TRUE((*session)->Run({{"x", Batch(3)}}, {"z", "y"}, {}, &out).ok());
    std::vector<float> flat;
    for (const Tensor& t : out) {
      for (int64_t i = 0; i < t.NumElements(); ++i) {
        flat.push_back(t.flat<float>()[i]);
      }
    }
    results.push_back(flat);
  }
  EXPECT_EQ(results[0], results[1]);
  EXPECT_EQ(results[0], results[2]);
  EXPECT_FLOAT_EQ(results[0][0], -0.0f);       // Relu(-6+1)=0
  EXPECT_FLOAT_EQ(results[0][11], -0.5f);      // x = -0.25
  EXPECT_FLOAT_EQ(results[0][12 + 11], 0.5f);  // y
}

// x [?,4] is fed on CPU:0 and read on CPU:1: the _Recv there has only the
// partial static shape, and gets the compile call's [64,4] as its hint, so
// both partitions have a planned peak.
TEST(SessionPassesTest, PlannedPeakForAPartitionReceivingAFedBatch) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x").WithDevice("/cpu:0"),
                              DT_FLOAT, ops::PlaceholderAttrs().Shape({-1, 4}));
  Scope cpu1 = root.WithDevice("/cpu:1");
  Output y = ops::Relu(cpu1.WithOpName("y"), ops::Exp(cpu1.WithOpName("e"), x));
  ops::Neg(root.WithOpName("z").WithDevice("/cpu:0"), y);
  ASSERT_TRUE(root.ok()) << root.status();
  GraphDef def;
  root.graph()->ToGraphDef(&def);
  SessionOptions options;
  options.device_count["CPU"] = 2;
  absl::StatusOr<std::unique_ptr<Session>> session =
      Session::Create(def, options);
  ASSERT_TRUE(session.ok()) << session.status();
  std::vector<Tensor> out;
  RunMetadata metadata;
  ASSERT_TRUE(
      (*session)
          ->Run(RunOptions(), {{"x", Batch(64)}}, {"z"}, {}, &out, &metadata)
          .ok());
  ASSERT_EQ(metadata.planned_peak_bytes.size(), 2u);
  for (const auto& [device, bytes] : metadata.planned_peak_bytes) {
    // At least one [64,4] float tensor (the received or the sent one).
    EXPECT_GE(bytes, 64 * 4 * 4) << device;
    EXPECT_LE(bytes, 3 * 64 * 4 * 4) << device;
  }
  EXPECT_NE(metadata.planned_peak_bytes[0].first,
            metadata.planned_peak_bytes[1].first);
}

// The planned peak is for the shapes fed when the signature was compiled:
// a step fed other shapes gets none.
TEST(SessionPassesTest, PlannedPeakOnlyForThePlannedShapes) {
  bool planning = false;
  for (const auto& [name, stage] : PassNames()) {
    planning = planning || name == "memory_planning";
  }
  if (!planning) GTEST_SKIP() << "no memory_planning pass in this build";
  absl::StatusOr<std::unique_ptr<Session>> session =
      Session::Create(SmallGraph());
  ASSERT_TRUE(session.ok()) << session.status();
  std::vector<Tensor> out;
  RunMetadata metadata;
  ASSERT_TRUE(
      (*session)
          ->Run(RunOptions(), {{"x", Batch(64)}}, {"z"}, {}, &out, &metadata)
          .ok());
  ASSERT_EQ(metadata.planned_peak_bytes.size(), 1u);
  EXPECT_EQ(metadata.planned_peak_bytes[0].first,
            "/job:localhost/replica:0/task:0/device:CPU:0");
  // At least the fetched [64,4] floats, at most every intermediate at once.
  EXPECT_GE(metadata.planned_peak_bytes[0].second, 64 * 4 * 4);
  EXPECT_LE(metadata.planned_peak_bytes[0].second, 5 * 64 * 4 * 4);
  ASSERT_TRUE(
      (*session)
          ->Run(RunOptions(), {{"x", Batch(8)}}, {"z"}, {}, &out, &metadata)
          .ok());
  EXPECT_TRUE(metadata.planned_peak_bytes.empty());
}

TEST(SessionPassesTest, LogShowsWhatPassesChanged) {
  // tensor fusion and the others log only passes that changed something;
  // prune never appears among them.
  SessionOptions options;
  options.log_device_placement = true;
  absl::StatusOr<std::unique_ptr<Session>> session =
      Session::Create(SmallGraph(), options);
  ASSERT_TRUE(session.ok()) << session.status();
  testing::internal::CaptureStderr();
  std::vector<Tensor> out;
  ASSERT_TRUE((*session)->Run({{"x", Batch(2)}}, {"z"}, {}, &out).ok());
  const std::string log = testing::internal::GetCapturedStderr();
  EXPECT_THAT(log, Not(HasSubstr("prune:")));
  EXPECT_THAT(
      log, HasSubstr("z: (Neg): /job:localhost/replica:0/task:0/device:CPU:0"));
}

}  // namespace
}  // namespace dflow
