// Issue 20 item 2: graphs that ask for more memory than a device may hold
// fail with ResourceExhausted naming the node, its op, the device, the bytes
// asked and the limit (never std::bad_alloc, an abort or the OOM killer),
// through `dflow run --memory_limit` and SessionOptions.memory_limit_bytes;
// a step that blocks forever ends at SessionOptions.step_timeout_ms; and a
// very long chain of nodes imports, places and runs without recursion
// growing with its length.
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "compiler/placement_device.h"
#include "compiler/placer.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "graph/graph.h"
#include "graph/graph_def_import.h"
#include "graph/tensor.h"
#include "gtest/gtest.h"
#include "proto/graph.pb.h"
#include "runtime/placement_bridge.h"
#include "runtime/session.h"
#include "tests/tools/tool_test_util.h"
#include "tools/run.h"

namespace dflow {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using tool_testing::Result;
using tool_testing::TempPath;

Result RunCli(const std::vector<std::string>& args) {
  return tool_testing::RunVerb(RunRun, args);
}

std::string Attr(const std::string& key, const std::string& value) {
  return absl::StrCat("attr { key: '", key, "' value { ", value, " } } ");
}

// A Const of int64 values (a shape or multiples vector).
std::string Int64Vector(const std::string& name,
                        const std::vector<int64_t>& values) {
  std::string vals;
  for (int64_t v : values) absl::StrAppend(&vals, " int64_val: ", v);
  return absl::StrCat(
      "node { name: '", name, "' op: 'Const' ", Attr("dtype", "type: DT_INT64"),
      Attr("value", absl::StrCat("tensor { dtype: DT_INT64 tensor_shape { dim "
                                 "{ size: ",
                                 values.size(), " } } ", vals, " }")),
      "}\n");
}

std::string FloatScalar(const std::string& name) {
  return absl::StrCat(
      "node { name: '", name, "' op: 'Const' ", Attr("dtype", "type: DT_FLOAT"),
      Attr("value", "tensor { dtype: DT_FLOAT tensor_shape { } float_val: 1 }"),
      "}\n");
}

std::string FillGraph(int64_t elements) {
  return absl::StrCat(
      Int64Vector("dims", {elements}), FloatScalar("one"),
      "node { name: 'big' op: 'Fill' input: 'dims' input: 'one' ",
      Attr("T", "type: DT_FLOAT"), Attr("index_type", "type: DT_INT64"), "}\n");
}

std::string WriteGraph(const std::string& name, const std::string& text) {
  const std::string path = TempPath(name);
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

GraphDef ParseText(const std::string& text) {
  GraphDef def;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &def));
  return def;
}

// Fill of [1 << 40] floats (4 TiB): refused by the default limit (the
// machine's memory) before malloc is asked.
TEST(ResourceLimitsTest, HugeFillFailsNamingNodeAndBytes) {
  const std::string graph =
      WriteGraph("huge_fill.pbtxt", FillGraph(int64_t{1} << 40));
  Result r = RunCli({"--graph", graph, "--fetch", "big"});
  EXPECT_EQ(r.rc, 1);
  EXPECT_THAT(r.err, AllOf(HasSubstr("node 'big' (Fill)"),
                           HasSubstr("4398046511104 bytes"), HasSubstr("CPU:0"),
                           HasSubstr("memory limit")));
}

// Tile to 16 GiB under --memory_limit 2GB.
TEST(ResourceLimitsTest, TileBeyondMemoryLimitFailsNamingTheLimit) {
  const std::string text = absl::StrCat(
      FillGraph(1 << 20), Int64Vector("multiples", {4096}),
      "node { name: 'tiled' op: 'Tile' input: 'big' input: 'multiples' ",
      Attr("T", "type: DT_FLOAT"), Attr("Tmultiples", "type: DT_INT64"), "}\n");
  const std::string graph = WriteGraph("huge_tile.pbtxt", text);
  Result r =
      RunCli({"--graph", graph, "--fetch", "tiled", "--memory_limit", "2GB"});
  EXPECT_EQ(r.rc, 1);
  EXPECT_THAT(r.err, AllOf(HasSubstr("node 'tiled' (Tile)"),
                           HasSubstr("17179869184 bytes"),
                           HasSubstr("memory limit is 2000000000 bytes")));
  // The same graph's input alone (4 MiB) fits.
  Result small =
      RunCli({"--graph", graph, "--fetch", "big", "--memory_limit", "2GB"});
  EXPECT_EQ(small.rc, 0) << small.err;
}

// A Const whose few values stand for a huge shape is refused when its
// kernel decodes it into the device's memory, naming the node.
TEST(ResourceLimitsTest, ConstWithHugeShapeFailsNamingTheNode) {
  const std::string text = absl::StrCat(
      "node { name: 'c' op: 'Const' ", Attr("dtype", "type: DT_FLOAT"),
      Attr("value",
           "tensor { dtype: DT_FLOAT tensor_shape { dim { size: 1099511627776 "
           "} } float_val: 0 }"),
      "}\n");
  const std::string graph = WriteGraph("huge_const.pbtxt", text);
  Result r = RunCli({"--graph", graph, "--fetch", "c"});
  EXPECT_EQ(r.rc, 1);
  EXPECT_THAT(r.err, AllOf(HasSubstr("'c'"), HasSubstr("(Const)"),
                           HasSubstr("4398046511104 bytes"),
                           HasSubstr("memory limit")));
}

// RandomUniform and ZerosLike of a huge shape, in a session.
TEST(ResourceLimitsTest, RandomAndZerosOfHugeShapeAreResourceExhausted) {
  const GraphDef def = ParseText(
      absl::StrCat(Int64Vector("shape", {1 << 20, 1 << 20}),
                   "node { name: 'r' op: 'RandomUniform' input: 'shape' ",
                   Attr("dtype", "type: DT_FLOAT"), Attr("T", "type: DT_INT64"),
                   "}\n", "node { name: 'z' op: 'ZerosLike' input: 'r' ",
                   Attr("T", "type: DT_FLOAT"), "}\n"));
  SessionOptions options;
  options.memory_limit_bytes = 64 << 20;
  auto session = Session::Create(def, options);
  ASSERT_TRUE(session.ok()) << session.status();
  std::vector<Tensor> out;
  absl::Status s = (*session)->Run({}, {"z"}, {}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted) << s;
  EXPECT_THAT(s.message(), AllOf(HasSubstr("node 'r' (RandomUniform)"),
                                 HasSubstr("4398046511104 bytes"),
                                 HasSubstr("67108864 bytes")));
  // The session is not left broken: a step that fits runs.
  s = (*session)->Run({}, {"shape"}, {}, &out);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(out[0].NumElements(), 2);
}

// The limit counts what is live at once: two 3 MiB outputs fetched
// together cannot both exist under a 5 MiB limit, though each fits alone.
TEST(ResourceLimitsTest, LimitCountsLiveTensorsOfTheStep) {
  const GraphDef def = ParseText(absl::StrCat(
      Int64Vector("dims", {3 << 18}), FloatScalar("one"),
      "node { name: 'a' op: 'Fill' input: 'dims' input: 'one' ",
      Attr("T", "type: DT_FLOAT"), Attr("index_type", "type: DT_INT64"), "}\n",
      "node { name: 'b' op: 'Fill' input: 'dims' input: 'one' ",
      Attr("T", "type: DT_FLOAT"), Attr("index_type", "type: DT_INT64"),
      "}\n"));
  SessionOptions options;
  options.memory_limit_bytes = 5 << 20;
  options.optimize_graph = false;  // no CSE merging a and b
  auto session = Session::Create(def, options);
  ASSERT_TRUE(session.ok()) << session.status();
  std::vector<Tensor> out;
  ASSERT_TRUE((*session)->Run({}, {"a"}, {}, &out).ok());
  out.clear();
  absl::Status s = (*session)->Run({}, {"a", "b"}, {}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted) << s;
  EXPECT_THAT(s.message(),
              AllOf(HasSubstr("(Fill)"), HasSubstr("3145728 bytes"),
                    HasSubstr("memory limit is 5242880 bytes")));
  out.clear();
  EXPECT_TRUE((*session)->Run({}, {"b"}, {}, &out).ok());
}

TEST(ResourceLimitsTest, MemoryLimitFlagIsChecked) {
  const std::string graph = WriteGraph("small_fill.pbtxt", FillGraph(4));
  for (const char* bad : {"lots", "-5", "2XB", "1e30"}) {
    Result r =
        RunCli({"--graph", graph, "--fetch", "big", "--memory_limit", bad});
    EXPECT_EQ(r.rc, 2) << bad;
    EXPECT_THAT(r.err, HasSubstr("--memory_limit")) << bad;
  }
  for (const char* good : {"1000000", "1MB", "1MiB", "0.5GiB", "64K"}) {
    Result r =
        RunCli({"--graph", graph, "--fetch", "big", "--memory_limit", good});
    EXPECT_EQ(r.rc, 0) << good << ": " << r.err;
  }
  // 16 bytes hold the output but not a 17-element one.
  Result r = RunCli({"--graph", WriteGraph("fill17.pbtxt", FillGraph(17)),
                     "--fetch", "big", "--memory_limit", "64B"});
  EXPECT_EQ(r.rc, 1);
  EXPECT_THAT(r.err, HasSubstr("asked for 68 bytes"));
  SessionOptions negative;
  negative.memory_limit_bytes = -1;
  EXPECT_EQ(Session::Create(ParseText(FillGraph(4)), negative).status().code(),
            absl::StatusCode::kInvalidArgument);
}

// A dequeue from a queue nothing fills would wait forever; the session's
// default step timeout ends it.
TEST(ResourceLimitsTest, SessionStepTimeoutEndsABlockedStep) {
  const GraphDef def = ParseText(
      absl::StrCat("node { name: 'q' op: 'FIFOQueueV2' ",
                   Attr("component_types", "list { type: DT_FLOAT }"),
                   Attr("capacity", "i: 1"), "}\n",
                   "node { name: 'd' op: 'QueueDequeueV2' input: 'q' ",
                   Attr("component_types", "list { type: DT_FLOAT }"), "}\n"));
  SessionOptions options;
  options.step_timeout_ms = 100;
  auto session = Session::Create(def, options);
  ASSERT_TRUE(session.ok()) << session.status();
  std::vector<Tensor> out;
  absl::Status s = (*session)->Run({}, {"d"}, {}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kDeadlineExceeded) << s;
}

// x -> Neg -> Neg -> ... : import, placement and a run must not recurse
// once per node. DFLOW_CHAIN_NODES overrides the length (the README gives
// the times for 1,000,000).
GraphDef ChainGraph(int n) {
  GraphDef def;
  NodeDef* x = def.add_node();
  x->set_name("x");
  x->set_op("Placeholder");
  (*x->mutable_attr())["dtype"].set_type(DT_FLOAT);
  std::string prev = "x";
  for (int i = 0; i < n; ++i) {
    NodeDef* node = def.add_node();
    node->set_name(absl::StrCat("n", i));
    node->set_op("Neg");
    node->add_input(prev);
    (*node->mutable_attr())["T"].set_type(DT_FLOAT);
    prev = node->name();
  }
  return def;
}

TEST(ResourceLimitsTest, LongChainImportsPlacesAndRuns) {
  int n = 100000;
  if (const char* env = std::getenv("DFLOW_CHAIN_NODES")) n = std::atoi(env);
  const GraphDef def = ChainGraph(n);

  absl::Time start = absl::Now();
  Graph graph;
  ASSERT_TRUE(ImportGraphDef(def, ImportOptions(), &graph).ok());
  const absl::Duration import_time = absl::Now() - start;
  start = absl::Now();
  RegistryKernelQuery kernels;
  auto devices = ParseSimulatedDevices("CPU:1");
  ASSERT_TRUE(devices.ok());
  auto placed = PlaceGraph(&graph, *devices, kernels, PlacerOptions());
  ASSERT_TRUE(placed.ok()) << placed.status();
  const absl::Duration place_time = absl::Now() - start;

  start = absl::Now();
  auto session = Session::Create(def);
  ASSERT_TRUE(session.ok()) << session.status();
  Tensor x(DT_FLOAT, TensorShape({2}));
  x.flat<float>()[0] = 3;
  x.flat<float>()[1] = -4;
  std::vector<Tensor> out;
  const std::string last = absl::StrCat("n", n - 1);
  absl::Status s = (*session)->Run({{"x", x}}, {last}, {}, &out);
  ASSERT_TRUE(s.ok()) << s;
  const absl::Duration run_time = absl::Now() - start;
  const float sign = n % 2 == 0 ? 1.0f : -1.0f;
  EXPECT_EQ(out[0].flat<float>()[0], 3 * sign);
  EXPECT_EQ(out[0].flat<float>()[1], -4 * sign);
  std::cout << n << " nodes: import " << absl::FormatDuration(import_time)
            << ", place " << absl::FormatDuration(place_time)
            << ", session create + compile + run "
            << absl::FormatDuration(run_time) << "\n";
}

}  // namespace
}  // namespace dflow
