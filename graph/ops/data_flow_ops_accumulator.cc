// Schemas of TensorFlow's conditional accumulators (core/ops/
// data_flow_ops.cc), with TensorFlow 2.21's OpDefs: what
// tf.compat.v1.train.SyncReplicasOptimizer aggregates the replicas'
// gradients in (one accumulator per variable; the chief takes the mean of
// replicas_to_aggregate fresh gradients each step), and
// tf.compat.v1.ConditionalAccumulator. An accumulator lives in its
// session's resource store, named by container/shared_name like a queue
// (kernels/cpu/data_flow_ops_conditional_accumulator.h).
#include "graph/op_registry.h"
#include "graph/shape_inference.h"

namespace dflow {
namespace {

absl::Status ScalarOutput(InferenceContext* c) {
  c->set_output(0, TensorShape({}));
  return absl::OkStatus();
}

absl::Status NoOutputs(InferenceContext*) { return absl::OkStatus(); }

// The taken gradient has the accumulated gradients' shape, known only when
// they arrive (the handle op's `shape` attr is on another node).
absl::Status UnknownOutput(InferenceContext* c) {
  c->set_output(0, TensorShape::Unknown());
  return absl::OkStatus();
}

// TensorFlow's list (its kernels exist for half, float and double only).
#define DFLOW_ACCUMULATOR_DTYPE                                            \
  "dtype: {float, double, int32, uint8, int16, int8, complex64, int64, "   \
  "qint8, quint8, qint32, bfloat16, qint16, quint16, uint16, complex128, " \
  "half, uint32, uint64}"

DFLOW_REGISTER_OP("ResourceConditionalAccumulator")
    .Output("handle: resource")
    .Attr(DFLOW_ACCUMULATOR_DTYPE)
    .Attr("shape: shape")
    .Attr("container: string = ''")
    .Attr("shared_name: string = ''")
    .Attr("reduction_type: {'MEAN', 'SUM'} = 'MEAN'")
    .SetIsStateful()
    .SetShapeFn(ScalarOutput)
    .Doc(
        "An accumulator of gradients of `shape`: those computed at a local "
        "step below its global step are dropped, the others summed until "
        "taken (their mean, or sum).");

DFLOW_REGISTER_OP("ResourceAccumulatorApplyGradient")
    .Input("handle: resource")
    .Input("local_step: int64")
    .Input("gradient: dtype")
    .Attr(DFLOW_ACCUMULATOR_DTYPE)
    .SetIsStateful()
    .SetShapeFn(NoOutputs)
    .Doc(
        "Adds the gradient to the accumulator, unless local_step is below "
        "its global step (a stale gradient, silently dropped).");

DFLOW_REGISTER_OP("ResourceAccumulatorTakeGradient")
    .Input("handle: resource")
    .Input("num_required: int32")
    .Output("average: dtype")
    .Attr(DFLOW_ACCUMULATOR_DTYPE)
    .SetIsStateful()
    .SetShapeFn(UnknownOutput)
    .Doc(
        "Waits until num_required gradients are accumulated, returns their "
        "mean (or sum), empties the accumulator and advances its global "
        "step by one.");

DFLOW_REGISTER_OP("ResourceAccumulatorNumAccumulated")
    .Input("handle: resource")
    .Output("num_accumulated: int32")
    .SetIsStateful()
    .SetShapeFn(ScalarOutput)
    .Doc("The number of gradients accumulated since the last take.");

DFLOW_REGISTER_OP("ResourceAccumulatorSetGlobalStep")
    .Input("handle: resource")
    .Input("new_global_step: int64")
    .SetIsStateful()
    .SetShapeFn(NoOutputs)
    .Doc(
        "Sets the accumulator's global step (also to a lower value, as "
        "TensorFlow does); what was accumulated stays.");

#undef DFLOW_ACCUMULATOR_DTYPE

}  // namespace
}  // namespace dflow
