// Schema and builder wrapper of Cross (tf.linalg.cross; TensorFlow 2.21's
// math_ops.cc OpDef). Kernel: kernels/cpu/linalg_ops_cross.cc.
#include "absl/status/status.h"
#include "graph/op_registry.h"
#include "graph/ops/linalg_ops.h"
#include "graph/ops/shape_fn_util.h"
#include "graph/shape_inference.h"
#include "graph/tensor_shape.h"

namespace dflow {
namespace {

// a and b have one shape whose last dimension is 3.
absl::Status CrossShape(InferenceContext* c) {
  TensorShape a, b, merged;
  DFLOW_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 1, "input 'a'", &a));
  DFLOW_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(1), 1, "input 'b'", &b));
  DFLOW_RETURN_IF_ERROR(c->MergeShapes(a, b, "inputs 'a' and 'b'", &merged));
  if (!merged.unknown_rank()) {
    int64_t three = 0;
    DFLOW_RETURN_IF_ERROR(c->MergeDim(merged.dim(merged.rank() - 1), 3,
                                      "the last dimension of 'a' and 'b' "
                                      "(3-element vectors)",
                                      &three));
    merged.set_dim(merged.rank() - 1, 3);
  }
  c->set_output(0, merged);
  return absl::OkStatus();
}

}  // namespace

DFLOW_REGISTER_OP("Cross")
    .Input("a: T")
    .Input("b: T")
    .Output("product: T")
    .Attr(
        "T: {float, double, int32, uint8, int16, int8, int64, bfloat16, "
        "uint16, half, uint32, uint64}")
    .SetShapeFn(CrossShape)
    .Doc("The cross products of the 3-vectors in a's and b's last dimension.");

namespace ops {

Output Cross(const Scope& scope, Input a, Input b) {
  return shape_fn_util::FirstOutput(
      OpBuilder(scope, "Cross").Input(a).Input(b).Finalize());
}

}  // namespace ops
}  // namespace dflow
