// A graph using every registered op round-trips through GraphDef in both
// encodings without losing a byte.
#include <set>
#include <string>

#include "google/protobuf/util/message_differencer.h"
#include "graph/graph_def_file.h"
#include "graph/graph_def_import.h"
#include "graph/op_registry.h"
#include "graph/scope.h"
#include "gtest/gtest.h"
#include "tests/graph/all_ops_graph.h"

namespace dflow {
namespace {

TEST(AllOpsRoundTripTest, RegistryHasNoErrors) {
  for (const absl::Status& s : OpRegistry::Global()->InitErrors()) {
    ADD_FAILURE() << s;
  }
}

TEST(AllOpsRoundTripTest, GraphUsesEveryRegisteredOp) {
  Scope root = Scope::NewRootScope();
  BuildGraphWithEveryOp(root);
  GraphDef def;
  absl::Status s = root.ToGraphDef(&def);
  ASSERT_TRUE(s.ok()) << s;
  std::set<std::string> used;
  for (const NodeDef& n : def.node()) used.insert(n.op());
  // Built only by their own tests: If, StatelessIf, While, StatelessWhile,
  // Case, StatelessCase and the calls name functions of a library
  // (tests/runtime/tf_cond_test, tf_loops_test, tf_calls_test); _ToBool
  // and _SwitchN are their lowerings'.
  const std::set<std::string> elsewhere = {"If",
                                           "StatelessIf",
                                           "While",
                                           "StatelessWhile",
                                           "PartitionedCall",
                                           "StatefulPartitionedCall",
                                           "Case",
                                           "StatelessCase",
                                           "_SwitchN",
                                           "_ToBool",
                                           // TensorFlow's cond gradients
                                           // (tests/runtime/tf_cond_test).
                                           "OptionalFromValue",
                                           "OptionalNone",
                                           "OptionalHasValue",
                                           "OptionalGetValue"};
  for (const OpRegistration* reg : OpRegistry::Global()->AllOps()) {
    if (elsewhere.count(reg->op_def.name())) continue;
    EXPECT_TRUE(used.count(reg->op_def.name()))
        << reg->op_def.name() << " is registered but not used by "
        << "BuildGraphWithEveryOp; add it there";
  }
}

// The op set the foundation issue names; each must be registered.
TEST(AllOpsRoundTripTest, EveryRequiredOpIsRegistered) {
  const char* const kRequired[] = {"Const",
                                   "Placeholder",
                                   "PlaceholderWithDefault",
                                   "Identity",
                                   "IdentityN",
                                   "NoOp",
                                   "VariableV2",
                                   "Assign",
                                   "AssignAdd",
                                   "AssignSub",
                                   "VarHandleOp",
                                   "ReadVariableOp",
                                   "AssignVariableOp",
                                   "AssignAddVariableOp",
                                   "Add",
                                   "AddV2",
                                   "AddN",
                                   "Sub",
                                   "Mul",
                                   "RealDiv",
                                   "Neg",
                                   "Square",
                                   "Sqrt",
                                   "Rsqrt",
                                   "Exp",
                                   "Log",
                                   "Maximum",
                                   "Minimum",
                                   "Pow",
                                   "SquaredDifference",
                                   "MatMul",
                                   "BiasAdd",
                                   "Relu",
                                   "Sigmoid",
                                   "Tanh",
                                   "Softmax",
                                   "LogSoftmax",
                                   "SparseSoftmaxCrossEntropyWithLogits",
                                   "SoftmaxCrossEntropyWithLogits",
                                   "Sum",
                                   "Mean",
                                   "Max",
                                   "Min",
                                   "Prod",
                                   "ArgMax",
                                   "Equal",
                                   "Less",
                                   "Greater",
                                   "Cast",
                                   "Reshape",
                                   "Shape",
                                   "Size",
                                   "Rank",
                                   "ConcatV2",
                                   "Split",
                                   "SplitV",
                                   "ExpandDims",
                                   "Squeeze",
                                   "Transpose",
                                   "Fill",
                                   "ZerosLike",
                                   "OnesLike",
                                   "Tile",
                                   "Pack",
                                   "Unpack",
                                   "Slice",
                                   "StridedSlice",
                                   "Range",
                                   "OneHot",
                                   "RandomStandardNormal",
                                   "TruncatedNormal",
                                   "RandomUniform",
                                   "L2Loss",
                                   "StopGradient",
                                   "Conv2D",
                                   "MaxPool",
                                   "AvgPool",
                                   "LRN",
                                   "ReluGrad",
                                   "SigmoidGrad",
                                   "TanhGrad",
                                   "BiasAddGrad",
                                   "Conv2DBackpropInput",
                                   "Conv2DBackpropFilter",
                                   "MaxPoolGrad",
                                   "AvgPoolGrad",
                                   "LRNGrad",
                                   "BroadcastGradientArgs"};
  for (const char* op : kRequired) {
    EXPECT_TRUE(OpRegistry::Global()->LookUp(op).ok()) << op;
  }
  EXPECT_EQ(std::size(kRequired), 88u);
}

TEST(AllOpsRoundTripTest, LosslessInBothEncodings) {
  Scope root = Scope::NewRootScope();
  BuildGraphWithEveryOp(root);
  GraphDef def;
  ASSERT_TRUE(root.ToGraphDef(&def).ok());
  for (GraphDefFormat format :
       {GraphDefFormat::kBinary, GraphDefFormat::kText}) {
    absl::StatusOr<std::string> bytes = SerializeGraphDef(def, format);
    ASSERT_TRUE(bytes.ok());
    absl::StatusOr<GraphDef> parsed = ParseGraphDef(*bytes);
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    EXPECT_TRUE(
        google::protobuf::util::MessageDifferencer::Equals(def, *parsed));
    Graph g;
    absl::Status s = ImportGraphDef(*parsed, ImportOptions(), &g);
    ASSERT_TRUE(s.ok()) << s;
    GraphDef again;
    g.ToGraphDef(&again);
    absl::StatusOr<std::string> bytes_again = SerializeGraphDef(again, format);
    ASSERT_TRUE(bytes_again.ok());
    EXPECT_EQ(*bytes, *bytes_again) << "round trip changed the bytes";
  }
}

TEST(AllOpsRoundTripTest, ImportedShapesMatchBuildTimeShapes) {
  Scope root = Scope::NewRootScope();
  BuildGraphWithEveryOp(root);
  GraphDef def;
  ASSERT_TRUE(root.ToGraphDef(&def).ok());
  Graph g;
  ASSERT_TRUE(ImportGraphDef(def, ImportOptions(), &g).ok());
  for (const Node* built : root.graph()->nodes()) {
    const Node* imported = g.FindNode(built->name());
    ASSERT_NE(imported, nullptr) << built->name();
    for (int i = 0; i < built->num_outputs(); ++i) {
      EXPECT_EQ(built->output_shape(i), imported->output_shape(i))
          << built->name() << ":" << i;
    }
  }
}

TEST(AllOpsRoundTripTest, SerializationIsDeterministic) {
  std::string first;
  for (int i = 0; i < 3; ++i) {
    Scope root = Scope::NewRootScope();
    BuildGraphWithEveryOp(root);
    GraphDef def;
    ASSERT_TRUE(root.ToGraphDef(&def).ok());
    absl::StatusOr<std::string> bytes =
        SerializeGraphDef(def, GraphDefFormat::kBinary);
    ASSERT_TRUE(bytes.ok());
    if (i == 0) first = *bytes;
    EXPECT_EQ(*bytes, first);
  }
}

}  // namespace
}  // namespace dflow
