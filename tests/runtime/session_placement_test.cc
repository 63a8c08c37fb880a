// Session with placement: the seed programs' shape (towers asking for
// /gpu:i, shared variables on /cpu:0) run on fake GPUs, fall back with soft
// placement, fail clearly without it, and log where each node ran.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "graph/ops/ops.h"
#include "graph/scope.h"
#include "gtest/gtest.h"
#include "runtime/session.h"

namespace dflow {
namespace {

using ::testing::HasSubstr;

// x [2,2] on the CPU; tower_i computes MatMul(x, w) + i on /gpu:i; the sum
// of the towers is on the CPU.
GraphDef Towers(int towers) {
  Scope root = Scope::NewRootScope();
  Scope cpu = root.WithDevice("/cpu:0");
  Output x = ops::Placeholder(cpu.WithOpName("x"), DT_FLOAT,
                              ops::PlaceholderAttrs().Shape({2, 2}));
  Output w = ops::Const(cpu.WithOpName("w"), {1.f, 2.f, 3.f, 4.f},
                        TensorShape({2, 2}));
  std::vector<Output> outs;
  for (int i = 0; i < towers; ++i) {
    Scope tower = root.NewSubScope(absl::StrCat("tower_", i))
                      .WithDevice(absl::StrCat("/gpu:", i));
    outs.push_back(ops::AddV2(tower.WithOpName("y"), ops::MatMul(tower, x, w),
                              ops::Const(tower, static_cast<float>(i))));
  }
  ops::AddN(cpu.WithOpName("sum"), outs);
  GraphDef def;
  EXPECT_TRUE(root.ToGraphDef(&def).ok()) << root.status();
  return def;
}

absl::StatusOr<std::vector<Tensor>> RunTowers(const SessionOptions& options,
                                              int towers,
                                              RunMetadata* metadata = nullptr) {
  absl::StatusOr<std::unique_ptr<Session>> session =
      Session::Create(Towers(towers), options);
  if (!session.ok()) return session.status();
  std::vector<Tensor> out;
  RunOptions run_options;
  run_options.collect_step_stats = true;
  RunMetadata local;
  absl::Status s = (*session)->Run(
      run_options,
      {{"x", Tensor::FromVector<float>({1, 0, 0, 1}, TensorShape({2, 2}))}},
      {"sum"}, {}, &out, metadata != nullptr ? metadata : &local);
  if (!s.ok()) return s;
  return out;
}

std::string DeviceOf(const RunMetadata& metadata, const std::string& node) {
  for (const NodeExecStats& s : metadata.step_stats) {
    if (s.node == node) return s.device;
  }
  return "(not run)";
}

TEST(SessionPlacementTest, TowersRunOnTheirGpus) {
  SessionOptions options;
  options.fake_gpus = 4;
  RunMetadata metadata;
  absl::StatusOr<std::vector<Tensor>> out = RunTowers(options, 4, &metadata);
  ASSERT_TRUE(out.ok()) << out.status();
  // x.w = w; the towers add 0+1+2+3: 4w + 6.
  EXPECT_THAT((*out)[0].flat<float>(), ::testing::ElementsAre(10, 14, 18, 22));
  for (int i = 0; i < 4; ++i) {
    EXPECT_THAT(DeviceOf(metadata, absl::StrCat("tower_", i, "/MatMul")),
                HasSubstr(absl::StrCat("GPU:", i)));
  }
  EXPECT_THAT(DeviceOf(metadata, "sum"), HasSubstr("CPU:0"));
}

TEST(SessionPlacementTest, MissingGpusAreAnErrorWithoutSoftPlacement) {
  SessionOptions options;
  options.fake_gpus = 2;
  absl::StatusOr<std::vector<Tensor>> out = RunTowers(options, 4);
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(), HasSubstr("tower_2/"));
  EXPECT_THAT(out.status().message(), HasSubstr("GPU:2"));
  EXPECT_THAT(out.status().message(), HasSubstr("CPU:0, GPU:0, GPU:1"));
  EXPECT_THAT(out.status().message(), HasSubstr("soft placement"));
}

TEST(SessionPlacementTest, SoftPlacementRunsAGpuGraphOnACpuOnlyMachine) {
  SessionOptions options;
  options.allow_soft_placement = true;
  RunMetadata metadata;
  absl::StatusOr<std::vector<Tensor>> out = RunTowers(options, 4, &metadata);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT((*out)[0].flat<float>(), ::testing::ElementsAre(10, 14, 18, 22));
  // The towers' MatMuls are one computation (same x, same w) once all four
  // run on CPU:0: cse_on_device keeps tower_0's.
  EXPECT_THAT(DeviceOf(metadata, "tower_0/MatMul"), HasSubstr("CPU:0"));
  EXPECT_EQ(DeviceOf(metadata, "tower_3/MatMul"), "(not run)");
}

TEST(SessionPlacementTest, LogDevicePlacementPrintsMappingNodesAndFallbacks) {
  SessionOptions options;
  options.fake_gpus = 2;
  options.allow_soft_placement = true;
  options.log_device_placement = true;
  ::testing::internal::CaptureStderr();
  absl::StatusOr<std::unique_ptr<Session>> session =
      Session::Create(Towers(3), options);
  ASSERT_TRUE(session.ok()) << session.status();
  const Tensor x = Tensor::FromVector<float>({1, 0, 0, 1}, TensorShape({2, 2}));
  std::vector<Tensor> out;
  for (int step = 0; step < 3; ++step) {
    ASSERT_TRUE((*session)->Run({{"x", x}}, {"sum"}, {}, &out).ok());
  }
  const std::string log = ::testing::internal::GetCapturedStderr();
  EXPECT_THAT(log, HasSubstr("Device mapping:\n"));
  EXPECT_THAT(log, HasSubstr("tower_1/MatMul: (MatMul): "
                             "/job:localhost/replica:0/task:0/device:GPU:1\n"));
  EXPECT_THAT(log, HasSubstr("Soft placement fallbacks: "));
  EXPECT_THAT(log, HasSubstr("tower_2/MatMul (MatMul)"));
  // Once per compiled signature, not once per step.
  const std::string line = "tower_0/MatMul: (MatMul)";
  EXPECT_EQ(log.find(line), log.rfind(line)) << log;
}

TEST(SessionPlacementTest, EachDeviceCountsItsOwnMemory) {
  SessionOptions options;
  options.fake_gpus = 2;
  RunMetadata metadata;
  ASSERT_TRUE(RunTowers(options, 2, &metadata).ok());
  int devices_with_memory = 0;
  for (const auto& [device, bytes] : metadata.peak_bytes) {
    if (bytes > 0) ++devices_with_memory;
  }
  EXPECT_EQ(metadata.peak_bytes.size(), 3u);  // CPU:0, GPU:0, GPU:1
  EXPECT_EQ(devices_with_memory, 3);
}

TEST(SessionPlacementTest, DeviceCountMakesLogicalCpus) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  ops::Identity(root.WithOpName("y").WithDevice("/cpu:3"), x);
  GraphDef def;
  ASSERT_TRUE(root.ToGraphDef(&def).ok());
  SessionOptions options;
  options.device_count["CPU"] = 4;
  absl::StatusOr<std::unique_ptr<Session>> session =
      Session::Create(def, options);
  ASSERT_TRUE(session.ok()) << session.status();
  EXPECT_EQ((*session)->devices().devices().size(), 4u);
  RunOptions run_options;
  run_options.collect_step_stats = true;
  RunMetadata metadata;
  std::vector<Tensor> out;
  ASSERT_TRUE((*session)
                  ->Run(run_options, {{"x", Tensor::Scalar<float>(2)}}, {"y"},
                        {}, &out, &metadata)
                  .ok());
  EXPECT_THAT(DeviceOf(metadata, "y"), HasSubstr("CPU:3"));
}

// A run that does not need the node another is colocated with (a moving
// average's shadow fetched without its variable) places what it runs.
TEST(SessionPlacementTest, ColocationWithAPrunedNodeIsDropped) {
  Scope root = Scope::NewRootScope();
  Output w = ops::Const(root.WithOpName("w"), 1.0f);
  ops::Const(root.WithOpName("shadow").ColocateWith(w), 2.0f);
  GraphDef def;
  ASSERT_TRUE(root.ToGraphDef(&def).ok()) << root.status();
  absl::StatusOr<std::unique_ptr<Session>> session = Session::Create(def);
  ASSERT_TRUE(session.ok()) << session.status();
  std::vector<Tensor> out;
  absl::Status s = (*session)->Run({}, {"shadow"}, {}, &out);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(out[0].flat<float>()[0], 2.0f);
}

}  // namespace
}  // namespace dflow
