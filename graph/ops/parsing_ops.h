// tf.Example parsing (ParseExampleV2, ParseSingleExample) and DecodeRaw:
// schemas for graphs TensorFlow wrote, and builders for the dense-feature
// form input pipelines use; the CPU kernels are kernels/cpu/parsing_ops.cc.
#ifndef DFLOW_GRAPH_OPS_PARSING_OPS_H_
#define DFLOW_GRAPH_OPS_PARSING_OPS_H_

#include <string>
#include <vector>

#include "graph/scope.h"

namespace dflow {
namespace ops {

// The dense features `keys` of one serialized tf.Example (a string
// scalar), feature i of dtype types[i] (float, int64 or string) and shape
// shapes[i]; no defaults, so a record without one is an error naming it.
// The values, in key order.
std::vector<Output> ParseSingleExample(const Scope& scope, Input serialized,
                                       const std::vector<std::string>& keys,
                                       const std::vector<DataType>& types,
                                       const std::vector<TensorShape>& shapes);

// The bytes of each string as a vector of `out_type` (little-endian).
Output DecodeRaw(const Scope& scope, Input bytes, DataType out_type);

}  // namespace ops
}  // namespace dflow

#endif  // DFLOW_GRAPH_OPS_PARSING_OPS_H_
