// `dflow place` in process on a 4-tower graph built with the C++ API (the
// seed's shape: shared variables on /cpu:0, tower_i on /gpu:i), written to a
// temporary .pbtxt and placed against simulated device sets.
#include "tools/place.h"

#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/placement_log.h"
#include "gmock/gmock.h"
#include "graph/graph_def_file.h"
#include "graph/ops/ops.h"
#include "graph/scope.h"
#include "gtest/gtest.h"
#include "tests/tools/tool_test_util.h"

namespace dflow {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;
using tool_testing::ReadFile;
using tool_testing::Result;
using tool_testing::TempPath;

constexpr char kCpu0[] = "/job:localhost/replica:0/task:0/device:CPU:0";

std::string Gpu(int i) {
  return absl::StrCat("/job:localhost/replica:0/task:0/device:GPU:", i);
}

Result Place(const std::vector<std::string>& args) {
  return tool_testing::RunVerb(RunPlace, args);
}

std::string WriteTowerGraph() {
  return tool_testing::WriteTowerGraph(4, "towers.pbtxt");
}

// "name: (Op): device" lines -> name -> device.
std::map<std::string, std::string> Assignments(const std::string& log) {
  std::map<std::string, std::string> devices;
  std::istringstream in(log);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("Placement summary", 0) == 0) break;
    const size_t op = line.find(": (");
    const size_t dev = line.find("): ");
    if (op == std::string::npos || dev == std::string::npos) continue;
    devices[line.substr(0, op)] = line.substr(dev + 3);
  }
  return devices;
}

TEST(PlaceTest, FourGpusPutEachTowerOnItsGpuAndVariablesOnTheCpu) {
  const std::string graph = WriteTowerGraph();
  Result r =
      Place({"--graph", graph, "--devices", "CPU:1,GPU:4", "--soft_placement"});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.err, "");
  // TensorFlow's log_device_placement lines.
  EXPECT_THAT(r.out, HasSubstr(absl::StrCat("w: (VariableV2): ", kCpu0, "\n")));
  EXPECT_THAT(r.out, HasSubstr(absl::StrCat("b: (VariableV2): ", kCpu0, "\n")));
  EXPECT_THAT(r.out, HasSubstr(absl::StrCat(
                         "tower_3/MatMul: (MatMul): ", Gpu(3), "\n")));
  std::map<std::string, std::string> devices = Assignments(r.out);
  EXPECT_EQ(devices["w"], kCpu0);
  EXPECT_EQ(devices["b"], kCpu0);
  EXPECT_EQ(devices["init"], kCpu0);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(devices[absl::StrCat("x_", i)], kCpu0);
    for (const char* node : {"MatMul", "BiasAdd", "Relu", "loss"}) {
      EXPECT_EQ(devices[absl::StrCat("tower_", i, "/", node)], Gpu(i))
          << "tower_" << i << "/" << node << "\n"
          << r.out;
    }
  }
  EXPECT_THAT(r.out, HasSubstr("Placement summary: "));
  EXPECT_THAT(r.out, HasSubstr(absl::StrCat("  ", Gpu(3), ": 4 nodes\n")));
  EXPECT_THAT(r.out, HasSubstr("Soft placement fallbacks: none\n"));
}

TEST(PlaceTest, TwoGpusShowTowersTwoAndThreeFallingBackWithReasons) {
  const std::string graph = WriteTowerGraph();
  Result r =
      Place({"--graph", graph, "--devices", "CPU:1,GPU:2", "--soft_placement"});
  ASSERT_EQ(r.rc, 0) << r.err;
  const size_t summary = r.out.find("Soft placement fallbacks: 8\n");
  ASSERT_NE(summary, std::string::npos) << r.out;
  const std::string fallbacks = r.out.substr(summary);
  for (int i : {2, 3}) {
    EXPECT_THAT(fallbacks,
                HasSubstr(absl::StrCat("  tower_", i, "/MatMul (MatMul) -> ")));
    EXPECT_THAT(fallbacks,
                HasSubstr(absl::StrCat("soft placement: /device:GPU:", i,
                                       " does not exist (this session has "
                                       "CPU:0, GPU:0, GPU:1)")));
  }
  EXPECT_THAT(fallbacks, Not(HasSubstr("tower_0/")));
  EXPECT_THAT(fallbacks, Not(HasSubstr("tower_1/")));
  std::map<std::string, std::string> devices = Assignments(r.out);
  EXPECT_EQ(devices["tower_0/MatMul"], Gpu(0));
  EXPECT_EQ(devices["tower_1/MatMul"], Gpu(1));
  EXPECT_EQ(devices["w"], kCpu0);
  // The fallbacks stay on a GPU: the best device left.
  EXPECT_THAT(devices["tower_2/MatMul"], HasSubstr("/device:GPU:"));
  EXPECT_THAT(devices["tower_3/MatMul"], HasSubstr("/device:GPU:"));
}

TEST(PlaceTest, WithoutSoftPlacementTheErrorNamesNodeRequestAndDevices) {
  const std::string graph = WriteTowerGraph();
  Result r = Place({"--graph", graph, "--devices", "CPU:1,GPU:2"});
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_THAT(
      r.err, AllOf(HasSubstr("error: "), HasSubstr("'tower_2/"),
                   HasSubstr("/device:GPU:2"), HasSubstr("CPU:0, GPU:0, GPU:1"),
                   HasSubstr("soft placement")));
  EXPECT_EQ(r.err.rfind("error: ", 0), 0u) << r.err;
}

TEST(PlaceTest, JsonRecordParsesBackWithTheSameAssignments) {
  const std::string graph = WriteTowerGraph();
  const std::string json = TempPath("placement.json");
  Result r = Place({"--graph", graph, "--devices", "CPU:1,GPU:2",
                    "--soft_placement", "--json", json});
  ASSERT_EQ(r.rc, 0) << r.err;
  absl::StatusOr<PlacementRecord> record =
      PlacementRecordFromJson(ReadFile(json));
  ASSERT_TRUE(record.ok()) << record.status();
  EXPECT_TRUE(record->allow_soft_placement());
  EXPECT_EQ(record->num_soft_fallbacks(), 8);
  std::map<std::string, std::string> printed = Assignments(r.out);
  std::map<std::string, std::string> parsed;
  for (const NodePlacement& n : record->nodes()) {
    parsed[n.name()] = n.assigned_device();
    if (n.name().rfind("tower_3/", 0) == 0) {
      EXPECT_EQ(n.kind(), NodePlacement::SOFT_FALLBACK) << n.name();
      EXPECT_EQ(n.requested_device(), "/device:GPU:3") << n.name();
      EXPECT_THAT(n.reason(), HasSubstr("GPU:3 does not exist"));
    }
  }
  EXPECT_EQ(parsed, printed);
  EXPECT_EQ(parsed.size(), static_cast<size_t>(record->nodes_size()));
}

TEST(PlaceTest, StrictFailsOnAFallback) {
  const std::string graph = WriteTowerGraph();
  Result r = Place({"--graph", graph, "--devices", "CPU:1,GPU:2",
                    "--soft_placement", "--strict"});
  EXPECT_EQ(r.rc, 1);
  EXPECT_THAT(r.err, AllOf(HasSubstr("error: "), HasSubstr("'tower_2/"),
                           HasSubstr("strict")));
  // Strict with every request satisfiable is fine.
  r = Place({"--graph", graph, "--devices", "CPU:1,GPU:4", "--soft_placement",
             "--strict"});
  EXPECT_EQ(r.rc, 0) << r.err;
}

TEST(PlaceTest, DefaultDevicesAreThisMachinesCpu) {
  const std::string graph = WriteTowerGraph();
  Result r = Place({"--graph", graph, "--soft_placement"});
  ASSERT_EQ(r.rc, 0) << r.err;
  std::map<std::string, std::string> devices = Assignments(r.out);
  EXPECT_EQ(devices["tower_0/MatMul"], kCpu0);
  EXPECT_THAT(r.out, HasSubstr("this session has CPU:0)"));
  r = Place({"--graph", graph});
  EXPECT_EQ(r.rc, 1);
  EXPECT_THAT(r.err, HasSubstr("'tower_0/"));
}

TEST(PlaceTest, UsageErrorsExitTwo) {
  const std::string graph = WriteTowerGraph();
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{
           {"--graph", graph, "--devices", "GPU:x"},
           {"--graph", graph, "--devices", "CPU:1,CPU:2"},
           {"--graph", graph, "--devices", "CPU:1,GPU:-1"},
           {"--graph", graph, "--devices", "CPU:0"},
           {"--graph", graph, "--devices"},
           {"--graph", graph, "--json"},
           {"--graph", graph, "--frobnicate"},
           {"--devices", "CPU:1"},
       }) {
    Result r = Place(args);
    EXPECT_EQ(r.rc, 2) << args.back() << "\n" << r.out << r.err;
    EXPECT_NE(r.err, "") << args.back();
    EXPECT_EQ(r.out, "") << args.back();
  }
  Result r = Place({"--graph", graph, "--devices", "GPU:x"});
  EXPECT_THAT(r.err, HasSubstr("--devices"));
}

TEST(PlaceTest, UnreadableOrInvalidGraphExitsOne) {
  Result r = Place({"--graph", TempPath("no_such_graph.pbtxt")});
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(r.err.rfind("error: ", 0), 0u) << r.err;

  const std::string bad = TempPath("bad.pbtxt");
  std::ofstream(bad) << "node { name: \"m\" op: \"NoOp\" input: \"^ghost\" }\n";
  r = Place({"--graph", bad});
  EXPECT_EQ(r.rc, 1);
  EXPECT_THAT(r.err, AllOf(HasSubstr("error: "), HasSubstr("ghost")));

  // An op dflow lacks is no error of the graph: it is placed where its
  // requests say, as TensorFlow would place it.
  const std::string unknown = TempPath("unknown.pbtxt");
  std::ofstream(unknown)
      << "node { name: \"m\" op: \"FrobnicateV7\" device: \"/cpu:0\" }\n";
  r = Place({"--graph", unknown});
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("FrobnicateV7"));
}

TEST(PlaceTest, HelpDescribesTheFlagsAndSimulatedDevices) {
  Result r = Place({"--help"});
  EXPECT_EQ(r.rc, 0);
  EXPECT_THAT(r.out,
              AllOf(HasSubstr("Usage: dflow place --graph FILE"),
                    HasSubstr("--devices"), HasSubstr("--soft_placement"),
                    HasSubstr("--strict"), HasSubstr("--json"),
                    HasSubstr("no GPU"), HasSubstr("Exit code")));
}

}  // namespace
}  // namespace dflow

namespace dflow {
namespace {

// A TensorFlow-written text .meta is placed from its GraphDef.
TEST(PlaceTest, ReadsTheGraphOfAMetaGraphFile) {
  Result r = Place(
      {"--graph", "tests/testdata/tf_saved_model/unknown_collection.meta.pbtxt"});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("Placement summary: 9 nodes"));
}

}  // namespace
}  // namespace dflow
