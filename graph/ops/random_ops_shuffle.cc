// RandomShuffle (core/ops/random_ops.cc): a random permutation of a
// tensor's first dimension, seeded like the other stateful random ops.
#include "graph/op_registry.h"
#include "graph/shape_inference.h"

namespace dflow {
namespace {

DFLOW_REGISTER_OP("RandomShuffle")
    .Input("value: T")
    .Output("output: T")
    .Attr("seed: int = 0")
    .Attr("seed2: int = 0")
    .Attr("T: type")
    .SetIsStateful()
    .SetShapeFn([](InferenceContext* c) {
      c->set_output(0, c->input(0));
      return absl::OkStatus();
    })
    .Doc("Shuffles value along its first dimension.");

}  // namespace
}  // namespace dflow
