// Roll (TensorFlow 2.21's schema, core/ops/manip_ops.cc): the input with its
// elements shifted cyclically along the `axis` dimensions. Part of the
// slicing_ops family (graph/ops/slicing_ops.h); the CPU kernel is
// kernels/cpu/slicing_ops_roll.cc.
#include <cstdint>

#include "absl/status/status.h"
#include "graph/op_registry.h"
#include "graph/ops/shape_fn_util.h"
#include "graph/ops/slicing_ops.h"
#include "graph/shape_inference.h"

namespace dflow {
namespace {

using shape_fn_util::FirstOutput;
using shape_fn_util::InvalidArgument;
using shape_fn_util::RankKnown;

// The output has the input's shape; shift and axis are scalars or vectors
// of one length.
absl::Status RollShape(InferenceContext* c) {
  TensorShape in;
  DFLOW_RETURN_IF_ERROR(
      c->WithRankAtLeast(c->input(0), 1, "input 'input'", &in));
  const TensorShape& shift = c->input(1);
  const TensorShape& axis = c->input(2);
  if (RankKnown(shift) && shift.rank() > 1) {
    return InvalidArgument("shift must be a scalar or a vector, got shape ",
                           shift.ToString());
  }
  if (RankKnown(axis) && axis.rank() > 1) {
    return InvalidArgument("axis must be a scalar or a vector, got shape ",
                           axis.ToString());
  }
  if (RankKnown(shift) && RankKnown(axis) && shift.rank() == 1 &&
      axis.rank() == 1 && shift.dim(0) >= 0 && axis.dim(0) >= 0 &&
      shift.dim(0) != axis.dim(0)) {
    return InvalidArgument("shift and axis must have the same size, got ",
                           shift.ToString(), " and ", axis.ToString());
  }
  c->set_output(0, c->input(0));
  return absl::OkStatus();
}

}  // namespace

DFLOW_REGISTER_OP("Roll")
    .Input("input: T")
    .Input("shift: Tshift")
    .Input("axis: Taxis")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tshift: {int32, int64}")
    .Attr("Taxis: {int32, int64}")
    .SetShapeFn(RollShape)
    .Doc("Shifts the elements of input cyclically along axis by shift.");

namespace ops {

Output Roll(const Scope& scope, Input input, Input shift, Input axis) {
  return FirstOutput(OpBuilder(scope, "Roll")
                         .Input(input)
                         .Input(shift)
                         .Input(axis)
                         .Finalize());
}

}  // namespace ops
}  // namespace dflow
