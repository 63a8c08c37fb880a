// The tf.sparse and tf.sets ops of graph/ops/sparse_ops.h for the every-op
// graph: SparseTensor math, crosses and set operations.
#include <string>

#include "graph/ops/ops.h"
#include "tests/graph/all_ops_graph.h"

namespace dflow {

void BuildSparseAndSetOps(const Scope& root) {
  const Scope s = root.NewSubScope("sparse_sets");
  Output idx = ops::Const(s, {int64_t{0}, int64_t{1}, int64_t{1}, int64_t{0}}, {2, 2});
  Output vals = ops::Const(s, {1.0f, 2.0f});
  Output shape = ops::Const(s, {int64_t{2}, int64_t{2}});
  Output dense = ops::Const(s, {1.0f, 2.0f, 3.0f, 4.0f}, {2, 2});
  Output axes = ops::Const(s, {1});
  OutputList sum = ops::SparseAdd(s, idx, vals, shape, idx, vals, shape,
                                  ops::Const(s, 0.0f));
  ops::SparseAddGrad(s, sum[1], idx, idx, sum[0]);
  ops::SparseConcat(s, {idx, idx}, {vals, vals}, {shape, shape}, 0);
  OutputList sl = ops::SparseSlice(s, idx, vals, shape,
                                   ops::Const(s, {int64_t{0}, int64_t{0}}), shape);
  ops::SparseSliceGrad(s, sl[1], idx, ops::Const(s, {int64_t{0}, int64_t{0}}), sl[0]);
  ops::SparseSplit(s, ops::Const(s, int64_t{0}), idx, vals, shape, 2);
  ops::SparseReorder(s, idx, vals, shape);
  ops::SparseTensorDenseMatMul(s, idx, vals, shape, dense, true, false);
  ops::SparseTensorDenseAdd(s, idx, vals, shape, dense);
  ops::SparseDenseCwiseAdd(s, idx, vals, shape, dense);
  ops::SparseDenseCwiseMul(s, idx, vals, shape, dense);
  ops::SparseDenseCwiseDiv(s, idx, vals, shape, dense);
  ops::SparseReduceSum(s, idx, vals, shape, axes);
  ops::SparseReduceSumSparse(s, idx, vals, shape, axes, true);
  ops::SparseReduceMax(s, idx, vals, shape, axes);
  ops::SparseReduceMaxSparse(s, idx, vals, shape, axes);
  ops::SparseSoftmax(s, idx, vals, shape);
  ops::SparseSparseMaximum(s, idx, vals, shape, idx, vals, shape);
  ops::SparseSparseMinimum(s, idx, vals, shape, idx, vals, shape);
  ops::SparseFillEmptyRowsGrad(s, ops::Const(s, {int64_t{0}, int64_t{1}}), vals);
  Output seg_idx = ops::Const(s, {0, 1});
  Output seg_ids = ops::Const(s, {0, 0});
  Output dim0 = ops::Const(s, 2);
  ops::SparseSegmentSumGradV2(s, dense, seg_idx, seg_ids, dim0);
  ops::SparseSegmentMeanGradV2(s, dense, seg_idx, seg_ids, dim0);
  ops::SparseSegmentSqrtNGradV2(s, dense, seg_idx, seg_ids, dim0);
  ops::SparseMatMul(s, dense, dense, false, true, true, false);

  Output words = ops::Const(
      s, Tensor::FromVector<std::string>({"a", "b"}, TensorShape({2, 1})));
  Output ids = ops::Const(s, {int64_t{3}, int64_t{4}});
  ops::SparseCross(s, {idx}, {ids}, {shape}, {words}, true, 100, 7, DT_INT64,
                   DT_INT64);
  ops::SparseCrossHashed(s, {idx}, {ids}, {shape}, {words},
                         ops::Const(s, int64_t{100}), ops::Const(s, false),
                         ops::Const(s, {int64_t{1}, int64_t{2}}));
  ops::SparseCrossV2(s, {idx}, {ids}, {shape}, {words},
                     ops::Const(s, "_X_"));
  Output set = ops::Const(s, {int64_t{1}, int64_t{2}, int64_t{3}, int64_t{4}}, {2, 2});
  ops::DenseToDenseSetOperation(s, set, set, "union");
  ops::DenseToSparseSetOperation(s, set, idx, ids, shape, "intersection");
  ops::SparseToSparseSetOperation(s, idx, ids, shape, idx, ids, shape, "a-b");
  ops::SetSize(s, idx, ids, shape);
}

}  // namespace dflow
