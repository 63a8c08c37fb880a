// Schemas, shape functions and wrappers of GatherNd, ScatterNd and ListDiff
// (index_ops.h), following TensorFlow 2.21's core/ops/array_ops.cc. The CPU
// kernels are kernels/cpu/index_ops_nd.cc.
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "graph/op_registry.h"
#include "graph/ops/index_ops.h"
#include "graph/ops/shape_fn_util.h"
#include "graph/shape_inference.h"
#include "graph/tensor_shape.h"
#include "graph/types.h"

namespace dflow {
namespace {

using shape_fn_util::AllOutputs;
using shape_fn_util::FirstOutput;
using shape_fn_util::InvalidArgument;

// indices[:-1] + params[indices.shape[-1]:]; params is input 0's value,
// or the value a resource variable's handle declares (ResourceGatherNd).
absl::Status GatherNdShape(InferenceContext* c) {
  const TensorShape& params = c->input_type(0) == DT_RESOURCE
                                  ? c->input_shape_value(0)
                                  : c->input(0);
  const TensorShape& indices = c->input(1);
  TensorShape checked;
  DFLOW_RETURN_IF_ERROR(
      c->WithRankAtLeast(indices, 1, "input 'indices'", &checked));
  if (params.unknown_rank() || indices.unknown_rank() ||
      indices.dim(indices.rank() - 1) == TensorShape::kUnknownDim) {
    c->set_output(0, TensorShape::Unknown());
    return absl::OkStatus();
  }
  const int64_t r = indices.dim(indices.rank() - 1);
  if (r > params.rank()) {
    return InvalidArgument(
        "indices.shape[-1] must be <= params.rank, but "
        "saw indices shape: ",
        indices.ToString(), " and params shape: ", params.ToString());
  }
  TensorShape out(indices.dims().subspan(0, indices.rank() - 1));
  for (int i = static_cast<int>(r); i < params.rank(); ++i) {
    out.AddDim(params.dim(i));
  }
  c->set_output(0, out);
  return absl::OkStatus();
}

// The shape vector's value (as far as known).
absl::Status ScatterNdShape(InferenceContext* c) {
  TensorShape checked;
  DFLOW_RETURN_IF_ERROR(
      c->WithRankAtLeast(c->input(0), 1, "input 'indices'", &checked));
  TensorShape out;
  DFLOW_RETURN_IF_ERROR(c->ShapeFromShapeTensor(2, &out));
  c->set_output(0, out);
  return absl::OkStatus();
}

absl::Status ListDiffShape(InferenceContext* c) {
  TensorShape checked;
  DFLOW_RETURN_IF_ERROR(c->WithRank(c->input(0), 1, "input 'x'", &checked));
  DFLOW_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, "input 'y'", &checked));
  c->set_output(0, TensorShape({TensorShape::kUnknownDim}));
  c->set_output(1, TensorShape({TensorShape::kUnknownDim}));
  return absl::OkStatus();
}

}  // namespace

DFLOW_REGISTER_OP("GatherNd")
    .Input("params: Tparams")
    .Input("indices: Tindices")
    .Output("output: Tparams")
    .Attr("Tparams: type")
    .Attr("Tindices: {int16, int32, int64}")
    .Attr("bad_indices_policy: string = ''")
    .SetShapeFn(GatherNdShape)
    .Doc("Slices of params at the index tuples in indices' last dimension.");

DFLOW_REGISTER_OP("ResourceGatherNd")
    .Input("resource: resource")
    .Input("indices: Tindices")
    .Output("output: dtype")
    .Attr("dtype: type")
    .Attr("Tindices: {int32, int64}")
    .SetIsStateful()
    .SetShapeFn(GatherNdShape)
    .Doc("GatherNd of a resource variable's value (tf.gather_nd(v, ...)).");

DFLOW_REGISTER_OP("ScatterNd")
    .Input("indices: Tindices")
    .Input("updates: T")
    .Input("shape: Tindices")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tindices: {int16, int32, int64}")
    .Attr("bad_indices_policy: string = ''")
    .SetShapeFn(ScatterNdShape)
    .Doc("Zeros of `shape` with updates added at the index tuples.");

DFLOW_REGISTER_OP("ListDiff")
    .Input("x: T")
    .Input("y: T")
    .Output("out: T")
    .Output("idx: out_idx")
    .Attr("T: type")
    .Attr("out_idx: {int32, int64} = DT_INT32")
    .SetShapeFn(ListDiffShape)
    .Doc("The elements of x not in y, in x's order, and their positions.");

namespace ops {

Output GatherNd(const Scope& scope, Input params, Input indices) {
  return FirstOutput(
      OpBuilder(scope, "GatherNd").Input(params).Input(indices).Finalize());
}

Output ResourceGatherNd(const Scope& scope, Input resource, Input indices,
                        DataType dtype) {
  return FirstOutput(OpBuilder(scope, "ResourceGatherNd")
                         .Input(resource)
                         .Input(indices)
                         .Attr("dtype", dtype)
                         .Finalize());
}

Output ScatterNd(const Scope& scope, Input indices, Input updates,
                 Input shape) {
  return FirstOutput(OpBuilder(scope, "ScatterNd")
                         .Input(indices)
                         .Input(updates)
                         .Input(shape)
                         .Finalize());
}

ListDiffOutputs ListDiff(const Scope& scope, Input x, Input y,
                         const ListDiffAttrs& attrs) {
  OutputList out = AllOutputs(OpBuilder(scope, "ListDiff")
                                  .Input(x)
                                  .Input(y)
                                  .Attr("out_idx", attrs.out_idx)
                                  .Finalize(),
                              2);
  return {out[0], out[1]};
}

}  // namespace ops
}  // namespace dflow
