// Schemas, shape functions and wrappers of the ops on a SparseTensor's
// parts (indices [N, R] int64, values [N], dense_shape [R]) that
// tf.sparse.to_dense, tf.sparse.reshape and tf.sparse.fill_empty_rows write
// (tf.nn.embedding_lookup_sparse and safe_embedding_lookup_sparse among
// them): SparseToDense, SparseReshape and SparseFillEmptyRows, following
// TensorFlow 2.21's core/ops/sparse_ops.cc. The CPU kernels are
// kernels/cpu/index_ops_sparse_tensor.cc.
#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "graph/op_registry.h"
#include "graph/ops/index_ops.h"
#include "graph/ops/shape_fn_util.h"
#include "graph/shape_inference.h"
#include "graph/tensor_shape.h"

namespace dflow {
namespace {

using shape_fn_util::AllOutputs;
using shape_fn_util::FirstOutput;

constexpr int64_t kUnknown = TensorShape::kUnknownDim;

absl::Status RankAtMost(const InferenceContext& c, int i, int rank) {
  const TensorShape& s = c.input(i);
  if (s.unknown_rank() || s.rank() <= rank) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "input '", c.op_def().input_arg(i).name(), "' must have rank at most ",
      rank, " but has shape ", s.ToString()));
}

// The dense output's shape is output_shape's value, as far as known.
absl::Status SparseToDenseShape(InferenceContext* c) {
  DFLOW_RETURN_IF_ERROR(RankAtMost(*c, 0, 2));  // sparse_indices
  DFLOW_RETURN_IF_ERROR(RankAtMost(*c, 1, 1));  // output_shape
  DFLOW_RETURN_IF_ERROR(RankAtMost(*c, 2, 1));  // sparse_values
  TensorShape checked;
  DFLOW_RETURN_IF_ERROR(
      c->WithRank(c->input(3), 0, "input 'default_value'", &checked));
  TensorShape out;
  DFLOW_RETURN_IF_ERROR(c->ShapeFromShapeTensor(1, &out));
  c->set_output(0, out);
  return absl::OkStatus();
}

// output_indices [N, rank of new_shape]; output_shape like new_shape.
absl::Status SparseReshapeShape(InferenceContext* c) {
  TensorShape indices, shape, new_shape;
  DFLOW_RETURN_IF_ERROR(
      c->WithRank(c->input(0), 2, "input 'input_indices'", &indices));
  DFLOW_RETURN_IF_ERROR(
      c->WithRank(c->input(1), 1, "input 'input_shape'", &shape));
  DFLOW_RETURN_IF_ERROR(
      c->WithRank(c->input(2), 1, "input 'new_shape'", &new_shape));
  if (!indices.unknown_rank() && !shape.unknown_rank() && indices.dim(1) >= 0 &&
      shape.dim(0) >= 0 && indices.dim(1) != shape.dim(0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "input_indices ", indices.ToString(), " must have one column per ",
        "dimension of input_shape ", shape.ToString()));
  }
  const int64_t n = indices.unknown_rank() ? kUnknown : indices.dim(0);
  const int64_t r = new_shape.unknown_rank() ? kUnknown : new_shape.dim(0);
  c->set_output(0, TensorShape({n, r}));
  c->set_output(1, TensorShape({r}));
  return absl::OkStatus();
}

// output_indices [?, R], output_values [?], empty_row_indicator
// [dense_shape[0]] (unknown), reverse_index_map [N].
absl::Status SparseFillEmptyRowsShape(InferenceContext* c) {
  TensorShape indices, values, dense_shape, checked;
  DFLOW_RETURN_IF_ERROR(
      c->WithRank(c->input(0), 2, "input 'indices'", &indices));
  DFLOW_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, "input 'values'", &values));
  DFLOW_RETURN_IF_ERROR(
      c->WithRank(c->input(2), 1, "input 'dense_shape'", &dense_shape));
  DFLOW_RETURN_IF_ERROR(
      c->WithRank(c->input(3), 0, "input 'default_value'", &checked));
  int64_t n = indices.unknown_rank() ? kUnknown : indices.dim(0);
  if (n < 0 && !values.unknown_rank()) n = values.dim(0);
  if (!indices.unknown_rank() && !values.unknown_rank() &&
      indices.dim(0) >= 0 && values.dim(0) >= 0 &&
      indices.dim(0) != values.dim(0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("indices ", indices.ToString(), " and values ",
                     values.ToString(), " must have one row per value"));
  }
  const int64_t r = indices.unknown_rank() ? kUnknown : indices.dim(1);
  c->set_output(0, TensorShape({kUnknown, r}));
  c->set_output(1, TensorShape({kUnknown}));
  c->set_output(2, TensorShape({kUnknown}));
  c->set_output(3, TensorShape({n}));
  return absl::OkStatus();
}

}  // namespace

DFLOW_REGISTER_OP("SparseToDense")
    .Input("sparse_indices: Tindices")
    .Input("output_shape: Tindices")
    .Input("sparse_values: T")
    .Input("default_value: T")
    .Output("dense: T")
    .Attr("validate_indices: bool = true")
    .Attr("T: type")
    .Attr("Tindices: {int32, int64}")
    .SetShapeFn(SparseToDenseShape)
    .Doc(
        "A dense tensor of output_shape: sparse_values at sparse_indices, "
        "default_value elsewhere.");

DFLOW_REGISTER_OP("SparseReshape")
    .Input("input_indices: int64")
    .Input("input_shape: int64")
    .Input("new_shape: int64")
    .Output("output_indices: int64")
    .Output("output_shape: int64")
    .SetShapeFn(SparseReshapeShape)
    .Doc(
        "The indices of a SparseTensor reshaped to new_shape (one -1 is "
        "inferred).");

DFLOW_REGISTER_OP("SparseFillEmptyRows")
    .Input("indices: int64")
    .Input("values: T")
    .Input("dense_shape: int64")
    .Input("default_value: T")
    .Output("output_indices: int64")
    .Output("output_values: T")
    .Output("empty_row_indicator: bool")
    .Output("reverse_index_map: int64")
    .Attr("T: type")
    .SetShapeFn(SparseFillEmptyRowsShape)
    .Doc(
        "A SparseTensor with default_value at [row, 0, ...] of every row "
        "that has no value.");

namespace ops {

Output SparseToDense(const Scope& scope, Input sparse_indices,
                     Input output_shape, Input sparse_values,
                     Input default_value, bool validate_indices) {
  return FirstOutput(OpBuilder(scope, "SparseToDense")
                         .Input(sparse_indices)
                         .Input(output_shape)
                         .Input(sparse_values)
                         .Input(default_value)
                         .Attr("validate_indices", validate_indices)
                         .Finalize());
}

OutputList SparseReshape(const Scope& scope, Input input_indices,
                         Input input_shape, Input new_shape) {
  return AllOutputs(OpBuilder(scope, "SparseReshape")
                        .Input(input_indices)
                        .Input(input_shape)
                        .Input(new_shape)
                        .Finalize(),
                    2);
}

OutputList SparseFillEmptyRows(const Scope& scope, Input indices, Input values,
                               Input dense_shape, Input default_value) {
  return AllOutputs(OpBuilder(scope, "SparseFillEmptyRows")
                        .Input(indices)
                        .Input(values)
                        .Input(dense_shape)
                        .Input(default_value)
                        .Finalize(),
                    4);
}

}  // namespace ops
}  // namespace dflow
