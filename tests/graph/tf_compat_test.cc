// dflow reads graphs TensorFlow wrote: a hand-written TensorFlow-format
// .pbtxt and the MLP in tests/testdata/tf/ written by TensorFlow 2.21
// (tools/tf_reference/make_reference_graphs.py), whose node list and static
// shapes TensorFlow itself recorded in mlp_expected.txt.
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "google/protobuf/util/message_differencer.h"
#include "graph/graph.h"
#include "graph/graph_def_file.h"
#include "graph/graph_def_import.h"
#include "gtest/gtest.h"

namespace dflow {
namespace {

using google::protobuf::util::MessageDifferencer;

constexpr char kTfDir[] = "tests/testdata/tf/";

GraphDef Read(const std::string& path, GraphDefFormat* format = nullptr) {
  absl::StatusOr<GraphDef> def = ReadGraphDefFile(path, format);
  EXPECT_TRUE(def.ok()) << def.status();
  return def.ok() ? *def : GraphDef();
}

std::vector<float> FloatValues(const Node& n) {
  Tensor t;
  EXPECT_TRUE(n.GetAttr("value", &t).ok());
  std::vector<float> out;
  for (float v : t.flat<float>()) out.push_back(v);
  return out;
}

TEST(TfCompatTest, HandwrittenPbtxtWithTensorContentImports) {
  GraphDefFormat format;
  GraphDef def = Read("tests/testdata/handwritten_tf.pbtxt", &format);
  EXPECT_EQ(format, GraphDefFormat::kText);
  Graph g;
  ASSERT_TRUE(ImportGraphDef(def, ImportOptions(), &g).ok());
  EXPECT_EQ(g.num_nodes(), 11);
  EXPECT_EQ(FloatValues(*g.FindNode("w")),
            (std::vector<float>{1.0f, 2.0f, -0.5f, 0.25f, 0.0f, 3.0f}));
  // A single float_val fills the whole shape.
  EXPECT_EQ(FloatValues(*g.FindNode("b")),
            (std::vector<float>{0.5f, 0.5f, 0.5f}));
  Tensor shape;
  ASSERT_TRUE(g.FindNode("shape")->GetAttr("value", &shape).ok());
  EXPECT_EQ(shape.dtype(), DT_INT64);
  EXPECT_EQ(shape.flat<int64_t>()[0], 3);
  EXPECT_EQ(shape.flat<int64_t>()[1], 1);

  // Shapes follow from the transpose attr, keep_dims and the int64 shape.
  EXPECT_EQ(g.FindNode("MatMul")->output_shape(0).ToString(), "[?,3]");
  EXPECT_EQ(g.FindNode("Mean")->output_shape(0).ToString(), "[1,3]");
  EXPECT_EQ(g.FindNode("Reshape")->output_shape(0).ToString(), "[3,1]");
  bool has_control = false;
  for (const Edge* e : g.FindNode("out")->in_edges()) {
    has_control |= e->IsControl() && e->src->name() == "Relu";
  }
  EXPECT_TRUE(has_control);
  bool transpose_b = false;
  ASSERT_TRUE(g.FindNode("MatMul")->GetAttr("transpose_b", &transpose_b).ok());
  EXPECT_TRUE(transpose_b);
}

TEST(TfCompatTest, TensorFlowMlpTextAndBinaryAreTheSameGraph) {
  GraphDefFormat text_format, binary_format;
  GraphDef text = Read(std::string(kTfDir) + "mlp.pbtxt", &text_format);
  GraphDef binary = Read(std::string(kTfDir) + "mlp.pb", &binary_format);
  EXPECT_EQ(text_format, GraphDefFormat::kText);
  EXPECT_EQ(binary_format, GraphDefFormat::kBinary);
  EXPECT_TRUE(MessageDifferencer::Equals(text, binary));
  EXPECT_EQ(text.versions().producer(), 27);
}

// One `node` and one `output` line per fact TensorFlow recorded.
struct Facts {
  std::map<std::string, std::pair<std::string, std::string>>
      nodes;  // op, inputs
  std::map<std::string, std::pair<std::string, std::string>>
      outputs;  // dtype, shape
};

Facts ReadFacts() {
  std::ifstream in(std::string(kTfDir) + "mlp_expected.txt");
  EXPECT_TRUE(in.good());
  Facts facts;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> f = absl::StrSplit(line, ' ');
    if (f[0] == "node" && f.size() == 4) facts.nodes[f[1]] = {f[2], f[3]};
    if (f[0] == "output" && f.size() == 4) facts.outputs[f[1]] = {f[2], f[3]};
  }
  return facts;
}

TEST(TfCompatTest, TensorFlowMlpImportsWithTensorFlowsShapes) {
  GraphDef def = Read(std::string(kTfDir) + "mlp.pbtxt");
  Graph g;
  absl::Status s = ImportGraphDef(def, ImportOptions(), &g);
  ASSERT_TRUE(s.ok()) << s;
  Facts facts = ReadFacts();
  ASSERT_EQ(facts.nodes.size(), 19u);
  EXPECT_EQ(g.num_nodes(), 19);
  for (const auto& [name, op_inputs] : facts.nodes) {
    const Node* n = g.FindNode(name);
    ASSERT_NE(n, nullptr) << name;
    EXPECT_EQ(n->op(), op_inputs.first) << name;
    std::vector<std::string> inputs;
    for (int i = 0; i < n->num_inputs(); ++i) {
      const Edge* e = n->input_edge(i);
      ASSERT_NE(e, nullptr);
      inputs.push_back(e->src_output == 0 ? e->src->name()
                                          : e->src->name() + ":" +
                                                std::to_string(e->src_output));
    }
    EXPECT_EQ(inputs.empty() ? "-" : absl::StrJoin(inputs, ","),
              op_inputs.second)
        << name;
  }
  ASSERT_GE(facts.outputs.size(), 19u);
  for (const auto& [output, dtype_shape] : facts.outputs) {
    std::vector<std::string> parts = absl::StrSplit(output, ':');
    const Node* n = g.FindNode(parts[0]);
    ASSERT_NE(n, nullptr) << output;
    const int index = parts.size() > 1 ? std::stoi(parts[1]) : 0;
    EXPECT_EQ(DataType_Name(n->output_type(index)), dtype_shape.first)
        << output;
    EXPECT_EQ(n->output_shape(index).ToString(), dtype_shape.second)
        << output << ": dflow's shape inference disagrees with TensorFlow's";
  }
}

TEST(TfCompatTest, TensorFlowMlpRoundTripIsLossless) {
  GraphDef original = Read(std::string(kTfDir) + "mlp.pb");
  Graph g;
  ASSERT_TRUE(ImportGraphDef(original, ImportOptions(), &g).ok());
  GraphDef exported;
  g.ToGraphDef(&exported);
  std::string diff;
  MessageDifferencer differencer;
  differencer.ReportDifferencesToString(&diff);
  EXPECT_TRUE(differencer.Compare(original, exported)) << diff;
  for (GraphDefFormat f : {GraphDefFormat::kBinary, GraphDefFormat::kText}) {
    absl::StatusOr<std::string> a = SerializeGraphDef(original, f);
    absl::StatusOr<std::string> b = SerializeGraphDef(exported, f);
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_EQ(*a, *b);
  }
}

TEST(TfCompatTest, FunctionLibrarySurvivesRoundTrips) {
  GraphDef with_library = Read(std::string(kTfDir) + "with_library.pbtxt");
  ASSERT_GT(with_library.library().function_size(), 0);
  // Through both encodings.
  absl::StatusOr<std::string> binary =
      SerializeGraphDef(with_library, GraphDefFormat::kBinary);
  ASSERT_TRUE(binary.ok());
  absl::StatusOr<GraphDef> back = ParseGraphDef(*binary);
  ASSERT_TRUE(back.ok());
  EXPECT_TRUE(MessageDifferencer::Equals(with_library, *back));
  absl::StatusOr<std::string> text =
      SerializeGraphDef(with_library, GraphDefFormat::kText);
  ASSERT_TRUE(text.ok());
  back = ParseGraphDef(*text);
  ASSERT_TRUE(back.ok());
  EXPECT_TRUE(MessageDifferencer::Equals(with_library, *back));

  // Through the graph IR: dflow keeps the library it does not run.
  GraphDef mlp = Read(std::string(kTfDir) + "mlp.pbtxt");
  *mlp.mutable_library() = with_library.library();
  Graph g;
  ASSERT_TRUE(ImportGraphDef(mlp, ImportOptions(), &g).ok());
  GraphDef exported;
  g.ToGraphDef(&exported);
  EXPECT_TRUE(MessageDifferencer::Equals(mlp.library(), exported.library()));

  // The function-call nodes load as calls (compiler/inline_function_calls.h
  // puts their bodies in their place when a run reaches them).
  Graph g2;
  std::vector<absl::Status> errors =
      ValidateGraphDef(with_library, ImportOptions(), &g2);
  EXPECT_TRUE(errors.empty()) << errors[0];
  int calls = 0;
  for (const Node* n : g2.nodes()) {
    if (n->op() == "PartitionedCall" || n->op() == "StatefulPartitionedCall") {
      EXPECT_FALSE(n->IsUnsupported()) << n->name();
      ++calls;
    }
  }
  EXPECT_GT(calls, 0);
}

}  // namespace
}  // namespace dflow
