// Schemas and builder wrappers of MatrixBandPart (tf.linalg.band_part) and
// MatrixSetDiagV3 (tf.linalg.set_diag), TensorFlow 2.21's array_ops.cc
// OpDefs. Both keep their input's shape. Kernels:
// kernels/cpu/slicing_ops_matrix_band.cc and slicing_ops_matrix_set_diag.cc.
#include "absl/status/status.h"
#include "graph/op_registry.h"
#include "graph/ops/array_ops.h"
#include "graph/ops/shape_fn_util.h"
#include "graph/shape_inference.h"
#include "graph/tensor_shape.h"

namespace dflow {
namespace {

absl::Status MatrixBandPartShape(InferenceContext* c) {
  TensorShape input, unused;
  DFLOW_RETURN_IF_ERROR(
      c->WithRankAtLeast(c->input(0), 2, "input 'input'", &input));
  DFLOW_RETURN_IF_ERROR(
      c->WithRank(c->input(1), 0, "input 'num_lower'", &unused));
  DFLOW_RETURN_IF_ERROR(
      c->WithRank(c->input(2), 0, "input 'num_upper'", &unused));
  c->set_output(0, input);
  return absl::OkStatus();
}

// The input's shape; the diagonal's shape is checked by the kernel, which
// knows k.
absl::Status MatrixSetDiagShape(InferenceContext* c) {
  TensorShape input, diagonal, k;
  DFLOW_RETURN_IF_ERROR(
      c->WithRankAtLeast(c->input(0), 2, "input 'input'", &input));
  DFLOW_RETURN_IF_ERROR(
      c->WithRankAtLeast(c->input(1), 1, "input 'diagonal'", &diagonal));
  if (c->input(2).rank() > 1) {
    return shape_fn_util::InvalidArgument(
        "k must be a scalar or a vector, got shape ", c->input(2).ToString());
  }
  c->set_output(0, input);
  return absl::OkStatus();
}

}  // namespace

DFLOW_REGISTER_OP("MatrixBandPart")
    .Input("input: T")
    .Input("num_lower: Tindex")
    .Input("num_upper: Tindex")
    .Output("band: T")
    .Attr("T: type")
    .Attr("Tindex: {int32, int64} = DT_INT64")
    .SetShapeFn(MatrixBandPartShape)
    .Doc(
        "Each innermost matrix with the elements outside num_lower diagonals "
        "below and num_upper above the main one set to 0 (-1: no limit).");

DFLOW_REGISTER_OP("MatrixSetDiagV3")
    .Input("input: T")
    .Input("diagonal: T")
    .Input("k: int32")
    .Output("output: T")
    .Attr("T: type")
    .Attr(
        "align: {'LEFT_RIGHT', 'RIGHT_LEFT', 'LEFT_LEFT', 'RIGHT_RIGHT'} = "
        "'RIGHT_LEFT'")
    .SetShapeFn(MatrixSetDiagShape)
    .Doc("input with its k-th diagonal (or band k = [lo, hi]) replaced.");

DFLOW_REGISTER_OP("MatrixSetDiagV2")
    .Input("input: T")
    .Input("diagonal: T")
    .Input("k: int32")
    .Output("output: T")
    .Attr("T: type")
    .SetShapeFn(MatrixSetDiagShape)
    .Doc("MatrixSetDiagV3 with align LEFT_LEFT (older graphs).");

namespace ops {

Output MatrixSetDiagV2(const Scope& scope, Input input, Input diagonal,
                       Input k) {
  return shape_fn_util::FirstOutput(OpBuilder(scope, "MatrixSetDiagV2")
                                        .Input(input)
                                        .Input(diagonal)
                                        .Input(k)
                                        .Finalize());
}

Output MatrixBandPart(const Scope& scope, Input input, Input num_lower,
                      Input num_upper) {
  return shape_fn_util::FirstOutput(OpBuilder(scope, "MatrixBandPart")
                                        .Input(input)
                                        .Input(num_lower)
                                        .Input(num_upper)
                                        .Finalize());
}

Output MatrixSetDiagV3(const Scope& scope, Input input, Input diagonal,
                       Input k) {
  return shape_fn_util::FirstOutput(OpBuilder(scope, "MatrixSetDiagV3")
                                        .Input(input)
                                        .Input(diagonal)
                                        .Input(k)
                                        .Finalize());
}

}  // namespace ops
}  // namespace dflow
