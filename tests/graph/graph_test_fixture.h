// The GraphTest fixture shared by the Graph IR tests: builds nodes of the
// test-only ops (tests/graph/graph_test_ops.cc) into a Graph and reads the
// graph back (topological order, GraphDef).
#ifndef DFLOW_TESTS_GRAPH_GRAPH_TEST_FIXTURE_H_
#define DFLOW_TESTS_GRAPH_GRAPH_TEST_FIXTURE_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "graph/attr_value_util.h"
#include "graph/graph.h"
#include "graph/tensor.h"
#include "gtest/gtest.h"
#include "proto/graph.pb.h"

namespace dflow {

inline std::string Msg(const absl::Status& s) {
  return std::string(s.message());
}

class GraphTest : public ::testing::Test {
 protected:
  Node* AddNode(const std::string& name, const std::string& op,
                std::vector<std::pair<std::string, AttrValue>> attrs = {}) {
    NodeDef def;
    def.set_name(name);
    def.set_op(op);
    for (auto& [k, v] : attrs) (*def.mutable_attr())[k] = v;
    absl::StatusOr<Node*> n = g_.AddNode(def);
    EXPECT_TRUE(n.ok()) << n.status();
    return n.ok() ? *n : nullptr;
  }
  Node* Const(const std::string& name, const Tensor& t) {
    return AddNode(name, "TestConst",
                   {{"value", MakeAttr(t)}, {"dtype", MakeAttr(t.dtype())}});
  }
  Node* FloatConst(const std::string& name, TensorShape shape = TensorShape()) {
    return Const(name, Tensor(DT_FLOAT, shape));
  }
  Node* Add(const std::string& name, DataType t = DT_FLOAT) {
    return AddNode(name, "TestAdd", {{"T", MakeAttr(t)}});
  }
  Node* Identity(const std::string& name, DataType t = DT_FLOAT) {
    return AddNode(name, "TestIdentity", {{"T", MakeAttr(t)}});
  }
  void Connect(Node* src, int out, Node* dst, int in) {
    absl::StatusOr<const Edge*> e = g_.AddEdge(src, out, dst, in);
    ASSERT_TRUE(e.ok()) << e.status();
  }
  std::vector<std::string> TopoNames() {
    absl::StatusOr<std::vector<Node*>> order = g_.TopologicalOrder();
    EXPECT_TRUE(order.ok()) << order.status();
    std::vector<std::string> names;
    if (order.ok()) {
      for (Node* n : *order) names.push_back(n->name());
    }
    return names;
  }
  GraphDef Def() {
    GraphDef def;
    g_.ToGraphDef(&def);
    return def;
  }
  const NodeDef* FindNodeDef(const GraphDef& def, const std::string& name) {
    for (const NodeDef& n : def.node()) {
      if (n.name() == name) return &n;
    }
    return nullptr;
  }
  std::vector<std::string> Inputs(const GraphDef& def,
                                  const std::string& name) {
    const NodeDef* n = FindNodeDef(def, name);
    EXPECT_NE(n, nullptr) << name;
    return n ? std::vector<std::string>(n->input().begin(), n->input().end())
             : std::vector<std::string>();
  }

  Graph g_;
};

}  // namespace dflow

#endif  // DFLOW_TESTS_GRAPH_GRAPH_TEST_FIXTURE_H_
