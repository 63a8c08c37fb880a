// Index ops: the ops that read or write elements by index, or compute
// indices (TensorFlow's Gather, GatherV2, UnsortedSegmentSum, DynamicStitch,
// Unique, Where, TopKV2, InTopKV2), with TensorFlow 2.21's schemas.
//
//   Output rows = ops::GatherV2(root, embeddings, ids, 0);  // [len(ids), D]
#ifndef DFLOW_GRAPH_OPS_INDEX_OPS_H_
#define DFLOW_GRAPH_OPS_INDEX_OPS_H_

#include <cstdint>
#include <vector>

#include "absl/types/span.h"
#include "graph/scope.h"
#include "graph/types.h"

namespace dflow {
namespace ops {

struct GatherV2Attrs {
  // Leading dimensions shared by params and indices (one gather per batch).
  int64_t batch_dims = 0;
  GatherV2Attrs& BatchDims(int64_t v) {
    batch_dims = v;
    return *this;
  }
};
// Slices of `params` along the scalar `axis` at `indices`: the output has
// shape params[:axis] + indices[batch_dims:] + params[axis+1:].
Output GatherV2(const Scope& scope, Input params, Input indices, Input axis,
                const GatherV2Attrs& attrs = {});
// Legacy Gather: axis 0.
Output Gather(const Scope& scope, Input params, Input indices);

// output[segment_ids[i...]] += data[i...]; ids < 0 are dropped.
Output UnsortedSegmentSum(const Scope& scope, Input data, Input segment_ids,
                          Input num_segments);

// The other unsorted segment reductions: empty segments hold the
// reduction's identity (lowest / highest value of T for Max / Min, 1 for
// Prod), as in TensorFlow.
Output UnsortedSegmentMax(const Scope& scope, Input data, Input segment_ids,
                          Input num_segments);
Output UnsortedSegmentMin(const Scope& scope, Input data, Input segment_ids,
                          Input num_segments);
Output UnsortedSegmentProd(const Scope& scope, Input data, Input segment_ids,
                           Input num_segments);

// merged[indices[m][i...]] = data[m][i...]; later m win.
Output DynamicStitch(const Scope& scope, absl::Span<const Output> indices,
                     absl::Span<const Output> data);
// DynamicStitch where duplicate indices may take any of their values.
Output ParallelDynamicStitch(const Scope& scope,
                             absl::Span<const Output> indices,
                             absl::Span<const Output> data);

struct UniqueAttrs {
  DataType out_idx = DT_INT32;
  UniqueAttrs& OutIdx(DataType v) {
    out_idx = v;
    return *this;
  }
};
struct UniqueOutputs {
  Output y;    // The distinct values, in order of first occurrence.
  Output idx;  // x[i] == y[idx[i]].
};
UniqueOutputs Unique(const Scope& scope, Input x, const UniqueAttrs& attrs = {});
struct UniqueWithCountsOutputs {
  Output y;      // The distinct values, in order of first occurrence.
  Output idx;    // x[i] == y[idx[i]].
  Output count;  // How many elements of x equal y[j].
};
UniqueWithCountsOutputs UniqueWithCounts(const Scope& scope, Input x,
                                         const UniqueAttrs& attrs = {});

// For each value, its insertion point in the same row of sorted_inputs:
// before equal elements (LowerBound) or after them (UpperBound)
// (tf.searchsorted with side 'left' / 'right').
Output LowerBound(const Scope& scope, Input sorted_inputs, Input values,
                  DataType out_type = DT_INT32);
Output UpperBound(const Scope& scope, Input sorted_inputs, Input values,
                  DataType out_type = DT_INT32);
// Bucketize: for each element of `input` (int32, int64, float, double), the
// number of `boundaries` (sorted ascending) that are <= it, as int32.
Output Bucketize(const Scope& scope, Input input,
                 const std::vector<float>& boundaries);

// The coordinates of the true (non-zero) elements, int64 [n, rank(input)],
// in row-major order.
Output Where(const Scope& scope, Input input);

struct TopKAttrs {
  bool sorted = true;
  DataType index_type = DT_INT32;
  TopKAttrs& Sorted(bool v) {
    sorted = v;
    return *this;
  }
  TopKAttrs& IndexType(DataType v) {
    index_type = v;
    return *this;
  }
};
struct TopKOutputs {
  Output values;
  Output indices;
};
// The k largest entries of each row (last dimension); ties keep the lower
// index first.
TopKOutputs TopKV2(const Scope& scope, Input input, Input k,
                   const TopKAttrs& attrs = {});

// Whether targets[i] is among the k largest predictions[i] (TensorFlow's
// tie rule: ties count as in; non-finite predictions are never in).
Output InTopKV2(const Scope& scope, Input predictions, Input targets, Input k);

// --- index_ops_more.cc: LinSpace, UnravelIndex, UniqueV2,
// UniqueWithCountsV2, NthElement, TopK and InTopK (v1). ---

// num evenly spaced values from start to stop (both included; TensorFlow's
// values: start + i * step, the last one stop itself).
Output LinSpace(const Scope& scope, Input start, Input stop, Input num);
// The coordinates of flat `indices` (scalar or vector) in an array of shape
// `dims`: [len(dims)] or [len(dims), len(indices)].
Output UnravelIndex(const Scope& scope, Input indices, Input dims);
// Unique / UniqueWithCounts over the slices of x along axis (a vector of
// one element; empty for a vector x).
UniqueOutputs UniqueV2(const Scope& scope, Input x, Input axis,
                       const UniqueAttrs& attrs = {});
UniqueWithCountsOutputs UniqueWithCountsV2(const Scope& scope, Input x,
                                           Input axis,
                                           const UniqueAttrs& attrs = {});
// The n-th smallest entry of each last-dimension row (reverse: the n-th
// largest), the row's position in a sorted copy.
Output NthElement(const Scope& scope, Input input, Input n,
                  bool reverse = false);
// TopKV2 and InTopKV2 with k an attr, as older graphs write them.
TopKOutputs TopK(const Scope& scope, Input input, int64_t k,
                 bool sorted = true);
Output InTopK(const Scope& scope, Input predictions, Input targets,
              int64_t k);

// --- index_ops_nd.cc: GatherNd, ResourceGatherNd, ScatterNd, ListDiff. ---

// Slices of `params` at the index tuples of the last dimension of `indices`:
// the output has shape indices[:-1] + params[indices.shape[-1]:].
Output GatherNd(const Scope& scope, Input params, Input indices);
// GatherNd of the value of the resource variable `resource` (of `dtype`).
Output ResourceGatherNd(const Scope& scope, Input resource, Input indices,
                        DataType dtype);

// Zeros of shape `shape` with `updates` added at `indices` (duplicates
// add up): updates has shape indices[:-1] + shape[indices.shape[-1]:].
Output ScatterNd(const Scope& scope, Input indices, Input updates,
                 Input shape);

struct ListDiffAttrs {
  DataType out_idx = DT_INT32;
  ListDiffAttrs& OutIdx(DataType v) {
    out_idx = v;
    return *this;
  }
};
struct ListDiffOutputs {
  Output out;  // The elements of x not in y, in x's order.
  Output idx;  // x[idx[i]] == out[i].
};
ListDiffOutputs ListDiff(const Scope& scope, Input x, Input y,
                         const ListDiffAttrs& attrs = {});

// --- index_ops_segment.cc: sorted and sparse segment reductions. ---

// Reductions of data's rows by sorted segment_ids (a vector of
// data.shape[0] ids): output has max(segment_ids) + 1 rows; a row no id
// names is 0 (1 for SegmentProd).
Output SegmentSum(const Scope& scope, Input data, Input segment_ids);
Output SegmentMean(const Scope& scope, Input data, Input segment_ids);
Output SegmentMax(const Scope& scope, Input data, Input segment_ids);
Output SegmentMin(const Scope& scope, Input data, Input segment_ids);
Output SegmentProd(const Scope& scope, Input data, Input segment_ids);

// output[segment_ids[i]] (+)= data[indices[i]], segment_ids sorted: the
// sum, the mean, or the sum divided by sqrt(count). Without num_segments
// the output has max(segment_ids) + 1 rows.
Output SparseSegmentSum(const Scope& scope, Input data, Input indices,
                        Input segment_ids);
Output SparseSegmentMean(const Scope& scope, Input data, Input indices,
                         Input segment_ids);
Output SparseSegmentSqrtN(const Scope& scope, Input data, Input indices,
                          Input segment_ids);
Output SparseSegmentSumWithNumSegments(const Scope& scope, Input data,
                                       Input indices, Input segment_ids,
                                       Input num_segments);
Output SparseSegmentMeanWithNumSegments(const Scope& scope, Input data,
                                        Input indices, Input segment_ids,
                                        Input num_segments);
Output SparseSegmentSqrtNWithNumSegments(const Scope& scope, Input data,
                                         Input indices, Input segment_ids,
                                         Input num_segments);

// The gradients of the three: output (output_dim0 rows) [indices[i]] +=
// grad[segment_ids[i]], scaled by 1, 1 / count or 1 / sqrt(count).
Output SparseSegmentSumGrad(const Scope& scope, Input grad, Input indices,
                            Input segment_ids, Input output_dim0);
Output SparseSegmentMeanGrad(const Scope& scope, Input grad, Input indices,
                             Input segment_ids, Input output_dim0);
Output SparseSegmentSqrtNGrad(const Scope& scope, Input grad, Input indices,
                              Input segment_ids, Input output_dim0);

// --- index_ops_partition.cc: DynamicPartition. ---

// num_partitions tensors: output p holds the slices data[i...] whose
// partitions[i...] == p, in order.
OutputList DynamicPartition(const Scope& scope, Input data, Input partitions,
                            int num_partitions);

// --- index_ops_tensor_scatter.cc: TensorScatterUpdate and friends. ---

// A copy of `tensor` with the slices at the index tuples of `indices`
// replaced by (Update), added to (Add), subtracted from (Sub), or
// maxed / mined with (Max, Min) `updates`.
Output TensorScatterUpdate(const Scope& scope, Input tensor, Input indices,
                           Input updates);
Output TensorScatterAdd(const Scope& scope, Input tensor, Input indices,
                        Input updates);
Output TensorScatterSub(const Scope& scope, Input tensor, Input indices,
                        Input updates);
Output TensorScatterMax(const Scope& scope, Input tensor, Input indices,
                        Input updates);
Output TensorScatterMin(const Scope& scope, Input tensor, Input indices,
                        Input updates);

// --- index_ops_sparse_tensor.cc: a SparseTensor's parts (indices [N, R]
// int64, values [N], dense_shape [R]). ---

// The dense tensor of shape `output_shape`: sparse_values (or the one
// scalar) at sparse_indices ([N, R], [N] or a scalar), default_value
// elsewhere. validate_indices: the indices must be sorted and distinct.
Output SparseToDense(const Scope& scope, Input sparse_indices,
                     Input output_shape, Input sparse_values,
                     Input default_value, bool validate_indices = true);
// {output_indices, output_shape}: the indices in `new_shape` (one -1 takes
// what the others leave) of the same row-major positions.
OutputList SparseReshape(const Scope& scope, Input input_indices,
                         Input input_shape, Input new_shape);
// {output_indices, output_values, empty_row_indicator, reverse_index_map}:
// the entries grouped by row, with default_value at [row, 0, ...] of every
// empty row; reverse_index_map[i] is where input entry i went.
OutputList SparseFillEmptyRows(const Scope& scope, Input indices,
                               Input values, Input dense_shape,
                               Input default_value);

// --- index_ops_counts.cc: DenseBincount and EditDistance. ---

// output[v] = how many times v occurs in `input` (a scalar, vector or,
// per row, matrix of int32/int64), or the sum of the matching `weights`
// (same shape as input, or empty for counts); with binary_output, 1 where
// it occurs. Values >= size are ignored; negative ones are an error.
Output DenseBincount(const Scope& scope, Input input, Input size,
                     Input weights, bool binary_output = false);
// The Levenshtein distance between hypothesis and truth (SparseTensors of
// equal rank, sequences along the last dimension), per position of the
// other dimensions; with normalize, divided by the truth's length.
Output EditDistance(const Scope& scope, Input hypothesis_indices,
                    Input hypothesis_values, Input hypothesis_shape,
                    Input truth_indices, Input truth_values,
                    Input truth_shape, bool normalize = true);

}  // namespace ops
}  // namespace dflow

#endif  // DFLOW_GRAPH_OPS_INDEX_OPS_H_
