// Schemas, shape function and wrappers of TensorScatterUpdate, Add, Sub,
// Max and Min (index_ops.h), following TensorFlow 2.21's
// core/ops/array_ops.cc. The CPU kernels are
// kernels/cpu/index_ops_tensor_scatter.cc.
#include <cstdint>

#include "absl/status/status.h"
#include "graph/op_registry.h"
#include "graph/ops/index_ops.h"
#include "graph/ops/shape_fn_util.h"
#include "graph/shape_inference.h"
#include "graph/tensor_shape.h"

namespace dflow {
namespace {

using shape_fn_util::FirstOutput;
using shape_fn_util::InvalidArgument;
using shape_fn_util::RankKnown;

// The output is `tensor`'s shape; updates must be
// indices.shape[:-1] + tensor.shape[indices.shape[-1]:] where known.
absl::Status TensorScatterShape(InferenceContext* c) {
  const TensorShape& tensor = c->input(0);
  TensorShape indices;
  DFLOW_RETURN_IF_ERROR(
      c->WithRankAtLeast(c->input(1), 1, "input 'indices'", &indices));
  const TensorShape& updates = c->input(2);
  if (RankKnown(tensor) && RankKnown(indices) && RankKnown(updates) &&
      indices.dim(indices.rank() - 1) != TensorShape::kUnknownDim) {
    const int64_t r = indices.dim(indices.rank() - 1);
    const int64_t want_rank = indices.rank() - 1 + tensor.rank() - r;
    bool ok = r <= tensor.rank() && updates.rank() == want_rank;
    for (int i = 0; ok && i < indices.rank() - 1; ++i) {
      ok = updates.dim(i) < 0 || indices.dim(i) < 0 ||
           updates.dim(i) == indices.dim(i);
    }
    for (int i = 0; ok && i < tensor.rank() - r; ++i) {
      const int64_t u = updates.dim(indices.rank() - 1 + i);
      const int64_t t = tensor.dim(static_cast<int>(r) + i);
      ok = u < 0 || t < 0 || u == t;
    }
    if (!ok) {
      return InvalidArgument(
          "updates must have shape indices.shape[:-1] + "
          "tensor.shape[indices.shape[-1]:], got tensor ",
          tensor.ToString(), ", indices ", indices.ToString(), ", updates ",
          updates.ToString());
    }
  }
  c->set_output(0, tensor);
  return absl::OkStatus();
}

#define DFLOW_REGISTER_TENSOR_SCATTER(name, index_types, doc) \
  DFLOW_REGISTER_OP(name)                                     \
      .Input("tensor: T")                                     \
      .Input("indices: Tindices")                             \
      .Input("updates: T")                                    \
      .Output("output: T")                                    \
      .Attr("T: type")                                        \
      .Attr(index_types)                                      \
      .Attr("bad_indices_policy: string = ''")                \
      .SetShapeFn(TensorScatterShape)                         \
      .Doc(doc)

}  // namespace

DFLOW_REGISTER_TENSOR_SCATTER("TensorScatterUpdate",
                              "Tindices: {int16, int32, int64, uint16}",
                              "tensor with the slices at indices replaced.");
DFLOW_REGISTER_TENSOR_SCATTER("TensorScatterAdd", "Tindices: {int32, int64}",
                              "tensor with updates added at indices.");
DFLOW_REGISTER_TENSOR_SCATTER("TensorScatterSub", "Tindices: {int32, int64}",
                              "tensor with updates subtracted at indices.");
DFLOW_REGISTER_TENSOR_SCATTER("TensorScatterMax", "Tindices: {int32, int64}",
                              "tensor maxed with updates at indices.");
DFLOW_REGISTER_TENSOR_SCATTER("TensorScatterMin", "Tindices: {int32, int64}",
                              "tensor mined with updates at indices.");

namespace ops {
namespace {

Output TensorScatter(const Scope& scope, const char* op, Input tensor,
                     Input indices, Input updates) {
  return FirstOutput(OpBuilder(scope, op)
                         .Input(tensor)
                         .Input(indices)
                         .Input(updates)
                         .Finalize());
}

}  // namespace

Output TensorScatterUpdate(const Scope& scope, Input tensor, Input indices,
                           Input updates) {
  return TensorScatter(scope, "TensorScatterUpdate", tensor, indices, updates);
}
Output TensorScatterAdd(const Scope& scope, Input tensor, Input indices,
                        Input updates) {
  return TensorScatter(scope, "TensorScatterAdd", tensor, indices, updates);
}
Output TensorScatterSub(const Scope& scope, Input tensor, Input indices,
                        Input updates) {
  return TensorScatter(scope, "TensorScatterSub", tensor, indices, updates);
}
Output TensorScatterMax(const Scope& scope, Input tensor, Input indices,
                        Input updates) {
  return TensorScatter(scope, "TensorScatterMax", tensor, indices, updates);
}
Output TensorScatterMin(const Scope& scope, Input tensor, Input indices,
                        Input updates) {
  return TensorScatter(scope, "TensorScatterMin", tensor, indices, updates);
}

}  // namespace ops
}  // namespace dflow
