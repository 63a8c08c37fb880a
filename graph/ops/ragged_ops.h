// Ragged-tensor ops (TensorFlow 2.21's core/ops/ragged_*_ops.cc) that
// tf.RaggedTensor code writes into graphs, text models above all:
// tf.strings.split(...).to_tensor() and .to_sparse(), Keras'
// TextVectorization (RaggedTensorToTensor, RaggedTensorToSparse), ragged
// slicing (RaggedRange) and tf.gather / tf.concat of ragged tensors
// (RaggedGather). A ragged tensor travels as its flat values and, per
// ragged dimension, a row partition: row splits ([0, 2, 2, 5]: rows of 2,
// 0 and 3 values) or value row ids ([0, 0, 2, 2, 2]) with the row count.
#ifndef DFLOW_GRAPH_OPS_RAGGED_OPS_H_
#define DFLOW_GRAPH_OPS_RAGGED_OPS_H_

#include <string>
#include <vector>

#include "absl/types/span.h"
#include "graph/scope.h"

namespace dflow {
namespace ops {

// The dense tensor of a ragged one: `shape` (int64 or int32; the scalar -1
// or -1 entries for "as large as the rows need") truncates or pads with
// `default_value`, broadcast to one value's shape. `partition_types` are
// "ROW_SPLITS" per ragged dimension, or "FIRST_DIM_SIZE" (a scalar row
// count) then "VALUE_ROWIDS" per ragged dimension.
Output RaggedTensorToTensor(const Scope& scope, Input shape, Input values,
                            Input default_value,
                            absl::Span<const Output> row_partition_tensors,
                            const std::vector<std::string>& partition_types);

struct RaggedTensorToSparseOutputs {
  Output sparse_indices;      // int64 [n, rank]
  Output sparse_values;       // [n]
  Output sparse_dense_shape;  // int64 [rank]
};
// The SparseTensor of a ragged tensor given by its nested row splits
// (outermost first) and flat values.
RaggedTensorToSparseOutputs RaggedTensorToSparse(
    const Scope& scope, absl::Span<const Output> nested_splits, Input values);

struct RaggedRangeOutputs {
  Output splits;  // [rows + 1]
  Output values;
};
// Row i is range(starts[i], limits[i], deltas[i]) (scalars broadcast).
RaggedRangeOutputs RaggedRange(const Scope& scope, Input starts, Input limits,
                               Input deltas, DataType splits_type = DT_INT64);

struct RaggedGatherOutputs {
  OutputList nested_splits;
  Output values;
};
// The rows of a ragged tensor (nested splits and flat values) at
// `indices`; indices of rank r add r - 1 uniform ragged dimensions.
// `output_ragged_rank` is len(nested_splits) + rank(indices) - 1.
RaggedGatherOutputs RaggedGather(const Scope& scope,
                                 absl::Span<const Output> nested_splits,
                                 Input values, Input indices,
                                 int output_ragged_rank);

}  // namespace ops
}  // namespace dflow

#endif  // DFLOW_GRAPH_OPS_RAGGED_OPS_H_
