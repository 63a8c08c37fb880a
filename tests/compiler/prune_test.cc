// Pruning a graph to one run signature: what is kept, how feeds and fetches
// become _Arg and _Retval nodes, and each bad request's error.
#include "compiler/prune.h"

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "gmock/gmock.h"
#include "graph/ops/ops.h"
#include "gtest/gtest.h"

namespace dflow {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::UnorderedElementsAre;

// x[?,3] -> a = x*2 -> b = a+1 -> y = Relu(b); unused = Neg(x); a NoOp
// "init" after a Const "c".
class PruneTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Scope s = root_;
    Output x = ops::Placeholder(s.WithOpName("x"), DT_FLOAT,
                                ops::PlaceholderAttrs().Shape({-1, 3}));
    Output a =
        ops::Mul(s.WithOpName("a"), x, ops::Const(s.WithOpName("two"), 2.0f));
    Output b =
        ops::AddV2(s.WithOpName("b"), a, ops::Const(s.WithOpName("one"), 1.0f));
    ops::Relu(s.WithOpName("y"), b);
    ops::Neg(s.WithOpName("unused"), x);
    Output c = ops::Const(s.WithOpName("c"), 5.0f);
    ops::NoOp(s.WithOpName("init").WithControlDependencies(c));
    ASSERT_TRUE(root_.ok()) << root_.status();
  }

  absl::StatusOr<PrunedGraph> Prune(std::vector<std::string> feeds,
                                    std::vector<std::string> fetches,
                                    std::vector<std::string> targets = {}) {
    PruneRequest request;
    request.feeds = std::move(feeds);
    request.fetches = std::move(fetches);
    request.targets = std::move(targets);
    request.host_device = "/job:localhost/replica:0/task:0/device:CPU:0";
    return PruneGraph(*root_.graph(), request);
  }

  static absl::flat_hash_map<std::string, const NodeDef*> ByName(
      const GraphDef& def) {
    absl::flat_hash_map<std::string, const NodeDef*> nodes;
    for (const NodeDef& n : def.node()) nodes[n.name()] = &n;
    return nodes;
  }

  // The pruned graph written as a GraphDef (kept until the next call).
  const GraphDef& DefOf(const PrunedGraph& p) {
    def_.Clear();
    p.graph->ToGraphDef(&def_);
    return def_;
  }

  Scope root_ = Scope::NewRootScope();
  GraphDef def_;
};

TEST_F(PruneTest, KeepsWhatTheFetchNeedsAndNotPastTheFeed) {
  absl::StatusOr<PrunedGraph> p = Prune({"a"}, {"y"});
  ASSERT_TRUE(p.ok()) << p.status();
  std::vector<std::string> names;
  for (const NodeDef& n : DefOf(*p).node()) names.push_back(n.name());
  // a is fed: neither it nor x, two or unused is needed.
  EXPECT_THAT(names, ElementsAre("_arg_0", "one", "b", "y", "_retval_0"));
  EXPECT_EQ(p->nodes_kept, 3);
  EXPECT_EQ(p->nodes_total, root_.graph()->num_nodes());
  auto nodes = ByName(DefOf(*p));
  EXPECT_THAT(nodes["b"]->input(), ElementsAre("_arg_0", "one"));
  EXPECT_EQ(nodes["_retval_0"]->op(), kRetvalOp);
  EXPECT_THAT(nodes["_retval_0"]->input(), ElementsAre("y"));
  EXPECT_EQ(nodes["_arg_0"]->op(), kArgOp);
  EXPECT_EQ(nodes["_arg_0"]->device(),
            "/job:localhost/replica:0/task:0/device:CPU:0");
  EXPECT_THAT(p->feed_names, ElementsAre("a"));
  EXPECT_THAT(p->feed_types, ElementsAre(DT_FLOAT));
}

TEST_F(PruneTest, ArgCarriesTheDeclaredShapeAndTheHint) {
  PruneRequest request;
  request.feeds = {"x:0"};
  request.fetches = {"y"};
  request.feed_shape_hints = {TensorShape({8, 3})};
  absl::StatusOr<PrunedGraph> p = PruneGraph(*root_.graph(), request);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_THAT(p->feed_names, ElementsAre("x"));  // canonical
  EXPECT_EQ(p->feed_shapes[0], TensorShape({-1, 3}));
  const NodeDef* arg = ByName(DefOf(*p))["_arg_0"];
  absl::StatusOr<TensorShape> declared =
      TensorShape::FromProto(arg->attr().at("shape").shape());
  ASSERT_TRUE(declared.ok());
  EXPECT_EQ(*declared, TensorShape({-1, 3}));
  absl::StatusOr<TensorShape> hint =
      TensorShape::FromProto(arg->attr().at(kFeedShapeHintAttr).shape());
  ASSERT_TRUE(hint.ok());
  EXPECT_EQ(*hint, TensorShape({8, 3}));
}

TEST_F(PruneTest, TheCopiesKeepTheirInferredShapes) {
  absl::StatusOr<PrunedGraph> p = Prune({"x"}, {"y"});
  ASSERT_TRUE(p.ok()) << p.status();
  // No shape inference runs on the pruned graph: the _Arg carries the
  // declared shape and every copy the shape inferred when it was built.
  const Node* arg = p->graph->FindNode("_arg_0");
  ASSERT_NE(arg, nullptr);
  EXPECT_EQ(arg->output_shape(0), TensorShape({-1, 3}));
  const Node* y = p->graph->FindNode("y");
  ASSERT_NE(y, nullptr);
  EXPECT_EQ(y->output_shape(0), TensorShape({-1, 3}));
  EXPECT_EQ(y->input_edge(0)->src->name(), "b");
  EXPECT_EQ(p->graph->FindNode("a")->input_edge(0)->src, arg);
}

TEST_F(PruneTest, TargetsKeepTheirControlInputs) {
  absl::StatusOr<PrunedGraph> p = Prune({}, {}, {"init"});
  ASSERT_TRUE(p.ok()) << p.status();
  auto nodes = ByName(DefOf(*p));
  EXPECT_EQ(nodes.size(), 2u);
  ASSERT_TRUE(nodes.contains("init"));
  EXPECT_THAT(nodes["init"]->input(), ElementsAre("^c"));
}

TEST_F(PruneTest, AFetchedFeedReadsItsArg) {
  absl::StatusOr<PrunedGraph> p = Prune({"b"}, {"b", "y"});
  ASSERT_TRUE(p.ok()) << p.status();
  auto nodes = ByName(DefOf(*p));
  EXPECT_THAT(nodes["_retval_0"]->input(), ElementsAre("_arg_0"));
  EXPECT_THAT(nodes["y"]->input(), ElementsAre("_arg_0"));
  EXPECT_FALSE(nodes.contains("a"));
}

// As in TensorFlow: a control edge from a fed Placeholder waits for the
// feed's _Arg (the Placeholder would fail unfed); tf.compat.v1.metrics put
// such edges on their inputs.
TEST_F(PruneTest, AControlEdgeFromAFedPlaceholderWaitsForTheFeed) {
  Scope s = root_;
  Output p = ops::Placeholder(s.WithOpName("p"), DT_FLOAT);
  ops::Neg(s.WithOpName("after_p").WithControlDependencies(p),
           ops::Const(s.WithOpName("k"), 3.0f));
  ASSERT_TRUE(root_.ok()) << root_.status();
  absl::StatusOr<PrunedGraph> pruned = Prune({"p"}, {"after_p"});
  ASSERT_TRUE(pruned.ok()) << pruned.status();
  auto nodes = ByName(DefOf(*pruned));
  EXPECT_FALSE(nodes.contains("p"));
  ASSERT_TRUE(nodes.contains("after_p"));
  EXPECT_THAT(nodes["after_p"]->input(), ElementsAre("k", "^_arg_0"));
}

TEST_F(PruneTest, BadRequestsSayWhatIsWrong) {
  struct Case {
    std::vector<std::string> feeds, fetches, targets;
    absl::StatusCode code;
    const char* message;
  };
  for (const Case& c : std::vector<Case>{
           {{},
            {"nope"},
            {},
            absl::StatusCode::kNotFound,
            "fetch 'nope' refers to no node named 'nope'"},
           {{},
            {"y:x"},
            {},
            absl::StatusCode::kInvalidArgument,
            "fetch 'y:x' is not a tensor name; use 'node' or 'node:k'"},
           {{},
            {"y:1"},
            {},
            absl::StatusCode::kInvalidArgument,
            "node 'y' (Relu) has 1 output(s)"},
           {{},
            {"init"},
            {},
            absl::StatusCode::kInvalidArgument,
            "run it as a target instead"},
           {{"x", "x:0"},
            {"y"},
            {},
            absl::StatusCode::kInvalidArgument,
            "'x' is fed twice"},
           {{},
            {},
            {"ghost"},
            absl::StatusCode::kNotFound,
            "target 'ghost' refers to no node in the graph"},
           {{":0"},
            {"y"},
            {},
            absl::StatusCode::kInvalidArgument,
            "feed name is empty"},
       }) {
    absl::StatusOr<PrunedGraph> p = Prune(c.feeds, c.fetches, c.targets);
    ASSERT_FALSE(p.ok()) << c.message;
    EXPECT_EQ(p.status().code(), c.code) << p.status();
    EXPECT_THAT(std::string(p.status().message()), HasSubstr(c.message));
  }
}

TEST(PruneUnconnectedTest, AKeptNodeWithAnOpenInputFails) {
  Graph g;
  NodeDef def;
  def.set_name("lonely");
  def.set_op("Neg");
  (*def.mutable_attr())["T"].set_type(DT_FLOAT);
  ASSERT_TRUE(g.AddNode(def).ok());
  PruneRequest request;
  request.fetches = {"lonely"};
  absl::StatusOr<PrunedGraph> p = PruneGraph(g, request);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(p.status().message()),
              HasSubstr("node 'lonely' (Neg): input 0 is not connected"));
}

TEST(TensorNameTest, OutputZeroHasNoSuffix) {
  EXPECT_EQ(TensorName("a", 0), "a");
  EXPECT_EQ(TensorName("a", 2), "a:2");
}

}  // namespace
}  // namespace dflow
