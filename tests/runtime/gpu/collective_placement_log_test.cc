// The placement summary's collective groups (runtime/session.cc): with
// log_device_placement, a session whose collectives run on devices other
// than CPUs prints one line per group saying how it runs
// (DescribeCollectiveGroup, runtime/collective_backend.h). Fake GPUs run
// the CPU kernels, so their groups ring over host memory; groups only on
// CPUs print nothing. Runs everywhere (no GPU needed).
#include <memory>
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
using ::testing::Not;

// All-reduce of a [2] constant across `devices` (group 7), summed on
// /cpu:0.
GraphDef AllReduceOn(const std::vector<std::string>& devices) {
  Scope root = Scope::NewRootScope();
  std::vector<Output> outs;
  for (size_t i = 0; i < devices.size(); ++i) {
    Scope member = root.NewSubScope(absl::StrCat("member_", i))
                       .WithDevice(devices[i]);
    Output x = ops::Const(member.WithOpName("x"),
                          {static_cast<float>(i), 1.0f});
    outs.push_back(ops::CollectiveAllReduce(
        member.WithOpName("sum"), x, static_cast<int64_t>(devices.size()),
        /*group_key=*/7, /*instance_key=*/1));
  }
  ops::AddN(root.WithDevice("/cpu:0").WithOpName("total"), outs);
  GraphDef def;
  EXPECT_TRUE(root.ToGraphDef(&def).ok()) << root.status();
  return def;
}

std::string RunAndCaptureLog(const GraphDef& def, SessionOptions options) {
  options.log_device_placement = true;
  ::testing::internal::CaptureStderr();
  absl::StatusOr<std::unique_ptr<Session>> session =
      Session::Create(def, options);
  std::vector<Tensor> out;
  absl::Status run = session.ok()
                         ? (*session)->Run({}, {"total"}, {}, &out)
                         : session.status();
  const std::string log = ::testing::internal::GetCapturedStderr();
  EXPECT_TRUE(run.ok()) << run;
  if (run.ok()) {
    // 2 members: (0 + 1, 1 + 1) on each, summed.
    EXPECT_EQ(out[0].flat<float>()[0], 2.0f);
    EXPECT_EQ(out[0].flat<float>()[1], 4.0f);
  }
  return log;
}

TEST(CollectivePlacementLogTest, FakeGpuGroupRingsOverHostMemory) {
  SessionOptions options;
  options.fake_gpus = 2;
  const std::string log =
      RunAndCaptureLog(AllReduceOn({"/gpu:0", "/gpu:1"}), options);
  EXPECT_THAT(log, HasSubstr("Collectives:\n"));
  EXPECT_THAT(log, HasSubstr("    group 7 (CollectiveAllReduce, 2 devices): "
                             "ring over host memory\n"))
      << log;
}

TEST(CollectivePlacementLogTest, CpuOnlyGroupsPrintNothing) {
  SessionOptions options;
  options.device_count = {{"CPU", 2}};
  const std::string log =
      RunAndCaptureLog(AllReduceOn({"/cpu:0", "/cpu:1"}), options);
  EXPECT_THAT(log, HasSubstr("Partitions: "));
  EXPECT_THAT(log, Not(HasSubstr("Collectives:")));
}

}  // namespace
}  // namespace dflow
