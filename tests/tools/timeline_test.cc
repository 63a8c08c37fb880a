// Timeline: a 2-device session step and hand-made step stats turned into
// Chrome trace JSON, read back with protobuf's JSON parser (into a
// google.protobuf.Struct) and checked: one process per device, slices named
// by op type with the node and its inputs in args, Send -> Recv arrows,
// collectives on their own track with their phases (hand-made, and from a
// step's all-reduce and fused all-reduce), overlapping slices on
// separate tracks, and names that need escaping.
#include "tools/timeline.h"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gmock/gmock.h"
#include "google/protobuf/struct.pb.h"
#include "google/protobuf/util/json_util.h"
#include "graph/attr_value_util.h"
#include "graph/ops/ops.h"
#include "graph/scope.h"
#include "gtest/gtest.h"
#include "runtime/session.h"
#include "tests/tools/tool_test_util.h"

namespace dflow {
namespace {

using ::google::protobuf::Struct;
using ::google::protobuf::Value;
using ::testing::HasSubstr;

constexpr char kCpu0[] = "/job:localhost/replica:0/task:0/device:CPU:0";
constexpr char kCpu1[] = "/job:localhost/replica:0/task:0/device:CPU:1";

// The trace parsed, with its events.
struct Trace {
  Struct root;
  std::vector<Struct> events;

  // Events with this "ph" (and name, when given).
  std::vector<Struct> With(const std::string& ph,
                           const std::string& name = "") const {
    std::vector<Struct> out;
    for (const Struct& e : events) {
      if (Str(e, "ph") == ph && (name.empty() || Str(e, "name") == name)) {
        out.push_back(e);
      }
    }
    return out;
  }

  static std::string Str(const Struct& s, const std::string& key) {
    auto it = s.fields().find(key);
    return it == s.fields().end() ? "" : it->second.string_value();
  }
  static double Num(const Struct& s, const std::string& key) {
    auto it = s.fields().find(key);
    return it == s.fields().end() ? -1 : it->second.number_value();
  }
  static const Struct& Args(const Struct& s) {
    return s.fields().at("args").struct_value();
  }
  static std::string Arg(const Struct& s, const std::string& key) {
    return Str(Args(s), key);
  }

  // pid of the process named `device`; -1 if none.
  int PidOf(const std::string& device) const {
    for (const Struct& e : With("M", "process_name")) {
      if (Arg(e, "name") == device) return static_cast<int>(Num(e, "pid"));
    }
    return -1;
  }
  // Name of thread (pid, tid).
  std::string ThreadName(double pid, double tid) const {
    for (const Struct& e : With("M", "thread_name")) {
      if (Num(e, "pid") == pid && Num(e, "tid") == tid) return Arg(e, "name");
    }
    return "";
  }
  // The slice of node `node`.
  Struct Slice(const std::string& node) const {
    for (const Struct& e : With("X")) {
      if (Arg(e, "name") == node && Str(e, "cat") != "phase") return e;
    }
    ADD_FAILURE() << "no slice for node " << node;
    return Struct();
  }
};

Trace Parse(const std::string& json) {
  Trace trace;
  const auto status =
      google::protobuf::util::JsonStringToMessage(json, &trace.root);
  EXPECT_TRUE(status.ok()) << status.ToString() << "\n" << json;
  auto it = trace.root.fields().find("traceEvents");
  if (it == trace.root.fields().end()) {
    ADD_FAILURE() << "no traceEvents in\n" << json;
    return trace;
  }
  for (const Value& v : it->second.list_value().values()) {
    EXPECT_EQ(v.kind_case(), Value::kStructValue);
    trace.events.push_back(v.struct_value());
  }
  return trace;
}

NodeExecStats Stats(const std::string& node, const std::string& op,
                    const std::string& device, int64_t start, int64_t end,
                    int thread = 0) {
  NodeExecStats s;
  s.node = node;
  s.op = op;
  s.device = device;
  s.start_us = start;
  s.end_us = end;
  s.thread_id = thread;
  return s;
}

NodeExecStats Transfer(const std::string& node, const std::string& op,
                       const std::string& device, int64_t start, int64_t end,
                       const std::string& tensor, const std::string& from,
                       const std::string& to) {
  NodeExecStats s = Stats(node, op, device, start, end);
  s.details = {
      {"tensor_name", tensor}, {"send_device", from}, {"recv_device", to}};
  return s;
}

// a (CPU:0) is split in two; m = MatMul(split:1, b) and out = Identity(m),
// after "first" by a control edge, run on CPU:1.
GraphDef TwoDeviceGraph() {
  Scope root = Scope::NewRootScope();
  Scope cpu0 = root.WithDevice("/cpu:0");
  Scope cpu1 = root.WithDevice("/cpu:1");
  Output a = ops::Const(cpu0.WithOpName("a"), {1.f, 2.f, 3.f, 4.f},
                        TensorShape({2, 2}));
  OutputList parts = ops::Split(cpu0.WithOpName("split"), 0, a, 2);
  Output b = ops::Const(cpu1.WithOpName("b"), {1.f, 0.f, 0.f, 1.f},
                        TensorShape({2, 2}));
  Output m = ops::MatMul(cpu1.WithOpName("m"), parts[1], b);
  Operation first = ops::NoOp(cpu0.WithOpName("first"));
  ops::Identity(cpu1.WithOpName("out").WithControlDependencies({first}), m);
  GraphDef def;
  EXPECT_TRUE(root.ToGraphDef(&def).ok()) << root.status();
  return def;
}

TEST(TimelineTest, TwoDeviceSessionStep) {
  SessionOptions options;
  options.device_count = {{"CPU", 2}};
  // The graph as built: constant folding would compute all of it at
  // compile time, leaving no transfers to trace.
  options.optimize_graph = false;
  absl::StatusOr<std::unique_ptr<Session>> session =
      Session::Create(TwoDeviceGraph(), options);
  ASSERT_TRUE(session.ok()) << session.status();
  RunOptions run_options;
  run_options.collect_step_stats = true;
  run_options.trace = true;
  RunMetadata metadata;
  std::vector<Tensor> out;
  ASSERT_TRUE(
      (*session)->Run(run_options, {}, {"out"}, {}, &out, &metadata).ok());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_THAT(out[0].flat<float>(), ::testing::ElementsAre(3, 4));

  // The executor names each node's inputs: output k > 0 as "node:k",
  // control inputs last as "^node". The step runs partitioned, so what
  // comes from the other device comes from a _Recv.
  std::map<std::string, std::vector<std::string>> inputs;
  for (const NodeExecStats& s : metadata.step_stats) inputs[s.node] = s.inputs;
  EXPECT_THAT(inputs["m"],
              ::testing::ElementsAre("_recv_split_1_to_CPU_1", "b"));
  EXPECT_THAT(inputs["out"],
              ::testing::ElementsAre("m", "^_recv_first_ctrl_to_CPU_1"));
  ASSERT_EQ(inputs["split"].size(), 2u);
  EXPECT_EQ(inputs["split"][1], "a");

  const Trace trace = Parse(ChromeTraceJson(metadata));
  const int pid0 = trace.PidOf(kCpu0);
  const int pid1 = trace.PidOf(kCpu1);
  EXPECT_GT(pid0, 0);
  EXPECT_GT(pid1, 0);
  EXPECT_NE(pid0, pid1);
  EXPECT_EQ(trace.With("M", "process_name").size(), 2u);

  // Every slice is named by its op type, its node in args, on the process of
  // its device, on a thread track.
  std::map<std::string, std::string> device_of;
  for (const NodeExecStats& s : metadata.step_stats)
    device_of[s.node] = s.device;
  const std::vector<Struct> slices = trace.With("X");
  EXPECT_EQ(slices.size(), metadata.step_stats.size());
  for (const Struct& e : slices) {
    const std::string node = Trace::Arg(e, "name");
    EXPECT_EQ(Trace::Str(e, "name"), Trace::Arg(e, "op")) << node;
    ASSERT_EQ(device_of.count(node), 1u) << node;
    EXPECT_EQ(Trace::Num(e, "pid"), trace.PidOf(device_of[node])) << node;
    const std::string track =
        trace.ThreadName(Trace::Num(e, "pid"), Trace::Num(e, "tid"));
    EXPECT_THAT(track, ::testing::AnyOf(HasSubstr("thread "),
                                        HasSubstr("transfers")))
        << node;
    EXPECT_GE(Trace::Num(e, "dur"), 0) << node;
  }
  const Struct matmul = trace.Slice("m");
  EXPECT_EQ(Trace::Str(matmul, "name"), "MatMul");
  EXPECT_EQ(Trace::Num(matmul, "pid"), pid1);
  EXPECT_EQ(Trace::Arg(matmul, "input0"), "_recv_split_1_to_CPU_1");
  EXPECT_EQ(Trace::Arg(matmul, "input1"), "b");
  EXPECT_EQ(Trace::Arg(matmul, "outputs"), "[1,2]");
  EXPECT_EQ(Trace::Num(Trace::Args(matmul), "output_bytes"), 8);
  const Struct split = trace.Slice("split");
  EXPECT_EQ(Trace::Str(split, "name"), "Split");
  EXPECT_EQ(Trace::Num(split, "pid"), pid0);
  const Struct identity = trace.Slice("out");
  EXPECT_EQ(Trace::Arg(identity, "input1"), "^_recv_first_ctrl_to_CPU_1");
  // Each transfer is an arrow: split:1 and first's control edge to CPU:1,
  // and the fetched "out" back to CPU:0, where fetches are returned.
  EXPECT_EQ(trace.With("s").size(), 3u);
  EXPECT_EQ(trace.With("f").size(), 3u);
}

TEST(TimelineTest, SendsLeadToTheirRecvs) {
  RunMetadata metadata;
  metadata.peak_bytes = {{kCpu0, 100}, {kCpu1, 2048}};
  metadata.step_stats = {
      Stats("x", "Const", kCpu0, 0, 2),
      Transfer("x/_send", "_Send", kCpu0, 3, 5, "x:0", kCpu0, kCpu1),
      // Waits for the Send from before it starts until after it ends.
      Transfer("x/_recv", "_Recv", kCpu1, 1, 9, "x:0", kCpu0, kCpu1),
      Transfer("y/_send", "_Send", kCpu1, 10, 11, "y:0", kCpu1, kCpu0),
      // Starts after its Send ended.
      Transfer("y/_recv", "_Recv", kCpu0, 12, 14, "y:0", kCpu1, kCpu0),
      // A Send whose Recv did not run (an aborted step): no arrow.
      Transfer("z/_send", "_Send", kCpu0, 6, 7, "z:0", kCpu0, kCpu1),
      Stats("use", "Neg", kCpu1, 9, 12),
  };
  metadata.step_stats[6].inputs = {"x/_recv"};
  const Trace trace = Parse(ChromeTraceJson(metadata));
  EXPECT_EQ(trace.PidOf(kCpu0), 1);
  EXPECT_EQ(trace.PidOf(kCpu1), 2);

  // Transfers sit on the "transfers" track of their device, with the
  // rendezvous key in args.
  const Struct recv = trace.Slice("x/_recv");
  EXPECT_EQ(Trace::Str(recv, "name"), "_Recv");
  EXPECT_EQ(Trace::Str(recv, "cat"), "transfer");
  EXPECT_EQ(Trace::Arg(recv, "tensor_name"), "x:0");
  EXPECT_EQ(Trace::Arg(recv, "send_device"), kCpu0);
  EXPECT_EQ(trace.ThreadName(Trace::Num(recv, "pid"), Trace::Num(recv, "tid")),
            "transfers");
  EXPECT_EQ(Trace::Arg(trace.Slice("use"), "input0"), "x/_recv");

  const std::vector<Struct> starts = trace.With("s");
  const std::vector<Struct> ends = trace.With("f");
  ASSERT_EQ(starts.size(), 2u);
  ASSERT_EQ(ends.size(), 2u);
  std::map<double, Struct> end_of;
  for (const Struct& f : ends) {
    EXPECT_EQ(Trace::Str(f, "bp"), "e");
    end_of[Trace::Num(f, "id")] = f;
  }
  std::map<std::string, std::string> recv_of = {{"x:0", "x/_recv"},
                                                {"y:0", "y/_recv"}};
  std::map<std::string, std::string> send_of = {{"x:0", "x/_send"},
                                                {"y:0", "y/_send"}};
  for (const Struct& s : starts) {
    const std::string tensor = Trace::Str(s, "name");
    ASSERT_EQ(recv_of.count(tensor), 1u) << tensor;
    ASSERT_EQ(end_of.count(Trace::Num(s, "id")), 1u) << tensor;
    const Struct& f = end_of[Trace::Num(s, "id")];
    EXPECT_EQ(Trace::Str(f, "name"), tensor);
    // Each end lies strictly inside its slice, on its slice's track.
    for (const auto& [flow, node] :
         {std::pair{&s, send_of[tensor]}, std::pair{&f, recv_of[tensor]}}) {
      const Struct slice = trace.Slice(node);
      EXPECT_EQ(Trace::Num(*flow, "pid"), Trace::Num(slice, "pid")) << node;
      EXPECT_EQ(Trace::Num(*flow, "tid"), Trace::Num(slice, "tid")) << node;
      EXPECT_GT(Trace::Num(*flow, "ts"), Trace::Num(slice, "ts")) << node;
      EXPECT_LT(Trace::Num(*flow, "ts"),
                Trace::Num(slice, "ts") + Trace::Num(slice, "dur"))
          << node;
    }
  }
  // The arrow into the waiting Recv lands when the Send sent (4 us), not
  // before.
  for (const Struct& f : ends) {
    if (Trace::Str(f, "name") == "x:0") {
      EXPECT_EQ(Trace::Num(f, "ts"), 4);
    }
  }
  // Peak memory labels each device.
  bool labelled = false;
  for (const Struct& e : trace.With("M", "process_labels")) {
    if (Trace::Num(e, "pid") == 2) {
      EXPECT_EQ(Trace::Arg(e, "labels"), "peak memory 2.0 KiB");
      labelled = true;
    }
  }
  EXPECT_TRUE(labelled);
}

TEST(TimelineTest, CollectivesHaveTheirOwnTrackWithPhases) {
  RunMetadata metadata;
  for (const char* device : {kCpu0, kCpu1}) {
    metadata.step_stats.push_back(Stats("grad", "MatMul", device, 0, 5, 1));
    NodeExecStats reduce =
        Stats("allreduce", "CollectiveAllReduce", device, 5, 20, 1);
    reduce.phases = {{"pack", 5, 7}, {"reduce", 7, 18}, {"unpack", 18, 25}};
    reduce.details = {{"group_key", "1"}, {"instance_key", "7"}};
    metadata.step_stats.push_back(reduce);
  }
  const Trace trace = Parse(ChromeTraceJson(metadata));
  std::vector<Struct> collectives;
  for (const Struct& e : trace.With("X", "CollectiveAllReduce")) {
    collectives.push_back(e);
    EXPECT_EQ(Trace::Str(e, "cat"), "collective");
    EXPECT_EQ(trace.ThreadName(Trace::Num(e, "pid"), Trace::Num(e, "tid")),
              "collectives");
    EXPECT_EQ(Trace::Arg(e, "instance_key"), "7");
  }
  ASSERT_EQ(collectives.size(), 2u);
  EXPECT_NE(Trace::Num(collectives[0], "pid"),
            Trace::Num(collectives[1], "pid"));
  // The MatMul on the same executor thread is on a different track.
  for (const Struct& e : trace.With("X", "MatMul")) {
    EXPECT_EQ(trace.ThreadName(Trace::Num(e, "pid"), Trace::Num(e, "tid")),
              "thread 1");
  }
  // Phases nest in their collective's slice; the unpack that ran past the
  // node's end is clipped to it.
  std::map<std::string, int> phases;
  for (const Struct& e : trace.With("X")) {
    if (Trace::Str(e, "cat") != "phase") continue;
    ++phases[Trace::Str(e, "name")];
    EXPECT_EQ(Trace::Arg(e, "name"), "allreduce");
    EXPECT_EQ(trace.ThreadName(Trace::Num(e, "pid"), Trace::Num(e, "tid")),
              "collectives");
    EXPECT_GE(Trace::Num(e, "ts"), 5);
    EXPECT_LE(Trace::Num(e, "ts") + Trace::Num(e, "dur"), 20);
  }
  EXPECT_EQ(phases, (std::map<std::string, int>{
                        {"pack", 2}, {"reduce", 2}, {"unpack", 2}}));
}

// A real step: each device's all-reduce and fused all-reduce (tensor
// fusion's op, added as the pass makes it) report their phases, which the
// trace draws nested in their slices on the device's collectives track.
TEST(TimelineTest, SessionStepShowsCollectivePhases) {
  Scope root = Scope::NewRootScope();
  for (int d = 0; d < 2; ++d) {
    Scope dev = root.WithDevice(absl::StrCat("/cpu:", d));
    Output x = ops::Const(dev.WithOpName(absl::StrCat("x", d)),
                          {1.0f + d, 2.0f, 3.0f});
    ops::CollectiveAllReduce(dev.WithOpName(absl::StrCat("sum", d)), x, 2, 1,
                             1);
  }
  GraphDef def;
  ASSERT_TRUE(root.ToGraphDef(&def).ok()) << root.status();
  for (int d = 0; d < 2; ++d) {
    NodeDef* n = def.add_node();
    n->set_name(absl::StrCat("fused", d));
    n->set_op("_FusedCollectiveAllReduce");
    n->set_device(absl::StrCat("/cpu:", d));
    n->add_input(absl::StrCat("x", d));
    n->add_input(absl::StrCat("x", d));
    auto& attr = *n->mutable_attr();
    attr["N"] = MakeAttr(int64_t{2});
    attr["T"] = MakeAttr(DT_FLOAT);
    attr["group_size"] = MakeAttr(int64_t{2});
    attr["group_key"] = MakeAttr(int64_t{1});
    attr["instance_key"] = MakeAttr(int64_t{2});
  }
  SessionOptions options;
  options.device_count = {{"CPU", 2}};
  options.optimize_graph = false;  // the graph as built, no fusion of its own
  absl::StatusOr<std::unique_ptr<Session>> session =
      Session::Create(def, options);
  ASSERT_TRUE(session.ok()) << session.status();
  RunOptions run_options;
  run_options.trace = true;
  RunMetadata metadata;
  std::vector<Tensor> out;
  absl::Status s = (*session)->Run(run_options, {},
                                   {"sum0", "sum1", "fused0:1", "fused1:0"},
                                   {}, &out, &metadata);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_THAT(out[2].flat<float>(), ::testing::ElementsAre(3, 4, 6));

  const Trace trace = Parse(ChromeTraceJson(metadata));
  // Each collective's phases, by start, on its slice's track and within it.
  std::map<std::string, std::vector<std::string>> phases;
  std::map<std::string, double> last_end;
  std::vector<Struct> phase_events;
  for (const Struct& e : trace.With("X")) {
    if (Trace::Str(e, "cat") == "phase") phase_events.push_back(e);
  }
  std::stable_sort(phase_events.begin(), phase_events.end(),
                   [](const Struct& a, const Struct& b) {
                     return Trace::Num(a, "ts") < Trace::Num(b, "ts");
                   });
  for (const Struct& e : phase_events) {
    const std::string node = Trace::Arg(e, "name");
    const Struct slice = trace.Slice(node);
    EXPECT_EQ(Trace::Str(slice, "cat"), "collective") << node;
    EXPECT_EQ(Trace::Num(e, "pid"), Trace::Num(slice, "pid")) << node;
    EXPECT_EQ(Trace::Num(e, "tid"), Trace::Num(slice, "tid")) << node;
    // Collectives of one device that overlap get lanes of their own.
    EXPECT_THAT(trace.ThreadName(Trace::Num(e, "pid"), Trace::Num(e, "tid")),
                ::testing::StartsWith("collectives"));
    const double start = Trace::Num(e, "ts");
    const double end = start + Trace::Num(e, "dur");
    EXPECT_GE(start, Trace::Num(slice, "ts")) << node;
    EXPECT_LE(end, Trace::Num(slice, "ts") + Trace::Num(slice, "dur"))
        << node;
    auto it = last_end.try_emplace(node, start).first;
    EXPECT_GE(start, it->second) << node << " phases overlap";
    it->second = end;
    phases[node].push_back(Trace::Str(e, "name"));
  }
  using ::testing::ElementsAre;
  for (const char* node : {"sum0", "sum1"}) {
    EXPECT_THAT(phases[node], ElementsAre("wait", "reduce")) << node;
  }
  for (const char* node : {"fused0", "fused1"}) {
    EXPECT_THAT(phases[node], ElementsAre("pack", "wait", "reduce", "unpack"))
        << node;
    EXPECT_EQ(Trace::Str(trace.Slice(node), "name"),
              "_FusedCollectiveAllReduce");
    EXPECT_EQ(Trace::Arg(trace.Slice(node), "tensors"), "2");
    EXPECT_EQ(Trace::Arg(trace.Slice(node), "bytes"), "24");
  }
  EXPECT_EQ(phases.size(), 4u);
}

TEST(TimelineTest, OverlappingSlicesGetTracksOfTheirOwn) {
  RunMetadata metadata;
  metadata.step_stats = {
      Stats("outer", "Foo", kCpu0, 0, 10, 3),
      Stats("nested", "Foo", kCpu0, 2, 5, 3),   // inside outer: same track
      Stats("later", "Foo", kCpu0, 10, 12, 3),  // after outer: same track
      Stats("async", "Foo", kCpu0, 8, 15, 3),   // crosses outer's end
      Stats("other", "Foo", kCpu0, 0, 20, 4),   // another thread
  };
  const Trace trace = Parse(ChromeTraceJson(metadata));
  auto track = [&](const std::string& node) {
    const Struct s = trace.Slice(node);
    return trace.ThreadName(Trace::Num(s, "pid"), Trace::Num(s, "tid"));
  };
  EXPECT_EQ(track("outer"), "thread 3");
  EXPECT_EQ(track("nested"), "thread 3");
  EXPECT_EQ(track("later"), "thread 3");
  EXPECT_EQ(track("async"), "thread 3 #2");
  EXPECT_EQ(track("other"), "thread 4");
  // Distinct tracks have distinct tids.
  EXPECT_NE(Trace::Num(trace.Slice("async"), "tid"),
            Trace::Num(trace.Slice("outer"), "tid"));
  EXPECT_NE(Trace::Num(trace.Slice("other"), "tid"),
            Trace::Num(trace.Slice("async"), "tid"));
}

// A node in a loop has a slice per iteration, named with frame and
// iteration ("Add [while 1]") and carrying them in its args.
TEST(TimelineTest, LoopIterationsAreNamed) {
  RunMetadata metadata;
  NodeExecStats first = Stats("while/body/step", "Add", kCpu0, 0, 2);
  first.frame = "while";
  first.iteration = 0;
  NodeExecStats second = Stats("while/body/step", "Add", kCpu0, 3, 5);
  second.frame = "while";
  second.iteration = 1;
  metadata.step_stats = {first, second, Stats("out", "Identity", kCpu0, 6, 7)};
  const std::string json = ChromeTraceJson(metadata);
  EXPECT_THAT(json, HasSubstr("\"name\":\"Add [while 0]\""));
  EXPECT_THAT(json, HasSubstr("\"name\":\"Add [while 1]\""));
  EXPECT_THAT(json, HasSubstr("\"frame\":\"while\""));
  EXPECT_THAT(json, HasSubstr("\"name\":\"Identity\""));
}

TEST(TimelineTest, NamesAreEscaped) {
  RunMetadata metadata;
  NodeExecStats s = Stats("a\"b\\c\n\td\x01", "Op", kCpu0, 0, 1);
  s.inputs = {"in\"put"};
  metadata.step_stats = {s};
  const Trace trace = Parse(ChromeTraceJson(metadata));
  const std::vector<Struct> slices = trace.With("X");
  ASSERT_EQ(slices.size(), 1u);
  EXPECT_EQ(Trace::Arg(slices[0], "name"), "a\"b\\c\n\td\x01");
  EXPECT_EQ(Trace::Arg(slices[0], "input0"), "in\"put");
}

TEST(TimelineTest, EmptyMetadataIsAValidTrace) {
  const Trace trace = Parse(ChromeTraceJson(RunMetadata()));
  EXPECT_TRUE(trace.events.empty());
}

TEST(TimelineTest, WriteChromeTrace) {
  RunMetadata metadata;
  metadata.step_stats = {Stats("n", "Neg", kCpu0, 0, 1)};
  const std::string path = tool_testing::TempPath("timeline.json");
  ASSERT_TRUE(WriteChromeTrace(metadata, path).ok());
  EXPECT_EQ(tool_testing::ReadFile(path), ChromeTraceJson(metadata));

  const std::string bad = tool_testing::TempPath("no_such_dir/t.json");
  absl::Status s = WriteChromeTrace(metadata, bad);
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr(bad));
}

}  // namespace
}  // namespace dflow
