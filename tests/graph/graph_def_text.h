// GraphDefs written as protobuf text for the import tests: test-only ops
// (TestConst, TestAdd, TestMatMul, TestIdentity, TestSplit, TestNoOp,
// registered by this library) and helpers that write their nodes, parse,
// export and import.
#ifndef DFLOW_TESTS_GRAPH_GRAPH_DEF_TEXT_H_
#define DFLOW_TESTS_GRAPH_GRAPH_DEF_TEXT_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "graph/graph.h"
#include "graph/graph_def_import.h"
#include "proto/graph.pb.h"

namespace dflow {
namespace graph_def_text {

std::string Msg(const absl::Status& s);
GraphDef ParseText(const std::string& text);
// A TestConst node of float dtype and the given shape, in text format.
std::string ConstText(const std::string& name, std::vector<int> dims,
                      const std::string& extra = "");
std::string AddText(const std::string& name, std::vector<std::string> inputs,
                    const std::string& t = "DT_FLOAT");
std::string IdentityText(const std::string& name, const std::string& input);
std::string MatMulText(const std::string& name, const std::string& a,
                       const std::string& b);
GraphDef Export(const Graph& g);
// The `input` list of node `name` of `def`.
std::vector<std::string> Inputs(const GraphDef& def, const std::string& name);
// Imports `text`, expecting an error; returns it.
absl::Status ImportError(const std::string& text,
                         const ImportOptions& options = ImportOptions());

}  // namespace graph_def_text
}  // namespace dflow

#endif  // DFLOW_TESTS_GRAPH_GRAPH_DEF_TEXT_H_
