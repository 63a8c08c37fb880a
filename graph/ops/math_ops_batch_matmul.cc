// Schemas, shape functions and wrappers of the batched matrix products
// (BatchMatMul, BatchMatMulV2, BatchMatMulV3) and ClipByValue, following
// TensorFlow 2.21's core/ops/math_ops.cc. Part of the math_ops family
// (graph/ops/math_ops.h); the CPU kernels are kernels/cpu/matmul_batch.cc
// and kernels/cpu/cwise_ops_clip.cc.
#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "graph/op_registry.h"
#include "graph/ops/math_ops.h"
#include "graph/ops/shape_fn_util.h"
#include "graph/shape_inference.h"
#include "graph/tensor_shape.h"

namespace dflow {
namespace {

using shape_fn_util::FirstOutput;
using shape_fn_util::InvalidArgument;

// batch + [m, n]: the batch dimensions merged (BatchMatMul) or broadcast
// (V2, V3), the inner dimensions of op(x) and op(y) merged.
absl::Status BatchMatMulShape(InferenceContext* c, bool broadcast) {
  const TensorShape& x = c->input(0);
  const TensorShape& y = c->input(1);
  TensorShape checked;
  DFLOW_RETURN_IF_ERROR(c->WithRankAtLeast(x, 2, "input 'x'", &checked));
  DFLOW_RETURN_IF_ERROR(c->WithRankAtLeast(y, 2, "input 'y'", &checked));
  if (x.unknown_rank() || y.unknown_rank()) {
    c->set_output(0, TensorShape::Unknown());
    return absl::OkStatus();
  }
  bool adj_x = false, adj_y = false;
  DFLOW_RETURN_IF_ERROR(c->GetAttr("adj_x", &adj_x));
  DFLOW_RETURN_IF_ERROR(c->GetAttr("adj_y", &adj_y));
  const int xr = x.rank(), yr = y.rank();
  const int64_t m = x.dim(adj_x ? xr - 1 : xr - 2);
  const int64_t xk = x.dim(adj_x ? xr - 2 : xr - 1);
  const int64_t yk = y.dim(adj_y ? yr - 1 : yr - 2);
  const int64_t n = y.dim(adj_y ? yr - 2 : yr - 1);
  int64_t k = 0;
  DFLOW_RETURN_IF_ERROR(c->MergeDim(
      xk, yk,
      absl::StrCat("inner dimensions of x ", x.ToString(), " and y ",
                   y.ToString(), " (adj_x=", adj_x, ", adj_y=", adj_y, ")"),
      &k));
  const TensorShape x_batch(x.dims().subspan(0, xr - 2));
  const TensorShape y_batch(y.dims().subspan(0, yr - 2));
  TensorShape out;
  if (broadcast) {
    DFLOW_RETURN_IF_ERROR(c->BroadcastShapes(x_batch, y_batch, &out));
  } else {
    if (xr != yr) {
      return InvalidArgument(
          "BatchMatMul needs x and y of one rank (use BatchMatMulV2 to ",
          "broadcast), got x ", x.ToString(), " and y ", y.ToString());
    }
    DFLOW_RETURN_IF_ERROR(
        c->MergeShapes(x_batch, y_batch, "batch dimensions of x and y", &out));
  }
  out.AddDim(m);
  out.AddDim(n);
  c->set_output(0, out);
  return absl::OkStatus();
}

absl::Status BatchMatMulV1Shape(InferenceContext* c) {
  return BatchMatMulShape(c, false);
}
absl::Status BatchMatMulV2Shape(InferenceContext* c) {
  return BatchMatMulShape(c, true);
}

Output Product(const Scope& scope, const char* op, const Input& x,
               const Input& y, const ops::BatchMatMulAttrs& attrs) {
  return FirstOutput(OpBuilder(scope, op)
                         .Input(x)
                         .Input(y)
                         .Attr("adj_x", attrs.adj_x)
                         .Attr("adj_y", attrs.adj_y)
                         .Finalize());
}

}  // namespace

DFLOW_REGISTER_OP("BatchMatMul")
    .Input("x: T")
    .Input("y: T")
    .Output("output: T")
    .Attr(
        "T: {bfloat16, half, float, double, int32, int64, complex64, "
        "complex128}")
    .Attr("adj_x: bool = false")
    .Attr("adj_y: bool = false")
    .Attr("grad_x: bool = false")
    .Attr("grad_y: bool = false")
    .SetShapeFn(BatchMatMulV1Shape)
    .Doc("Matrix products of the inner matrices of x and y (equal batches).");

DFLOW_REGISTER_OP("BatchMatMulV2")
    .Input("x: T")
    .Input("y: T")
    .Output("output: T")
    .Attr(
        "T: {bfloat16, half, float, double, int16, int32, int64, uint8, "
        "uint16, uint32, uint64, complex64, complex128}")
    .Attr("adj_x: bool = false")
    .Attr("adj_y: bool = false")
    .Attr("grad_x: bool = false")
    .Attr("grad_y: bool = false")
    .SetShapeFn(BatchMatMulV2Shape)
    .Doc("Matrix products of the inner matrices of x and y (broadcast).");

DFLOW_REGISTER_OP("BatchMatMulV3")
    .Input("x: Ta")
    .Input("y: Tb")
    .Output("output: Tout")
    .Attr(
        "Ta: {bfloat16, half, float, double, uint8, int8, int16, int32, "
        "int64, complex64, complex128}")
    .Attr(
        "Tb: {bfloat16, half, float, double, uint8, int8, int16, int32, "
        "int64, complex64, complex128}")
    .Attr(
        "Tout: {bfloat16, half, float, double, int16, int32, int64, "
        "complex64, complex128}")
    .Attr("adj_x: bool = false")
    .Attr("adj_y: bool = false")
    .Attr("grad_x: bool = false")
    .Attr("grad_y: bool = false")
    .SetShapeFn(BatchMatMulV2Shape)
    .Doc("BatchMatMulV2 with the output type named (Tout).");

DFLOW_REGISTER_OP("ClipByValue")
    .Input("t: T")
    .Input("clip_value_min: T")
    .Input("clip_value_max: T")
    .Output("output: T")
    .Attr(
        "T: {float, double, int32, uint8, int16, int8, complex64, int64, "
        "qint8, quint8, qint32, bfloat16, qint16, quint16, uint16, "
        "complex128, half, uint32, uint64}")
    .SetShapeFn(shape_fns::UnchangedShape)
    .Doc("Clips t to [clip_value_min, clip_value_max] element-wise.");

namespace ops {

Output BatchMatMul(const Scope& scope, Input x, Input y,
                   const BatchMatMulAttrs& attrs) {
  return Product(scope, "BatchMatMul", x, y, attrs);
}
Output BatchMatMulV2(const Scope& scope, Input x, Input y,
                     const BatchMatMulAttrs& attrs) {
  return Product(scope, "BatchMatMulV2", x, y, attrs);
}
Output BatchMatMulV3(const Scope& scope, Input x, Input y, DataType Tout,
                     const BatchMatMulAttrs& attrs) {
  return FirstOutput(OpBuilder(scope, "BatchMatMulV3")
                         .Input(x)
                         .Input(y)
                         .Attr("Tout", Tout)
                         .Attr("adj_x", attrs.adj_x)
                         .Attr("adj_y", attrs.adj_y)
                         .Finalize());
}
Output ClipByValue(const Scope& scope, Input t, Input clip_value_min,
                   Input clip_value_max) {
  return FirstOutput(OpBuilder(scope, "ClipByValue")
                         .Input(t)
                         .Input(clip_value_min)
                         .Input(clip_value_max)
                         .Finalize());
}

}  // namespace ops
}  // namespace dflow
