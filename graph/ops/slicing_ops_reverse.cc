// ReverseV2 (TensorFlow's schema): the input with the order of its
// elements reversed along each of the `axis` dimensions. Part of the
// slicing_ops family (graph/ops/slicing_ops.h); tf.image's flips
// (random_flip_left_right, flip_up_down) lower to it.
#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "graph/op_registry.h"
#include "graph/ops/shape_fn_util.h"
#include "graph/ops/slicing_ops.h"
#include "graph/shape_inference.h"

namespace dflow {
namespace {

using shape_fn_util::CanonicalAxis;
using shape_fn_util::FirstOutput;
using shape_fn_util::Ints;
using shape_fn_util::InvalidArgument;
using shape_fn_util::RankKnown;

// The output has the input's shape; a build-time axis must name distinct
// dimensions of it.
absl::Status ReverseV2Shape(InferenceContext* c) {
  const TensorShape& in = c->input(0);
  TensorShape axis_shape;
  if (absl::Status s = c->WithRank(c->input(1), 1, "input 'axis'", &axis_shape);
      !s.ok()) {
    return s;
  }
  std::vector<int64_t> axis;
  if (RankKnown(in) && c->ConstantInputAsInts(1, &axis)) {
    std::vector<bool> seen(in.rank(), false);
    for (int64_t a : axis) {
      int64_t d = 0;
      if (absl::Status s = CanonicalAxis(a, in.rank(), "axis", in, &d);
          !s.ok()) {
        return s;
      }
      if (seen[d]) {
        return InvalidArgument("axis ", Ints(axis), " names dimension ", d,
                               " twice; each may be reversed once");
      }
      seen[d] = true;
    }
  }
  c->set_output(0, in);
  return absl::OkStatus();
}

DFLOW_REGISTER_OP("ReverseV2")
    .Input("tensor: T")
    .Input("axis: Tidx")
    .Output("output: T")
    .Attr("Tidx: {int32, int64} = DT_INT32")
    .Attr(
        "T: {uint8, int8, uint16, int16, int32, uint32, int64, uint64, "
        "bool, bfloat16, half, float, double, complex64, complex128, "
        "string}")
    .SetShapeFn(ReverseV2Shape)
    .Doc("Reverses the order of the elements along each dimension in axis.");

}  // namespace

namespace ops {

Output ReverseV2(const Scope& scope, Input tensor, Input axis) {
  return FirstOutput(
      OpBuilder(scope, "ReverseV2").Input(tensor).Input(axis).Finalize());
}

}  // namespace ops
}  // namespace dflow
