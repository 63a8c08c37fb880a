// A GraphDef with ops or attrs dflow lacks imports whole: such a node
// becomes a stand-in (Node::IsUnsupported) with its reason and dtypes taken
// from its neighbours, and only the GraphDef's own faults are errors.
#include <string>

#include "gmock/gmock.h"
#include "google/protobuf/util/message_differencer.h"
#include "graph/graph.h"
#include "graph/graph_def_import.h"
#include "gtest/gtest.h"
#include "tests/graph/graph_def_text.h"

namespace dflow {
namespace {

using ::google::protobuf::util::MessageDifferencer;
using ::testing::HasSubstr;
using namespace graph_def_text;  // NOLINT: the text helpers

TEST(UnsupportedNodesTest, UnknownOpIsKeptWithItsReasonAndNeighbourDtypes) {
  // mystery reads a (float) and feeds id:0 (an Identity of float) from
  // its output 1; output 0 is read by nobody.
  const std::string text =
      ConstText("a", {2}) +
      "node { name: 'mystery' op: 'TestFrobnicate' input: 'a' "
      "  input: '^a' }\n" +
      IdentityText("id", "mystery:1");
  Graph g;
  ASSERT_TRUE(ImportGraphDef(ParseText(text), ImportOptions(), &g).ok());
  const Node* n = g.FindNode("mystery");
  ASSERT_NE(n, nullptr);
  EXPECT_TRUE(n->IsUnsupported());
  EXPECT_EQ(n->unsupported().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(Msg(n->unsupported()),
              HasSubstr("node 'mystery' (TestFrobnicate)"));
  EXPECT_THAT(Msg(n->unsupported()),
              HasSubstr("'TestFrobnicate' is not registered"));
  ASSERT_EQ(n->num_inputs(), 1);
  EXPECT_EQ(n->input_type(0), DT_FLOAT);
  ASSERT_EQ(n->num_outputs(), 2);
  EXPECT_EQ(n->output_type(0), DT_INVALID);  // nobody says
  EXPECT_EQ(n->output_type(1), DT_FLOAT);
  EXPECT_TRUE(n->IsStateful());
  EXPECT_FALSE(g.FindNode("a")->IsUnsupported());
  // The consumer is a regular node with an unknown input shape.
  EXPECT_FALSE(g.FindNode("id")->IsUnsupported());
  // Every NodeDef round-trips unchanged (stand-ins are added last, so the
  // order of the nodes may change).
  GraphDef back = Export(g);
  GraphDef original = ParseText(text);
  ASSERT_EQ(back.node_size(), original.node_size());
  for (const NodeDef& want : original.node()) {
    bool found = false;
    for (const NodeDef& got : back.node()) {
      if (got.name() != want.name()) continue;
      found = true;
      EXPECT_TRUE(MessageDifferencer::Equals(want, got)) << got.DebugString();
    }
    EXPECT_TRUE(found) << want.name();
  }
}

TEST(UnsupportedNodesTest, ChainsOfUnknownOpsLoad) {
  // Two unknown ops in a row (a queue and its dequeue): the edge between
  // them has no dtype anyone knows.
  const std::string text =
      "node { name: 'queue' op: 'TestQueue' }\n"
      "node { name: 'dequeue' op: 'TestDequeue' input: 'queue' }\n" +
      IdentityText("x", "dequeue");
  Graph g;
  ASSERT_TRUE(ImportGraphDef(ParseText(text), ImportOptions(), &g).ok());
  EXPECT_EQ(g.FindNode("queue")->output_type(0), DT_INVALID);
  EXPECT_EQ(g.FindNode("dequeue")->input_type(0), DT_INVALID);
  EXPECT_EQ(g.FindNode("dequeue")->output_type(0), DT_FLOAT);
}

TEST(UnsupportedNodesTest, AttrUnknownToDflowsSchemaIsAStandIn) {
  // TensorFlow adds attrs to ops over time; an attr dflow's schema does
  // not declare makes the node unrunnable, not the graph invalid.
  const std::string text =
      ConstText("a", {2}) +
      "node { name: 'add' op: 'TestAdd' input: 'a' input: 'a' "
      "  attr { key: 'T' value { type: DT_FLOAT } } "
      "  attr { key: 'newer_attr' value { b: true } } }\n";
  Graph g;
  ASSERT_TRUE(ImportGraphDef(ParseText(text), ImportOptions(), &g).ok());
  const Node* n = g.FindNode("add");
  ASSERT_TRUE(n->IsUnsupported());
  EXPECT_THAT(Msg(n->unsupported()), HasSubstr("'newer_attr'"));
  EXPECT_EQ(n->num_inputs(), 2);
}

TEST(UnsupportedNodesTest, AttrOfTheWrongKindIsStillAnError) {
  // An int where the op declares a type is malformed for TensorFlow too.
  absl::Status s =
      ImportError(ConstText("a", {2}) +
                  "node { name: 'bad' op: 'TestAdd' input: 'a' input: 'a' "
                  "  attr { key: 'T' value { i: 1 } } }\n");
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(Msg(s), HasSubstr("node 'bad' (TestAdd)"));
}

TEST(UnsupportedNodesTest, BrokenNeighboursOfAStandInAreStillReported) {
  absl::Status s = ImportError(
      "node { name: 'mystery' op: 'TestFrobnicate' input: 'ghost' }\n");
  EXPECT_THAT(Msg(s), HasSubstr("'ghost'"));
}

}  // namespace
}  // namespace dflow
