// Tests for the placement pass: defaults, requests (partial and missing),
// kernels, colocation (_class, reference and resource edges), soft
// placement on and off, strict mode, host choices, pre-assigned nodes,
// determinism and the 4-tower scenario of the devices issue.

#include "compiler/placer.h"

#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "compiler/placement_log.h"
#include "fake_kernel_query.h"
#include "gmock/gmock.h"
#include "google/protobuf/util/message_differencer.h"
#include "graph/attr_value_util.h"
#include "graph/ops/ops.h"
#include "graph/scope.h"
#include "gtest/gtest.h"

namespace dflow {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr char kCpu0[] = "/job:localhost/replica:0/task:0/device:CPU:0";
constexpr char kGpu0[] = "/job:localhost/replica:0/task:0/device:GPU:0";
constexpr char kGpu1[] = "/job:localhost/replica:0/task:0/device:GPU:1";

std::string Gpu(int i) {
  return absl::StrCat("/job:localhost/replica:0/task:0/device:GPU:", i);
}

std::vector<PlacementDevice> Devices(const char* spec) {
  absl::StatusOr<std::vector<PlacementDevice>> devices =
      ParseSimulatedDevices(spec);
  EXPECT_TRUE(devices.ok()) << devices.status();
  return *devices;
}

absl::StatusOr<PlacementRecord> Place(const Scope& root, const char* devices,
                                      const KernelQuery& kernels,
                                      bool soft = false, bool strict = false) {
  EXPECT_TRUE(root.ok()) << root.status();
  PlacerOptions options;
  options.allow_soft_placement = soft;
  options.strict = strict;
  return PlaceGraph(root.graph(), Devices(devices), kernels, options);
}

std::string Message(const absl::StatusOr<PlacementRecord>& record) {
  return std::string(record.status().message());
}

const NodePlacement& Find(const PlacementRecord& record,
                          absl::string_view name) {
  for (const NodePlacement& p : record.nodes()) {
    if (p.name() == name) return p;
  }
  ADD_FAILURE() << "no node " << name << " in the record";
  static const NodePlacement* const kNone = new NodePlacement;
  return *kNone;
}

// ---- Defaults and requests ----------------------------------------------

TEST(PlacerTest, UnrequestedNodesGoToTheFirstGpu) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  ops::MatMul(root.WithOpName("mm"), x, x);
  FakeKernelQuery kernels;
  absl::StatusOr<PlacementRecord> record = Place(root, "CPU:1,GPU:2", kernels);
  ASSERT_TRUE(record.ok()) << record.status();
  const NodePlacement& mm = Find(*record, "mm");
  EXPECT_EQ(mm.assigned_device(), kGpu0);
  EXPECT_EQ(mm.kind(), NodePlacement::DEFAULT);
  EXPECT_EQ(mm.reason(), "default: highest-priority device with a kernel");
  EXPECT_EQ(mm.op(), "MatMul");
  EXPECT_EQ(root.graph()->FindNode("mm")->assigned_device(), kGpu0);
}

TEST(PlacerTest, CpuOnlySessionPlacesOnCpu) {
  Scope root = Scope::NewRootScope();
  ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  FakeKernelQuery kernels;
  absl::StatusOr<PlacementRecord> record = Place(root, "CPU:1", kernels);
  ASSERT_TRUE(record.ok()) << record.status();
  EXPECT_EQ(Find(*record, "x").assigned_device(), kCpu0);
}

TEST(PlacerTest, UnrequestedCpuOnlyOpGoesToCpu) {
  Scope root = Scope::NewRootScope();
  ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  FakeKernelQuery kernels;
  kernels.Kernels("Placeholder", {"CPU"});
  absl::StatusOr<PlacementRecord> record = Place(root, "CPU:1,GPU:2", kernels);
  ASSERT_TRUE(record.ok()) << record.status();
  EXPECT_EQ(Find(*record, "x").assigned_device(), kCpu0);
  EXPECT_EQ(Find(*record, "x").kind(), NodePlacement::DEFAULT);
}

struct PartialSpecCase {
  const char* request;
  const char* expected;
};

class PartialSpecTest : public ::testing::TestWithParam<PartialSpecCase> {};

TEST_P(PartialSpecTest, MatchesTheBestDevice) {
  Scope root = Scope::NewRootScope();
  ops::Placeholder(root.WithOpName("x").WithDevice(GetParam().request),
                   DT_FLOAT);
  FakeKernelQuery kernels;
  absl::StatusOr<PlacementRecord> record = Place(root, "CPU:2,GPU:2", kernels);
  ASSERT_TRUE(record.ok()) << record.status();
  const NodePlacement& x = Find(*record, "x");
  EXPECT_EQ(x.assigned_device(), GetParam().expected);
  EXPECT_EQ(x.kind(), NodePlacement::REQUESTED);
  EXPECT_EQ(x.reason(), "requested");
}

INSTANTIATE_TEST_SUITE_P(
    Specs, PartialSpecTest,
    ::testing::Values(
        PartialSpecCase{"/gpu:*", kGpu0}, PartialSpecCase{"/device:GPU", kGpu0},
        PartialSpecCase{"/job:localhost", kGpu0},
        PartialSpecCase{"/job:localhost/replica:0/task:0", kGpu0},
        PartialSpecCase{"/gpu:1", kGpu1}, PartialSpecCase{"GPU:1", kGpu1},
        PartialSpecCase{"/cpu:0", kCpu0},
        PartialSpecCase{"/device:CPU:*", kCpu0},
        PartialSpecCase{"/cpu:1",
                        "/job:localhost/replica:0/task:0/device:CPU:1"},
        PartialSpecCase{kGpu1, kGpu1}));

// ---- Soft placement, parametrized on and off -----------------------------

class SoftPlacementTest : public ::testing::TestWithParam<bool> {
 protected:
  bool soft() const { return GetParam(); }
};

TEST_P(SoftPlacementTest, MissingDeviceFallsBackOrFails) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  ops::MatMul(root.WithOpName("mm").WithDevice("/gpu:7"), x, x);
  FakeKernelQuery kernels;
  absl::StatusOr<PlacementRecord> record =
      Place(root, "CPU:1,GPU:2", kernels, soft());
  if (soft()) {
    ASSERT_TRUE(record.ok()) << record.status();
    const NodePlacement& mm = Find(*record, "mm");
    EXPECT_EQ(mm.assigned_device(), kGpu0);
    EXPECT_EQ(mm.kind(), NodePlacement::SOFT_FALLBACK);
    EXPECT_EQ(mm.requested_device(), "/device:GPU:7");
    EXPECT_EQ(mm.reason(),
              "soft placement: /device:GPU:7 does not exist (this session "
              "has CPU:0, GPU:0, GPU:1)");
    EXPECT_EQ(record->num_soft_fallbacks(), 1);
  } else {
    ASSERT_FALSE(record.ok());
    EXPECT_EQ(record.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(Message(record),
              "node 'mm' (MatMul) asked for /device:GPU:7 but this session "
              "has CPU:0, GPU:0, GPU:1; device types with a kernel for "
              "MatMul: GPU, CPU; enable soft placement or ask for an existing "
              "device");
  }
}

TEST_P(SoftPlacementTest, CpuOnlyOpRequestedOnGpu) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  ops::Tanh(root.WithOpName("t").WithDevice("/gpu:0"), x);
  FakeKernelQuery kernels;
  kernels.Kernels("Tanh", {"CPU"});
  absl::StatusOr<PlacementRecord> record =
      Place(root, "CPU:1,GPU:2", kernels, soft());
  if (soft()) {
    ASSERT_TRUE(record.ok()) << record.status();
    const NodePlacement& t = Find(*record, "t");
    EXPECT_EQ(t.assigned_device(), kCpu0);
    EXPECT_EQ(t.kind(), NodePlacement::SOFT_FALLBACK);
    EXPECT_EQ(t.reason(),
              "soft placement: no GPU kernel for Tanh; device types with a "
              "kernel: CPU");
  } else {
    ASSERT_FALSE(record.ok());
    EXPECT_EQ(Message(record),
              "node 't' (Tanh) asked for /device:GPU:0 but it has no GPU "
              "kernel (device types with a kernel for Tanh: CPU; this session "
              "has CPU:0, GPU:0, GPU:1); enable soft placement, or ask for a "
              "device type that has a kernel");
  }
}

TEST_P(SoftPlacementTest, SoftPlacementKeepsTheRequestedTask) {
  std::vector<PlacementDevice> devices;
  for (const char* name : {"/job:w/replica:0/task:0/device:GPU:0",
                           "/job:w/replica:0/task:1/device:CPU:0",
                           "/job:w/replica:0/task:1/device:CPU:1"}) {
    devices.push_back(*PlacementDevice::FromName(name));
  }
  Scope root = Scope::NewRootScope();
  ops::Placeholder(root.WithOpName("x").WithDevice("/job:w/task:1/gpu:0"),
                   DT_FLOAT);
  FakeKernelQuery kernels;
  PlacerOptions options;
  options.allow_soft_placement = soft();
  absl::StatusOr<PlacementRecord> record =
      PlaceGraph(root.graph(), devices, kernels, options);
  if (soft()) {
    ASSERT_TRUE(record.ok()) << record.status();
    // Not task 0's GPU: job/replica/task are kept.
    EXPECT_EQ(Find(*record, "x").assigned_device(),
              "/job:w/replica:0/task:1/device:CPU:0");
  } else {
    ASSERT_FALSE(record.ok());
    EXPECT_THAT(Message(record),
                HasSubstr("asked for /job:w/task:1/device:GPU:0"));
  }
}

TEST_P(SoftPlacementTest, NoKernelOnAnyDeviceFailsEitherWay) {
  Scope root = Scope::NewRootScope();
  ops::Placeholder(root.WithOpName("x").WithDevice("/gpu:0"), DT_FLOAT);
  FakeKernelQuery kernels;
  kernels.Kernels("Placeholder", {"TPU"});
  absl::StatusOr<PlacementRecord> record =
      Place(root, "CPU:1,GPU:2", kernels, soft());
  ASSERT_FALSE(record.ok());
  EXPECT_EQ(Message(record),
            "node 'x' (Placeholder) has no kernel for any device of this "
            "session (this session has CPU:0, GPU:0, GPU:1; device types with "
            "a kernel for Placeholder: TPU); run it where such a device "
            "exists, or register a kernel for Placeholder on one of this "
            "session's device types");
}

TEST_P(SoftPlacementTest, JobThatMatchesNothingFailsEitherWay) {
  Scope root = Scope::NewRootScope();
  ops::Placeholder(root.WithOpName("x").WithDevice("/job:ps/task:1/cpu:0"),
                   DT_FLOAT);
  FakeKernelQuery kernels;
  absl::StatusOr<PlacementRecord> record =
      Place(root, "CPU:1,GPU:1", kernels, soft());
  ASSERT_FALSE(record.ok());
  EXPECT_EQ(Message(record),
            "node 'x' (Placeholder) asked for /job:ps/task:1/device:CPU:0 but "
            "no device of this session is in /job:ps/task:1 (this session has "
            "/job:localhost/replica:0/task:0/device:CPU:0, "
            "/job:localhost/replica:0/task:0/device:GPU:0); fix the "
            "job/replica/task part of the device string");
}

TEST_P(SoftPlacementTest, ColocationConflictNamesBothNodesOrColocationWins) {
  Scope root = Scope::NewRootScope();
  Output v = ops::Variable(root.WithOpName("v").WithDevice("/cpu:0"),
                           TensorShape({2}), DT_FLOAT);
  Output g = ops::Const(root.WithOpName("g"), {1.0f, 2.0f});
  ops::Neg(root.ColocateWith(v).WithOpName("grad").WithDevice("/gpu:1"), g);
  FakeKernelQuery kernels;
  absl::StatusOr<PlacementRecord> record =
      Place(root, "CPU:1,GPU:2", kernels, soft());
  if (soft()) {
    ASSERT_TRUE(record.ok()) << record.status();
    const NodePlacement& grad = Find(*record, "grad");
    EXPECT_EQ(grad.assigned_device(), kCpu0);
    EXPECT_EQ(grad.kind(), NodePlacement::COLOCATED);
    EXPECT_EQ(grad.reason(),
              "colocated with 'v': its request /device:GPU:1 lost to that "
              "node's request /device:CPU:0 (soft placement)");
    EXPECT_EQ(Find(*record, "v").kind(), NodePlacement::REQUESTED);
    EXPECT_EQ(Find(*record, "v").group(), grad.group());
    EXPECT_NE(Find(*record, "g").group(), grad.group());
  } else {
    ASSERT_FALSE(record.ok());
    EXPECT_EQ(Message(record),
              "node 'grad' (Neg) asked for /device:GPU:1 but it must be "
              "colocated with node 'v' (VariableV2), which asked for "
              "/device:CPU:0; its colocation group: 'v' (VariableV2) asked "
              "for /device:CPU:0, 'grad' (Neg) asked for /device:GPU:1, "
              "because 'grad' has _class loc:@v; make the requests agree, "
              "remove the colocation, or enable soft placement to let "
              "colocation win");
  }
}

TEST_P(SoftPlacementTest, ReferenceEdgeConflict) {
  Scope root = Scope::NewRootScope();
  Output v = ops::Variable(root.WithOpName("v").WithDevice("/cpu:0"),
                           TensorShape({2}), DT_FLOAT);
  Output one = ops::Const(root.WithOpName("one"), {1.0f, 1.0f});
  ops::Assign(root.WithOpName("tower_0/assign").WithDevice("/gpu:0"), v, one);
  FakeKernelQuery kernels;
  absl::StatusOr<PlacementRecord> record =
      Place(root, "CPU:1,GPU:1", kernels, soft());
  if (soft()) {
    ASSERT_TRUE(record.ok()) << record.status();
    EXPECT_EQ(Find(*record, "tower_0/assign").assigned_device(), kCpu0);
    EXPECT_EQ(Find(*record, "tower_0/assign").kind(), NodePlacement::COLOCATED);
  } else {
    ASSERT_FALSE(record.ok());
    EXPECT_THAT(Message(record),
                AllOf(HasSubstr("node 'tower_0/assign' (Assign) asked for "
                                "/device:GPU:0"),
                      HasSubstr("node 'v' (VariableV2), which asked for "
                                "/device:CPU:0"),
                      HasSubstr("'tower_0/assign' takes a reference to 'v'")));
  }
}

TEST_P(SoftPlacementTest, ColocatedNodeWithoutGpuKernel) {
  // The variable asks for a GPU, but its update op only has a CPU kernel.
  Scope root = Scope::NewRootScope();
  Output v = ops::Variable(root.WithOpName("v").WithDevice("/gpu:0"),
                           TensorShape({2}), DT_FLOAT);
  Output one = ops::Const(root.WithOpName("one"), {1.0f, 1.0f});
  ops::AssignAdd(root.WithOpName("update"), v, one);
  FakeKernelQuery kernels;
  kernels.Kernels("AssignAdd", {"CPU"});
  absl::StatusOr<PlacementRecord> record =
      Place(root, "CPU:1,GPU:1", kernels, soft());
  if (soft()) {
    ASSERT_TRUE(record.ok()) << record.status();
    EXPECT_EQ(Find(*record, "v").assigned_device(), kCpu0);
    EXPECT_EQ(Find(*record, "v").kind(), NodePlacement::SOFT_FALLBACK);
    EXPECT_EQ(Find(*record, "v").reason(),
              "soft placement: no GPU kernel for AssignAdd (colocated node "
              "'update'); device types with a kernel: CPU");
    EXPECT_EQ(Find(*record, "update").kind(), NodePlacement::COLOCATED);
    EXPECT_EQ(Find(*record, "update").reason(), "colocated with 'v'");
  } else {
    ASSERT_FALSE(record.ok());
    EXPECT_THAT(Message(record),
                AllOf(StartsWith("node 'v' (VariableV2) asked for "
                                 "/device:GPU:0 but its colocated node node "
                                 "'update' (AssignAdd) has no GPU kernel"),
                      HasSubstr("or remove the colocation")));
  }
}

TEST_P(SoftPlacementTest, ResourceEdgeConflict) {
  Scope root = Scope::NewRootScope();
  Output h = ops::VarHandleOp(root.WithOpName("h").WithDevice("/cpu:0"),
                              DT_FLOAT, TensorShape({2}));
  ops::ReadVariableOp(root.WithOpName("read").WithDevice("/gpu:0"), h,
                      DT_FLOAT);
  FakeKernelQuery kernels;
  absl::StatusOr<PlacementRecord> record =
      Place(root, "CPU:1,GPU:1", kernels, soft());
  if (soft()) {
    ASSERT_TRUE(record.ok()) << record.status();
    EXPECT_EQ(Find(*record, "read").assigned_device(), kCpu0);
    EXPECT_EQ(Find(*record, "read").kind(), NodePlacement::COLOCATED);
  } else {
    ASSERT_FALSE(record.ok());
    EXPECT_THAT(Message(record), HasSubstr("'read' uses resource 'h'"));
  }
}

TEST_P(SoftPlacementTest, ResourceEdgeBetweenAssignedDevicesFailsEitherWay) {
  Scope root = Scope::NewRootScope();
  Output h = ops::VarHandleOp(root.WithOpName("h"), DT_FLOAT, TensorShape({2}));
  Output read = ops::ReadVariableOp(root.WithOpName("read"), h, DT_FLOAT);
  h.node()->set_assigned_device(kCpu0);
  read.node()->set_assigned_device(kGpu0);
  FakeKernelQuery kernels;
  absl::StatusOr<PlacementRecord> record =
      Place(root, "CPU:1,GPU:1", kernels, soft());
  ASSERT_FALSE(record.ok());
  EXPECT_THAT(
      Message(record),
      AllOf(StartsWith("node 'h' (VarHandleOp) is assigned to " +
                       std::string(kCpu0) +
                       " and node 'read' (ReadVariableOp) to " +
                       std::string(kGpu0) + ", but they must share a device"),
            HasSubstr("'read' uses resource 'h'")));
}

TEST_P(SoftPlacementTest, RequestAgainstAPreassignedGroup) {
  Scope root = Scope::NewRootScope();
  Output h = ops::VarHandleOp(root.WithOpName("h"), DT_FLOAT, TensorShape({2}));
  ops::ReadVariableOp(root.WithOpName("read").WithDevice("/gpu:0"), h,
                      DT_FLOAT);
  h.node()->set_assigned_device("/cpu:0/job:localhost/replica:0/task:0");
  h.node()->set_assigned_device(kCpu0);
  FakeKernelQuery kernels;
  absl::StatusOr<PlacementRecord> record =
      Place(root, "CPU:1,GPU:1", kernels, soft());
  if (soft()) {
    ASSERT_TRUE(record.ok()) << record.status();
    EXPECT_EQ(Find(*record, "h").kind(), NodePlacement::PREASSIGNED);
    EXPECT_EQ(Find(*record, "read").assigned_device(), kCpu0);
    EXPECT_EQ(Find(*record, "read").kind(), NodePlacement::COLOCATED);
  } else {
    ASSERT_FALSE(record.ok());
    EXPECT_THAT(Message(record),
                HasSubstr("node 'read' (ReadVariableOp) asked for "
                          "/device:GPU:0 but its colocated node node 'h' "
                          "(VarHandleOp) is already assigned to"));
  }
}

TEST_P(SoftPlacementTest, StrictModeTurnsFallbacksIntoErrors) {
  Scope root = Scope::NewRootScope();
  ops::Placeholder(root.WithOpName("x").WithDevice("/gpu:7"), DT_FLOAT);
  FakeKernelQuery kernels;
  absl::StatusOr<PlacementRecord> record =
      Place(root, "CPU:1,GPU:2", kernels, soft(), /*strict=*/true);
  ASSERT_FALSE(record.ok());
  EXPECT_THAT(Message(record),
              HasSubstr("turn off strict placement or ask for an existing "
                        "device"));
}

INSTANTIATE_TEST_SUITE_P(OnOff, SoftPlacementTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? "Soft" : "Hard";
                         });

// ---- Colocation without conflicts ------------------------------------------

TEST(PlacerTest, GradientFollowsItsForwardOpThroughClass) {
  Scope root = Scope::NewRootScope();
  Scope tower = root.NewSubScope("tower_1").WithDevice("/gpu:1");
  Output x = ops::Placeholder(tower.WithOpName("x"), DT_FLOAT);
  Output mm = ops::MatMul(tower.WithOpName("MatMul"), x, x);
  // Gradients are built outside the tower's device scope, colocated.
  ops::MatMul(root.NewSubScope("gradients").ColocateWith(mm).WithOpName("g"),
              mm, x);
  FakeKernelQuery kernels;
  absl::StatusOr<PlacementRecord> record = Place(root, "CPU:1,GPU:2", kernels);
  ASSERT_TRUE(record.ok()) << record.status();
  const NodePlacement& g = Find(*record, "gradients/g");
  EXPECT_EQ(g.assigned_device(), kGpu1);
  EXPECT_EQ(g.kind(), NodePlacement::COLOCATED);
  EXPECT_EQ(g.reason(), "colocated with 'tower_1/MatMul'");
  EXPECT_EQ(Find(*record, "tower_1/MatMul").kind(), NodePlacement::REQUESTED);
}

TEST(PlacerTest, GroupWithoutRequestsGoesWhereEveryMemberHasAKernel) {
  Scope root = Scope::NewRootScope();
  Output v = ops::Variable(root.WithOpName("v"), TensorShape({2}), DT_FLOAT);
  Output one = ops::Const(root.WithOpName("one"), {1.0f, 1.0f});
  ops::AssignAdd(root.WithOpName("update"), v, one);
  FakeKernelQuery kernels;
  kernels.Kernels("AssignAdd", {"CPU"});
  absl::StatusOr<PlacementRecord> record = Place(root, "CPU:1,GPU:1", kernels);
  ASSERT_TRUE(record.ok()) << record.status();
  EXPECT_EQ(Find(*record, "v").assigned_device(), kCpu0);
  EXPECT_EQ(Find(*record, "v").kind(), NodePlacement::DEFAULT);
  EXPECT_EQ(Find(*record, "update").assigned_device(), kCpu0);
  EXPECT_EQ(Find(*record, "update").reason(), "colocated with 'v'");
  EXPECT_EQ(Find(*record, "one").assigned_device(), kGpu0);
}

TEST(PlacerTest, UnrequestedVariableFollowsItsRequestedUpdate) {
  Scope root = Scope::NewRootScope();
  Output v = ops::Variable(root.WithOpName("v"), TensorShape({2}), DT_FLOAT);
  Output one = ops::Const(root.WithOpName("one"), {1.0f, 1.0f});
  ops::Assign(root.WithOpName("assign").WithDevice("/gpu:1"), v, one);
  FakeKernelQuery kernels;
  absl::StatusOr<PlacementRecord> record = Place(root, "CPU:1,GPU:2", kernels);
  ASSERT_TRUE(record.ok()) << record.status();
  EXPECT_EQ(Find(*record, "v").assigned_device(), kGpu1);
  EXPECT_EQ(Find(*record, "v").reason(), "colocated with 'assign'");
}

TEST(PlacerTest, MembersWithNoCommonKernelTypeFail) {
  Scope root = Scope::NewRootScope();
  Output v = ops::Variable(root.WithOpName("v"), TensorShape({2}), DT_FLOAT);
  Output one = ops::Const(root.WithOpName("one"), {1.0f, 1.0f});
  ops::Assign(root.WithOpName("assign"), v, one);
  FakeKernelQuery kernels;
  kernels.Kernels("VariableV2", {"CPU"}).Kernels("Assign", {"GPU"});
  absl::StatusOr<PlacementRecord> record =
      Place(root, "CPU:1,GPU:1", kernels, /*soft=*/true);
  ASSERT_FALSE(record.ok());
  EXPECT_THAT(Message(record),
              AllOf(HasSubstr("no device type has a kernel for every node of "
                              "the colocation group of node 'v' (VariableV2)"),
                    HasSubstr("'v' (VariableV2): CPU; 'assign' (Assign): GPU"),
                    HasSubstr("remove the colocation")));
}

TEST(PlacerTest, StaleColocationIsAnError) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  x.node()->SetAttr("_class",
                    MakeAttr(std::vector<std::string>{"loc:@pruned"}));
  FakeKernelQuery kernels;
  absl::StatusOr<PlacementRecord> record =
      Place(root, "CPU:1", kernels, /*soft=*/true);
  ASSERT_FALSE(record.ok());
  EXPECT_THAT(Message(record),
              HasSubstr("node 'x' (Placeholder) is colocated with node "
                        "'pruned'"));
}

// ---- Pre-assigned nodes -----------------------------------------------------

TEST(PlacerTest, PreassignedNodesKeepTheirDevice) {
  Scope root = Scope::NewRootScope();
  Output x =
      ops::Placeholder(root.WithOpName("x").WithDevice("/gpu:0"), DT_FLOAT);
  x.node()->set_assigned_device("/job:localhost/replica:0/task:0/gpu:1");
  FakeKernelQuery kernels;
  absl::StatusOr<PlacementRecord> record = Place(root, "CPU:1,GPU:2", kernels);
  ASSERT_TRUE(record.ok()) << record.status();
  EXPECT_EQ(Find(*record, "x").assigned_device(), kGpu1);
  EXPECT_EQ(Find(*record, "x").kind(), NodePlacement::PREASSIGNED);
  EXPECT_EQ(x.node()->assigned_device(), kGpu1);
}

TEST(PlacerTest, PreassignedToAMissingDeviceIsAnError) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  x.node()->set_assigned_device(Gpu(5));
  FakeKernelQuery kernels;
  absl::StatusOr<PlacementRecord> record =
      Place(root, "CPU:1,GPU:2", kernels, /*soft=*/true);
  ASSERT_FALSE(record.ok());
  EXPECT_EQ(Message(record),
            "node 'x' (Placeholder) is already assigned to '" + Gpu(5) +
                "', which is not a device of this session (this session has "
                "CPU:0, GPU:0, GPU:1); clear its assigned device or assign "
                "one that exists");
}

TEST(PlacerTest, FailedPlacementAssignsNothing) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  Output y =
      ops::Placeholder(root.WithOpName("y").WithDevice("/gpu:3"), DT_FLOAT);
  FakeKernelQuery kernels;
  ASSERT_FALSE(Place(root, "CPU:1,GPU:1", kernels).ok());
  EXPECT_EQ(x.node()->assigned_device(), "");
  EXPECT_EQ(y.node()->assigned_device(), "");
}

TEST(PlacerTest, DevicesMustBeDistinctAndFullySpecified) {
  Scope root = Scope::NewRootScope();
  ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  FakeKernelQuery kernels;
  PlacementDevice partial;
  partial.name = "/gpu:0";
  partial.spec = *DeviceSpec::Parse("/gpu:0");
  absl::StatusOr<PlacementRecord> record =
      PlaceGraph(root.graph(), {partial}, kernels, PlacerOptions());
  ASSERT_FALSE(record.ok());
  EXPECT_THAT(Message(record), HasSubstr("not a fully specified"));
  std::vector<PlacementDevice> twice = Devices("CPU:1");
  twice.push_back(twice.front());
  record = PlaceGraph(root.graph(), twice, kernels, PlacerOptions());
  ASSERT_FALSE(record.ok());
  EXPECT_THAT(Message(record), HasSubstr("is listed twice"));
}

TEST(PlacerTest, NoDevicesIsAnError) {
  Scope root = Scope::NewRootScope();
  ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  FakeKernelQuery kernels;
  // A device list cannot be empty (ParseSimulatedDevices refuses ""), so
  // the placer is handed none directly.
  EXPECT_FALSE(PlaceGraph(root.graph(), {}, kernels, PlacerOptions()).ok());
}

// ---- Deliberate host placement ---------------------------------------------

TEST(PlacerTest, UnrequestedShapeOpsStayOnTheHost) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  ops::Shape(root.WithOpName("shape"), x);
  ops::Size(root.WithOpName("size"), x);
  ops::Rank(root.WithOpName("rank"), x);
  ops::Shape(root.WithOpName("shape64"), x,
             ops::ShapeAttrs().OutType(DT_INT64));
  ops::Shape(root.WithOpName("gpu_shape").WithDevice("/gpu:0"), x);
  FakeKernelQuery kernels;
  absl::StatusOr<PlacementRecord> record = Place(root, "CPU:1,GPU:1", kernels);
  ASSERT_TRUE(record.ok()) << record.status();
  for (const char* name : {"shape", "size", "rank"}) {
    EXPECT_EQ(Find(*record, name).assigned_device(), kCpu0) << name;
    EXPECT_EQ(Find(*record, name).kind(), NodePlacement::HOST_CHOICE) << name;
  }
  EXPECT_EQ(Find(*record, "shape").reason(),
            "host memory: output (int32 shape computation, Shape)");
  // int64 shapes are not the small host computation; a request wins.
  EXPECT_EQ(Find(*record, "shape64").assigned_device(), kGpu0);
  EXPECT_EQ(Find(*record, "gpu_shape").assigned_device(), kGpu0);
  EXPECT_EQ(Find(*record, "gpu_shape").kind(), NodePlacement::REQUESTED);
  EXPECT_EQ(record->num_soft_fallbacks(), 0);
}

TEST(PlacerTest, ShapeOpsOnACpuOnlySessionAreDefaults) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  ops::Shape(root.WithOpName("shape"), x);
  FakeKernelQuery kernels;
  absl::StatusOr<PlacementRecord> record = Place(root, "CPU:1", kernels);
  ASSERT_TRUE(record.ok()) << record.status();
  EXPECT_EQ(Find(*record, "shape").kind(), NodePlacement::DEFAULT);
}

TEST(PlacerTest, IntegerFeedingAHostMemoryInputStaysOnTheHost) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  Output dims = ops::Const(root.WithOpName("dims"), {2, -1});
  ops::Reshape(root.WithOpName("r"), x, dims);
  FakeKernelQuery kernels;
  {
    absl::StatusOr<PlacementRecord> record =
        Place(root, "CPU:1,GPU:1", kernels);
    ASSERT_TRUE(record.ok()) << record.status();
    EXPECT_EQ(Find(*record, "dims").assigned_device(), kGpu0);
  }
  // The first placement assigned every node: place a fresh copy.
  Scope again = Scope::NewRootScope();
  ops::Reshape(again.WithOpName("r"),
               ops::Placeholder(again.WithOpName("x"), DT_FLOAT),
               ops::Const(again.WithOpName("dims"), {2, -1}));
  kernels.HostMemory("Reshape", "GPU", {"shape"});
  absl::StatusOr<PlacementRecord> record = Place(again, "CPU:1,GPU:1", kernels);
  ASSERT_TRUE(record.ok()) << record.status();
  const NodePlacement& dims_p = Find(*record, "dims");
  EXPECT_EQ(dims_p.assigned_device(), kCpu0);
  EXPECT_EQ(dims_p.kind(), NodePlacement::HOST_CHOICE);
  EXPECT_EQ(dims_p.reason(),
            "host memory: feeds input 'shape' of 'r' (Reshape), which its "
            "kernels keep in host memory");
  EXPECT_EQ(Find(*record, "r").assigned_device(), kGpu0);
}

TEST(PlacerTest, KernelWithOnlyHostMemoryArgumentsStaysOnTheHost) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  ops::Identity(root.WithOpName("id"), x);
  FakeKernelQuery kernels;
  kernels.HostMemory("Identity", "GPU", {"input", "output"});
  absl::StatusOr<PlacementRecord> record = Place(root, "CPU:1,GPU:1", kernels);
  ASSERT_TRUE(record.ok()) << record.status();
  EXPECT_EQ(Find(*record, "id").assigned_device(), kCpu0);
  EXPECT_EQ(Find(*record, "id").reason(),
            "host memory: every argument of its GPU kernel is in host memory");
}

// ---- Determinism
// -------------------------------------------------------------

void BuildMixedGraph(const Scope& root) {
  Output v = ops::Variable(root.WithOpName("v").WithDevice("/cpu:0"),
                           TensorShape({2, 2}), DT_FLOAT);
  for (int i = 0; i < 3; ++i) {
    Scope t = root.NewSubScope(absl::StrCat("tower_", i))
                  .WithDevice(absl::StrCat("/gpu:", i));
    Output x = ops::Placeholder(t.WithOpName("x"), DT_FLOAT);
    Output mm = ops::MatMul(t.WithOpName("MatMul"), x, v);
    ops::Shape(root.NewSubScope(absl::StrCat("s", i)), mm);
    ops::Neg(root.ColocateWith(mm).WithOpName(absl::StrCat("grad_", i)), mm);
  }
  Output h = ops::VarHandleOp(root.WithOpName("h"), DT_FLOAT, TensorShape({2}));
  ops::ReadVariableOp(root.WithOpName("read"), h, DT_FLOAT);
}

TEST(PlacerTest, SamePlacementForTheSameGraphAndDevices) {
  FakeKernelQuery kernels;
  kernels.Kernels("VarHandleOp", {"CPU"});
  Scope a = Scope::NewRootScope();
  BuildMixedGraph(a);
  Scope b = Scope::NewRootScope();
  BuildMixedGraph(b);
  absl::StatusOr<PlacementRecord> ra = Place(a, "CPU:2,GPU:2", kernels, true);
  ASSERT_TRUE(ra.ok()) << ra.status();
  // Devices listed in another order.
  std::vector<PlacementDevice> devices = Devices("GPU:2,CPU:2");
  std::reverse(devices.begin(), devices.end());
  PlacerOptions options;
  options.allow_soft_placement = true;
  absl::StatusOr<PlacementRecord> rb =
      PlaceGraph(b.graph(), devices, kernels, options);
  ASSERT_TRUE(rb.ok()) << rb.status();
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(*ra, *rb))
      << ra->DebugString() << "\nvs\n"
      << rb->DebugString();
  // Placing again (now every node is pre-assigned) keeps every device.
  absl::StatusOr<PlacementRecord> again =
      Place(a, "CPU:2,GPU:2", kernels, true);
  ASSERT_TRUE(again.ok()) << again.status();
  for (int i = 0; i < ra->nodes_size(); ++i) {
    EXPECT_EQ(again->nodes(i).assigned_device(),
              ra->nodes(i).assigned_device());
    EXPECT_EQ(again->nodes(i).kind(), NodePlacement::PREASSIGNED);
  }
  EXPECT_EQ(Find(*ra, "tower_2/MatMul").kind(), NodePlacement::SOFT_FALLBACK);
  EXPECT_EQ(Find(*ra, "read").assigned_device(), kCpu0);
}

// ---- The devices issue's scenario: 4 towers ---------------------------------

// Towers under tower_i on /gpu:i, shared variables on /cpu:0, gradients
// colocated with their forward ops, averaged and applied on the CPU.
void BuildTowers(const Scope& root) {
  Scope cpu = root.WithDevice("/cpu:0");
  Output w = ops::Variable(cpu.WithOpName("w"), TensorShape({4, 4}), DT_FLOAT);
  Output b = ops::Variable(cpu.WithOpName("b"), TensorShape({4}), DT_FLOAT);
  std::vector<Output> grads;
  for (int i = 0; i < 4; ++i) {
    Scope tower = root.NewSubScope(absl::StrCat("tower_", i))
                      .WithDevice(absl::StrCat("/gpu:", i));
    Output x = ops::Placeholder(tower.WithOpName("x"), DT_FLOAT);
    Output mm = ops::MatMul(tower.WithOpName("MatMul"), x, w);
    Output y = ops::BiasAdd(tower.WithOpName("BiasAdd"), mm, b);
    ops::Sum(tower.WithOpName("loss"), y, {0, 1});
    Scope grad_scope = tower.NewSubScope("gradients");
    Output dy = ops::OnesLike(grad_scope.ColocateWith(y), y);
    grads.push_back(ops::MatMul(grad_scope.ColocateWith(mm).WithOpName("dw"), x,
                                dy, ops::MatMulAttrs().TransposeA(true)));
  }
  Output avg = ops::AddN(cpu.WithOpName("avg"), grads);
  ops::AssignSub(cpu.WithOpName("apply_w"), w, avg);
}

TEST(PlacerTowersTest, FourTowersOnFourGpus) {
  Scope root = Scope::NewRootScope();
  BuildTowers(root);
  FakeKernelQuery kernels;
  absl::StatusOr<PlacementRecord> record =
      Place(root, "CPU:1,GPU:4", kernels, /*soft=*/true);
  ASSERT_TRUE(record.ok()) << record.status();
  for (const NodePlacement& p : record->nodes()) {
    ASSERT_FALSE(p.reason().empty()) << p.name();
    if (absl::StartsWith(p.name(), "tower_")) {
      int i = p.name()[6] - '0';
      EXPECT_EQ(p.assigned_device(), Gpu(i)) << p.name();
    } else {
      EXPECT_EQ(p.assigned_device(), kCpu0) << p.name();
    }
  }
  EXPECT_EQ(Find(*record, "tower_3/gradients/dw").kind(),
            NodePlacement::REQUESTED);
  EXPECT_EQ(Find(*record, "apply_w").kind(), NodePlacement::REQUESTED);
  EXPECT_EQ(record->num_soft_fallbacks(), 0);
}

TEST(PlacerTowersTest, TowersTwoAndThreeFallBackOnTwoGpus) {
  Scope root = Scope::NewRootScope();
  BuildTowers(root);
  FakeKernelQuery kernels;
  absl::StatusOr<PlacementRecord> record =
      Place(root, "CPU:1,GPU:2", kernels, /*soft=*/true);
  ASSERT_TRUE(record.ok()) << record.status();
  int fallbacks = 0;
  for (const NodePlacement& p : record->nodes()) {
    if (absl::StartsWith(p.name(), "tower_0/")) {
      EXPECT_EQ(p.assigned_device(), kGpu0) << p.name();
    } else if (absl::StartsWith(p.name(), "tower_1/")) {
      EXPECT_EQ(p.assigned_device(), kGpu1) << p.name();
    } else if (absl::StartsWith(p.name(), "tower_")) {
      int i = p.name()[6] - '0';
      ++fallbacks;
      EXPECT_EQ(p.kind(), NodePlacement::SOFT_FALLBACK) << p.name();
      EXPECT_EQ(p.assigned_device(), kGpu0) << p.name();
      EXPECT_EQ(p.reason(),
                absl::StrCat("soft placement: /device:GPU:", i,
                             " does not exist (this session has CPU:0, GPU:0, "
                             "GPU:1)"))
          << p.name();
    } else {
      EXPECT_EQ(p.assigned_device(), kCpu0) << p.name();
    }
  }
  EXPECT_GT(fallbacks, 0);
  EXPECT_EQ(record->num_soft_fallbacks(), fallbacks);
  std::string log = FormatPlacementLog(*record);
  EXPECT_THAT(log, HasSubstr("tower_2/MatMul (MatMul) -> " + Gpu(0) +
                             ": soft placement: /device:GPU:2 does not exist"));
}

TEST(PlacerTowersTest, WithoutSoftPlacementTheErrorNamesATowerTwoNode) {
  Scope root = Scope::NewRootScope();
  BuildTowers(root);
  FakeKernelQuery kernels;
  absl::StatusOr<PlacementRecord> record =
      Place(root, "CPU:1,GPU:2", kernels, /*soft=*/false);
  ASSERT_FALSE(record.ok());
  EXPECT_THAT(Message(record),
              AllOf(StartsWith("node 'tower_2/"),
                    HasSubstr("asked for /device:GPU:2 but this session has "
                              "CPU:0, GPU:0, GPU:1"),
                    HasSubstr("enable soft placement")));
}

}  // namespace
}  // namespace dflow
