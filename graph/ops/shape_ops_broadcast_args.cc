// Schema, shape function and wrapper of BroadcastArgs (shape_ops.h), as in
// TensorFlow 2.21's core/ops/array_ops.cc. The CPU kernel is
// kernels/cpu/shape_ops_broadcast_args.cc.
#include <algorithm>
#include <cstdint>

#include "absl/status/status.h"
#include "graph/op_registry.h"
#include "graph/ops/shape_fn_util.h"
#include "graph/ops/shape_ops.h"
#include "graph/shape_inference.h"
#include "graph/tensor_shape.h"

namespace dflow {
namespace {

using shape_fn_util::FirstOutput;
using shape_fn_util::InputAsPartialShape;

// A vector as long as the longer input; its value, when both inputs' values
// are known well enough, is their broadcast (so BroadcastTo of it infers).
absl::Status BroadcastArgsShape(InferenceContext* c) {
  TensorShape s0, s1;
  DFLOW_RETURN_IF_ERROR(c->WithRank(c->input(0), 1, "input 's0'", &s0));
  DFLOW_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, "input 's1'", &s1));
  if (s0.unknown_rank() || s1.unknown_rank() ||
      s0.dim(0) == TensorShape::kUnknownDim ||
      s1.dim(0) == TensorShape::kUnknownDim) {
    c->set_output(0, TensorShape({TensorShape::kUnknownDim}));
  } else {
    c->set_output(0, TensorShape({std::max(s0.dim(0), s1.dim(0))}));
  }
  TensorShape x, y, value;
  if (InputAsPartialShape(c, 0, &x) && InputAsPartialShape(c, 1, &y) &&
      x.IsFullyDefined() && y.IsFullyDefined() &&
      c->BroadcastShapes(x, y, &value).ok()) {
    c->set_output_shape_value(0, value);
  }
  return absl::OkStatus();
}

}  // namespace

DFLOW_REGISTER_OP("BroadcastArgs")
    .Input("s0: T")
    .Input("s1: T")
    .Output("r0: T")
    .Attr("T: {int32, int64} = DT_INT32")
    .SetShapeFn(BroadcastArgsShape)
    .Doc("The shape that shapes s0 and s1 broadcast to.");

namespace ops {

Output BroadcastArgs(const Scope& scope, Input s0, Input s1) {
  return FirstOutput(
      OpBuilder(scope, "BroadcastArgs").Input(s0).Input(s1).Finalize());
}

}  // namespace ops
}  // namespace dflow
