// Tests for the Graph IR: adding and removing nodes and edges, dtype checks
// on edges (including reference types), node names, GraphDef export and
// whole-graph shape inference. Topological order and cycle reports are in
// graph_order_test.cc.

#include "graph/graph.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "google/protobuf/util/message_differencer.h"
#include "graph/attr_value_util.h"
#include "graph/shape_inference.h"
#include "graph/tensor.h"
#include "graph/types.h"
#include "gtest/gtest.h"
#include "proto/graph.pb.h"
#include "tests/graph/graph_test_fixture.h"

namespace dflow {
namespace {

using ::testing::AnyOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

// ---- Nodes
// --------------------------------------------------------------------

TEST_F(GraphTest, AddNodeAssignsIdsAndNames) {
  Node* a = FloatConst("a");
  Node* b = FloatConst("b");
  Node* add = Add("add");
  ASSERT_TRUE(a && b && add);
  EXPECT_EQ(a->id(), 0);
  EXPECT_EQ(b->id(), 1);
  EXPECT_EQ(add->id(), 2);
  EXPECT_EQ(g_.num_nodes(), 3);
  EXPECT_EQ(g_.num_node_ids(), 3);
  EXPECT_EQ(g_.FindNode("add"), add);
  EXPECT_EQ(g_.FindNode("nope"), nullptr);
  EXPECT_EQ(g_.node(1), b);
  EXPECT_EQ(g_.node(-1), nullptr);
  EXPECT_EQ(g_.node(3), nullptr);
  EXPECT_THAT(g_.nodes(), ElementsAre(a, b, add));
  EXPECT_EQ(add->op(), "TestAdd");
  EXPECT_EQ(add->op_def().name(), "TestAdd");
  EXPECT_EQ(g_.num_edges(), 0);
}

TEST_F(GraphTest, AddNodeDropsTheInputListOfTheNodeDef) {
  NodeDef def;
  def.set_name("add");
  def.set_op("TestAdd");
  def.add_input("x");
  def.add_input("y");
  (*def.mutable_attr())["T"] = MakeAttr(DT_FLOAT);
  absl::StatusOr<Node*> n = g_.AddNode(def);
  ASSERT_TRUE(n.ok()) << n.status();
  EXPECT_EQ((*n)->def().input_size(), 0);
  EXPECT_EQ((*n)->in_edges().size(), 0u);
}

TEST_F(GraphTest, DuplicateNameIsAlreadyExistsAndLeavesGraphUnchanged) {
  Node* a = FloatConst("a");
  ASSERT_NE(a, nullptr);
  NodeDef def;
  def.set_name("a");
  def.set_op("TestAdd");
  (*def.mutable_attr())["T"] = MakeAttr(DT_FLOAT);
  absl::StatusOr<Node*> dup = g_.AddNode(def);
  ASSERT_FALSE(dup.ok());
  EXPECT_EQ(dup.status().code(), absl::StatusCode::kAlreadyExists);
  EXPECT_THAT(Msg(dup.status()), HasSubstr("node 'a' (TestAdd)"));
  EXPECT_THAT(Msg(dup.status()), HasSubstr("already exists (TestConst)"));
  EXPECT_EQ(g_.num_nodes(), 1);
  EXPECT_EQ(g_.FindNode("a"), a);
  EXPECT_EQ(g_.FindNode("a")->op(), "TestConst");
}

TEST_F(GraphTest, InvalidNodeNamesAreRejected) {
  const std::vector<std::string> bad = {
      "",    "_a", "-a",  "/a",   "a b",
      "a:0", "^a", "a\n", "a,b",  "a@b",
      ">a",  "a*", "é",   "a\\b", std::string("a\0b", 3)};
  for (const std::string& name : bad) {
    SCOPED_TRACE(name);
    NodeDef def;
    def.set_name(name);
    def.set_op("TestNoOp");
    absl::StatusOr<Node*> n = g_.AddNode(def);
    ASSERT_FALSE(n.ok());
    EXPECT_EQ(n.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(Msg(n.status()), HasSubstr("invalid node name"));
  }
  EXPECT_EQ(g_.num_nodes(), 0);
  const std::vector<std::string> good = {
      "a", "A1", "0", ".hidden", "a/b", "a_b-c.d", "x>y", "tower_0/MatMul_1"};
  for (const std::string& name : good) {
    SCOPED_TRACE(name);
    NodeDef def;
    def.set_name(name);
    def.set_op("TestNoOp");
    EXPECT_TRUE(g_.AddNode(def).ok());
  }
  EXPECT_EQ(g_.num_nodes(), static_cast<int>(good.size()));
}

TEST_F(GraphTest, DeviceIsCheckedButKeptVerbatim) {
  NodeDef def;
  def.set_name("legacy");
  def.set_op("TestNoOp");
  def.set_device("/job:worker/task:0/gpu:1");  // legacy spelling, valid
  absl::StatusOr<Node*> n = g_.AddNode(def);
  ASSERT_TRUE(n.ok()) << n.status();
  EXPECT_EQ((*n)->requested_device(), "/job:worker/task:0/gpu:1");
  EXPECT_EQ(Def().node(0).device(), "/job:worker/task:0/gpu:1");

  def.set_name("bad_device");
  def.set_device("/gpu:zero");
  n = g_.AddNode(def);
  ASSERT_FALSE(n.ok());
  EXPECT_EQ(n.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Msg(n.status()), HasSubstr("node 'bad_device' (TestNoOp)"));
  EXPECT_THAT(Msg(n.status()), HasSubstr("/gpu:zero"));
  EXPECT_EQ(g_.FindNode("bad_device"), nullptr);
}

TEST_F(GraphTest, PrivateRegistryIsUsedForLookUp) {
  OpRegistry registry;
  ASSERT_TRUE(
      registry.Register(OpDefBuilder("TestPrivateOnly").Output("y: float"))
          .ok());
  Graph g(&registry);
  NodeDef def;
  def.set_name("p");
  def.set_op("TestPrivateOnly");
  EXPECT_TRUE(g.AddNode(def).ok());
  def.set_name("q");
  def.set_op("TestNoOp");  // in the global registry only
  absl::StatusOr<Node*> n = g.AddNode(def);
  ASSERT_FALSE(n.ok());
  EXPECT_EQ(n.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(Msg(n.status()), HasSubstr("node 'q' (TestNoOp)"));
  // And the global graph does not see the private op.
  def.set_op("TestPrivateOnly");
  EXPECT_FALSE(g_.AddNode(def).ok());
}

TEST_F(GraphTest, NodeAttrsAndDevices) {
  Node* add = Add("add");
  ASSERT_NE(add, nullptr);
  EXPECT_EQ(add->FindAttr("T")->type(), DT_FLOAT);
  EXPECT_EQ(add->FindAttr("missing"), nullptr);
  std::vector<std::string> groups = {"loc:@x"};
  add->SetAttr("_class", MakeAttr(absl::MakeConstSpan(groups)));
  EXPECT_EQ(add->def().attr().at("_class").list().s(0), "loc:@x");
  add->ClearAttr("_class");
  EXPECT_FALSE(add->def().attr().contains("_class"));

  EXPECT_EQ(add->requested_device(), "");
  add->set_requested_device("/device:GPU:0");
  EXPECT_EQ(add->requested_device(), "/device:GPU:0");
  EXPECT_EQ(add->def().device(), "/device:GPU:0");
  EXPECT_EQ(add->assigned_device(), "");
  add->set_assigned_device("/job:localhost/replica:0/task:0/device:GPU:0");
  EXPECT_EQ(add->assigned_device(),
            "/job:localhost/replica:0/task:0/device:GPU:0");
  EXPECT_EQ(add->requested_device(), "/device:GPU:0");
}

// ---- Edges
// --------------------------------------------------------------------

TEST_F(GraphTest, AddEdgeConnects) {
  Node* a = FloatConst("a");
  Node* b = FloatConst("b");
  Node* add = Add("add");
  ASSERT_TRUE(a && b && add);
  absl::StatusOr<const Edge*> e0 = g_.AddEdge(a, 0, add, 0);
  absl::StatusOr<const Edge*> e1 = g_.AddEdge(b, 0, add, 1);
  ASSERT_TRUE(e0.ok() && e1.ok());
  EXPECT_EQ((*e0)->src, a);
  EXPECT_EQ((*e0)->dst, add);
  EXPECT_EQ((*e0)->src_output, 0);
  EXPECT_EQ((*e0)->dst_input, 0);
  EXPECT_FALSE((*e0)->IsControl());
  EXPECT_EQ((*e1)->dst_input, 1);
  EXPECT_NE((*e0)->id, (*e1)->id);
  EXPECT_EQ(add->input_edge(0), *e0);
  EXPECT_EQ(add->input_edge(1), *e1);
  EXPECT_THAT(add->in_edges(), ElementsAre(*e0, *e1));
  EXPECT_THAT(a->out_edges(), ElementsAre(*e0));
  EXPECT_EQ(g_.num_edges(), 2);
  EXPECT_TRUE(g_.CheckAllInputsConnected().ok());
}

TEST_F(GraphTest, OneOutputMayFeedManyInputs) {
  Node* a = FloatConst("a");
  Node* add = Add("add");
  ASSERT_TRUE(a && add);
  Connect(a, 0, add, 0);
  Connect(a, 0, add, 1);
  EXPECT_EQ(a->out_edges().size(), 2u);
  EXPECT_THAT(Inputs(Def(), "add"), ElementsAre("a", "a"));
}

TEST_F(GraphTest, AddEdgeRejectsOutOfRangeSlots) {
  Node* a = FloatConst("a");
  Node* add = Add("add");
  ASSERT_TRUE(a && add);
  absl::StatusOr<const Edge*> e = g_.AddEdge(a, 1, add, 0);
  ASSERT_FALSE(e.ok());
  EXPECT_THAT(Msg(e.status()), HasSubstr("node 'add' (TestAdd)"));
  EXPECT_THAT(Msg(e.status()), HasSubstr("output 1 of 'a'"));
  EXPECT_THAT(Msg(e.status()), HasSubstr("1 output(s)"));
  EXPECT_FALSE(g_.AddEdge(a, -1, add, 0).ok());
  e = g_.AddEdge(a, 0, add, 2);
  ASSERT_FALSE(e.ok());
  EXPECT_THAT(Msg(e.status()), HasSubstr("has 2 input(s)"));
  EXPECT_FALSE(g_.AddEdge(a, 0, add, -1).ok());
  EXPECT_EQ(g_.num_edges(), 0);
  EXPECT_TRUE(add->in_edges().empty());
  EXPECT_TRUE(a->out_edges().empty());
}

TEST_F(GraphTest, AddEdgeRejectsAlreadyConnectedInput) {
  Node* a = FloatConst("a");
  Node* b = FloatConst("b");
  Node* add = Add("add");
  ASSERT_TRUE(a && b && add);
  Connect(a, 0, add, 0);
  absl::StatusOr<const Edge*> e = g_.AddEdge(b, 0, add, 0);
  ASSERT_FALSE(e.ok());
  EXPECT_THAT(Msg(e.status()), HasSubstr("input 0 is already connected"));
  EXPECT_EQ(add->input_edge(0)->src, a);
  EXPECT_EQ(g_.num_edges(), 1);
}

TEST_F(GraphTest, DtypeMismatchNamesNodeArgumentAndBothTypes) {
  Node* f = FloatConst("f");
  Node* i = Const("i", Tensor::Scalar<int32_t>(1));
  Node* add = Add("add", DT_FLOAT);
  ASSERT_TRUE(f && i && add);
  Connect(f, 0, add, 0);
  absl::StatusOr<const Edge*> e = g_.AddEdge(i, 0, add, 1);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.status().code(), absl::StatusCode::kInvalidArgument);
  const std::string msg = Msg(e.status());
  EXPECT_THAT(msg, HasSubstr("node 'add' (TestAdd)"));
  EXPECT_THAT(msg, HasSubstr("input 'b' expects float"));
  EXPECT_THAT(msg, HasSubstr("'i' (TestConst) produces int32"));
  EXPECT_EQ(add->input_edge(1), nullptr);
  EXPECT_EQ(g_.num_edges(), 1);
}

TEST_F(GraphTest, DtypeMismatchOnListArgumentNamesElementAndSourceSlot) {
  Node* split =
      AddNode("split", "TestSplit",
              {{"num_split", MakeAttr(3)}, {"T", MakeAttr(DT_INT32)}});
  Node* addn = AddNode("addn", "TestAddN",
                       {{"N", MakeAttr(3)}, {"T", MakeAttr(DT_FLOAT)}});
  ASSERT_TRUE(split && addn);
  absl::StatusOr<const Edge*> e = g_.AddEdge(split, 2, addn, 1);
  ASSERT_FALSE(e.ok());
  EXPECT_THAT(Msg(e.status()), HasSubstr("input 'inputs[1]' expects float"));
  EXPECT_THAT(Msg(e.status()),
              HasSubstr("'split:2' (TestSplit) produces int32"));
}

TEST_F(GraphTest, RefOutputMayFeedValueInputOfItsBaseType) {
  Node* v = AddNode("v", "TestVar", {{"dtype", MakeAttr(DT_FLOAT)}});
  Node* c = FloatConst("c");
  Node* add = Add("add", DT_FLOAT);
  Node* assign = AddNode("assign", "TestAssign", {{"T", MakeAttr(DT_FLOAT)}});
  ASSERT_TRUE(v && c && add && assign);
  // float_ref -> float value input: reading a variable.
  Connect(v, 0, add, 0);
  // float_ref -> float_ref input: assigning to it.
  Connect(v, 0, assign, 0);
  Connect(c, 0, assign, 1);
  // The assign's ref output can be read as a value too.
  Connect(assign, 0, add, 1);
  EXPECT_EQ(g_.num_edges(), 4);
}

TEST_F(GraphTest, ValueMayNotFeedRefInput) {
  Node* c = FloatConst("c");
  Node* c2 = FloatConst("c2");
  Node* assign = AddNode("assign", "TestAssign", {{"T", MakeAttr(DT_FLOAT)}});
  ASSERT_TRUE(c && c2 && assign);
  absl::StatusOr<const Edge*> e = g_.AddEdge(c, 0, assign, 0);
  ASSERT_FALSE(e.ok());
  EXPECT_THAT(Msg(e.status()), HasSubstr("input 'ref' expects float_ref"));
  EXPECT_THAT(Msg(e.status()), HasSubstr("produces float"));
  EXPECT_TRUE(g_.AddEdge(c2, 0, assign, 1).ok());
}

TEST_F(GraphTest, RefOfAnotherBaseTypeIsRejected) {
  Node* v = AddNode("v", "TestVar", {{"dtype", MakeAttr(DT_INT32)}});
  Node* add = Add("add", DT_FLOAT);
  Node* assign = AddNode("assign", "TestAssign", {{"T", MakeAttr(DT_FLOAT)}});
  ASSERT_TRUE(v && add && assign);
  absl::StatusOr<const Edge*> e = g_.AddEdge(v, 0, add, 0);
  ASSERT_FALSE(e.ok());
  EXPECT_THAT(Msg(e.status()), HasSubstr("expects float"));
  EXPECT_THAT(Msg(e.status()), HasSubstr("produces int32_ref"));
  EXPECT_FALSE(g_.AddEdge(v, 0, assign, 0).ok());
}

TEST_F(GraphTest, ControlEdgesAreDeduplicated) {
  Node* a = FloatConst("a");
  Node* b = AddNode("b", "TestNoOp");
  ASSERT_TRUE(a && b);
  const Edge* e1 = g_.AddControlEdge(a, b);
  const Edge* e2 = g_.AddControlEdge(a, b);
  EXPECT_EQ(e1, e2);
  EXPECT_TRUE(e1->IsControl());
  EXPECT_EQ(e1->src_output, kControlSlot);
  EXPECT_EQ(e1->dst_input, kControlSlot);
  EXPECT_EQ(g_.num_edges(), 1);
  EXPECT_EQ(b->in_edges().size(), 1u);
  // The reverse direction is a different edge.
  const Edge* back = g_.AddControlEdge(b, a);
  EXPECT_NE(back, e1);
  EXPECT_EQ(g_.num_edges(), 2);
}

TEST_F(GraphTest, RemoveEdgeFreesTheInput) {
  Node* a = FloatConst("a");
  Node* b = FloatConst("b");
  Node* add = Add("add");
  ASSERT_TRUE(a && b && add);
  Connect(a, 0, add, 0);
  Connect(b, 0, add, 1);
  const Edge* ctl = g_.AddControlEdge(a, add);
  g_.RemoveEdge(add->input_edge(0));
  EXPECT_EQ(add->input_edge(0), nullptr);
  EXPECT_NE(add->input_edge(1), nullptr);
  EXPECT_EQ(g_.num_edges(), 2);
  EXPECT_THAT(a->out_edges(), ElementsAre(ctl));
  absl::Status s = g_.CheckAllInputsConnected();
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(Msg(s),
              HasSubstr("node 'add' (TestAdd): input 'a' is not connected"));
  // The input can be connected again.
  Connect(b, 0, add, 0);
  g_.RemoveEdge(ctl);
  EXPECT_EQ(g_.num_edges(), 2);
  EXPECT_THAT(Inputs(Def(), "add"), ElementsAre("b", "b"));
}

TEST_F(GraphTest, RemoveNodeRemovesItsEdgesAndKeepsOtherIds) {
  Node* a = FloatConst("a");
  Node* mid = Identity("mid");
  Node* add = Add("add");
  Node* sink = AddNode("sink", "TestNoOp");
  ASSERT_TRUE(a && mid && add && sink);
  Connect(a, 0, mid, 0);
  Connect(mid, 0, add, 0);
  Connect(a, 0, add, 1);
  g_.AddControlEdge(mid, sink);
  g_.AddControlEdge(a, mid);
  ASSERT_EQ(g_.num_edges(), 5);

  g_.RemoveNode(mid);
  EXPECT_EQ(g_.num_nodes(), 3);
  EXPECT_EQ(g_.num_edges(), 1);  // only a -> add:1 is left
  EXPECT_EQ(g_.FindNode("mid"), nullptr);
  EXPECT_EQ(g_.node(1), nullptr);
  EXPECT_THAT(g_.nodes(), ElementsAre(a, add, sink));
  EXPECT_EQ(add->input_edge(0), nullptr);
  ASSERT_NE(add->input_edge(1), nullptr);
  EXPECT_EQ(add->input_edge(1)->src, a);
  EXPECT_EQ(a->out_edges().size(), 1u);
  EXPECT_TRUE(sink->in_edges().empty());
  // Surviving nodes keep their ids; new nodes never reuse the hole.
  EXPECT_EQ(a->id(), 0);
  EXPECT_EQ(add->id(), 2);
  EXPECT_EQ(sink->id(), 3);
  Node* again = Identity("mid");  // the name is free again
  ASSERT_NE(again, nullptr);
  EXPECT_EQ(again->id(), 4);
  EXPECT_EQ(g_.num_node_ids(), 5);

  GraphDef def = Def();
  ASSERT_EQ(def.node_size(), 4);
  EXPECT_EQ(def.node(0).name(), "a");
  EXPECT_EQ(def.node(1).name(), "add");
  EXPECT_EQ(def.node(2).name(), "sink");
  EXPECT_EQ(def.node(3).name(), "mid");
  EXPECT_TRUE(Inputs(def, "sink").empty());
  EXPECT_TRUE(Inputs(def, "mid").empty());
}

TEST_F(GraphTest, UpdateEdgeRewiresAnInput) {
  Node* a = FloatConst("a");
  Node* b = FloatConst("b");
  Node* c = FloatConst("c");
  Node* add = Add("add");
  ASSERT_TRUE(a && b && c && add);
  Connect(a, 0, add, 0);
  Connect(b, 0, add, 1);
  ASSERT_TRUE(g_.UpdateEdge(c, 0, add, 0).ok());
  ASSERT_NE(add->input_edge(0), nullptr);
  EXPECT_EQ(add->input_edge(0)->src, c);
  EXPECT_TRUE(a->out_edges().empty());
  EXPECT_EQ(c->out_edges().size(), 1u);
  EXPECT_EQ(g_.num_edges(), 2);
  EXPECT_THAT(Inputs(Def(), "add"), ElementsAre("c", "b"));
}

TEST_F(GraphTest, UpdateEdgeConnectsAnUnconnectedInput) {
  Node* a = FloatConst("a");
  Node* add = Add("add");
  ASSERT_TRUE(a && add);
  ASSERT_TRUE(g_.UpdateEdge(a, 0, add, 1).ok());
  EXPECT_EQ(add->input_edge(1)->src, a);
  EXPECT_EQ(g_.num_edges(), 1);
}

// Regression (was a core bug): graph/graph.cc, Graph::UpdateEdge: it calls
// RemoveEdge(old), which destroys the Edge (edges_[id].reset()), and on failure
// re-adds it by reading old->src and old->src_output from the freed memory (use
// after free). In practice the test crashes with SIGSEGV in AddEdge; at best
// the restored edge is built from garbage and the graph is not left unchanged.
// It should copy src/src_output before removing (or validate the new edge first
// and remove the old one only on success).
TEST_F(GraphTest, FailedUpdateEdgeLeavesGraphUnchanged) {
  Node* a = FloatConst("a");
  Node* b = FloatConst("b");
  Node* i = Const("i", Tensor::Scalar<int32_t>(1));
  Node* add = Add("add");
  ASSERT_TRUE(a && b && i && add);
  Connect(a, 0, add, 0);
  Connect(b, 0, add, 1);
  g_.AddControlEdge(i, add);
  const GraphDef before = Def();

  // dtype mismatch
  absl::Status s = g_.UpdateEdge(i, 0, add, 0);
  EXPECT_THAT(Msg(s), HasSubstr("expects float"));
  // output out of range
  s = g_.UpdateEdge(b, 3, add, 0);
  EXPECT_FALSE(s.ok());

  ASSERT_NE(add->input_edge(0), nullptr);
  EXPECT_EQ(add->input_edge(0)->src, a);
  EXPECT_EQ(add->input_edge(0)->src_output, 0);
  EXPECT_EQ(a->out_edges().size(), 1u);
  EXPECT_EQ(g_.num_edges(), 3);
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(before, Def()))
      << Def().DebugString();
}

// ---- GraphDef export
// ------------------------------------------------------------

TEST_F(GraphTest, ToGraphDefWritesInputStringsInOrder) {
  Node* s = AddNode("s", "TestSplit",
                    {{"num_split", MakeAttr(2)}, {"T", MakeAttr(DT_FLOAT)}});
  Node* c1 = AddNode("c1", "TestNoOp");
  Node* c2 = AddNode("c2", "TestNoOp");
  Node* add = Add("add");
  Node* x = FloatConst("x");
  ASSERT_TRUE(s && c1 && c2 && add && x);
  Connect(x, 0, s, 0);
  // Added out of order: control first, then input 1, then input 0.
  g_.AddControlEdge(c2, add);
  Connect(s, 0, add, 1);
  g_.AddControlEdge(c1, add);
  Connect(s, 1, add, 0);
  GraphDef def = Def();
  ASSERT_EQ(def.node_size(), 5);
  // Nodes in id order.
  EXPECT_EQ(def.node(0).name(), "s");
  EXPECT_EQ(def.node(3).name(), "add");
  // Data inputs by input index (":0" omitted), then controls as added.
  EXPECT_THAT(Inputs(def, "add"), ElementsAre("s:1", "s", "^c2", "^c1"));
  EXPECT_THAT(Inputs(def, "s"), ElementsAre("x"));
  EXPECT_TRUE(Inputs(def, "x").empty());
  // Attrs as given; no defaults added; versions carry dflow's producer.
  EXPECT_EQ(FindNodeDef(def, "add")->attr_size(), 1);
  EXPECT_EQ(FindNodeDef(def, "add")->op(), "TestAdd");
  EXPECT_EQ(def.versions().producer(), kGraphDefProducerVersion);
  EXPECT_FALSE(def.has_library());
  EXPECT_FALSE(def.has_debug_info());
}

TEST_F(GraphTest, ToGraphDefKeepsDevicesAndDoesNotAddDefaults) {
  NodeDef def;
  def.set_name("mm");
  def.set_op("TestMatMul");
  def.set_device("/device:GPU:1");
  (*def.mutable_attr())["T"] = MakeAttr(DT_FLOAT);
  ASSERT_TRUE(g_.AddNode(def).ok());
  GraphDef out = Def();
  ASSERT_EQ(out.node_size(), 1);
  EXPECT_EQ(out.node(0).device(), "/device:GPU:1");
  EXPECT_FALSE(out.node(0).attr().contains("transpose_a"));
  EXPECT_TRUE(
      google::protobuf::util::MessageDifferencer::Equals(out.node(0), def));
}

TEST_F(GraphTest, ToGraphDefClearsItsOutput) {
  ASSERT_NE(FloatConst("a"), nullptr);
  GraphDef def;
  def.add_node()->set_name("stale");
  g_.ToGraphDef(&def);
  ASSERT_EQ(def.node_size(), 1);
  EXPECT_EQ(def.node(0).name(), "a");
}

// ---- Copies between graphs
// ------------------------------------------------------------

TEST_F(GraphTest, ACopyCanChangeWithoutChangingTheOriginal) {
  Node* a = FloatConst("a", TensorShape({2}));
  Node* id = Identity("id");
  ASSERT_TRUE(a && id);
  id->set_requested_device("/device:CPU:1");
  Graph other;
  absl::StatusOr<Node*> copy = other.AddNodeCopy(*id);
  ASSERT_TRUE(copy.ok()) << copy.status();
  EXPECT_EQ(&(*copy)->def(), &id->def());  // shared until one changes
  (*copy)->set_requested_device("/device:CPU:0");
  (*copy)->SetAttr("_note", MakeAttr("copy"));
  EXPECT_EQ((*copy)->requested_device(), "/device:CPU:0");
  EXPECT_EQ(id->requested_device(), "/device:CPU:1");
  EXPECT_EQ(id->FindAttr("_note"), nullptr);
  ASSERT_NE((*copy)->FindAttr("_note"), nullptr);
  // And the other way round.
  absl::StatusOr<Node*> second = other.AddNodeCopy(*a);
  ASSERT_TRUE(second.ok()) << second.status();
  a->ClearAttr("dtype");
  EXPECT_NE((*second)->def().attr().find("dtype"),
            (*second)->def().attr().end());
  EXPECT_EQ(other.AddNodeCopy(*a).status().code(),
            absl::StatusCode::kAlreadyExists);
  OpRegistry empty;
  Graph foreign(&empty);
  EXPECT_EQ(foreign.AddNodeCopy(*a).status().code(),
            absl::StatusCode::kInvalidArgument);
}

// ---- Shape inference
// ------------------------------------------------------------

TEST_F(GraphTest, InferShapesPropagatesThroughTheGraph) {
  // Added in reverse order so InferShapes must use the topological order.
  Node* add = Add("add");
  Node* mm = AddNode("mm", "TestMatMul", {{"T", MakeAttr(DT_FLOAT)}});
  Node* mmt = AddNode("mmt", "TestMatMul",
                      {{"T", MakeAttr(DT_FLOAT)},
                       {"transpose_a", MakeAttr(true)},
                       {"transpose_b", MakeAttr(true)}});
  Node* a = FloatConst("a", TensorShape({2, 3}));
  Node* b = FloatConst("b", TensorShape({3, 4}));
  Node* bias = FloatConst("bias", TensorShape({4}));
  ASSERT_TRUE(add && mm && mmt && a && b && bias);
  Connect(a, 0, mm, 0);
  Connect(b, 0, mm, 1);
  Connect(b, 0, mmt, 0);  // [3,4]^T x [2,3]^T = [4,3] x [3,2]
  Connect(a, 0, mmt, 1);
  Connect(mm, 0, add, 0);
  Connect(bias, 0, add, 1);
  EXPECT_TRUE(mm->output_shape(0).unknown_rank());  // nothing inferred yet
  ASSERT_TRUE(g_.InferShapes().ok());
  EXPECT_EQ(a->output_shape(0), TensorShape({2, 3}));
  EXPECT_EQ(mm->output_shape(0), TensorShape({2, 4}));
  EXPECT_EQ(mmt->output_shape(0), TensorShape({4, 2}));
  EXPECT_EQ(add->output_shape(0), TensorShape({2, 4}));
}

TEST_F(GraphTest, InferShapesWithUnknownInputsStaysPartial) {
  Node* mm = AddNode("mm", "TestMatMul", {{"T", MakeAttr(DT_FLOAT)}});
  Node* a = FloatConst("a", TensorShape({5, 3}));
  Node* v = AddNode("v", "TestVar", {{"dtype", MakeAttr(DT_FLOAT)}});
  ASSERT_TRUE(mm && a && v);
  Connect(a, 0, mm, 0);
  Connect(v, 0, mm, 1);  // unknown shape
  ASSERT_TRUE(g_.InferShapes().ok());
  EXPECT_EQ(mm->output_shape(0), TensorShape({5, -1}));
}

TEST_F(GraphTest, ShapeErrorNamesNodeOpAndBothShapes) {
  Node* a = FloatConst("a", TensorShape({2, 3}));
  Node* b = FloatConst("b", TensorShape({4, 5}));
  Node* mm = AddNode("layer1/mm", "TestMatMul", {{"T", MakeAttr(DT_FLOAT)}});
  ASSERT_TRUE(a && b && mm);
  Connect(a, 0, mm, 0);
  Connect(b, 0, mm, 1);
  absl::Status s = g_.InferShapes();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(Msg(s), HasSubstr("node 'layer1/mm' (TestMatMul)"));
  EXPECT_THAT(Msg(s), HasSubstr("[2,3]"));
  EXPECT_THAT(Msg(s), HasSubstr("[4,5]"));
  // Output shapes of the failed node stay as they were.
  EXPECT_TRUE(mm->output_shape(0).unknown_rank());
}

TEST_F(GraphTest, BroadcastErrorNamesShapes) {
  Node* a = FloatConst("a", TensorShape({2, 3}));
  Node* b = FloatConst("b", TensorShape({4}));
  Node* add = Add("add");
  ASSERT_TRUE(a && b && add);
  Connect(a, 0, add, 0);
  Connect(b, 0, add, 1);
  absl::Status s = g_.InferShapesForNode(add);
  EXPECT_TRUE(s.ok()) << "inputs have no shapes yet, so nothing can clash: "
                      << s;
  s = g_.InferShapes();
  EXPECT_THAT(Msg(s), HasSubstr("node 'add' (TestAdd)"));
  EXPECT_THAT(Msg(s), HasSubstr("[2,3]"));
  EXPECT_THAT(Msg(s), HasSubstr("[4]"));
}

TEST_F(GraphTest, AllInputsSameShapeMergesPartialShapes) {
  Node* addn = AddNode("addn", "TestAddN",
                       {{"N", MakeAttr(2)}, {"T", MakeAttr(DT_FLOAT)}});
  Node* mm = AddNode("mm", "TestMatMul", {{"T", MakeAttr(DT_FLOAT)}});
  Node* a = FloatConst("a", TensorShape({2, 3}));
  Node* v = AddNode("v", "TestVar", {{"dtype", MakeAttr(DT_FLOAT)}});
  Node* c = FloatConst("c", TensorShape({7, 3}));
  ASSERT_TRUE(addn && mm && a && v && c);
  Connect(v, 0, mm, 0);  // [?, ?] x [2, 3] -> [?, 3]
  Connect(a, 0, mm, 1);
  Connect(mm, 0, addn, 0);
  Connect(c, 0, addn, 1);
  ASSERT_TRUE(g_.InferShapes().ok());
  EXPECT_EQ(mm->output_shape(0), TensorShape({-1, 3}));
  EXPECT_EQ(addn->output_shape(0), TensorShape({7, 3}));
}

}  // namespace
}  // namespace dflow
