// `dflow inspect` and `dflow convert` on real files: TensorFlow's MLP, a
// graph with several problems, truncated bytes, and bad command lines.
#include "tools/inspect.h"

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "gmock/gmock.h"
#include "graph/graph_def_file.h"
#include "gtest/gtest.h"
#include "tools/convert.h"

namespace dflow {
namespace {

using ::testing::HasSubstr;

std::string TempPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir ? dir : "/tmp") + "/" + name;
}

void WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out << bytes;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

int Inspect(const std::vector<std::string>& args, std::string* out) {
  std::ostringstream o, e;
  int rc = RunInspect(args, o, e);
  *out = o.str() + e.str();
  return rc;
}

TEST(InspectTest, TensorFlowMlpIsValidInBothEncodings) {
  for (const char* file :
       {"tests/testdata/tf/mlp.pbtxt", "tests/testdata/tf/mlp.pb"}) {
    std::string out;
    EXPECT_EQ(Inspect({"--graph", file}, &out), 0) << out;
    EXPECT_THAT(out, HasSubstr("nodes: 19"));
    EXPECT_THAT(out, HasSubstr("input/x"));
    EXPECT_THAT(out, HasSubstr("[?,784]"));
    EXPECT_THAT(out, HasSubstr("MatMul"));
    EXPECT_THAT(out, HasSubstr("layer1/"));
    EXPECT_THAT(out, HasSubstr("producer 27"));
    EXPECT_THAT(out, HasSubstr("validation: OK"));
  }
}

TEST(InspectTest, ReportsEveryProblemWithItsNode) {
  const std::string path = TempPath("broken.pbtxt");
  WriteFile(path, R"(
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "mystery" op: "FrobnicateV7" input: "x" }
node { name: "dangling" op: "Identity" input: "nowhere"
       attr { key: "T" value { type: DT_FLOAT } } }
node { name: "badattr" op: "Relu" input: "x"
       attr { key: "T" value { type: DT_STRING } } }
node { name: "baddevice" op: "Identity" input: "x" device: "/gpu:zero"
       attr { key: "T" value { type: DT_FLOAT } } }
)");
  std::string out;
  EXPECT_EQ(Inspect({"--graph", path}, &out), 1) << out;
  // The GraphDef's own problems are errors (badattr's input, float, does
  // not fit the string its T asks for).
  EXPECT_THAT(out, HasSubstr("validation: 3 error(s)"));
  EXPECT_THAT(out, HasSubstr("'dangling' (Identity)"));
  EXPECT_THAT(out, HasSubstr("nowhere"));
  EXPECT_THAT(out, HasSubstr("'baddevice' (Identity)"));
  EXPECT_THAT(out, HasSubstr("/gpu:zero"));
  // What dflow lacks (an op, a dtype its schema does not allow) is listed
  // as unsupported, not as an error of the graph.
  EXPECT_THAT(out, HasSubstr("unsupported ops: 2 (2 nodes)"));
  EXPECT_THAT(out, HasSubstr("'mystery' (FrobnicateV7)"));
  EXPECT_THAT(out, HasSubstr("'badattr' (Relu)"));
}

TEST(InspectTest, UnsupportedOpsAreListedWithCountsAndStrictFails) {
  const std::string path = TempPath("unsupported.pbtxt");
  WriteFile(path, R"(
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "q" op: "FIFOQueueV7" }
node { name: "d1" op: "DequeueV7" input: "q" }
node { name: "d2" op: "DequeueV7" input: "q" }
node { name: "sum" op: "AddV2" input: "d1" input: "d2"
       attr { key: "T" value { type: DT_FLOAT } } }
node { name: "y" op: "Identity" input: "x"
       attr { key: "T" value { type: DT_FLOAT } } }
)");
  std::string out;
  EXPECT_EQ(Inspect({"--graph", path}, &out), 0) << out;
  EXPECT_THAT(out, HasSubstr("validation: OK"));
  EXPECT_THAT(out, HasSubstr("unsupported ops: 2 (3 nodes)"));
  EXPECT_THAT(out, ::testing::ContainsRegex("DequeueV7 +2 +node 'd1'"));
  EXPECT_THAT(out, ::testing::ContainsRegex("FIFOQueueV7 +1 +node 'q'"));
  EXPECT_EQ(Inspect({"--graph", path, "--strict"}, &out), 1) << out;
  EXPECT_THAT(out, HasSubstr("--strict: 3 node(s) dflow cannot run"));
  // A graph dflow runs whole passes --strict.
  EXPECT_EQ(Inspect({"--graph", "tests/testdata/tf/mlp.pb", "--strict"}, &out),
            0)
      << out;
  EXPECT_THAT(out, HasSubstr("unsupported ops: none"));
}

TEST(InspectTest, ReportsACycleByItsNodes) {
  const std::string path = TempPath("cycle.pbtxt");
  WriteFile(path, R"(
node { name: "a" op: "Identity" input: "c" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "b" op: "Identity" input: "a" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "c" op: "Identity" input: "b" attr { key: "T" value { type: DT_FLOAT } } }
)");
  std::string out;
  EXPECT_EQ(Inspect({"--graph", path}, &out), 1);
  EXPECT_THAT(out, HasSubstr("cycle"));
  EXPECT_THAT(out, HasSubstr("a -> b -> c -> a"));
}

TEST(InspectTest, TruncatedBinaryIsAnErrorNotACrash) {
  std::string bytes = ReadFile("tests/testdata/tf/mlp.pb");
  ASSERT_GT(bytes.size(), 1000u);
  const std::string path = TempPath("truncated.pb");
  WriteFile(path, bytes.substr(0, bytes.size() / 2));
  std::string out;
  EXPECT_EQ(Inspect({"--graph", path}, &out), 1);
  EXPECT_THAT(out, HasSubstr("not a valid binary GraphDef"));
}

TEST(InspectTest, UsageErrorsExitWithTwo) {
  std::string out;
  EXPECT_EQ(Inspect({}, &out), 2);
  EXPECT_THAT(out, HasSubstr("--graph FILE is required"));
  EXPECT_EQ(Inspect({"--graph"}, &out), 2);
  EXPECT_THAT(out, HasSubstr("needs a value"));
  EXPECT_EQ(Inspect({"--grpah", "x"}, &out), 2);
  EXPECT_THAT(out, HasSubstr("unknown flag --grpah"));
  EXPECT_EQ(Inspect({"--help"}, &out), 0);
  EXPECT_THAT(out, HasSubstr("Usage: dflow inspect"));
  EXPECT_EQ(Inspect({"--graph", TempPath("does_not_exist.pb")}, &out), 1);
  EXPECT_THAT(out, HasSubstr("cannot read graph file"));
}

TEST(ConvertTest, BinaryToTextAndBackIsByteIdentical) {
  std::ostringstream o, e;
  const std::string text = TempPath("mlp_converted.pbtxt");
  const std::string binary = TempPath("mlp_converted.pb");
  ASSERT_EQ(
      RunConvert({"--graph", "tests/testdata/tf/mlp.pb", "--out", text}, o, e),
      0)
      << e.str();
  EXPECT_EQ(DetectGraphDefFormat(ReadFile(text)), GraphDefFormat::kText);
  ASSERT_EQ(RunConvert({"--graph", text, "--out", binary}, o, e), 0) << e.str();
  absl::StatusOr<GraphDef> original =
      ReadGraphDefFile("tests/testdata/tf/mlp.pb");
  ASSERT_TRUE(original.ok());
  absl::StatusOr<std::string> expected =
      SerializeGraphDef(*original, GraphDefFormat::kBinary);
  ASSERT_TRUE(expected.ok());
  EXPECT_EQ(ReadFile(binary), *expected);
  // --format overrides the extension.
  const std::string forced = TempPath("forced.pbtxt");
  ASSERT_EQ(RunConvert({"--graph", text, "--out", forced, "--format", "binary"},
                       o, e),
            0);
  EXPECT_EQ(DetectGraphDefFormat(ReadFile(forced)), GraphDefFormat::kBinary);
  EXPECT_EQ(
      RunConvert({"--graph", text, "--out", forced, "--format", "yaml"}, o, e),
      2);
}

}  // namespace
}  // namespace dflow
