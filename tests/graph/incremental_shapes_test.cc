// Graph::InferShapes is incremental: only nodes whose inputs or attrs
// changed since they were last inferred run their shape function, and the
// results equal a full inference. The passes call it after every rewrite,
// so at a million nodes this is what keeps them linear in what they change.
#include <atomic>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "graph/attr_value_util.h"
#include "graph/graph.h"
#include "graph/op_registry.h"
#include "graph/shape_inference.h"
#include "graph/tensor.h"
#include "gtest/gtest.h"
#include "tests/graph/graph_test_fixture.h"

namespace dflow {
namespace {

// How many times the counting op's shape function ran.
std::atomic<int> shape_fn_calls{0};

DFLOW_REGISTER_OP("TestCountedIdentity")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: type")
    .SetShapeFn([](InferenceContext* c) {
      ++shape_fn_calls;
      return shape_fns::UnchangedShape(c);
    });

class IncrementalShapesTest : public GraphTest {
 protected:
  Node* Counted(const std::string& name) {
    return AddNode(name, "TestCountedIdentity", {{"T", MakeAttr(DT_FLOAT)}});
  }
  // a [2,3] -> c1 -> c2 -> c3, and b [5,3] beside them.
  void BuildChain() {
    a_ = FloatConst("a", TensorShape({2, 3}));
    b_ = FloatConst("b", TensorShape({5, 3}));
    c1_ = Counted("c1");
    c2_ = Counted("c2");
    c3_ = Counted("c3");
    ASSERT_TRUE(a_ && b_ && c1_ && c2_ && c3_);
    Connect(a_, 0, c1_, 0);
    Connect(c1_, 0, c2_, 0);
    Connect(c2_, 0, c3_, 0);
    ASSERT_TRUE(g_.InferShapes().ok());
    shape_fn_calls = 0;
  }
  Node* a_ = nullptr;
  Node* b_ = nullptr;
  Node* c1_ = nullptr;
  Node* c2_ = nullptr;
  Node* c3_ = nullptr;
};

TEST_F(IncrementalShapesTest, AnUnchangedGraphRunsNoShapeFunction) {
  BuildChain();
  EXPECT_EQ(c3_->output_shape(0), TensorShape({2, 3}));
  ASSERT_TRUE(g_.InferShapes().ok());
  EXPECT_EQ(shape_fn_calls, 0);
}

TEST_F(IncrementalShapesTest, ARewiredInputReinfersWhatDependsOnIt) {
  BuildChain();
  ASSERT_TRUE(g_.UpdateEdge(b_, 0, c1_, 0).ok());
  ASSERT_TRUE(g_.InferShapes().ok());
  EXPECT_EQ(c1_->output_shape(0), TensorShape({5, 3}));
  EXPECT_EQ(c2_->output_shape(0), TensorShape({5, 3}));
  EXPECT_EQ(c3_->output_shape(0), TensorShape({5, 3}));
  EXPECT_EQ(shape_fn_calls, 3);
}

TEST_F(IncrementalShapesTest, ReinferenceStopsWhereShapesStayTheSame) {
  BuildChain();
  // Another [2,3] source: c1 runs again, gets the same shape, and c2 and c3
  // (whose inputs did not change) do not.
  Node* a2 = FloatConst("a2", TensorShape({2, 3}));
  ASSERT_NE(a2, nullptr);
  ASSERT_TRUE(g_.UpdateEdge(a2, 0, c1_, 0).ok());
  ASSERT_TRUE(g_.InferShapes().ok());
  EXPECT_EQ(shape_fn_calls, 1);
  EXPECT_EQ(c3_->output_shape(0), TensorShape({2, 3}));
}

TEST_F(IncrementalShapesTest, AChangedAttrReinfersTheNodeAndItsReaders) {
  BuildChain();
  a_->SetAttr("value", MakeAttr(Tensor(DT_FLOAT, TensorShape({7, 1}))));
  ASSERT_TRUE(g_.InferShapes().ok());
  EXPECT_EQ(a_->output_shape(0), TensorShape({7, 1}));
  EXPECT_EQ(c3_->output_shape(0), TensorShape({7, 1}));
  EXPECT_EQ(shape_fn_calls, 3);
}

TEST_F(IncrementalShapesTest, OverriddenShapesReachTheReaders) {
  BuildChain();
  c1_->set_output_shapes({TensorShape({4, 4})});
  ASSERT_TRUE(g_.InferShapes().ok());
  // c1 itself keeps the override (its inputs did not change).
  EXPECT_EQ(c1_->output_shape(0), TensorShape({4, 4}));
  EXPECT_EQ(c3_->output_shape(0), TensorShape({4, 4}));
  EXPECT_EQ(shape_fn_calls, 2);
}

TEST_F(IncrementalShapesTest, ANewNodeIsInferred) {
  BuildChain();
  Node* c4 = Counted("c4");
  ASSERT_NE(c4, nullptr);
  Connect(c3_, 0, c4, 0);
  ASSERT_TRUE(g_.InferShapes().ok());
  EXPECT_EQ(c4->output_shape(0), TensorShape({2, 3}));
  EXPECT_EQ(shape_fn_calls, 1);
}

TEST_F(IncrementalShapesTest, CopiesOfInferredNodesAreTrusted) {
  BuildChain();
  Graph copy;
  std::vector<Node*> nodes;
  for (Node* n : {a_, c1_, c2_, c3_}) {
    absl::StatusOr<Node*> added = copy.AddNodeCopy(*n);
    ASSERT_TRUE(added.ok()) << added.status();
    nodes.push_back(*added);
  }
  for (size_t i = 1; i < nodes.size(); ++i) {
    ASSERT_TRUE(copy.AddEdge(nodes[i - 1], 0, nodes[i], 0).ok());
  }
  EXPECT_EQ(nodes[3]->output_shape(0), TensorShape({2, 3}));
  ASSERT_TRUE(copy.InferShapes().ok());
  EXPECT_EQ(shape_fn_calls, 0);
  // Once trusted they are like any inferred node: a change re-infers.
  nodes[0]->SetAttr("value", MakeAttr(Tensor(DT_FLOAT, TensorShape({1}))));
  ASSERT_TRUE(copy.InferShapes().ok());
  EXPECT_EQ(nodes[3]->output_shape(0), TensorShape({1}));
  EXPECT_EQ(shape_fn_calls, 3);
}

TEST_F(IncrementalShapesTest, ARewiredCopyIsNoLongerTrusted) {
  BuildChain();
  Graph copy;
  absl::StatusOr<Node*> b = copy.AddNodeCopy(*b_);
  absl::StatusOr<Node*> a = copy.AddNodeCopy(*a_);
  absl::StatusOr<Node*> c1 = copy.AddNodeCopy(*c1_);
  ASSERT_TRUE(a.ok() && b.ok() && c1.ok());
  ASSERT_TRUE(copy.AddEdge(*a, 0, *c1, 0).ok());
  // Rewired before the copy was ever inferred: its copied [2,3] is stale.
  ASSERT_TRUE(copy.UpdateEdge(*b, 0, *c1, 0).ok());
  ASSERT_TRUE(copy.InferShapes().ok());
  EXPECT_EQ((*c1)->output_shape(0), TensorShape({5, 3}));
  EXPECT_EQ(shape_fn_calls, 1);
}

TEST_F(IncrementalShapesTest, CopiesOfUninferredNodesAreInferred) {
  // Nodes never inferred (an import without shape inference) have nothing
  // to trust: their copies run their shape functions.
  Node* a = FloatConst("a", TensorShape({2, 3}));
  Node* c = Counted("c");
  ASSERT_TRUE(a && c);
  Connect(a, 0, c, 0);
  Graph copy;
  absl::StatusOr<Node*> ca = copy.AddNodeCopy(*a);
  absl::StatusOr<Node*> cc = copy.AddNodeCopy(*c);
  ASSERT_TRUE(ca.ok() && cc.ok());
  ASSERT_TRUE(copy.AddEdge(*ca, 0, *cc, 0).ok());
  shape_fn_calls = 0;
  ASSERT_TRUE(copy.InferShapes().ok());
  EXPECT_EQ((*cc)->output_shape(0), TensorShape({2, 3}));
  EXPECT_EQ(shape_fn_calls, 1);
}

TEST_F(IncrementalShapesTest, ErrorsAreReportedAgainUntilFixed) {
  BuildChain();
  Node* add = Add("add");
  ASSERT_NE(add, nullptr);
  Connect(a_, 0, add, 0);
  Connect(b_, 0, add, 1);  // [2,3] + [5,3]: no broadcast
  EXPECT_FALSE(g_.InferShapes().ok());
  EXPECT_FALSE(g_.InferShapes().ok());  // not skipped as "unchanged"
  ASSERT_TRUE(g_.UpdateEdge(a_, 0, add, 1).ok());
  EXPECT_TRUE(g_.InferShapes().ok());
  EXPECT_EQ(add->output_shape(0), TensorShape({2, 3}));
}

}  // namespace
}  // namespace dflow
