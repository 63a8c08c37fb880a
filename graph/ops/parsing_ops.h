// tf.Example parsing (ParseExampleV2, ParseSingleExample) and DecodeRaw:
// schemas for graphs TensorFlow wrote, and builders for the dense-feature
// form input pipelines use; the CPU kernels are kernels/cpu/parsing_ops.cc.
// parsing_ops_more.cc adds CSV records, serialized tensors, compressed and
// padded raw strings and JSON tf.Examples (kernels/cpu/parsing_ops_*.cc).
#ifndef DFLOW_GRAPH_OPS_PARSING_OPS_H_
#define DFLOW_GRAPH_OPS_PARSING_OPS_H_

#include <cstdint>
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

// DecodeCSV's attrs (tf.io.decode_csv's defaults).
struct DecodeCSVOptions {
  std::string field_delim = ",";
  bool use_quote_delim = true;
  std::string na_value;
  std::vector<int64_t> select_cols;  // empty: every column
};

// The columns of CSV `records`, column i of record_defaults[i]'s dtype
// (float, double, int32, int64 or string; a default of 0 elements makes
// the column required), each shaped like `records`.
std::vector<Output> DecodeCSV(const Scope& scope, Input records,
                              InputList record_defaults,
                              const DecodeCSVOptions& options = {});

// The tensor as TensorProto bytes (a string scalar), and back.
Output SerializeTensor(const Scope& scope, Input tensor);
Output ParseTensor(const Scope& scope, Input serialized, DataType out_type);

// Each string inflated: compression_type "" (as is), "ZLIB" or "GZIP".
Output DecodeCompressed(const Scope& scope, Input bytes,
                        const std::string& compression_type);

}  // namespace ops
}  // namespace dflow

#endif  // DFLOW_GRAPH_OPS_PARSING_OPS_H_
