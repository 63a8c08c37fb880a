// Helpers shared by the builder tests (scope_test, op_builder_test): small
// wrappers that build the test-only ops of scope_test_ops.cc through
// OpBuilder, and readers of the GraphDef a Scope produces.
#ifndef DFLOW_TESTS_GRAPH_SCOPE_TEST_UTIL_H_
#define DFLOW_TESTS_GRAPH_SCOPE_TEST_UTIL_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "graph/scope.h"
#include "graph/tensor.h"
#include "gtest/gtest.h"
#include "proto/graph.pb.h"

namespace dflow {

inline std::string Msg(const absl::Status& s) {
  return std::string(s.message());
}

inline Output Const(const Scope& s, const Tensor& t) {
  return OpBuilder(s, "Const")
      .Attr("value", t)
      .Attr("dtype", t.dtype())
      .Finalize();
}
inline Output FloatConst(const Scope& s, TensorShape shape = TensorShape()) {
  return Const(s, Tensor(DT_FLOAT, shape));
}
inline Output Add(const Scope& s, const Input& a, const Input& b) {
  return OpBuilder(s, "TestAdd", "Add").Input(a).Input(b).Finalize();
}
inline Output MatMul(const Scope& s, const Input& a, const Input& b) {
  return OpBuilder(s, "TestMatMul", "MatMul").Input(a).Input(b).Finalize();
}
inline Operation NoOp(const Scope& s) {
  return OpBuilder(s, "TestNoOp", "NoOp").Finalize();
}

inline GraphDef Def(const Scope& s) {
  GraphDef def;
  absl::Status status = s.ToGraphDef(&def);
  EXPECT_TRUE(status.ok()) << status;
  return def;
}

inline const NodeDef* FindNodeDef(const GraphDef& def,
                                  const std::string& name) {
  for (const NodeDef& n : def.node()) {
    if (n.name() == name) return &n;
  }
  return nullptr;
}

inline std::vector<std::string> Inputs(const GraphDef& def,
                                       const std::string& name) {
  const NodeDef* n = FindNodeDef(def, name);
  EXPECT_NE(n, nullptr) << name;
  return n ? std::vector<std::string>(n->input().begin(), n->input().end())
           : std::vector<std::string>();
}

inline std::vector<std::string> ClassOf(const Operation& op) {
  std::vector<std::string> groups;
  if (op.valid()) op.node()->GetAttr("_class", &groups).IgnoreError();
  return groups;
}

}  // namespace dflow

#endif  // DFLOW_TESTS_GRAPH_SCOPE_TEST_UTIL_H_
