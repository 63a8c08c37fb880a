// The tf.sparse and tf.sets ops: SparseTensor math (sparse_ops.cc), crosses
// and set operations (sparse_ops_cross_sets.cc); builder wrappers in
// sparse_ops_builders.cc. A SparseTensor is passed as its three parts:
// indices [N, R] int64, values [N], dense_shape [R] int64. Ops with a
// SparseTensor result return an OutputList {indices, values, shape}.
#ifndef DFLOW_GRAPH_OPS_SPARSE_OPS_H_
#define DFLOW_GRAPH_OPS_SPARSE_OPS_H_

#include <cstdint>
#include <string>

#include "absl/types/span.h"
#include "graph/scope.h"

namespace dflow {
namespace ops {

// {sum_indices, sum_values, sum_shape}.
OutputList SparseAdd(const Scope& scope, Input a_indices, Input a_values,
                     Input a_shape, Input b_indices, Input b_values,
                     Input b_shape, Input thresh);
// {a_val_grad, b_val_grad}.
OutputList SparseAddGrad(const Scope& scope, Input backprop_val_grad,
                         Input a_indices, Input b_indices, Input sum_indices);
OutputList SparseConcat(const Scope& scope, absl::Span<const Output> indices,
                        absl::Span<const Output> values,
                        absl::Span<const Output> shapes, int64_t concat_dim);
OutputList SparseSlice(const Scope& scope, Input indices, Input values,
                       Input shape, Input start, Input size);
Output SparseSliceGrad(const Scope& scope, Input backprop_val_grad,
                       Input input_indices, Input input_start,
                       Input output_indices);
// num_split indices, then num_split values, then num_split shapes.
OutputList SparseSplit(const Scope& scope, Input split_dim, Input indices,
                       Input values, Input shape, int num_split);
// {output_indices, output_values}.
OutputList SparseReorder(const Scope& scope, Input indices, Input values,
                         Input shape);
Output SparseTensorDenseMatMul(const Scope& scope, Input a_indices,
                               Input a_values, Input a_shape, Input b,
                               bool adjoint_a = false, bool adjoint_b = false);
Output SparseTensorDenseAdd(const Scope& scope, Input a_indices,
                            Input a_values, Input a_shape, Input b);
Output SparseDenseCwiseAdd(const Scope& scope, Input sp_indices,
                           Input sp_values, Input sp_shape, Input dense);
Output SparseDenseCwiseMul(const Scope& scope, Input sp_indices,
                           Input sp_values, Input sp_shape, Input dense);
Output SparseDenseCwiseDiv(const Scope& scope, Input sp_indices,
                           Input sp_values, Input sp_shape, Input dense);
Output SparseReduceSum(const Scope& scope, Input indices, Input values,
                       Input shape, Input reduction_axes,
                       bool keep_dims = false);
OutputList SparseReduceSumSparse(const Scope& scope, Input indices,
                                 Input values, Input shape,
                                 Input reduction_axes, bool keep_dims = false);
Output SparseReduceMax(const Scope& scope, Input indices, Input values,
                       Input shape, Input reduction_axes,
                       bool keep_dims = false);
OutputList SparseReduceMaxSparse(const Scope& scope, Input indices,
                                 Input values, Input shape,
                                 Input reduction_axes, bool keep_dims = false);
Output SparseSoftmax(const Scope& scope, Input sp_indices, Input sp_values,
                     Input sp_shape);
// {output_indices, output_values}.
OutputList SparseSparseMaximum(const Scope& scope, Input a_indices,
                               Input a_values, Input a_shape, Input b_indices,
                               Input b_values, Input b_shape);
OutputList SparseSparseMinimum(const Scope& scope, Input a_indices,
                               Input a_values, Input a_shape, Input b_indices,
                               Input b_values, Input b_shape);
// {d_values, d_default_value}.
OutputList SparseFillEmptyRowsGrad(const Scope& scope, Input reverse_index_map,
                                   Input grad_values);
// {output, sorted_unique_indices}.
OutputList SparseSegmentSumGradV2(const Scope& scope, Input grad,
                                  Input indices, Input segment_ids,
                                  Input dense_output_dim0);
OutputList SparseSegmentMeanGradV2(const Scope& scope, Input grad,
                                   Input indices, Input segment_ids,
                                   Input dense_output_dim0);
OutputList SparseSegmentSqrtNGradV2(const Scope& scope, Input grad,
                                    Input indices, Input segment_ids,
                                    Input dense_output_dim0);
Output SparseMatMul(const Scope& scope, Input a, Input b,
                    bool transpose_a = false, bool transpose_b = false,
                    bool a_is_sparse = false, bool b_is_sparse = false);

// Crosses of sparse (indices/values/shapes) and dense [batch, k] inputs.
OutputList SparseCross(const Scope& scope, absl::Span<const Output> indices,
                       absl::Span<const Output> values,
                       absl::Span<const Output> shapes,
                       absl::Span<const Output> dense_inputs,
                       bool hashed_output, int64_t num_buckets,
                       int64_t hash_key, DataType out_type,
                       DataType internal_type);
OutputList SparseCrossHashed(const Scope& scope,
                             absl::Span<const Output> indices,
                             absl::Span<const Output> values,
                             absl::Span<const Output> shapes,
                             absl::Span<const Output> dense_inputs,
                             Input num_buckets, Input strong_hash, Input salt);
OutputList SparseCrossV2(const Scope& scope, absl::Span<const Output> indices,
                         absl::Span<const Output> values,
                         absl::Span<const Output> shapes,
                         absl::Span<const Output> dense_inputs, Input sep);

// set_operation: "a-b", "b-a", "intersection" or "union".
OutputList DenseToDenseSetOperation(const Scope& scope, Input set1, Input set2,
                                    const std::string& set_operation,
                                    bool validate_indices = true);
OutputList DenseToSparseSetOperation(const Scope& scope, Input set1,
                                     Input set2_indices, Input set2_values,
                                     Input set2_shape,
                                     const std::string& set_operation,
                                     bool validate_indices = true);
OutputList SparseToSparseSetOperation(const Scope& scope, Input set1_indices,
                                      Input set1_values, Input set1_shape,
                                      Input set2_indices, Input set2_values,
                                      Input set2_shape,
                                      const std::string& set_operation,
                                      bool validate_indices = true);
Output SetSize(const Scope& scope, Input set_indices, Input set_values,
               Input set_shape, bool validate_indices = true);

}  // namespace ops
}  // namespace dflow

#endif  // DFLOW_GRAPH_OPS_SPARSE_OPS_H_
