#include "tests/graph/graph_def_text.h"

#include "absl/strings/str_cat.h"
#include "google/protobuf/text_format.h"
#include "graph/op_registry.h"
#include "graph/shape_inference.h"
#include "gtest/gtest.h"
#include "tests/graph/test_shape_fns.h"

namespace dflow {
namespace {

using test_shape_fns::ConstShape;
using test_shape_fns::MatMulShape;

// ---- Test-only ops
// ------------------------------------------------------------

DFLOW_REGISTER_OP("TestConst")
    .Output("output: dtype")
    .Attr("value: tensor")
    .Attr("dtype: type")
    .SetShapeFn(ConstShape);

DFLOW_REGISTER_OP("TestAdd")
    .Input("a: T")
    .Input("b: T")
    .Output("sum: T")
    .Attr("T: {float, double, int32}")
    .SetShapeFn(shape_fns::BroadcastBinary);

DFLOW_REGISTER_OP("TestMatMul")
    .Input("a: T")
    .Input("b: T")
    .Output("product: T")
    .Attr("transpose_a: bool = false")
    .Attr("transpose_b: bool = false")
    .Attr("T: {float, double}")
    .SetShapeFn(MatMulShape);

DFLOW_REGISTER_OP("TestIdentity")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: type")
    .SetShapeFn(shape_fns::UnchangedShape);

DFLOW_REGISTER_OP("TestSplit")
    .Input("value: T")
    .Output("output: num_split * T")
    .Attr("num_split: int")
    .Attr("T: type");

DFLOW_REGISTER_OP("TestNoOp");

}  // namespace

namespace graph_def_text {

std::string Msg(const absl::Status& s) { return std::string(s.message()); }

GraphDef ParseText(const std::string& text) {
  GraphDef def;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &def))
      << text;
  return def;
}

std::string ConstText(const std::string& name, std::vector<int> dims,
                      const std::string& extra) {
  std::string shape;
  for (int d : dims) absl::StrAppend(&shape, "dim { size: ", d, " } ");
  return absl::StrCat(
      "node { name: '", name, "' op: 'TestConst' ", extra,
      " attr { key: 'dtype' value { type: DT_FLOAT } }"
      " attr { key: 'value' value { tensor { dtype: DT_FLOAT tensor_shape { ",
      shape, "} } } } }\n");
}

std::string AddText(const std::string& name, std::vector<std::string> inputs,
                    const std::string& t) {
  std::string in;
  for (const std::string& i : inputs) absl::StrAppend(&in, "input: '", i, "' ");
  return absl::StrCat("node { name: '", name, "' op: 'TestAdd' ", in,
                      "attr { key: 'T' value { type: ", t, " } } }\n");
}

std::string IdentityText(const std::string& name, const std::string& input) {
  return absl::StrCat("node { name: '", name, "' op: 'TestIdentity' input: '",
                      input,
                      "' attr { key: 'T' value { type: DT_FLOAT } } }\n");
}

std::string MatMulText(const std::string& name, const std::string& a,
                       const std::string& b) {
  return absl::StrCat("node { name: '", name, "' op: 'TestMatMul' input: '", a,
                      "' input: '", b,
                      "' attr { key: 'T' value { type: DT_FLOAT } } }\n");
}

GraphDef Export(const Graph& g) {
  GraphDef def;
  g.ToGraphDef(&def);
  return def;
}

std::vector<std::string> Inputs(const GraphDef& def, const std::string& name) {
  for (const NodeDef& n : def.node()) {
    if (n.name() == name) return {n.input().begin(), n.input().end()};
  }
  ADD_FAILURE() << "no node " << name;
  return {};
}

absl::Status ImportError(const std::string& text,
                         const ImportOptions& options) {
  Graph g;
  absl::Status s = ImportGraphDef(ParseText(text), options, &g);
  EXPECT_FALSE(s.ok()) << "imported without error:\n" << text;
  return s;
}

}  // namespace graph_def_text
}  // namespace dflow
