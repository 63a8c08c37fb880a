// Inputs that used to crash or hang the dflow verbs (issue 20's probe
// findings), each through the path that found it: `dflow inspect`, `place`,
// `dot` or `run` on a small hand-written graph or command line, or a Session.
// Every case must end with an error that names what is wrong, never an
// abort, a signal or a wait without end; the waits that exist (a collective
// missing a member) are given short timeouts, and only the error is asserted.
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "graph/npy.h"
#include "graph/tensor.h"
#include "gtest/gtest.h"
#include "runtime/session.h"
#include "tests/tools/tool_test_util.h"
#include "tools/dot.h"
#include "tools/inspect.h"
#include "tools/place.h"
#include "tools/run.h"

namespace dflow {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using tool_testing::Result;
using tool_testing::TempPath;

void WriteText(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

// Writes `nodes` (text NodeDefs) as a GraphDef file named `name`.
std::string WriteGraph(const std::string& name, const std::string& nodes) {
  const std::string path = TempPath(name);
  WriteText(path, nodes);
  return path;
}

Result Inspect(const std::vector<std::string>& args) {
  return tool_testing::RunVerb(RunInspect, args);
}
Result Place(const std::vector<std::string>& args) {
  return tool_testing::RunVerb(RunPlace, args);
}
Result Dot(const std::vector<std::string>& args) {
  return tool_testing::RunVerb(RunDot, args);
}
Result RunCli(const std::vector<std::string>& args) {
  return tool_testing::RunVerb(RunRun, args);
}

std::string Attr(const std::string& key, const std::string& value) {
  return absl::StrCat("attr { key: '", key, "' value { ", value, " } } ");
}

std::string FloatConst(const std::string& name, const std::string& dims,
                       const std::string& values = "") {
  return absl::StrCat(
      "node { name: '", name, "' op: 'Const' ", Attr("dtype", "type: DT_FLOAT"),
      Attr("value", absl::StrCat("tensor { dtype: DT_FLOAT tensor_shape { ",
                                 dims, " } ", values, " }")),
      "}\n");
}

std::string IntConst(const std::string& name, int value) {
  return absl::StrCat(
      "node { name: '", name, "' op: 'Const' ", Attr("dtype", "type: DT_INT32"),
      Attr("value", absl::StrCat("tensor { dtype: DT_INT32 tensor_shape { } "
                                 "int_val: ",
                                 value, " }")),
      "}\n");
}

// inspect reports `messages`, place does not crash (it places nodes whose
// attrs make them unsupported) or reports them too, and run fails with them.
void ExpectEveryVerbReports(const std::string& graph, const std::string& fetch,
                            const std::vector<std::string>& messages) {
  Result inspect = Inspect({"--graph", graph});
  Result place = Place({"--graph", graph});
  EXPECT_TRUE(place.rc == 0 || place.rc == 1) << place.out << place.err;
  Result run = RunCli({"--graph", graph, "--fetch", fetch});
  EXPECT_EQ(run.rc, 1) << run.out << run.err;
  for (const std::string& m : messages) {
    EXPECT_THAT(inspect.out + inspect.err, HasSubstr(m));
    if (place.rc != 0) {
      EXPECT_THAT(place.err, HasSubstr(m));
    }
    EXPECT_THAT(run.err, HasSubstr(m));
  }
}

// --- List-length attrs (issue 20: bad_alloc at import in every verb). ---

TEST(BadInputTest, HugeSplitNumSplitIsReportedByEveryVerb) {
  for (const char* n : {"4611686018427387904", "2147483647"}) {
    const std::string graph =
        WriteGraph(absl::StrCat("split_", n, ".pbtxt"),
                   IntConst("dim", 0) +
                       FloatConst("v", "dim { size: 2 }", "float_val: 1") +
                       "node { name: 's' op: 'Split' input: 'dim' input: 'v' " +
                       Attr("T", "type: DT_FLOAT") +
                       Attr("num_split", absl::StrCat("i: ", n)) + "}\n");
    ExpectEveryVerbReports(graph, "s:0",
                           {"node 's' (Split)", "num_split", n, "at most"});
  }
}

TEST(BadInputTest, HugeAddNListIsReportedByEveryVerb) {
  const std::string graph = WriteGraph(
      "addn.pbtxt", FloatConst("a", "dim { size: 2 }", "float_val: 1") +
                        "node { name: 'sum' op: 'AddN' input: 'a' input: 'a' " +
                        Attr("T", "type: DT_FLOAT") +
                        Attr("N", "i: 4611686018427387904") + "}\n");
  ExpectEveryVerbReports(
      graph, "sum", {"node 'sum' (AddN)", "attr 'N'", "4611686018427387904"});
}

TEST(BadInputTest, HugeUnpackNumIsReportedByEveryVerb) {
  const std::string graph = WriteGraph(
      "unpack.pbtxt", FloatConst("v", "dim { size: 2 }", "float_val: 1") +
                          "node { name: 'u' op: 'Unpack' input: 'v' " +
                          Attr("T", "type: DT_FLOAT") +
                          Attr("num", "i: 16777216") + "}\n");
  ExpectEveryVerbReports(graph, "u:0",
                         {"node 'u' (Unpack)", "attr 'num'", "16777216"});
}

// --- Convolutions over 0 input channels (issue 20: SIGFPE). ---

TEST(BadInputTest, Conv2DWithZeroInputChannelsIsInvalid) {
  const std::string conv_attrs =
      Attr("T", "type: DT_FLOAT") +
      Attr("strides", "list { i: 1 i: 1 i: 1 i: 1 }") +
      Attr("padding", "s: 'VALID'");
  const std::string graph = WriteGraph(
      "conv_zero_channels.pbtxt",
      FloatConst("x",
                 "dim { size: 1 } dim { size: 3 } dim { size: 3 } "
                 "dim { size: 0 }") +
          FloatConst("f",
                     "dim { size: 1 } dim { size: 1 } dim { size: 2 } "
                     "dim { size: 1 }",
                     "float_val: 1") +
          "node { name: 'conv' op: 'Conv2D' input: 'x' input: 'f' " +
          conv_attrs + "}\n");
  ExpectEveryVerbReports(graph, "conv", {"node 'conv' (Conv2D)", "0 channels"});

  // Conv2DBackpropFilter on the same shapes.
  const std::string grad = WriteGraph(
      "conv_filter_grad_zero_channels.pbtxt",
      FloatConst("x",
                 "dim { size: 1 } dim { size: 3 } dim { size: 3 } "
                 "dim { size: 0 }") +
          "node { name: 'sizes' op: 'Const' " +
          Attr("dtype", "type: DT_INT32") +
          Attr("value",
               "tensor { dtype: DT_INT32 tensor_shape { dim { size: 4 } } "
               "int_val: 1 int_val: 1 int_val: 2 int_val: 1 }") +
          "}\n" +
          FloatConst("dy",
                     "dim { size: 1 } dim { size: 3 } dim { size: 3 } "
                     "dim { size: 1 }",
                     "float_val: 1") +
          "node { name: 'df' op: 'Conv2DBackpropFilter' input: 'x' "
          "input: 'sizes' input: 'dy' " +
          conv_attrs + "}\n");
  ExpectEveryVerbReports(grad, "df",
                         {"node 'df' (Conv2DBackpropFilter)", "0 channels"});
}

TEST(BadInputTest, Conv2DKernelRejectsZeroChannelsItsShapeFunctionCannotSee) {
  // Shapes known only when fed: the kernel's own check must catch it.
  const std::string graph = WriteGraph(
      "conv_fed.pbtxt",
      "node { name: 'x' op: 'Placeholder' " + Attr("dtype", "type: DT_FLOAT") +
          "}\n" +
          FloatConst("f",
                     "dim { size: 1 } dim { size: 1 } dim { size: 2 } "
                     "dim { size: 1 }",
                     "float_val: 1") +
          "node { name: 'conv' op: 'Conv2D' input: 'x' input: 'f' " +
          Attr("T", "type: DT_FLOAT") +
          Attr("strides", "list { i: 1 i: 1 i: 1 i: 1 }") +
          Attr("padding", "s: 'VALID'") + "}\n");
  const std::string x = TempPath("zero_channels.npy");
  ASSERT_TRUE(
      WriteNpyFile(x, Tensor(DT_FLOAT, TensorShape({1, 3, 3, 0}))).ok());
  Result r = RunCli({"--graph", graph, "--feed", "x=" + x, "--fetch", "conv"});
  EXPECT_EQ(r.rc, 1) << r.out << r.err;
  EXPECT_THAT(r.err, AllOf(HasSubstr("conv"), HasSubstr("0 channels")));
}

// --- Deeply nested text (issue 20: stack overflow in the text parser). ---

TEST(BadInputTest, DeeplyNestedTextGraphIsRejected) {
  constexpr int kDepth = 3000;
  std::string text = "node { name: 'n' op: 'NoOp' attr { key: 'a' value { ";
  for (int i = 0; i < kDepth; ++i)
    text += "func { name: 'f' attr { key: 'a' value { ";
  text += "i: 1";
  for (int i = 0; i < kDepth; ++i) text += " } } }";
  text += " } } }\n";
  const std::string graph = WriteGraph("deep.pbtxt", text);
  Result inspect = Inspect({"--graph", graph});
  EXPECT_NE(inspect.rc, 0);
  EXPECT_THAT(inspect.out + inspect.err, HasSubstr("too deep"));
  Result place = Place({"--graph", graph});
  EXPECT_EQ(place.rc, 1) << place.err;
  Result run = RunCli({"--graph", graph, "--target", "n"});
  EXPECT_EQ(run.rc, 1) << run.err;
  EXPECT_THAT(run.err, HasSubstr("too deep"));
}

// --- Thread and device counts (issue 20: SIGSEGV, tcmalloc and bad_alloc
// aborts). ---

TEST(BadInputTest, ThreadCountIsBounded) {
  const std::string graph =
      WriteGraph("threads.pbtxt", FloatConst("c", "", "float_val: 1"));
  for (const char* threads : {"99999999", "100000", "4097", "-1"}) {
    Result r = RunCli({"--graph", graph, "--fetch", "c", "--threads", threads});
    EXPECT_EQ(r.rc, 2) << threads << "\n" << r.out << r.err;
    EXPECT_THAT(r.err, AllOf(HasSubstr("--threads"), HasSubstr("4096"),
                             HasSubstr(threads)));
  }
  // The Session API has the same bound (checked before the pool exists).
  SessionOptions options;
  options.num_threads = 99999999;
  absl::StatusOr<std::unique_ptr<Session>> session =
      Session::Create(GraphDef(), options);
  ASSERT_FALSE(session.ok());
  EXPECT_EQ(session.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(session.status().message(), HasSubstr("num_threads"));
}

TEST(BadInputTest, DeviceCountsAreBoundedInEveryVerb) {
  const std::string graph =
      WriteGraph("devices.pbtxt", FloatConst("c", "", "float_val: 1"));
  for (const char* devices : {"GPU:99999999", "CPU:1,GPU:2147483647",
                              "CPU:1025", "CPU:99999999999999999999"}) {
    for (auto [verb, r] :
         {std::pair{"run", RunCli({"--graph", graph, "--fetch", "c",
                                   "--devices", devices})},
          std::pair{"place", Place({"--graph", graph, "--devices", devices})},
          std::pair{"dot", Dot({"--graph", graph, "--placed", "--devices",
                                devices, "--out", TempPath("d.dot")})}}) {
      EXPECT_EQ(r.rc, 2) << verb << " " << devices << "\n" << r.out << r.err;
      EXPECT_THAT(r.err, HasSubstr("--devices")) << verb << " " << devices;
    }
  }
  Result r =
      RunCli({"--graph", graph, "--fetch", "c", "--devices", "GPU:99999999"});
  EXPECT_THAT(r.err, HasSubstr("the most is 1024"));
  // And the Session API's counts.
  SessionOptions options;
  options.device_count["CPU"] = 99999999;
  absl::StatusOr<std::unique_ptr<Session>> session =
      Session::Create(GraphDef(), options);
  ASSERT_FALSE(session.ok());
  EXPECT_THAT(session.status().message(), HasSubstr("1024"));
  options = SessionOptions();
  options.fake_gpus = 2147483647;
  session = Session::Create(GraphDef(), options);
  ASSERT_FALSE(session.ok());
  EXPECT_THAT(session.status().message(), HasSubstr("1024"));
}

TEST(BadInputTest, RunAndPlaceReadDeviceListsAlike) {
  const std::string graph =
      WriteGraph("device_lists.pbtxt", FloatConst("c", "", "float_val: 1"));
  struct Case {
    const char* devices;
    bool ok;
  };
  for (const Case& c : {Case{"", false}, Case{",", false}, Case{" , ", false},
                        Case{"GPU:1", true}, Case{"gpu:2 , cpu:2", true},
                        Case{"CPU:0", false}, Case{"CPU:0,GPU:1", false},
                        Case{"TPU:1", false}, Case{"CPU:1,cpu:1", false},
                        Case{"CPU", false}, Case{"CPU:1:2", false}}) {
    Result run =
        RunCli({"--graph", graph, "--fetch", "c", "--devices", c.devices});
    Result place = Place({"--graph", graph, "--devices", c.devices});
    EXPECT_EQ(run.rc, c.ok ? 0 : 2) << "run '" << c.devices << "'\n"
                                    << run.out << run.err;
    EXPECT_EQ(place.rc, c.ok ? 0 : 2) << "place '" << c.devices << "'\n"
                                      << place.out << place.err;
    if (!c.ok) {
      // One parser: the same message after each verb's prefix.
      auto message = [](const std::string& err) {
        const size_t start = err.find("--devices");
        if (start == std::string::npos) return err;
        return err.substr(start, err.find('\n', start) - start);
      };
      const std::string run_message = message(run.err);
      const std::string place_message = message(place.err);
      EXPECT_EQ(run_message, place_message) << c.devices;
      EXPECT_THAT(run.err, HasSubstr("CPU:1,GPU:4")) << c.devices;
    }
  }
  // "GPU:1" keeps the host CPU in both.
  Result place = Place({"--graph", graph, "--devices", "GPU:1"});
  EXPECT_THAT(place.out, HasSubstr("CPU:0"));
}

// --- Collective timeouts (issue 20: NaN or 1e-30 with a member missing
// hung the run). ---

// A 2-member all-reduce whose second member does not exist.
std::string LonelyCollective(const std::string& name,
                             const std::string& timeout) {
  return WriteGraph(
      name, FloatConst("a", "dim { size: 2 }", "float_val: 1") +
                "node { name: 'reduce' op: 'CollectiveAllReduce' "
                "input: 'a' device: '/cpu:0' " +
                Attr("T", "type: DT_FLOAT") + Attr("group_size", "i: 2") +
                Attr("group_key", "i: 1") + Attr("instance_key", "i: 1") +
                Attr("timeout_seconds", "f: " + timeout) + "}\n");
}

TEST(BadInputTest, CollectiveTimeoutMustBeFiniteAndSane) {
  for (const char* timeout :
       {"nan", "1e-30", "inf", "-inf", "0", "-1", "1e9"}) {
    const std::string graph = LonelyCollective(
        absl::StrCat("collective_", timeout, ".pbtxt"), timeout);
    Result inspect = Inspect({"--graph", graph});
    EXPECT_NE(inspect.rc, 0) << timeout;
    EXPECT_THAT(inspect.out + inspect.err, HasSubstr("timeout_seconds"))
        << timeout;
    Result run =
        RunCli({"--graph", graph, "--fetch", "reduce", "--devices", "CPU:2"});
    EXPECT_EQ(run.rc, 1) << timeout << "\n" << run.out << run.err;
    EXPECT_THAT(run.err,
                AllOf(HasSubstr("node 'reduce' (CollectiveAllReduce)"),
                      HasSubstr("timeout_seconds"), HasSubstr("finite")))
        << timeout;
  }
}

TEST(BadInputTest, CollectiveMissingAMemberTimesOut) {
  // A valid short timeout is honoured: the step fails instead of waiting.
  const std::string graph = LonelyCollective("collective_short.pbtxt", "0.5");
  Result run =
      RunCli({"--graph", graph, "--fetch", "reduce", "--devices", "CPU:2"});
  EXPECT_EQ(run.rc, 1) << run.out << run.err;
  EXPECT_THAT(run.err, HasSubstr("reduce"));
  EXPECT_THAT(run.err, HasSubstr("missing"));
}

// --- A _Recv without its _Send (issue 20: hung on 2 devices). ---

std::string TransferAttrs(const std::string& tensor_name) {
  return Attr("tensor_name", "s: '" + tensor_name + "'") +
         Attr("send_device",
              "s: '/job:localhost/replica:0/task:0/device:CPU:0'") +
         Attr("recv_device",
              "s: '/job:localhost/replica:0/task:0/device:CPU:1'") +
         Attr("send_device_incarnation", "i: 0");
}

TEST(BadInputTest, RecvWithoutSendIsAnErrorOnOneAndTwoDevices) {
  const std::string graph = WriteGraph(
      "recv_alone.pbtxt",
      "node { name: 'r' op: '_Recv' device: '/cpu:1' " +
          Attr("tensor_type", "type: DT_FLOAT") + TransferAttrs("t") + "}\n" +
          "node { name: 'y' op: 'Identity' input: 'r' device: '/cpu:1' " +
          Attr("T", "type: DT_FLOAT") + "}\n");
  for (const char* devices : {"CPU:1", "CPU:2"}) {
    Result r = RunCli({"--graph", graph, "--fetch", "y", "--devices", devices,
                       "--soft_placement"});
    EXPECT_EQ(r.rc, 1) << devices << "\n" << r.out << r.err;
    EXPECT_THAT(r.err,
                AllOf(HasSubstr("node 'r' (_Recv)"), HasSubstr("no _Send")))
        << devices;
  }
  // Two receivers of one key: the second would wait forever too.
  const std::string twice = WriteGraph(
      "recv_twice.pbtxt",
      FloatConst("a", "", "float_val: 1") +
          "node { name: 's' op: '_Send' input: 'a' device: '/cpu:0' " +
          Attr("T", "type: DT_FLOAT") + TransferAttrs("t") + "}\n" +
          "node { name: 'r1' op: '_Recv' device: '/cpu:1' " +
          Attr("tensor_type", "type: DT_FLOAT") + TransferAttrs("t") + "}\n" +
          "node { name: 'r2' op: '_Recv' device: '/cpu:1' " +
          Attr("tensor_type", "type: DT_FLOAT") + TransferAttrs("t") + "}\n" +
          "node { name: 'y' op: 'AddV2' input: 'r1' input: 'r2' "
          "device: '/cpu:1' " +
          Attr("T", "type: DT_FLOAT") + "}\n");
  Result r = RunCli({"--graph", twice, "--fetch", "y", "--target", "s",
                     "--devices", "CPU:2"});
  EXPECT_EQ(r.rc, 1) << r.out << r.err;
  EXPECT_THAT(r.err, HasSubstr("share this key"));
}

}  // namespace
}  // namespace dflow
