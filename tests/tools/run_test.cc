// `dflow run` end to end: TensorFlow's MLP fed from a .npy file, its outputs
// written as .npy and compared with the values TensorFlow computed; a small
// hand-written graph for --out naming, --target, --stats and --timeline; and
// every kind of bad input, each with its exit code.
#include "tools/run.h"

#include <sys/stat.h>

#include <cmath>
#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "gmock/gmock.h"
#include "compiler/optimization_stages.h"
#include "google/protobuf/struct.pb.h"
#include "google/protobuf/text_format.h"
#include "google/protobuf/util/json_util.h"
#include "graph/npy.h"
#include "graph/tensor.h"
#include "gtest/gtest.h"
#include "proto/graph.pb.h"
#include "proto/tensor.pb.h"
#include "tests/tools/tool_test_util.h"

namespace dflow {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using tool_testing::ReadFile;
using tool_testing::Result;
using tool_testing::TempPath;

constexpr char kMlp[] = "tests/testdata/tf/mlp.pbtxt";

void WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out << bytes;
}

Result RunVerb(const std::vector<std::string>& args) {
  return tool_testing::RunVerb(RunRun, args);
}

// tests/testdata/tf/mlp_input.pb (a TensorProto) as a .npy file.
std::string MlpInputNpy() {
  const std::string path = TempPath("mlp_input.npy");
  TensorProto proto;
  EXPECT_TRUE(
      proto.ParseFromString(ReadFile("tests/testdata/tf/mlp_input.pb")));
  absl::StatusOr<Tensor> x = Tensor::FromProto(proto);
  EXPECT_TRUE(x.ok()) << x.status();
  EXPECT_EQ(x->shape(), TensorShape({3, 784}));
  EXPECT_TRUE(WriteNpyFile(path, *x).ok());
  return path;
}

struct Expected {
  TensorShape shape;
  std::vector<float> values;
};

// mlp_values.txt: '#' comments, then for each tensor a line
// "tensor <name> <dtype> <shape>" followed by one value per line.
std::map<std::string, Expected> ReadMlpValues() {
  std::map<std::string, Expected> tensors;
  std::istringstream in(ReadFile("tests/testdata/tf/mlp_values.txt"));
  std::string line;
  Expected* current = nullptr;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    if (absl::string_view header = line;
        absl::ConsumePrefix(&header, "tensor ")) {
      std::vector<std::string> parts = absl::StrSplit(header, ' ');
      EXPECT_EQ(parts.size(), 3u) << line;
      EXPECT_EQ(parts[1], "DT_FLOAT") << line;
      current = &tensors[parts[0]];
      absl::StatusOr<TensorShape> shape = TensorShape::Parse(parts[2]);
      EXPECT_TRUE(shape.ok()) << line;
      current->shape = *shape;
      continue;
    }
    float v = 0;
    EXPECT_TRUE(absl::SimpleAtof(line, &v)) << line;
    if (current != nullptr) current->values.push_back(v);
  }
  return tensors;
}

void ExpectNpyNear(const std::string& path, const Expected& expected) {
  absl::StatusOr<Tensor> t = ReadNpyFile(path);
  ASSERT_TRUE(t.ok()) << t.status();
  ASSERT_EQ(t->dtype(), DT_FLOAT) << path;
  ASSERT_EQ(t->shape(), expected.shape) << path;
  ASSERT_EQ(t->NumElements(), static_cast<int64_t>(expected.values.size()));
  for (size_t i = 0; i < expected.values.size(); ++i) {
    EXPECT_NEAR(t->flat<float>()[i], expected.values[i], 1e-5)
        << path << " element " << i;
  }
}

TEST(RunTest, TensorFlowMlpMatchesTensorFlow) {
  const std::map<std::string, Expected> expected = ReadMlpValues();
  ASSERT_EQ(expected.count("output/Softmax"), 1u);
  ASSERT_EQ(expected.count("output/Mean"), 1u);
  const std::string x = MlpInputNpy();
  const std::string dir = TempPath("mlp_out/nested");  // created by the verb
  Result r =
      RunVerb({"--graph", kMlp, "--feed", "input/x=" + x, "--fetch",
               "output/Softmax:0", "--fetch", "output/Mean", "--fetch",
               "output/probs", "--fetch", "output/avg_probs", "--out", dir});
  ASSERT_EQ(r.rc, 0) << r.out << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_THAT(r.out, HasSubstr("feed input/x: float [3,784] from " + x));
  EXPECT_THAT(r.out, HasSubstr("fetch output/Softmax:0: float [3,10]\n"
                               "  values: 0.167399 0.0585212 0.109139 "
                               "0.102121 0.107084 0.0784212 ... (30 values)\n"
                               "  min 0.0437734  max 0.167399  mean 0.1\n"));
  EXPECT_THAT(r.out, HasSubstr("fetch output/avg_probs: float [10]"));
  EXPECT_THAT(r.out, HasSubstr("wrote " + dir + "/output_Softmax_0.npy"));

  ExpectNpyNear(dir + "/output_Softmax_0.npy", expected.at("output/Softmax"));
  ExpectNpyNear(dir + "/output_probs.npy", expected.at("output/Softmax"));
  ExpectNpyNear(dir + "/output_Mean.npy", expected.at("output/Mean"));
  Expected avg = expected.at("output/Mean");
  avg.shape = TensorShape({10});
  ExpectNpyNear(dir + "/output_avg_probs.npy", avg);
}

TEST(RunTest, BinaryGraphWithStats) {
  Result r = RunVerb({"--graph", "tests/testdata/tf/mlp.pb", "--feed",
                      "input/x=" + MlpInputNpy(), "--fetch", "layer1/Relu",
                      "--stats"});
  ASSERT_EQ(r.rc, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("fetch layer1/Relu: float [3,16]"));
  EXPECT_THAT(r.out, HasSubstr("step stats: "));
  EXPECT_THAT(r.out, HasSubstr("top "));
  // The compiler fused layer1's MatMul, BiasAdd and Relu into one kernel
  // named after the Relu; the stats show what ran.
  EXPECT_THAT(r.out, HasSubstr("_FusedMatMul     layer1/Relu"));
  EXPECT_THAT(r.out, HasSubstr("peak memory:"));
  EXPECT_THAT(r.out, HasSubstr("CPU:0"));
  EXPECT_THAT(r.out, Not(HasSubstr("wrote")));
}

// x (float [?,2]) -> MatMul with w ([2,2]) -> Relu -> Identity "y/out";
// "count" is an int32 constant and "noop" a NoOp target.
constexpr char kSmallGraph[] = R"pb(
  node {
    name: "x"
    op: "Placeholder"
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
    attr {
      key: "shape"
      value {
        shape {
          dim { size: -1 }
          dim { size: 2 }
        }
      }
    }
  }
  node {
    name: "w"
    op: "Const"
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
    attr {
      key: "value"
      value {
        tensor {
          dtype: DT_FLOAT
          tensor_shape {
            dim { size: 2 }
            dim { size: 2 }
          }
          float_val: 1
          float_val: -1
          float_val: 2
          float_val: 0.5
        }
      }
    }
  }
  node {
    name: "y/MatMul"
    op: "MatMul"
    input: "x"
    input: "w"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
  }
  node {
    name: "y/Relu"
    op: "Relu"
    input: "y/MatMul"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
  }
  node {
    name: "y/out"
    op: "Identity"
    input: "y/Relu"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
  }
  node {
    name: "count"
    op: "Const"
    attr {
      key: "dtype"
      value { type: DT_INT32 }
    }
    attr {
      key: "value"
      value {
        tensor {
          dtype: DT_INT32
          tensor_shape {}
          int_val: 7
        }
      }
    }
  }
  node { name: "noop" op: "NoOp" }
  node {
    name: "free"
    op: "Placeholder"
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
  }
  node {
    name: "z"
    op: "MatMul"
    input: "free"
    input: "w"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
  }
)pb";

std::string SmallGraph() {
  const std::string path = TempPath("small.pbtxt");
  WriteFile(path, kSmallGraph);
  return path;
}

std::string SmallInput() {
  const std::string path = TempPath("small_x.npy");
  EXPECT_TRUE(WriteNpyFile(path, Tensor::FromVector<float>({1, 2, -3, 1},
                                                           TensorShape({2, 2})))
                  .ok());
  return path;
}

TEST(RunTest, SmallGraphOutputsTargetsAndNames) {
  const std::string dir = TempPath("small_out");
  Result r = RunVerb({"--graph", SmallGraph(), "--feed=x=" + SmallInput(),
                      "--fetch", "y/out:0", "--fetch", "y/MatMul", "--fetch",
                      "count", "--target", "noop", "--out=" + dir});
  ASSERT_EQ(r.rc, 0) << r.out << r.err;
  // [1,2]·w = [5,0]; [-3,1]·w = [-1,3.5].
  EXPECT_THAT(r.out, HasSubstr("fetch y/MatMul: float [2,2]\n"
                               "  values: 5 0 -1 3.5\n"
                               "  min -1  max 5  mean 1.875\n"));
  EXPECT_THAT(r.out, HasSubstr("fetch y/out:0: float [2,2]\n"
                               "  values: 5 0 0 3.5\n"));
  EXPECT_THAT(r.out, HasSubstr("fetch count: int32 []\n  values: 7\n  wrote"));
  EXPECT_THAT(r.out, HasSubstr("target noop: ran"));
  absl::StatusOr<Tensor> y = ReadNpyFile(dir + "/y_out_0.npy");
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(y->shape(), TensorShape({2, 2}));
  EXPECT_EQ(y->flat<float>()[3], 3.5f);
  absl::StatusOr<Tensor> count = ReadNpyFile(dir + "/count.npy");
  ASSERT_TRUE(count.ok()) << count.status();
  EXPECT_EQ(count->dtype(), DT_INT32);
  EXPECT_EQ(count->shape(), TensorShape());
  EXPECT_EQ(count->flat<int32_t>()[0], 7);

  // A target alone is a valid run.
  r = RunVerb({"--graph", SmallGraph(), "--target", "noop"});
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("target noop: ran"));
}

TEST(RunTest, TimelineIsChromeTraceJson) {
  const std::string path = TempPath("run_timeline.json");
  Result r =
      RunVerb({"--graph", SmallGraph(), "--feed=x=" + SmallInput(), "--fetch",
               "y/out", "--devices", "CPU:2", "--timeline", path});
  ASSERT_EQ(r.rc, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("timeline: wrote " + path));
  EXPECT_THAT(r.out, Not(HasSubstr("step stats:")));  // --stats not asked
  google::protobuf::Struct trace;
  const auto parsed =
      google::protobuf::util::JsonStringToMessage(ReadFile(path), &trace);
  ASSERT_TRUE(parsed.ok()) << parsed.ToString();
  // Both devices have a process; the MatMul is a slice with its inputs.
  int processes = 0;
  bool matmul = false;
  for (const auto& v : trace.fields().at("traceEvents").list_value().values()) {
    const auto& e = v.struct_value().fields();
    if (e.at("name").string_value() == "process_name") ++processes;
    if (e.at("ph").string_value() != "X" ||
        e.at("name").string_value() != "MatMul") {
      continue;
    }
    const auto& args = e.at("args").struct_value().fields();
    EXPECT_EQ(args.at("name").string_value(), "y/MatMul");
    EXPECT_EQ(args.at("input1").string_value(), "w");
    matmul = true;
  }
  EXPECT_EQ(processes, 2);
  EXPECT_TRUE(matmul);

  // An unwritable file fails the verb, naming the file.
  const std::string bad = TempPath("no_such_dir/t.json");
  r = RunVerb({"--graph", SmallGraph(), "--fetch", "count", "--timeline", bad});
  EXPECT_EQ(r.rc, 1);
  EXPECT_THAT(r.err, HasSubstr("error: --timeline: "));
  EXPECT_THAT(r.err, HasSubstr(bad));
}

// --dump_passes: one folder per compiled signature, the graph after
// pruning and after every enabled pass as .pbtxt (a GraphDef that parses)
// and .dot, and each pass's line printed and kept in passes.txt.
TEST(RunTest, DumpPassesWritesTheGraphAfterEveryPass) {
  const std::string dir = TempPath("dump_mlp");
  Result r = RunVerb({"--graph", kMlp, "--feed", "input/x=" + MlpInputNpy(),
                      "--fetch", "output/Softmax", "--dump_passes", dir});
  ASSERT_EQ(r.rc, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("passes (graphs in " + dir + "/sig_0/):\n"));
  const std::string listing = ReadFile(dir + "/sig_0/passes.txt");
  std::vector<std::string> lines =
      absl::StrSplit(listing, '\n', absl::SkipEmpty());
  // prune, the device-independent passes, then the device-specific ones on
  // the one CPU.
  std::vector<std::string> expected = {"prune"};
  for (const auto& [name, stage] : PassNames()) expected.push_back(name);
  ASSERT_EQ(lines.size(), expected.size()) << listing;
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string number = absl::StrFormat("%03d", i);
    EXPECT_TRUE(absl::StartsWith(lines[i], number + "  " + expected[i]))
        << lines[i];
    EXPECT_THAT(r.out, HasSubstr(lines[i]));
    std::string stem = absl::StrCat(dir, "/sig_0/", number, "_", expected[i]);
    if (i > 0 && PassNames()[i - 1].second == PassStage::kDeviceSpecific) {
      absl::StrAppend(&stem, "_CPU_0");
    }
    GraphDef def;
    EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(
        ReadFile(stem + ".pbtxt"), &def))
        << stem;
    EXPECT_GT(def.node_size(), 0) << stem;
    EXPECT_THAT(ReadFile(stem + ".dot"), HasSubstr("digraph")) << stem;
  }
  EXPECT_THAT(lines[0], HasSubstr("prune: "));
  EXPECT_THAT(lines[0], HasSubstr("1 fed, 1 fetched"));
}

// --no_optimize runs the graph as built (only pruning is dumped) with the
// same values; --disable_pass skips one pass; an unknown name lists them.
TEST(RunTest, OptimizationFlags) {
  const std::string x = MlpInputNpy();
  Result on = RunVerb({"--graph", kMlp, "--feed", "input/x=" + x, "--fetch",
                       "output/Softmax"});
  const std::string dir = TempPath("dump_off");
  Result off = RunVerb({"--graph", kMlp, "--feed", "input/x=" + x, "--fetch",
                        "output/Softmax", "--no_optimize", "--dump_passes",
                        dir});
  ASSERT_EQ(on.rc, 0) << on.err;
  ASSERT_EQ(off.rc, 0) << off.err;
  auto values = [](const std::string& out) {
    return out.substr(out.find("fetch output/Softmax"),
                      out.find("passes (") == std::string::npos
                          ? std::string::npos
                          : out.find("passes (") - out.find("fetch output/"));
  };
  EXPECT_EQ(values(on.out), values(off.out));
  const std::string listing = ReadFile(dir + "/sig_0/passes.txt");
  EXPECT_EQ(std::count(listing.begin(), listing.end(), '\n'), 1) << listing;

  const std::string first = PassNames()[0].first;
  const std::string skipped = TempPath("dump_skip");
  Result skip = RunVerb({"--graph", kMlp, "--feed", "input/x=" + x,
                         "--fetch", "output/Softmax", "--disable_pass", first,
                         "--dump_passes", skipped});
  ASSERT_EQ(skip.rc, 0) << skip.err;
  EXPECT_THAT(ReadFile(skipped + "/sig_0/passes.txt"),
              Not(HasSubstr("  " + first + ":")));

  Result bad = RunVerb({"--graph", kMlp, "--feed", "input/x=" + x, "--fetch",
                        "output/Softmax", "--disable_pass", "folding"});
  EXPECT_EQ(bad.rc, 1);
  EXPECT_THAT(bad.err, HasSubstr("names 'folding', which is no pass; the "
                                 "passes are " + first));
}

// --memory: each device's planned and measured peak.
TEST(RunTest, MemoryPrintsPlannedAndMeasuredPeaks) {
  Result r = RunVerb({"--graph", kMlp, "--feed", "input/x=" + MlpInputNpy(),
                      "--fetch", "output/Softmax", "--memory"});
  ASSERT_EQ(r.rc, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("memory (planned: "));
  EXPECT_THAT(r.out, HasSubstr("  /job:localhost/replica:0/task:0/device:CPU:0\n"
                               "    planned peak  "));
  EXPECT_THAT(r.out, HasSubstr("    measured peak "));
}

TEST(RunTest, FileNamesForFetches) {
  EXPECT_EQ(NpyFileNameForFetch("layer1/Relu:0"), "layer1_Relu_0.npy");
  EXPECT_EQ(NpyFileNameForFetch("output/probs"), "output_probs.npy");
  EXPECT_EQ(NpyFileNameForFetch("x"), "x.npy");
}

// ---------------------------------------------------------------------------
// Errors: 2 for the command line, 1 for everything found while running.

TEST(RunErrorsTest, UsageErrorsExitWithTwo) {
  const std::string graph = SmallGraph();
  struct Case {
    std::vector<std::string> args;
    const char* message;
  };
  for (const Case& c : std::vector<Case>{
           {{}, "--graph FILE or --saved_model DIR is required"},
           {{"--graph", graph}, "give at least one --fetch NAME"},
           {{"--graph", graph, "--fetch"}, "flag --fetch needs a value"},
           {{"--graph", graph, "--fetch", "y/out", "--feed", "x"},
            "--feed 'x' is not NAME=FILE.npy"},
           {{"--graph", graph, "--fetch", "y/out", "--feed", "=a.npy"},
            "--feed '=a.npy' is not NAME=FILE.npy"},
           {{"--graph", graph, "--fetch", "y/out", "--feed", "x="},
            "--feed 'x=' is not NAME=FILE.npy"},
           {{"--graph", graph, "--fetch", "y/out", "--threads", "many"},
            "--threads must be an integer from 0 (one per core) to 4096, not "
            "'many'"},
           {{"--graph", graph, "--fetch", "y/out", "--fetchh", "z"},
            "unknown flag --fetchh"},
           {{"--graph", graph, "--fetch", "y/out", "--fetch", "y_out", "--out",
             TempPath("clash")},
            "fetches 'y/out' and 'y_out' would both be written to y_out.npy"},
       }) {
    Result r = RunVerb(c.args);
    EXPECT_EQ(r.rc, 2) << c.message << ": " << r.out << r.err;
    EXPECT_THAT(r.err, HasSubstr(c.message));
    EXPECT_EQ(r.out, "");
  }
}

TEST(RunErrorsTest, HelpDescribesTheVerb) {
  Result r = RunVerb({"--help"});
  EXPECT_EQ(r.rc, 0);
  EXPECT_THAT(r.out, HasSubstr("Usage: dflow run --graph FILE"));
  EXPECT_THAT(r.out, HasSubstr("--feed VALUE"));
  EXPECT_THAT(r.out, HasSubstr("layer1/Relu:0 -> layer1_Relu_0.npy"));
  EXPECT_THAT(r.out, HasSubstr("--stats"));
  EXPECT_THAT(r.out, HasSubstr("--timeline FILE"));
  EXPECT_THAT(r.out, HasSubstr("chrome://tracing"));
}

TEST(RunErrorsTest, RunProblemsExitWithOne) {
  const std::string graph = SmallGraph();
  const std::string x = SmallInput();
  const std::string doubles = TempPath("doubles.npy");
  ASSERT_TRUE(WriteNpyFile(doubles, Tensor::FromVector<double>(
                                        {1, 2}, TensorShape({1, 2})))
                  .ok());
  const std::string wrong_shape = TempPath("wrong_shape.npy");
  ASSERT_TRUE(
      WriteNpyFile(wrong_shape, Tensor::FromVector<float>({1, 2, 3})).ok());
  const std::string three_cols = TempPath("three_cols.npy");
  ASSERT_TRUE(WriteNpyFile(three_cols, Tensor::FromVector<float>(
                                           {1, 2, 3}, TensorShape({1, 3})))
                  .ok());
  const std::string not_npy = TempPath("not.npy");
  WriteFile(not_npy, "hello");
  struct Case {
    std::vector<std::string> args;
    std::vector<std::string> messages;
  };
  for (const Case& c : std::vector<Case>{
           {{"--graph", TempPath("no_such_graph.pbtxt"), "--fetch", "y"},
            {"cannot read graph file", "no_such_graph.pbtxt"}},
           {{"--graph", graph, "--feed", "x=" + TempPath("missing.npy"),
             "--fetch", "y/out"},
            {"--feed x: cannot read npy file", "missing.npy"}},
           {{"--graph", graph, "--feed", "x=" + not_npy, "--fetch", "y/out"},
            {"not.npy", "not a .npy file"}},
           {{"--graph", graph, "--feed", "x=" + x, "--fetch", "nothere"},
            {"fetch 'nothere' refers to no node named 'nothere'"}},
           {{"--graph", graph, "--feed", "x=" + x, "--fetch", "y/out",
             "--target", "ghost"},
            {"target 'ghost' refers to no node"}},
           {{"--graph", graph, "--feed", "x=" + doubles, "--fetch", "y/out"},
            {"feed 'x' from '" + doubles +
                 "' holds float64 values but "
                 "placeholder 'x' is float32",
             "a.astype(np.float32)"}},
           {{"--graph", graph, "--feed", "x=" + wrong_shape, "--fetch",
             "y/out"},
            {"feed 'x' has shape [3]", "[?,2]"}},
           // No static shape on 'free': the kernel finds the mismatch.
           {{"--graph", graph, "--feed", "free=" + three_cols, "--fetch", "z"},
            {"z"}},
       }) {
    Result r = RunVerb(c.args);
    EXPECT_EQ(r.rc, 1) << r.out << r.err;
    EXPECT_THAT(r.err, HasSubstr("error: "));
    for (const std::string& m : c.messages) EXPECT_THAT(r.err, HasSubstr(m));
  }
}

TEST(RunErrorsTest, OutDirThatIsAFile) {
  const std::string file = TempPath("a_file");
  WriteFile(file, "x");
  Result r = RunVerb(
      {"--graph", SmallGraph(), "--fetch", "count", "--out", file + "/sub"});
  EXPECT_EQ(r.rc, 1);
  EXPECT_THAT(r.err, HasSubstr("cannot create --out directory"));
}

}  // namespace
}  // namespace dflow
