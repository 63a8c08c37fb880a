// `dflow dot` in process on a 2-tower graph built with the C++ API (shared
// variables on /cpu:0, tower_i on /gpu:i, an init NoOp with control edges),
// written to a temporary .pbtxt and drawn as DOT text (and SVG when
// Graphviz's `dot` is installed).
#include "tools/dot.h"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "graph/graph_def_file.h"
#include "graph/ops/ops.h"
#include "graph/scope.h"
#include "gtest/gtest.h"
#include "tests/tools/tool_test_util.h"

namespace dflow {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using tool_testing::ReadFile;
using tool_testing::Result;
using tool_testing::TempPath;

Result Dot(const std::vector<std::string>& args) {
  return tool_testing::RunVerb(RunDot, args);
}

// Two towers, and a "done" NoOp waiting on "init" through a control edge.
std::string WriteTowerGraph() {
  return tool_testing::WriteTowerGraph(2, "dot_towers.pbtxt",
                                       /*control_node=*/true);
}

// Writes the DOT text for `extra` flags and returns it.
std::string DotText(const std::vector<std::string>& extra) {
  const std::string out = TempPath("dot_test.dot");
  std::vector<std::string> args = {"--graph", WriteTowerGraph(), "--out", out};
  args.insert(args.end(), extra.begin(), extra.end());
  Result r = Dot(args);
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_THAT(r.out, HasSubstr(absl::StrCat("wrote ", out)));
  return ReadFile(out);
}

// The attribute list of the node statement for `name`.
std::string NodeAttrs(const std::string& dot, const std::string& name) {
  const std::string start = absl::StrCat("\"", name, "\" [");
  const size_t at = dot.find(start);
  if (at == std::string::npos) return "";
  const size_t end = dot.find("];\n", at);
  return dot.substr(at + start.size(), end - at - start.size());
}

std::string FillColor(const std::string& attrs) {
  std::smatch m;
  static const std::regex kFill("fillcolor=\"([^\"]*)\"");
  return std::regex_search(attrs, m, kFill) ? m[1].str() : "";
}

bool IsFallback(const std::string& attrs) {
  return attrs.find("penwidth=3") != std::string::npos;
}

TEST(DotTest, ClustersLabelsAndEdges) {
  const std::string dot = DotText({});
  EXPECT_EQ(dot.rfind("digraph dflow {\n", 0), 0u) << dot;
  EXPECT_THAT(dot, HasSubstr("subgraph cluster_"));
  EXPECT_THAT(dot, HasSubstr("label=\"tower_0\";"));
  EXPECT_THAT(dot, HasSubstr("label=\"tower_1\";"));
  // Short names within the scope, then the op.
  EXPECT_THAT(NodeAttrs(dot, "tower_1/MatMul"),
              HasSubstr("label=\"MatMul\\nMatMul\""));
  EXPECT_THAT(NodeAttrs(dot, "tower_0/loss"),
              HasSubstr("label=\"loss\\nIdentity\""));
  EXPECT_THAT(NodeAttrs(dot, "w"), HasSubstr("label=\"w\\nVariableV2\""));
  // tower_0's nodes sit inside its cluster; top-level nodes do not.
  const size_t cluster = dot.find("label=\"tower_0\";");
  const size_t cluster_end = dot.find("\n  }\n", cluster);
  const size_t matmul = dot.find("\"tower_0/MatMul\" [");
  EXPECT_GT(matmul, cluster);
  EXPECT_LT(matmul, cluster_end);
  EXPECT_LT(dot.find("\"w\" ["), dot.find("subgraph cluster_"));
  // Data edges solid, the control edge dashed.
  EXPECT_THAT(dot, HasSubstr("\"tower_0/MatMul\" -> \"tower_0/BiasAdd\";\n"));
  EXPECT_THAT(dot, HasSubstr("\"init\" -> \"done\" [style=dashed"));
  // Filled by requested device: the two towers differ from each other and
  // from the CPU; the legend lists the requests.
  const std::string cpu = FillColor(NodeAttrs(dot, "w"));
  const std::string gpu0 = FillColor(NodeAttrs(dot, "tower_0/MatMul"));
  const std::string gpu1 = FillColor(NodeAttrs(dot, "tower_1/MatMul"));
  EXPECT_NE(cpu, "");
  EXPECT_NE(gpu0, "");
  EXPECT_NE(gpu0, gpu1);
  EXPECT_NE(cpu, gpu0);
  EXPECT_THAT(dot, HasSubstr("requested device"));
  EXPECT_THAT(dot, HasSubstr("/device:GPU:1"));
}

TEST(DotTest, PlacedFillsByAssignedDeviceWithALegend) {
  const std::string dot =
      DotText({"--placed", "--devices", "CPU:1,GPU:2", "--soft_placement"});
  const std::string cpu = FillColor(NodeAttrs(dot, "w"));
  std::map<int, std::string> tower_color;
  for (int i = 0; i < 2; ++i) {
    for (const char* node : {"MatMul", "BiasAdd", "Relu", "loss"}) {
      const std::string attrs =
          NodeAttrs(dot, absl::StrCat("tower_", i, "/", node));
      const std::string color = FillColor(attrs);
      EXPECT_NE(color, "") << attrs;
      EXPECT_FALSE(IsFallback(attrs)) << attrs;
      if (tower_color.count(i)) {
        EXPECT_EQ(tower_color[i], color);
      }
      tower_color[i] = color;
    }
  }
  EXPECT_NE(tower_color[0], tower_color[1]);
  EXPECT_NE(tower_color[0], cpu);
  EXPECT_NE(tower_color[1], cpu);
  EXPECT_EQ(FillColor(NodeAttrs(dot, "x_1")), cpu);
  // The legend: device -> color, CPU first, then the GPUs.
  EXPECT_THAT(dot, HasSubstr("assigned device"));
  const size_t legend = dot.find("\"_dflow:legend\"");
  ASSERT_NE(legend, std::string::npos);
  const std::string table = dot.substr(legend);
  EXPECT_THAT(table, HasSubstr(absl::StrCat("bgcolor=\"", cpu,
                                            "\" width=\"24\"></td><td "
                                            "align=\"left\">CPU:0 (")));
  EXPECT_THAT(table, HasSubstr(absl::StrCat("bgcolor=\"", tower_color[0],
                                            "\" width=\"24\"></td><td "
                                            "align=\"left\">GPU:0 (")));
  EXPECT_THAT(table, HasSubstr(absl::StrCat("bgcolor=\"", tower_color[1],
                                            "\" width=\"24\"></td><td "
                                            "align=\"left\">GPU:1 (")));
  EXPECT_THAT(table, HasSubstr("soft-placement fallback (0 nodes)"));
  // Tooltips carry the placer's reason.
  EXPECT_THAT(
      NodeAttrs(dot, "tower_1/MatMul"),
      HasSubstr("device: /job:localhost/replica:0/task:0/device:GPU:1"));
}

TEST(DotTest, SoftPlacementFallbacksAreMarked) {
  const std::string dot =
      DotText({"--placed", "--devices", "CPU:1,GPU:1", "--soft_placement"});
  for (const char* node : {"MatMul", "BiasAdd", "Relu", "loss"}) {
    const std::string tower0 = NodeAttrs(dot, absl::StrCat("tower_0/", node));
    const std::string tower1 = NodeAttrs(dot, absl::StrCat("tower_1/", node));
    EXPECT_FALSE(IsFallback(tower0)) << tower0;
    EXPECT_TRUE(IsFallback(tower1)) << tower1;
    EXPECT_THAT(tower1, HasSubstr("reason: soft placement"));
    // Both towers end up on GPU:0.
    EXPECT_EQ(FillColor(tower0), FillColor(tower1));
  }
  EXPECT_FALSE(IsFallback(NodeAttrs(dot, "w")));
  EXPECT_THAT(dot, HasSubstr("soft-placement fallback (4 nodes)"));
}

TEST(DotTest, PlacementErrorsExitOne) {
  Result r = Dot({"--graph", WriteTowerGraph(), "--placed", "--devices",
                  "CPU:1,GPU:1", "--out", TempPath("fail.dot")});
  EXPECT_EQ(r.rc, 1);
  EXPECT_THAT(r.err, HasSubstr("error: "));
  EXPECT_THAT(r.err, HasSubstr("tower_1/"));
  r = Dot({"--graph", TempPath("does_not_exist.pbtxt"), "--out",
           TempPath("x.dot")});
  EXPECT_EQ(r.rc, 1);
}

TEST(DotTest, Deterministic) {
  const std::vector<std::string> flags = {"--placed", "--devices",
                                          "CPU:1,GPU:2", "--soft_placement"};
  const std::string first = DotText(flags);
  const std::string second = DotText(flags);
  EXPECT_EQ(first, second);
  EXPECT_EQ(DotText({}), DotText({}));
}

TEST(DotTest, EscapesQuotesAndBackslashes) {
  GraphDef def;
  NodeDef* node = def.add_node();
  node->set_name("scope/we\"ird\\name");
  node->set_op("NoOp");
  NodeDef* other = def.add_node();
  other->set_name("b");
  other->set_op("NoOp");
  other->add_input("^scope/we\"ird\\name");
  const std::string dot = GraphToDot(def);
  EXPECT_THAT(dot,
              HasSubstr("\"scope/we\\\"ird\\\\name\" [label=\"we\\\"ird\\\\"
                        "name\\nNoOp\""));
  EXPECT_THAT(dot, HasSubstr("\"scope/we\\\"ird\\\\name\" -> \"b\" "
                             "[style=dashed"));
  // No request anywhere: white nodes and no legend.
  EXPECT_THAT(dot, Not(HasSubstr("_dflow:legend")));
}

bool HaveGraphviz() {
  return std::system("command -v dot >/dev/null 2>&1") == 0;
}

TEST(DotTest, SvgThroughGraphviz) {
  if (!HaveGraphviz()) GTEST_SKIP() << "Graphviz's dot is not installed";
  const std::string out = TempPath("towers.svg");
  Result r = Dot({"--graph", WriteTowerGraph(), "--placed", "--devices",
                  "CPU:1,GPU:2", "--soft_placement", "--out", out});
  ASSERT_EQ(r.rc, 0) << r.err;
  const std::string svg = ReadFile(out);
  EXPECT_TRUE(svg.rfind("<?xml", 0) == 0 ||
              svg.find("<svg") != std::string::npos)
      << svg.substr(0, 200);
  EXPECT_THAT(svg, HasSubstr("tower_1"));
}

TEST(DotTest, MissingGraphvizIsAClearError) {
  setenv("DFLOW_DOT", "/nonexistent/graphviz/dot", 1);
  Result r = Dot({"--graph", WriteTowerGraph(), "--out", TempPath("no.svg")});
  unsetenv("DFLOW_DOT");
  EXPECT_EQ(r.rc, 1);
  EXPECT_THAT(r.err, HasSubstr("install graphviz"));
  EXPECT_THAT(r.err, HasSubstr(".dot"));
}

TEST(DotTest, UsageErrors) {
  const std::string graph = WriteTowerGraph();
  EXPECT_EQ(Dot({"--graph", graph, "--out", TempPath("x.png")}).rc, 2);
  EXPECT_EQ(Dot({"--graph", graph}).rc, 2);
  EXPECT_EQ(Dot({"--out", TempPath("x.dot")}).rc, 2);
  EXPECT_EQ(Dot({"--graph", graph, "--bogus", "--out", TempPath("x.dot")}).rc,
            2);
  Result r = Dot({"--graph", graph, "--devices", "CPU:1,GPU:2", "--out",
                  TempPath("x.dot")});
  EXPECT_EQ(r.rc, 2);
  EXPECT_THAT(r.err, HasSubstr("--placed"));
  EXPECT_EQ(Dot({"--graph", graph, "--placed", "--devices", "TPU:x", "--out",
                 TempPath("x.dot")})
                .rc,
            2);
  r = Dot({"--help"});
  EXPECT_EQ(r.rc, 0);
  EXPECT_THAT(r.out, HasSubstr("Usage: dflow dot"));
  EXPECT_THAT(r.out, HasSubstr("--soft_placement"));
}

}  // namespace
}  // namespace dflow

namespace dflow {
namespace {

// A TensorFlow-written text .meta is drawn from its GraphDef.
TEST(DotTest, ReadsTheGraphOfAMetaGraphFile) {
  const std::string out = TempPath("meta.dot");
  Result r = Dot({"--graph",
                  "tests/testdata/tf_saved_model/unknown_collection.meta.pbtxt",
                  "--out", out});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_THAT(ReadFile(out), HasSubstr("\"out\""));
}

}  // namespace
}  // namespace dflow
