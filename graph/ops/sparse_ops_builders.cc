// The builder wrappers of graph/ops/sparse_ops.h.
#include "graph/ops/shape_fn_util.h"
#include "graph/ops/sparse_ops.h"

namespace dflow {
namespace ops {
namespace {

using shape_fn_util::AllOutputs;
using shape_fn_util::FirstOutput;

// An op of `inputs` and no attrs beyond the inferred types.
Operation Plain(const Scope& scope, const char* op,
                std::initializer_list<Input> inputs) {
  OpBuilder b(scope, op);
  for (const Input& in : inputs) b.Input(in);
  return b.Finalize();
}

}  // namespace

OutputList SparseAdd(const Scope& scope, Input a_indices, Input a_values,
                     Input a_shape, Input b_indices, Input b_values,
                     Input b_shape, Input thresh) {
  return AllOutputs(Plain(scope, "SparseAdd",
                          {a_indices, a_values, a_shape, b_indices, b_values,
                           b_shape, thresh}),
                    3);
}

OutputList SparseAddGrad(const Scope& scope, Input backprop_val_grad,
                         Input a_indices, Input b_indices, Input sum_indices) {
  return AllOutputs(Plain(scope, "SparseAddGrad",
                          {backprop_val_grad, a_indices, b_indices,
                           sum_indices}),
                    2);
}

OutputList SparseConcat(const Scope& scope, absl::Span<const Output> indices,
                        absl::Span<const Output> values,
                        absl::Span<const Output> shapes, int64_t concat_dim) {
  return AllOutputs(OpBuilder(scope, "SparseConcat")
                        .InputList(indices)
                        .InputList(values)
                        .InputList(shapes)
                        .Attr("concat_dim", concat_dim)
                        .Finalize(),
                    3);
}

OutputList SparseSlice(const Scope& scope, Input indices, Input values,
                       Input shape, Input start, Input size) {
  return AllOutputs(
      Plain(scope, "SparseSlice", {indices, values, shape, start, size}), 3);
}

Output SparseSliceGrad(const Scope& scope, Input backprop_val_grad,
                       Input input_indices, Input input_start,
                       Input output_indices) {
  return FirstOutput(Plain(scope, "SparseSliceGrad",
                           {backprop_val_grad, input_indices, input_start,
                            output_indices}));
}

OutputList SparseSplit(const Scope& scope, Input split_dim, Input indices,
                       Input values, Input shape, int num_split) {
  return AllOutputs(OpBuilder(scope, "SparseSplit")
                        .Input(split_dim)
                        .Input(indices)
                        .Input(values)
                        .Input(shape)
                        .Attr("num_split", int64_t{num_split})
                        .Finalize(),
                    3 * num_split);
}

OutputList SparseReorder(const Scope& scope, Input indices, Input values,
                         Input shape) {
  return AllOutputs(Plain(scope, "SparseReorder", {indices, values, shape}),
                    2);
}

Output SparseTensorDenseMatMul(const Scope& scope, Input a_indices,
                               Input a_values, Input a_shape, Input b,
                               bool adjoint_a, bool adjoint_b) {
  return FirstOutput(OpBuilder(scope, "SparseTensorDenseMatMul")
                         .Input(a_indices)
                         .Input(a_values)
                         .Input(a_shape)
                         .Input(b)
                         .Attr("adjoint_a", adjoint_a)
                         .Attr("adjoint_b", adjoint_b)
                         .Finalize());
}

Output SparseTensorDenseAdd(const Scope& scope, Input a_indices,
                            Input a_values, Input a_shape, Input b) {
  return FirstOutput(
      Plain(scope, "SparseTensorDenseAdd", {a_indices, a_values, a_shape, b}));
}

Output SparseDenseCwiseAdd(const Scope& scope, Input sp_indices,
                           Input sp_values, Input sp_shape, Input dense) {
  return FirstOutput(Plain(scope, "SparseDenseCwiseAdd",
                           {sp_indices, sp_values, sp_shape, dense}));
}

Output SparseDenseCwiseMul(const Scope& scope, Input sp_indices,
                           Input sp_values, Input sp_shape, Input dense) {
  return FirstOutput(Plain(scope, "SparseDenseCwiseMul",
                           {sp_indices, sp_values, sp_shape, dense}));
}

Output SparseDenseCwiseDiv(const Scope& scope, Input sp_indices,
                           Input sp_values, Input sp_shape, Input dense) {
  return FirstOutput(Plain(scope, "SparseDenseCwiseDiv",
                           {sp_indices, sp_values, sp_shape, dense}));
}

namespace {
Operation Reduce(const Scope& scope, const char* op, Input indices,
                 Input values, Input shape, Input axes, bool keep_dims) {
  return OpBuilder(scope, op)
      .Input(indices)
      .Input(values)
      .Input(shape)
      .Input(axes)
      .Attr("keep_dims", keep_dims)
      .Finalize();
}
}  // namespace

Output SparseReduceSum(const Scope& scope, Input indices, Input values,
                       Input shape, Input reduction_axes, bool keep_dims) {
  return FirstOutput(Reduce(scope, "SparseReduceSum", indices, values, shape,
                            reduction_axes, keep_dims));
}

OutputList SparseReduceSumSparse(const Scope& scope, Input indices,
                                 Input values, Input shape,
                                 Input reduction_axes, bool keep_dims) {
  return AllOutputs(Reduce(scope, "SparseReduceSumSparse", indices, values,
                           shape, reduction_axes, keep_dims),
                    3);
}

Output SparseReduceMax(const Scope& scope, Input indices, Input values,
                       Input shape, Input reduction_axes, bool keep_dims) {
  return FirstOutput(Reduce(scope, "SparseReduceMax", indices, values, shape,
                            reduction_axes, keep_dims));
}

OutputList SparseReduceMaxSparse(const Scope& scope, Input indices,
                                 Input values, Input shape,
                                 Input reduction_axes, bool keep_dims) {
  return AllOutputs(Reduce(scope, "SparseReduceMaxSparse", indices, values,
                           shape, reduction_axes, keep_dims),
                    3);
}

Output SparseSoftmax(const Scope& scope, Input sp_indices, Input sp_values,
                     Input sp_shape) {
  return FirstOutput(
      Plain(scope, "SparseSoftmax", {sp_indices, sp_values, sp_shape}));
}

OutputList SparseSparseMaximum(const Scope& scope, Input a_indices,
                               Input a_values, Input a_shape, Input b_indices,
                               Input b_values, Input b_shape) {
  return AllOutputs(Plain(scope, "SparseSparseMaximum",
                          {a_indices, a_values, a_shape, b_indices, b_values,
                           b_shape}),
                    2);
}

OutputList SparseSparseMinimum(const Scope& scope, Input a_indices,
                               Input a_values, Input a_shape, Input b_indices,
                               Input b_values, Input b_shape) {
  return AllOutputs(Plain(scope, "SparseSparseMinimum",
                          {a_indices, a_values, a_shape, b_indices, b_values,
                           b_shape}),
                    2);
}

OutputList SparseFillEmptyRowsGrad(const Scope& scope, Input reverse_index_map,
                                   Input grad_values) {
  return AllOutputs(Plain(scope, "SparseFillEmptyRowsGrad",
                          {reverse_index_map, grad_values}),
                    2);
}

OutputList SparseSegmentSumGradV2(const Scope& scope, Input grad,
                                  Input indices, Input segment_ids,
                                  Input dense_output_dim0) {
  return AllOutputs(Plain(scope, "SparseSegmentSumGradV2",
                          {grad, indices, segment_ids, dense_output_dim0}),
                    2);
}

OutputList SparseSegmentMeanGradV2(const Scope& scope, Input grad,
                                   Input indices, Input segment_ids,
                                   Input dense_output_dim0) {
  return AllOutputs(Plain(scope, "SparseSegmentMeanGradV2",
                          {grad, indices, segment_ids, dense_output_dim0}),
                    2);
}

OutputList SparseSegmentSqrtNGradV2(const Scope& scope, Input grad,
                                    Input indices, Input segment_ids,
                                    Input dense_output_dim0) {
  return AllOutputs(Plain(scope, "SparseSegmentSqrtNGradV2",
                          {grad, indices, segment_ids, dense_output_dim0}),
                    2);
}

Output SparseMatMul(const Scope& scope, Input a, Input b, bool transpose_a,
                    bool transpose_b, bool a_is_sparse, bool b_is_sparse) {
  return FirstOutput(OpBuilder(scope, "SparseMatMul")
                         .Input(a)
                         .Input(b)
                         .Attr("transpose_a", transpose_a)
                         .Attr("transpose_b", transpose_b)
                         .Attr("a_is_sparse", a_is_sparse)
                         .Attr("b_is_sparse", b_is_sparse)
                         .Finalize());
}

OutputList SparseCross(const Scope& scope, absl::Span<const Output> indices,
                       absl::Span<const Output> values,
                       absl::Span<const Output> shapes,
                       absl::Span<const Output> dense_inputs,
                       bool hashed_output, int64_t num_buckets,
                       int64_t hash_key, DataType out_type,
                       DataType internal_type) {
  return AllOutputs(OpBuilder(scope, "SparseCross")
                        .InputList(indices)
                        .InputList(values)
                        .InputList(shapes)
                        .InputList(dense_inputs)
                        .Attr("hashed_output", hashed_output)
                        .Attr("num_buckets", num_buckets)
                        .Attr("hash_key", hash_key)
                        .Attr("out_type", out_type)
                        .Attr("internal_type", internal_type)
                        .Finalize(),
                    3);
}

OutputList SparseCrossHashed(const Scope& scope,
                             absl::Span<const Output> indices,
                             absl::Span<const Output> values,
                             absl::Span<const Output> shapes,
                             absl::Span<const Output> dense_inputs,
                             Input num_buckets, Input strong_hash,
                             Input salt) {
  return AllOutputs(OpBuilder(scope, "SparseCrossHashed")
                        .InputList(indices)
                        .InputList(values)
                        .InputList(shapes)
                        .InputList(dense_inputs)
                        .Input(num_buckets)
                        .Input(strong_hash)
                        .Input(salt)
                        .Finalize(),
                    3);
}

OutputList SparseCrossV2(const Scope& scope, absl::Span<const Output> indices,
                         absl::Span<const Output> values,
                         absl::Span<const Output> shapes,
                         absl::Span<const Output> dense_inputs, Input sep) {
  return AllOutputs(OpBuilder(scope, "SparseCrossV2")
                        .InputList(indices)
                        .InputList(values)
                        .InputList(shapes)
                        .InputList(dense_inputs)
                        .Input(sep)
                        .Finalize(),
                    3);
}

OutputList DenseToDenseSetOperation(const Scope& scope, Input set1, Input set2,
                                    const std::string& set_operation,
                                    bool validate_indices) {
  return AllOutputs(OpBuilder(scope, "DenseToDenseSetOperation")
                        .Input(set1)
                        .Input(set2)
                        .Attr("set_operation", set_operation)
                        .Attr("validate_indices", validate_indices)
                        .Finalize(),
                    3);
}

OutputList DenseToSparseSetOperation(const Scope& scope, Input set1,
                                     Input set2_indices, Input set2_values,
                                     Input set2_shape,
                                     const std::string& set_operation,
                                     bool validate_indices) {
  return AllOutputs(OpBuilder(scope, "DenseToSparseSetOperation")
                        .Input(set1)
                        .Input(set2_indices)
                        .Input(set2_values)
                        .Input(set2_shape)
                        .Attr("set_operation", set_operation)
                        .Attr("validate_indices", validate_indices)
                        .Finalize(),
                    3);
}

OutputList SparseToSparseSetOperation(const Scope& scope, Input set1_indices,
                                      Input set1_values, Input set1_shape,
                                      Input set2_indices, Input set2_values,
                                      Input set2_shape,
                                      const std::string& set_operation,
                                      bool validate_indices) {
  return AllOutputs(OpBuilder(scope, "SparseToSparseSetOperation")
                        .Input(set1_indices)
                        .Input(set1_values)
                        .Input(set1_shape)
                        .Input(set2_indices)
                        .Input(set2_values)
                        .Input(set2_shape)
                        .Attr("set_operation", set_operation)
                        .Attr("validate_indices", validate_indices)
                        .Finalize(),
                    3);
}

Output SetSize(const Scope& scope, Input set_indices, Input set_values,
               Input set_shape, bool validate_indices) {
  return FirstOutput(OpBuilder(scope, "SetSize")
                         .Input(set_indices)
                         .Input(set_values)
                         .Input(set_shape)
                         .Attr("validate_indices", validate_indices)
                         .Finalize());
}

}  // namespace ops
}  // namespace dflow
