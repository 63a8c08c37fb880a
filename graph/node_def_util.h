// Checks a NodeDef against its op's OpDef and derives its input/output types.
//
// These are the rules every node obeys, whether built by the C++ builder or
// read from a GraphDef: the attrs the op declares are present (or have a
// default) with the right type and allowed values, no undeclared attrs
// (except internal `_`-prefixed ones such as `_class`), and the number of
// data inputs matches the op's signature. Errors name the node and the op:
//   node 'layer1/MatMul' (MatMul): attr 'T' is string, expected one of
//   {half, bfloat16, float, double, int32, int64}
#ifndef DFLOW_GRAPH_NODE_DEF_UTIL_H_
#define DFLOW_GRAPH_NODE_DEF_UTIL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "graph/types.h"
#include "proto/node_def.pb.h"
#include "proto/op_def.pb.h"

namespace dflow {

// "node 'NAME' (OP)": the prefix of every error about a node.
std::string NodeLabel(const NodeDef& node);
std::string NodeLabel(absl::string_view name, absl::string_view op);

// Adds to `node` every attr of `op_def` that has a default and is unset.
void AddDefaultAttrs(const OpDef& op_def, NodeDef* node);

// Validates attrs (presence, types, allowed values, minimums). Does not look
// at inputs.
absl::Status ValidateAttrs(const NodeDef& node, const OpDef& op_def);

// The most inputs or outputs one argument of a node may have (an attr such
// as AddN's N, Split's num_split or Unpack's num). The attr comes from the
// file, and every input or output costs memory before anything else can
// check it (types, edges, shapes, kernel slots): 2^62 would abort in an
// allocation. 2^20 is far beyond any real graph and keeps a node's
// bookkeeping within tens of megabytes.
inline constexpr int64_t kMaxArgListLength = int64_t{1} << 20;

// Computes the dtypes of the node's data inputs and outputs from its attrs
// (type attrs, list lengths). Reference args give ref types. A list length
// above kMaxArgListLength is InvalidArgument.
absl::Status InOutTypesForNode(const NodeDef& node, const OpDef& op_def,
                               std::vector<DataType>* inputs,
                               std::vector<DataType>* outputs);

// For each input/output arg of the op, the [start, end) range of the node's
// flat input/output indices it covers. Used to map a flat index back to an
// argument name in messages.
absl::Status ArgRangesForNode(const NodeDef& node, const OpDef& op_def,
                              std::vector<std::pair<int, int>>* input_ranges,
                              std::vector<std::pair<int, int>>* output_ranges);

// The name of the op argument at flat input index `i` ("a", "values[2]").
std::string InputArgName(const NodeDef& node, const OpDef& op_def, int i);

}  // namespace dflow

#endif  // DFLOW_GRAPH_NODE_DEF_UTIL_H_
