// Tests for GraphDef import: any node order, prefixes, a lossless round trip
// (GraphDef -> Graph -> GraphDef gives the same message and the same bytes,
// binary and text, including the parts dflow does not interpret), one precise
// error per malformed input, and ValidateGraphDef collecting independent
// errors without blaming the nodes downstream of a broken one.

#include "graph/graph_def_import.h"

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "google/protobuf/util/message_differencer.h"
#include "graph/attr_value_util.h"
#include "graph/graph.h"
#include "graph/graph_def_file.h"
#include "graph/op_registry.h"
#include "graph/shape_inference.h"
#include "graph/tensor.h"
#include "gtest/gtest.h"
#include "proto/graph.pb.h"
#include "tests/graph/graph_def_text.h"

namespace dflow {
namespace {

using ::google::protobuf::util::MessageDifferencer;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using namespace graph_def_text;  // NOLINT: the text helpers

// ---- Successful imports
// -------------------------------------------------------

TEST(ImportGraphDefTest, NodesInReverseTopologicalOrder) {
  const std::string text = MatMulText("mm", "add", "w") +
                           AddText("add", {"x", "y"}) + ConstText("w", {3, 4}) +
                           ConstText("y", {3}) + ConstText("x", {2, 3});
  Graph g;
  ASSERT_TRUE(ImportGraphDef(ParseText(text), ImportOptions(), &g).ok());
  EXPECT_EQ(g.num_nodes(), 5);
  EXPECT_EQ(g.num_edges(), 4);
  Node* mm = g.FindNode("mm");
  Node* add = g.FindNode("add");
  ASSERT_TRUE(mm && add);
  EXPECT_EQ(mm->input_edge(0)->src, add);
  EXPECT_EQ(mm->input_edge(1)->src->name(), "w");
  EXPECT_EQ(add->input_edge(0)->src->name(), "x");
  EXPECT_EQ(add->input_edge(1)->src->name(), "y");
  // Shapes were inferred in dependency order despite the file order.
  EXPECT_EQ(add->output_shape(0), TensorShape({2, 3}));
  EXPECT_EQ(mm->output_shape(0), TensorShape({2, 4}));
  // Export keeps the file's node order.
  GraphDef out = Export(g);
  ASSERT_EQ(out.node_size(), 5);
  EXPECT_EQ(out.node(0).name(), "mm");
  EXPECT_EQ(out.node(4).name(), "x");
}

TEST(ImportGraphDefTest, ShapeInferenceCanBeTurnedOff) {
  const std::string text = ConstText("a", {2, 3}) + ConstText("b", {4, 5}) +
                           MatMulText("mm", "a", "b");
  Graph g;
  ImportOptions options;
  options.infer_shapes = false;
  ASSERT_TRUE(ImportGraphDef(ParseText(text), options, &g).ok());
  EXPECT_TRUE(g.FindNode("a")->output_shape(0).unknown_rank());
  EXPECT_FALSE(g.InferShapes().ok());
}

TEST(ImportGraphDefTest, OutputIndicesAndControlInputs) {
  const std::string text = ConstText("x", {4}) +
                           "node { name: 's' op: 'TestSplit' input: 'x' "
                           "  attr { key: 'num_split' value { i: 2 } }"
                           "  attr { key: 'T' value { type: DT_FLOAT } } }\n"
                           "node { name: 'n' op: 'TestNoOp' }\n" +
                           AddText("add", {"s:1", "s:0", "^n", "^x"});
  Graph g;
  ASSERT_TRUE(ImportGraphDef(ParseText(text), ImportOptions(), &g).ok());
  Node* add = g.FindNode("add");
  ASSERT_NE(add, nullptr);
  EXPECT_EQ(add->input_edge(0)->src_output, 1);
  EXPECT_EQ(add->input_edge(1)->src_output, 0);
  int controls = 0;
  for (const Edge* e : add->in_edges()) controls += e->IsControl();
  EXPECT_EQ(controls, 2);
  // "s:0" is written back in canonical form.
  EXPECT_THAT(Inputs(Export(g), "add"), ElementsAre("s:1", "s", "^n", "^x"));
}

TEST(ImportGraphDefTest, PrefixRenamesNodesInputsAndColocation) {
  const std::string text =
      ConstText("a", {2}, "device: '/device:CPU:0'") +
      "node { name: 'n' op: 'TestNoOp' }\n"
      "node { name: 'add' op: 'TestAdd' input: 'a' input: 'a' input: '^n' "
      "  attr { key: 'T' value { type: DT_FLOAT } }"
      "  attr { key: '_class' value { list { s: 'loc:@a' s: 'other' } } } }\n";
  Graph g;
  ImportOptions options;
  options.prefix = "tower_1";
  ASSERT_TRUE(ImportGraphDef(ParseText(text), options, &g).ok());
  EXPECT_EQ(g.FindNode("a"), nullptr);
  Node* add = g.FindNode("tower_1/add");
  ASSERT_NE(add, nullptr);
  EXPECT_EQ(add->input_edge(0)->src->name(), "tower_1/a");
  GraphDef out = Export(g);
  EXPECT_THAT(Inputs(out, "tower_1/add"),
              ElementsAre("tower_1/a", "tower_1/a", "^tower_1/n"));
  std::vector<std::string> groups;
  ASSERT_TRUE(add->GetAttr("_class", &groups).ok());
  // loc:@ entries name nodes and are prefixed; anything else is left alone.
  EXPECT_THAT(groups, ElementsAre("loc:@tower_1/a", "other"));
  EXPECT_EQ(g.FindNode("tower_1/a")->requested_device(), "/device:CPU:0");
}

TEST(ImportGraphDefTest, SameGraphTwiceWithTwoPrefixes) {
  const GraphDef def =
      ParseText(ConstText("a", {2}) + AddText("add", {"a", "a"}));
  Graph g;
  ImportOptions o0, o1;
  o0.prefix = "t0";
  o1.prefix = "t1";
  ASSERT_TRUE(ImportGraphDef(def, o0, &g).ok());
  ASSERT_TRUE(ImportGraphDef(def, o1, &g).ok());
  EXPECT_EQ(g.num_nodes(), 4);
  EXPECT_EQ(g.FindNode("t1/add")->input_edge(0)->src, g.FindNode("t1/a"));
  EXPECT_EQ(g.FindNode("t0/add")->input_edge(0)->src, g.FindNode("t0/a"));
  // Without a prefix the second import collides.
  Graph h;
  ASSERT_TRUE(ImportGraphDef(def, ImportOptions(), &h).ok());
  absl::Status s = ImportGraphDef(def, ImportOptions(), &h);
  EXPECT_EQ(s.code(), absl::StatusCode::kAlreadyExists) << s;
}

// ---- Lossless round trip
// ---------------------------------------------------------

// A GraphDef exercising everything a round trip must keep, including parts
// dflow stores without interpreting.
const char kRichGraph[] = R"pb(
  node {
    name: "x"
    op: "TestConst"
    device: "/job:worker/task:1/device:GPU:0"
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
          float_val: 2
          float_val: 3
          float_val: 4
        }
      }
    }
    attr {
      key: "_zz_internal"
      value { s: "kept" }
    }
    attr {
      key: "_class"
      value { list { s: "loc:@w" } }
    }
    experimental_debug_info { original_node_names: "orig/x" }
  }
  node {
    name: "s"
    op: "TestSplit"
    input: "x"
    attr {
      key: "num_split"
      value { i: 2 }
    }
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
  }
  node { name: "c" op: "TestNoOp" }
  node {
    name: "w"
    op: "TestConst"
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
          tensor_content: "\000\000\200?\000\000\000@\000\000@@\000\000\200@"
        }
      }
    }
  }
  node {
    name: "mm"
    op: "TestMatMul"
    input: "s:1"
    input: "w"
    input: "^c"
    input: "^x"
    device: "/device:CPU:0"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
    attr {
      key: "transpose_b"
      value { b: true }
    }
  }
  node {
    name: "add"
    op: "TestAdd"
    input: "mm"
    input: "s"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
  }
  versions { producer: 27 min_consumer: 12 bad_consumers: 3 bad_consumers: 5 }
  library {
    function {
      signature {
        name: "my_fn"
        input_arg { name: "x" type: DT_FLOAT }
        output_arg { name: "y" type: DT_FLOAT }
      }
      node_def {
        name: "inner"
        op: "Identity"
        input: "x"
        attr {
          key: "T"
          value { type: DT_FLOAT }
        }
      }
      ret { key: "y" value: "inner:output:0" }
      attr {
        key: "_noinline"
        value { b: true }
      }
    }
    gradient { function_name: "my_fn" gradient_func: "my_fn_grad" }
  }
  debug_info {
    files: "model.py"
    traces {
      key: "mm"
      value { file_line_cols { file_index: 0 line: 12 col: 3 func: "f" } }
    }
  }
)pb";

TEST(RoundTripTest, MessageIsUnchanged) {
  const GraphDef original = ParseText(kRichGraph);
  Graph g;
  absl::Status s = ImportGraphDef(original, ImportOptions(), &g);
  ASSERT_TRUE(s.ok()) << s;
  // s has no shape function, so mm = [?, ?] x [2, 2]^T = [?, 2].
  EXPECT_EQ(g.FindNode("mm")->output_shape(0), TensorShape({-1, 2}));
  GraphDef out = Export(g);
  std::string diff;
  MessageDifferencer differencer;
  differencer.ReportDifferencesToString(&diff);
  EXPECT_TRUE(differencer.Compare(original, out)) << diff;
}

TEST(RoundTripTest, BinaryBytesAreUnchanged) {
  absl::StatusOr<std::string> bytes =
      SerializeGraphDef(ParseText(kRichGraph), GraphDefFormat::kBinary);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  absl::StatusOr<GraphDef> parsed =
      ParseGraphDef(*bytes, GraphDefFormat::kBinary);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  Graph g;
  ASSERT_TRUE(ImportGraphDef(*parsed, ImportOptions(), &g).ok());
  absl::StatusOr<std::string> again =
      SerializeGraphDef(Export(g), GraphDefFormat::kBinary);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*bytes, *again);
}

TEST(RoundTripTest, TextIsUnchanged) {
  absl::StatusOr<std::string> text =
      SerializeGraphDef(ParseText(kRichGraph), GraphDefFormat::kText);
  ASSERT_TRUE(text.ok()) << text.status();
  absl::StatusOr<GraphDef> parsed = ParseGraphDef(*text, GraphDefFormat::kText);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  Graph g;
  ASSERT_TRUE(ImportGraphDef(*parsed, ImportOptions(), &g).ok());
  absl::StatusOr<std::string> again =
      SerializeGraphDef(Export(g), GraphDefFormat::kText);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*text, *again);
}

TEST(RoundTripTest, SecondRoundTripIsAFixedPoint) {
  Graph g1, g2;
  ASSERT_TRUE(ImportGraphDef(ParseText(kRichGraph), ImportOptions(), &g1).ok());
  const GraphDef once = Export(g1);
  ASSERT_TRUE(ImportGraphDef(once, ImportOptions(), &g2).ok());
  EXPECT_TRUE(MessageDifferencer::Equals(once, Export(g2)));
}

// Regression (was a core bug): graph/graph.cc, Graph::ToGraphDef always writes
// `versions` (ImportGraphDef copies def.versions() whether or not it was set),
// so a GraphDef without a versions field comes back with an empty `versions
// {}`: the message differs and the serialized bytes gain two bytes.
// Hand-written .pbtxt graphs often have no versions. Import should remember
// whether the field was present (or ToGraphDef should skip an empty VersionDef
// that was imported as absent).
TEST(RoundTripTest, GraphWithoutVersionsRoundTrips) {
  const GraphDef original =
      ParseText(ConstText("a", {2}) + AddText("b", {"a", "a"}));
  ASSERT_FALSE(original.has_versions());
  Graph g;
  ASSERT_TRUE(ImportGraphDef(original, ImportOptions(), &g).ok());
  const GraphDef out = Export(g);
  EXPECT_FALSE(out.has_versions());
  EXPECT_TRUE(MessageDifferencer::Equals(original, out)) << out.DebugString();
}

// Regression (was a core bug): graph/graph_def_import.cc / graph.cc: the
// deprecated top-level `version` field of GraphDef (field 3, still present in
// old TensorFlow graphs) is neither stored by the import nor written by
// ToGraphDef, so it is silently dropped. A lossless round trip has to carry it
// (Graph could keep it next to versions_).
TEST(RoundTripTest, DeprecatedVersionFieldRoundTrips) {
  const GraphDef original =
      ParseText(ConstText("a", {2}) + "versions { producer: 10 } version: 17");
  Graph g;
  ASSERT_TRUE(ImportGraphDef(original, ImportOptions(), &g).ok());
  std::string text;
  google::protobuf::TextFormat::PrintToString(Export(g), &text);
  EXPECT_THAT(text, HasSubstr("version: 17"));
  EXPECT_TRUE(MessageDifferencer::Equals(original, Export(g)));
}

TEST(RoundTripTest, EmptyGraph) {
  GraphDef original;
  original.mutable_versions()->set_producer(27);
  Graph g;
  ASSERT_TRUE(ImportGraphDef(original, ImportOptions(), &g).ok());
  EXPECT_EQ(g.num_nodes(), 0);
  EXPECT_TRUE(MessageDifferencer::Equals(original, Export(g)));
}

// ---- Malformed GraphDefs: one precise error each
// ---------------------------------

TEST(ImportErrorsTest, MissingInputNode) {
  absl::Status s =
      ImportError(ConstText("a", {2}) + AddText("add", {"a", "ghost"}));
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(Msg(s), HasSubstr("node 'add' (TestAdd)"));
  EXPECT_THAT(Msg(s), HasSubstr("input 1 'ghost' refers to node 'ghost'"));
  EXPECT_THAT(Msg(s), HasSubstr("not in the graph"));
}

TEST(ImportErrorsTest, MissingControlInputNode) {
  absl::Status s =
      ImportError(ConstText("a", {2}) + AddText("add", {"a", "a", "^ghost"}));
  EXPECT_THAT(Msg(s), HasSubstr("node 'add' (TestAdd)"));
  EXPECT_THAT(Msg(s), HasSubstr("'^ghost' refers to node 'ghost'"));
}

TEST(ImportErrorsTest, MissingInputWithPrefixNamesThePrefixedNode) {
  ImportOptions options;
  options.prefix = "p";
  absl::Status s = ImportError(AddText("add", {"ghost", "ghost"}), options);
  EXPECT_THAT(Msg(s), HasSubstr("node 'p/add' (TestAdd)"));
  EXPECT_THAT(Msg(s), HasSubstr("'p/ghost'"));
}

TEST(ImportErrorsTest, DanglingOutputIndex) {
  absl::Status s =
      ImportError(ConstText("x", {2}) + AddText("add", {"x", "x:5"}));
  EXPECT_THAT(Msg(s), HasSubstr("node 'add' (TestAdd)"));
  EXPECT_THAT(Msg(s), HasSubstr("output 5 of 'x'"));
  EXPECT_THAT(Msg(s), HasSubstr("1 output(s)"));
}

TEST(ImportErrorsTest, MalformedInputStrings) {
  for (const char* bad : {"x:abc", "x:-1", "x:", "x:1.5", ":0", "^", ""}) {
    SCOPED_TRACE(bad);
    absl::Status s =
        ImportError(ConstText("x", {2}) + AddText("add", {"x", bad}));
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
    EXPECT_THAT(Msg(s), HasSubstr("node 'add' (TestAdd): input 1"));
  }
  absl::Status s =
      ImportError(ConstText("x", {2}) + AddText("add", {"x", "x:abc"}));
  EXPECT_THAT(Msg(s), HasSubstr("'x:abc' is malformed"));
  EXPECT_THAT(Msg(s), HasSubstr("'node:k'"));
}

TEST(ImportErrorsTest, DataInputAfterControlInput) {
  absl::Status s = ImportError(ConstText("x", {2}) + ConstText("y", {2}) +
                               AddText("add", {"x", "^y", "y"}));
  EXPECT_THAT(Msg(s), HasSubstr("node 'add' (TestAdd)"));
  EXPECT_THAT(Msg(s), HasSubstr("data input 'y' comes after a control input"));
}

TEST(ImportErrorsTest, WrongNumberOfInputs) {
  absl::Status s = ImportError(ConstText("x", {2}) + AddText("add", {"x"}));
  EXPECT_THAT(Msg(s), HasSubstr("node 'add' (TestAdd) takes 2 data input(s)"));
  EXPECT_THAT(Msg(s), HasSubstr("lists 1"));
  s = ImportError(ConstText("x", {2}) + AddText("add", {"x", "x", "x"}));
  EXPECT_THAT(Msg(s), HasSubstr("takes 2 data input(s)"));
  EXPECT_THAT(Msg(s), HasSubstr("lists 3"));
  s = ImportError(ConstText("x", {2}) + AddText("add", {"^x"}));
  EXPECT_THAT(Msg(s), HasSubstr("lists 0"));
}

TEST(ImportErrorsTest, WrongAttrType) {
  absl::Status s = ImportError(
      "node { name: 'add' op: 'TestAdd' attr { key: 'T' value { s: 'float' } } "
      "}");
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(Msg(s), HasSubstr("node 'add' (TestAdd)"));
  EXPECT_THAT(Msg(s), HasSubstr("attr 'T' has type string, expected type"));
}

TEST(ImportErrorsTest, DtypeMismatchOnEdge) {
  absl::Status s =
      ImportError(ConstText("x", {2}) + AddText("add", {"x", "x"}, "DT_INT32"));
  EXPECT_THAT(Msg(s), HasSubstr("node 'add' (TestAdd)"));
  EXPECT_THAT(Msg(s), HasSubstr("input 'a' expects int32"));
  EXPECT_THAT(Msg(s), HasSubstr("produces float"));
}

TEST(ImportErrorsTest, DuplicateNodeNames) {
  absl::Status s = ImportError(ConstText("x", {2}) + ConstText("x", {3}));
  EXPECT_EQ(s.code(), absl::StatusCode::kAlreadyExists) << s;
  EXPECT_THAT(Msg(s), HasSubstr("'x'"));
}

TEST(ImportErrorsTest, Cycle) {
  absl::Status s = ImportError(
      ConstText("x", {2}) + AddText("loop_a", {"x", "loop_c"}) +
      IdentityText("loop_b", "loop_a") + IdentityText("loop_c", "loop_b"));
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
  const std::string msg = Msg(s);
  const bool rotation =
      absl::StrContains(msg, "loop_a -> loop_b -> loop_c -> loop_a") ||
      absl::StrContains(msg, "loop_b -> loop_c -> loop_a -> loop_b") ||
      absl::StrContains(msg, "loop_c -> loop_a -> loop_b -> loop_c");
  EXPECT_TRUE(rotation) << msg;
}

TEST(ImportErrorsTest, ShapeMismatch) {
  absl::Status s = ImportError(ConstText("a", {2, 3}) + ConstText("b", {4, 5}) +
                               MatMulText("dense/mm", "a", "b"));
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(Msg(s), HasSubstr("node 'dense/mm' (TestMatMul)"));
  EXPECT_THAT(Msg(s), HasSubstr("[2,3]"));
  EXPECT_THAT(Msg(s), HasSubstr("[4,5]"));
}

TEST(ImportErrorsTest, MalformedDevice) {
  absl::Status s =
      ImportError(ConstText("x", {2}, "device: '/device:GPU:one'"));
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(Msg(s), HasSubstr("node 'x' (TestConst)"));
  EXPECT_THAT(Msg(s), HasSubstr("/device:GPU:one"));
}

TEST(ImportErrorsTest, InvalidNodeName) {
  absl::Status s = ImportError("node { name: 'bad name' op: 'TestNoOp' }");
  EXPECT_THAT(Msg(s), HasSubstr("invalid node name"));
}

// ---- ValidateGraphDef
// -----------------------------------------------------------

TEST(ValidateGraphDefTest, ValidGraphHasNoErrors) {
  Graph g;
  std::vector<absl::Status> errors =
      ValidateGraphDef(ParseText(kRichGraph), ImportOptions(), &g);
  EXPECT_TRUE(errors.empty());
  EXPECT_EQ(g.num_nodes(), 6);
}

TEST(ValidateGraphDefTest, CollectsIndependentErrorsWithoutBlamingDownstream) {
  const std::string text =
      ConstText("a", {2, 3}) + ConstText("b", {4, 5}) +
      // 1: unknown op, and two generations downstream of it.
      "node { name: 'err_unknown' op: 'TestFrobnicate' }\n" +
      IdentityText("down_of_unknown", "err_unknown") +
      IdentityText("down_down", "down_of_unknown") +
      // 2: wrong attr type, and a consumer.
      "node { name: 'err_attr' op: 'TestAdd' input: 'a' input: 'a' "
      "  attr { key: 'T' value { i: 1 } } }\n" +
      AddText("down_of_attr", {"err_attr", "a"}) +
      // 3: missing input node, and a consumer.
      AddText("err_missing", {"a", "ghost"}) +
      IdentityText("down_of_missing", "err_missing") +
      // 4: dangling output index.
      AddText("err_index", {"a", "a:7"}) +
      // 5: shape mismatch, and a consumer whose shapes are then unknown.
      MatMulText("err_shape", "a", "b") +
      MatMulText("down_of_shape", "err_shape", "b");
  Graph g;
  std::vector<absl::Status> errors =
      ValidateGraphDef(ParseText(text), ImportOptions(), &g);
  std::vector<std::string> messages;
  for (const absl::Status& s : errors) messages.push_back(Msg(s));
  const std::string all = absl::StrJoin(messages, "\n");
  // The unknown op is no error of the GraphDef (a stand-in, see above).
  EXPECT_EQ(errors.size(), 4u) << all;
  for (const char* culprit :
       {"node 'err_attr' (TestAdd)", "node 'err_missing' (TestAdd)",
        "node 'err_index' (TestAdd)", "node 'err_shape' (TestMatMul)"}) {
    EXPECT_THAT(all, HasSubstr(culprit));
  }
  for (const char* innocent :
       {"'err_unknown'", "'down_of_unknown'", "'down_down'", "'down_of_attr'",
        "'down_of_missing'", "'down_of_shape'"}) {
    EXPECT_THAT(all, Not(HasSubstr(innocent)));
  }
  // Everything valid was imported, the unknown op as a stand-in.
  EXPECT_NE(g.FindNode("down_down"), nullptr);
  EXPECT_NE(g.FindNode("down_of_shape"), nullptr);
  ASSERT_NE(g.FindNode("err_unknown"), nullptr);
  EXPECT_TRUE(g.FindNode("err_unknown")->IsUnsupported());
  EXPECT_EQ(g.FindNode("err_attr"), nullptr);
}

TEST(ValidateGraphDefTest, ImportStopsAtTheFirstOfThoseErrors) {
  const std::string text =
      ConstText("a", {2}) + AddText("err_missing", {"a", "ghost"}) +
      AddText("err_index", {"a", "a:7"});
  Graph g;
  absl::Status s = ImportGraphDef(ParseText(text), ImportOptions(), &g);
  EXPECT_THAT(Msg(s), HasSubstr("err_missing"));
  Graph g2;
  EXPECT_EQ(ValidateGraphDef(ParseText(text), ImportOptions(), &g2).size(), 2u);
}

TEST(ValidateGraphDefTest, DuplicateNameReportedOnceAndFirstNodeKept) {
  const std::string text =
      ConstText("x", {2}) + ConstText("x", {3}) + AddText("add", {"x", "x"});
  Graph g;
  std::vector<absl::Status> errors =
      ValidateGraphDef(ParseText(text), ImportOptions(), &g);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(g.FindNode("add")->output_shape(0), TensorShape({2}));
}

TEST(ValidateGraphDefTest, CycleIsReportedWithOtherErrors) {
  const std::string text =
      ConstText("a", {2}) + AddText("err_missing", {"a", "ghost"}) +
      IdentityText("cyc1", "cyc2") + IdentityText("cyc2", "cyc1");
  Graph g;
  std::vector<absl::Status> errors =
      ValidateGraphDef(ParseText(text), ImportOptions(), &g);
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_THAT(Msg(errors[1]), HasSubstr("cycle"));
  EXPECT_THAT(Msg(errors[1]), HasSubstr("cyc1"));
}

// Regression (was a core bug): graph/graph_def_import.cc, Import(): an input
// string that fails to parse (malformed, or a data input after a control input)
// is reported and then skipped without counting it as a data input, so the same
// node also gets "takes 2 data input(s) but the GraphDef lists 1".
// ValidateGraphDef promises one error per problem; the count check should count
// the broken data input (as it already does for a missing source node).
TEST(ValidateGraphDefTest, MalformedInputIsOneError) {
  for (const std::string& text :
       {ConstText("x", {2}) + AddText("add", {"x", "x:abc"}),
        ConstText("x", {2}) + ConstText("y", {2}) +
            AddText("add", {"x", "^y", "y"})}) {
    Graph g;
    std::vector<absl::Status> errors =
        ValidateGraphDef(ParseText(text), ImportOptions(), &g);
    std::vector<std::string> messages;
    for (const absl::Status& s : errors) messages.push_back(Msg(s));
    EXPECT_EQ(errors.size(), 1u) << absl::StrJoin(messages, "\n");
  }
}

}  // namespace
}  // namespace dflow
