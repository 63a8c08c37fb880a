// Tests for the placement log (exact lines) and the JSON record.

#include "compiler/placement_log.h"

#include <string>

#include "compiler/placer.h"
#include "fake_kernel_query.h"
#include "gmock/gmock.h"
#include "google/protobuf/util/message_differencer.h"
#include "graph/ops/ops.h"
#include "graph/scope.h"
#include "gtest/gtest.h"

namespace dflow {
namespace {

using ::testing::HasSubstr;

PlacementRecord TwoTowersOnOneGpu() {
  Scope root = Scope::NewRootScope();
  Output w = ops::Variable(root.WithOpName("w").WithDevice("/cpu:0"),
                           TensorShape({2, 2}), DT_FLOAT);
  for (int i = 0; i < 2; ++i) {
    Scope tower = root.NewSubScope(absl::StrCat("tower_", i))
                      .WithDevice(absl::StrCat("/gpu:", i));
    Output x = ops::Placeholder(tower.WithOpName("x"), DT_FLOAT);
    ops::MatMul(tower.WithOpName("MatMul"), x, w);
  }
  FakeKernelQuery kernels;
  PlacerOptions options;
  options.allow_soft_placement = true;
  absl::StatusOr<PlacementRecord> record = PlaceGraph(
      root.graph(), *ParseSimulatedDevices("CPU:1,GPU:1"), kernels, options);
  EXPECT_TRUE(record.ok()) << record.status();
  return *record;
}

TEST(PlacementLogTest, LinesInTensorFlowFormatThenSummary) {
  EXPECT_EQ(
      FormatPlacementLog(TwoTowersOnOneGpu()),
      "w: (VariableV2): /job:localhost/replica:0/task:0/device:CPU:0\n"
      "tower_0/x: (Placeholder): /job:localhost/replica:0/task:0/device:GPU:0\n"
      "tower_0/MatMul: (MatMul): /job:localhost/replica:0/task:0/device:GPU:0\n"
      "tower_1/x: (Placeholder): /job:localhost/replica:0/task:0/device:GPU:0\n"
      "tower_1/MatMul: (MatMul): /job:localhost/replica:0/task:0/device:GPU:0\n"
      "Placement summary: 5 nodes\n"
      "  /job:localhost/replica:0/task:0/device:GPU:0: 4 nodes\n"
      "  /job:localhost/replica:0/task:0/device:CPU:0: 1 node\n"
      "Soft placement fallbacks: 2\n"
      "  tower_1/x (Placeholder) -> "
      "/job:localhost/replica:0/task:0/device:GPU:0: soft placement: "
      "/device:GPU:1 does not exist (this session has CPU:0, GPU:0)\n"
      "  tower_1/MatMul (MatMul) -> "
      "/job:localhost/replica:0/task:0/device:GPU:0: soft placement: "
      "/device:GPU:1 does not exist (this session has CPU:0, GPU:0)\n");
}

TEST(PlacementLogTest, SendRecvGetNoLineAndNoFallbacksSaysNone) {
  PlacementRecord record;
  for (const char* op : {"Const", "_Send", "_Recv"}) {
    NodePlacement* p = record.add_nodes();
    p->set_name(absl::StrCat("n_", op));
    p->set_op(op);
    p->set_assigned_device("/job:localhost/replica:0/task:0/device:CPU:0");
    p->set_kind(NodePlacement::DEFAULT);
  }
  DeviceNodeCount* c = record.add_device_counts();
  c->set_device("/job:localhost/replica:0/task:0/device:CPU:0");
  c->set_num_nodes(3);
  EXPECT_EQ(FormatPlacementLog(record),
            "n_Const: (Const): /job:localhost/replica:0/task:0/device:CPU:0\n"
            "Placement summary: 3 nodes\n"
            "  /job:localhost/replica:0/task:0/device:CPU:0: 3 nodes\n"
            "Soft placement fallbacks: none\n");
}

TEST(PlacementLogTest, JsonRoundTrip) {
  PlacementRecord record = TwoTowersOnOneGpu();
  absl::StatusOr<std::string> json = PlacementRecordToJson(record);
  ASSERT_TRUE(json.ok()) << json.status();
  EXPECT_THAT(*json, HasSubstr("\"kind\": \"SOFT_FALLBACK\""));
  EXPECT_THAT(*json, HasSubstr("\"assigned_device\": "
                               "\"/job:localhost/replica:0/task:0/device:"
                               "GPU:0\""));
  EXPECT_THAT(*json, HasSubstr("\"num_soft_fallbacks\": 2"));
  EXPECT_THAT(*json, HasSubstr("\"allow_soft_placement\": true"));
  absl::StatusOr<PlacementRecord> back = PlacementRecordFromJson(*json);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(record, *back))
      << back->DebugString();
}

TEST(PlacementLogTest, JsonWritesZeroFieldsSoTheSchemaIsStable) {
  PlacementRecord record;
  NodePlacement* p = record.add_nodes();
  p->set_name("a");
  absl::StatusOr<std::string> json = PlacementRecordToJson(record);
  ASSERT_TRUE(json.ok()) << json.status();
  for (const char* field :
       {"\"name\"", "\"op\"", "\"requested_device\"", "\"assigned_device\"",
        "\"kind\"", "\"reason\"", "\"group\"", "\"num_soft_fallbacks\""}) {
    EXPECT_THAT(*json, HasSubstr(field)) << field;
  }
}

TEST(PlacementLogTest, MalformedJsonIsAnError) {
  absl::StatusOr<PlacementRecord> record =
      PlacementRecordFromJson("{\"nodes\": [{\"kind\": \"SIDEWAYS\"}]}");
  ASSERT_FALSE(record.ok());
  EXPECT_THAT(std::string(record.status().message()),
              HasSubstr("not a placement record in JSON"));
}

}  // namespace
}  // namespace dflow
