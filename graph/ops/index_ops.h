// Index ops: the ops that read or write elements by index, or compute
// indices (TensorFlow's Gather, GatherV2, UnsortedSegmentSum, DynamicStitch,
// Unique, Where, TopKV2, InTopKV2), with TensorFlow 2.21's schemas.
//
//   Output rows = ops::GatherV2(root, embeddings, ids, 0);  // [len(ids), D]
#ifndef DFLOW_GRAPH_OPS_INDEX_OPS_H_
#define DFLOW_GRAPH_OPS_INDEX_OPS_H_

#include <cstdint>

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

// merged[indices[m][i...]] = data[m][i...]; later m win.
Output DynamicStitch(const Scope& scope, absl::Span<const Output> indices,
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

// --- index_ops_nd.cc: GatherNd, ScatterNd, ListDiff. ---

// Slices of `params` at the index tuples of the last dimension of `indices`:
// the output has shape indices[:-1] + params[indices.shape[-1]:].
Output GatherNd(const Scope& scope, Input params, Input indices);

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

}  // namespace ops
}  // namespace dflow

#endif  // DFLOW_GRAPH_OPS_INDEX_OPS_H_
