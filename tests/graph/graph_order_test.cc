// Tests for the Graph IR's topological order and its cycle reports.

#include <algorithm>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "google/protobuf/util/message_differencer.h"
#include "graph/attr_value_util.h"
#include "graph/graph.h"
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

// ---- Topological order
// --------------------------------------------------------

TEST_F(GraphTest, TopologicalOrderFollowsDataEdgesNotIds) {
  // Added consumers first: ids are the reverse of the data flow.
  Node* add = Add("add");
  Node* id = Identity("id");
  Node* a = FloatConst("a");
  Node* b = FloatConst("b");
  ASSERT_TRUE(add && id && a && b);
  Connect(id, 0, add, 0);
  Connect(b, 0, add, 1);
  Connect(a, 0, id, 0);
  std::vector<std::string> order = TopoNames();
  ASSERT_EQ(order.size(), 4u);
  auto pos = [&](const std::string& n) {
    return std::find(order.begin(), order.end(), n) - order.begin();
  };
  EXPECT_LT(pos("a"), pos("id"));
  EXPECT_LT(pos("id"), pos("add"));
  EXPECT_LT(pos("b"), pos("add"));
  EXPECT_EQ(order.back(), "add");
}

TEST_F(GraphTest, TopologicalOrderFollowsControlEdges) {
  Node* first = AddNode("first", "TestNoOp");
  Node* second = AddNode("second", "TestNoOp");
  Node* third = AddNode("third", "TestNoOp");
  ASSERT_TRUE(first && second && third);
  g_.AddControlEdge(third, first);
  g_.AddControlEdge(second, third);
  EXPECT_THAT(TopoNames(), ElementsAre("second", "third", "first"));
}

TEST_F(GraphTest, TopologicalOrderIsDeterministic) {
  auto build = [](Graph* g) {
    for (int i = 0; i < 20; ++i) {
      NodeDef def;
      def.set_name(absl::StrCat("n", i));
      def.set_op("TestNoOp");
      EXPECT_TRUE(g->AddNode(def).ok());
    }
    // A fixed pseudo-random DAG: edges only from higher to lower ids, so that
    // the order cannot simply be the id order.
    for (int i = 0; i < 20; ++i) {
      for (int j = 0; j < i; ++j) {
        if ((i * 7 + j * 3) % 5 == 0) g->AddControlEdge(g->node(i), g->node(j));
      }
    }
  };
  Graph g1, g2;
  build(&g1);
  build(&g2);
  auto names = [](const Graph& g) {
    absl::StatusOr<std::vector<Node*>> order = g.TopologicalOrder();
    EXPECT_TRUE(order.ok()) << order.status();
    std::vector<std::string> out;
    if (order.ok()) {
      for (Node* n : *order) out.push_back(n->name());
    }
    return out;
  };
  const std::vector<std::string> o1 = names(g1);
  ASSERT_EQ(o1.size(), 20u);
  EXPECT_EQ(o1, names(g1));  // same graph, same answer
  EXPECT_EQ(o1, names(g2));  // equal graphs, same answer
  // And it is a valid order.
  for (Node* n : g1.nodes()) {
    for (const Edge* e : n->in_edges()) {
      auto pos = [&](const std::string& s) {
        return std::find(o1.begin(), o1.end(), s) - o1.begin();
      };
      EXPECT_LT(pos(e->src->name()), pos(n->name()));
    }
  }
}

TEST_F(GraphTest, IndependentNodesComeInIdOrder) {
  for (const char* n : {"z", "y", "x", "w"})
    ASSERT_NE(AddNode(n, "TestNoOp"), nullptr);
  EXPECT_THAT(TopoNames(), ElementsAre("z", "y", "x", "w"));
}

// Whether `msg` contains the cycle `names` (in order) in some rotation, in the
// "a -> b -> c -> a" form.
bool HasCycle(const std::string& msg, const std::vector<std::string>& names) {
  for (size_t r = 0; r < names.size(); ++r) {
    std::vector<std::string> rot;
    for (size_t k = 0; k <= names.size(); ++k) {
      rot.push_back(names[(r + k) % names.size()]);
    }
    if (msg.find(absl::StrJoin(rot, " -> ")) != std::string::npos) return true;
  }
  return false;
}

TEST_F(GraphTest, ThreeNodeCycleIsReportedByName) {
  Node* up = FloatConst("node_up");
  Node* ca = Add("cyc_a");
  Node* cb = Identity("cyc_b");
  Node* cc = Identity("cyc_c");
  Node* down = Identity("node_down");
  ASSERT_TRUE(up && ca && cb && cc && down);
  Connect(up, 0, ca, 0);
  Connect(ca, 0, cb, 0);
  Connect(cb, 0, cc, 0);
  Connect(cc, 0, ca, 1);
  Connect(cc, 0, down, 0);
  absl::StatusOr<std::vector<Node*>> order = g_.TopologicalOrder();
  ASSERT_FALSE(order.ok());
  EXPECT_EQ(order.status().code(), absl::StatusCode::kFailedPrecondition);
  const std::string msg = Msg(order.status());
  EXPECT_THAT(msg, HasSubstr("cycle"));
  EXPECT_TRUE(HasCycle(msg, {"cyc_a", "cyc_b", "cyc_c"})) << msg;
  // Only the nodes on the cycle are listed.
  EXPECT_THAT(msg, Not(HasSubstr("node_up")));
  EXPECT_THAT(msg, Not(HasSubstr("node_down")));
  // InferShapes reports the same problem.
  absl::Status s = g_.InferShapes();
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(HasCycle(Msg(s), {"cyc_a", "cyc_b", "cyc_c"})) << s;
}

TEST_F(GraphTest, CycleMessageStartsAtTheSmallestIdAndIsStable) {
  // Ids: cyc_z=0, cyc_y=1, cyc_x=2; edges z -> x -> y -> z.
  Node* z = Identity("cyc_z");
  Node* y = Identity("cyc_y");
  Node* x = Identity("cyc_x");
  ASSERT_TRUE(z && y && x);
  Connect(z, 0, x, 0);
  Connect(x, 0, y, 0);
  Connect(y, 0, z, 0);
  absl::StatusOr<std::vector<Node*>> order = g_.TopologicalOrder();
  ASSERT_FALSE(order.ok());
  EXPECT_THAT(Msg(order.status()),
              HasSubstr("cyc_z -> cyc_x -> cyc_y -> cyc_z"));
  EXPECT_EQ(order.status(), g_.TopologicalOrder().status());
}

TEST_F(GraphTest, CycleReportedFromADownstreamStart) {
  // The first waiting node in id order is downstream of the cycle: the report
  // must still be the cycle, not the path to it.
  Node* down = Identity("down_first");
  Node* p = Identity("cyc_p");
  Node* q = Identity("cyc_q");
  ASSERT_TRUE(down && p && q);
  Connect(p, 0, down, 0);
  Connect(p, 0, q, 0);
  Connect(q, 0, p, 0);
  absl::StatusOr<std::vector<Node*>> order = g_.TopologicalOrder();
  ASSERT_FALSE(order.ok());
  EXPECT_TRUE(HasCycle(Msg(order.status()), {"cyc_p", "cyc_q"}))
      << order.status();
  EXPECT_THAT(Msg(order.status()), Not(HasSubstr("down_first")));
}

TEST_F(GraphTest, CycleThroughControlEdge) {
  Node* x = FloatConst("cx");
  Node* y = Identity("cy");
  ASSERT_TRUE(x && y);
  Connect(x, 0, y, 0);
  g_.AddControlEdge(y, x);
  absl::StatusOr<std::vector<Node*>> order = g_.TopologicalOrder();
  ASSERT_FALSE(order.ok());
  EXPECT_TRUE(HasCycle(Msg(order.status()), {"cx", "cy"})) << order.status();
}

TEST_F(GraphTest, SelfLoop) {
  Node* x = Identity("self");
  ASSERT_NE(x, nullptr);
  Connect(x, 0, x, 0);
  absl::StatusOr<std::vector<Node*>> order = g_.TopologicalOrder();
  ASSERT_FALSE(order.ok());
  EXPECT_THAT(Msg(order.status()), HasSubstr("self -> self"));
}

TEST_F(GraphTest, BreakingTheCycleRestoresTheOrder) {
  Node* a = Identity("a");
  Node* b = Identity("b");
  ASSERT_TRUE(a && b);
  Connect(a, 0, b, 0);
  Connect(b, 0, a, 0);
  ASSERT_FALSE(g_.TopologicalOrder().ok());
  g_.RemoveEdge(a->input_edge(0));
  EXPECT_THAT(TopoNames(), ElementsAre("a", "b"));
}

}  // namespace
}  // namespace dflow
