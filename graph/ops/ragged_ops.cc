// Schemas, shape functions and wrappers of the ragged-tensor ops
// (ragged_ops.h), following TensorFlow 2.21's core/ops/ragged_*_ops.cc.
// CPU kernels: kernels/cpu/ragged_ops_to_tensor.cc (RaggedTensorToTensor),
// ragged_ops_to_sparse.cc (RaggedTensorToSparse, RaggedRange) and
// ragged_ops_gather.cc (RaggedGather).
#include "graph/ops/ragged_ops.h"

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "graph/op_registry.h"
#include "graph/ops/shape_fn_util.h"
#include "graph/shape_inference.h"
#include "graph/tensor_shape.h"

namespace dflow {
namespace {

using shape_fn_util::AllOutputs;

// The number of ragged dimensions `types` describe (FIRST_DIM_SIZE is not
// one).
int RaggedRank(const std::vector<std::string>& types) {
  int n = static_cast<int>(types.size());
  if (!types.empty() && types[0] == "FIRST_DIM_SIZE") --n;
  return n;
}

absl::Status CheckPartitionTypes(const std::vector<std::string>& types) {
  if (types.empty()) {
    return absl::InvalidArgumentError("row_partition_types must not be empty");
  }
  const bool rowids = types[0] == "FIRST_DIM_SIZE";
  for (size_t i = rowids ? 1 : 0; i < types.size(); ++i) {
    const std::string& want = rowids ? "VALUE_ROWIDS" : "ROW_SPLITS";
    if (types[i] != want) {
      return absl::InvalidArgumentError(absl::StrCat(
          "row_partition_types[", i, "] is '", types[i], "'; expected '",
          want,
          "' (either ROW_SPLITS for every dimension, or FIRST_DIM_SIZE then "
          "VALUE_ROWIDS for every dimension)"));
    }
  }
  if (rowids && types.size() < 2) {
    return absl::InvalidArgumentError(
        "FIRST_DIM_SIZE must be followed by a VALUE_ROWIDS partition");
  }
  return absl::OkStatus();
}

// [shape's entries, or the rows' sizes] + values.shape[1:].
absl::Status RaggedTensorToTensorShape(InferenceContext* c) {
  std::vector<std::string> types;
  DFLOW_RETURN_IF_ERROR(c->GetAttr("row_partition_types", &types));
  DFLOW_RETURN_IF_ERROR(CheckPartitionTypes(types));
  int64_t num_tensors = 0;
  DFLOW_RETURN_IF_ERROR(c->GetAttr("num_row_partition_tensors", &num_tensors));
  if (num_tensors != static_cast<int64_t>(types.size())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "num_row_partition_tensors (", num_tensors,
        ") must equal the number of row_partition_types (", types.size(),
        ")"));
  }
  const TensorShape& values = c->input(1);
  if (values.rank() < 0) {
    c->set_output(0, TensorShape::Unknown());
    return absl::OkStatus();
  }
  if (values.rank() == 0) {
    return absl::InvalidArgumentError("values must have rank >= 1");
  }
  const int ragged = RaggedRank(types);
  TensorShape out = TensorShape::UnknownWithRank(ragged + values.rank());
  for (int i = 1; i < values.rank(); ++i) out.set_dim(ragged + i, values.dim(i));
  std::vector<int64_t> given;
  if (c->input(0).rank() == 1 && c->ConstantInputAsInts(0, &given) &&
      given.size() == static_cast<size_t>(out.rank())) {
    for (int i = 0; i <= ragged; ++i) {
      if (given[i] >= 0) out.set_dim(i, given[i]);
    }
  }
  c->set_output(0, out);
  return absl::OkStatus();
}

absl::Status RaggedTensorToSparseShape(InferenceContext* c) {
  const int ragged = c->num_inputs() - 1;
  const TensorShape& values = c->input(ragged);
  const int64_t rank =
      values.rank() < 0 ? TensorShape::kUnknownDim : ragged + values.rank();
  c->set_output(0, TensorShape({TensorShape::kUnknownDim, rank}));
  c->set_output(1, TensorShape({TensorShape::kUnknownDim}));
  c->set_output(2, TensorShape({rank}));
  return absl::OkStatus();
}

absl::Status RaggedRangeShape(InferenceContext* c) {
  int64_t rows = TensorShape::kUnknownDim;
  bool all_scalars = true;
  for (int i = 0; i < 3; ++i) {
    const TensorShape& s = c->input(i);
    if (s.rank() > 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          c->op_def().input_arg(i).name(), " must be a scalar or a vector"));
    }
    if (s.rank() != 0) all_scalars = false;
    if (s.rank() == 1 && s.dim(0) >= 0) rows = s.dim(0);
  }
  if (all_scalars) rows = 1;
  c->set_output(0, TensorShape({rows < 0 ? rows : rows + 1}));
  c->set_output(1, TensorShape({TensorShape::kUnknownDim}));
  return absl::OkStatus();
}

absl::Status RaggedGatherShape(InferenceContext* c) {
  const int outputs_splits = c->num_outputs() - 1;
  const int params_splits = c->num_inputs() - 2;
  const TensorShape& values = c->input(params_splits);
  const TensorShape& indices = c->input(params_splits + 1);
  if (indices.rank() >= 0 &&
      indices.rank() - 1 + params_splits != outputs_splits) {
    return absl::InvalidArgumentError(absl::StrCat(
        "OUTPUT_RAGGED_RANK (", outputs_splits,
        ") must be PARAMS_RAGGED_RANK (", params_splits,
        ") + rank(indices) (", indices.rank(), ") - 1"));
  }
  for (int i = 0; i < outputs_splits; ++i) {
    c->set_output(i, TensorShape({TensorShape::kUnknownDim}));
  }
  TensorShape out = values;
  if (out.rank() > 0) out.set_dim(0, TensorShape::kUnknownDim);
  c->set_output(outputs_splits, out);
  return absl::OkStatus();
}

}  // namespace

DFLOW_REGISTER_OP("RaggedTensorToTensor")
    .Input("shape: Tshape")
    .Input("values: T")
    .Input("default_value: T")
    .Input("row_partition_tensors: num_row_partition_tensors * Tindex")
    .Output("result: T")
    .Attr("T: type")
    .Attr("Tindex: {int64, int32}")
    .Attr("Tshape: {int64, int32}")
    .Attr("num_row_partition_tensors: int >= 1")
    .Attr("row_partition_types: list(string)")
    .SetShapeFn(RaggedTensorToTensorShape)
    .Doc(
        "The dense tensor of a ragged one, truncated or padded with "
        "default_value to `shape`.");

DFLOW_REGISTER_OP("RaggedTensorToSparse")
    .Input("rt_nested_splits: RAGGED_RANK * Tsplits")
    .Input("rt_dense_values: T")
    .Output("sparse_indices: int64")
    .Output("sparse_values: T")
    .Output("sparse_dense_shape: int64")
    .Attr("RAGGED_RANK: int >= 1")
    .Attr("T: type")
    .Attr("Tsplits: {int32, int64} = int64")
    .SetShapeFn(RaggedTensorToSparseShape)
    .Doc("The SparseTensor of a ragged tensor (nested splits, values).");

DFLOW_REGISTER_OP("RaggedRange")
    .Input("starts: T")
    .Input("limits: T")
    .Input("deltas: T")
    .Output("rt_nested_splits: Tsplits")
    .Output("rt_dense_values: T")
    .Attr("T: {bfloat16, float, double, int32, int64} = int32")
    .Attr("Tsplits: {int32, int64} = int64")
    .SetShapeFn(RaggedRangeShape)
    .Doc("A ragged tensor whose row i is range(starts[i], limits[i], "
         "deltas[i]).");

DFLOW_REGISTER_OP("RaggedGather")
    .Input("params_nested_splits: PARAMS_RAGGED_RANK * Tsplits")
    .Input("params_dense_values: Tvalues")
    .Input("indices: Tindices")
    .Output("output_nested_splits: OUTPUT_RAGGED_RANK * Tsplits")
    .Output("output_dense_values: Tvalues")
    .Attr("Tvalues: type")
    .Attr("Tindices: {int32, int64}")
    .Attr("Tsplits: {int32, int64} = int64")
    .Attr("PARAMS_RAGGED_RANK: int >= 1")
    .Attr("OUTPUT_RAGGED_RANK: int >= 0")
    .SetShapeFn(RaggedGatherShape)
    .Doc("The rows of a ragged tensor at indices.");

namespace ops {

Output RaggedTensorToTensor(const Scope& scope, Input shape, Input values,
                            Input default_value,
                            absl::Span<const Output> row_partition_tensors,
                            const std::vector<std::string>& partition_types) {
  Operation op =
      OpBuilder(scope, "RaggedTensorToTensor")
          .Input(shape)
          .Input(values)
          .Input(default_value)
          .InputList(row_partition_tensors)
          .Attr("num_row_partition_tensors",
                static_cast<int64_t>(row_partition_tensors.size()))
          .Attr("row_partition_types", partition_types)
          .Finalize();
  return op.valid() ? op.output(0) : Output();
}

RaggedTensorToSparseOutputs RaggedTensorToSparse(
    const Scope& scope, absl::Span<const Output> nested_splits, Input values) {
  Operation op = OpBuilder(scope, "RaggedTensorToSparse")
                     .InputList(nested_splits)
                     .Input(values)
                     .Attr("RAGGED_RANK",
                           static_cast<int64_t>(nested_splits.size()))
                     .Finalize();
  if (!op.valid()) return {};
  return {op.output(0), op.output(1), op.output(2)};
}

RaggedRangeOutputs RaggedRange(const Scope& scope, Input starts, Input limits,
                               Input deltas, DataType splits_type) {
  Operation op = OpBuilder(scope, "RaggedRange")
                     .Input(starts)
                     .Input(limits)
                     .Input(deltas)
                     .Attr("Tsplits", splits_type)
                     .Finalize();
  if (!op.valid()) return {};
  return {op.output(0), op.output(1)};
}

RaggedGatherOutputs RaggedGather(const Scope& scope,
                                 absl::Span<const Output> nested_splits,
                                 Input values, Input indices,
                                 int output_ragged_rank) {
  Operation op = OpBuilder(scope, "RaggedGather")
                     .InputList(nested_splits)
                     .Input(values)
                     .Input(indices)
                     .Attr("PARAMS_RAGGED_RANK",
                           static_cast<int64_t>(nested_splits.size()))
                     .Attr("OUTPUT_RAGGED_RANK",
                           static_cast<int64_t>(output_ragged_rank))
                     .Finalize();
  RaggedGatherOutputs out;
  OutputList all = AllOutputs(op, output_ragged_rank + 1);
  out.values = all.back();
  all.pop_back();
  out.nested_splits = std::move(all);
  return out;
}

}  // namespace ops
}  // namespace dflow
