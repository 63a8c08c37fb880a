// Schemas and shape functions of tf.sparse.cross (feature columns' crossed
// columns: SparseCross, SparseCrossHashed, SparseCrossV2) and of tf.sets
// (DenseToDenseSetOperation, DenseToSparseSetOperation,
// SparseToSparseSetOperation, SetSize), following TensorFlow 2.21's
// core/ops/sparse_ops.cc and set_ops.cc. Kernels:
// kernels/cpu/sparse_ops_cross.cc and kernels/cpu/sparse_ops_sets.cc.
#include <cstdint>

#include "absl/status/status.h"
#include "graph/op_registry.h"
#include "graph/ops/sparse_ops.h"
#include "graph/shape_inference.h"
#include "graph/tensor_shape.h"

namespace dflow {
namespace {

constexpr int64_t kUnknown = TensorShape::kUnknownDim;

// A 2-D SparseTensor of crosses: [?, 2], [?], [2].
absl::Status CrossShape(InferenceContext* c) {
  c->set_output(0, TensorShape({kUnknown, 2}));
  c->set_output(1, TensorShape({kUnknown}));
  c->set_output(2, TensorShape({2}));
  return absl::OkStatus();
}

// The result of a set operation has the rank of the inputs (the last
// dimension holds the sets); known when an input's rank is.
absl::Status SetOperationShape(InferenceContext* c) {
  int64_t r = kUnknown;
  const TensorShape& first = c->input(0);
  if (c->op_def().name() == "SparseToSparseSetOperation") {
    if (!first.unknown_rank() && first.rank() == 2) r = first.dim(1);
  } else if (!first.unknown_rank()) {
    if (first.rank() < 2) {
      return absl::InvalidArgumentError(
          "set1 must have rank at least 2 (sets along the last dimension)");
    }
    r = first.rank();
  }
  c->set_output(0, TensorShape({kUnknown, r}));
  c->set_output(1, TensorShape({kUnknown}));
  c->set_output(2, TensorShape({r}));
  return absl::OkStatus();
}

}  // namespace

DFLOW_REGISTER_OP("SparseCross")
    .Input("indices: N * int64")
    .Input("values: sparse_types")
    .Input("shapes: N * int64")
    .Input("dense_inputs: dense_types")
    .Output("output_indices: int64")
    .Output("output_values: out_type")
    .Output("output_shape: int64")
    .Attr("N: int >= 0")
    .Attr("hashed_output: bool")
    .Attr("num_buckets: int >= 0")
    .Attr("hash_key: int")
    .Attr("sparse_types: list({int64, string}) >= 0")
    .Attr("dense_types: list({int64, string}) >= 0")
    .Attr("out_type: {int64, string}")
    .Attr("internal_type: {int64, string}")
    .SetShapeFn(CrossShape)
    .Doc("Per batch row, every combination of one feature from each input, "
         "as a string joined by _X_ or as a FarmHash fingerprint bucket.");

DFLOW_REGISTER_OP("SparseCrossHashed")
    .Input("indices: N * int64")
    .Input("values: sparse_types")
    .Input("shapes: N * int64")
    .Input("dense_inputs: dense_types")
    .Input("num_buckets: int64")
    .Input("strong_hash: bool")
    .Input("salt: int64")
    .Output("output_indices: int64")
    .Output("output_values: int64")
    .Output("output_shape: int64")
    .Attr("N: int >= 0")
    .Attr("sparse_types: list({int64, string}) >= 0")
    .Attr("dense_types: list({int64, string}) >= 0")
    .SetShapeFn(CrossShape)
    .Doc("Hashed crosses of the inputs' features (tf.sparse.cross_hashed).");

DFLOW_REGISTER_OP("SparseCrossV2")
    .Input("indices: N * int64")
    .Input("values: sparse_types")
    .Input("shapes: N * int64")
    .Input("dense_inputs: dense_types")
    .Input("sep: string")
    .Output("output_indices: int64")
    .Output("output_values: string")
    .Output("output_shape: int64")
    .Attr("N: int >= 0")
    .Attr("sparse_types: list({int64, string}) >= 0")
    .Attr("dense_types: list({int64, string}) >= 0")
    .SetShapeFn(CrossShape)
    .Doc("String crosses of the inputs' features joined by sep "
         "(tf.sparse.cross).");

#define DFLOW_SET_OP_ATTRS                       \
  .Output("result_indices: int64")               \
      .Output("result_values: T")                \
      .Output("result_shape: int64")             \
      .Attr("set_operation: string")             \
      .Attr("validate_indices: bool = true")     \
      .Attr("T: {int8, int16, int32, int64, uint8, uint16, string}")

DFLOW_REGISTER_OP("DenseToDenseSetOperation")
    .Input("set1: T")
    .Input("set2: T")
    DFLOW_SET_OP_ATTRS
    .SetShapeFn(SetOperationShape)
    .Doc("The intersection, union or difference of the sets along the last "
         "dimension of two dense tensors.");

DFLOW_REGISTER_OP("DenseToSparseSetOperation")
    .Input("set1: T")
    .Input("set2_indices: int64")
    .Input("set2_values: T")
    .Input("set2_shape: int64")
    DFLOW_SET_OP_ATTRS
    .SetShapeFn(SetOperationShape)
    .Doc("A set operation between a dense tensor's and a SparseTensor's "
         "last-dimension sets.");

DFLOW_REGISTER_OP("SparseToSparseSetOperation")
    .Input("set1_indices: int64")
    .Input("set1_values: T")
    .Input("set1_shape: int64")
    .Input("set2_indices: int64")
    .Input("set2_values: T")
    .Input("set2_shape: int64")
    DFLOW_SET_OP_ATTRS
    .SetShapeFn(SetOperationShape)
    .Doc("A set operation between two SparseTensors' last-dimension sets.");
#undef DFLOW_SET_OP_ATTRS

DFLOW_REGISTER_OP("SetSize")
    .Input("set_indices: int64")
    .Input("set_values: T")
    .Input("set_shape: int64")
    .Output("size: int32")
    .Attr("validate_indices: bool = true")
    .Attr("T: {int8, int16, int32, int64, uint8, uint16, string}")
    .Doc("The number of distinct values of each last-dimension set of a "
         "SparseTensor.");

}  // namespace dflow
