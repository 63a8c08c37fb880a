// Schemas of TensorFlow's queue ops (core/ops/data_flow_ops.cc), with
// TensorFlow 2.21's OpDefs: the queues an input pipeline is built from
// (string_input_producer's FIFOQueue, shuffle_batch's RandomShuffleQueue,
// padded batching's PaddingFIFOQueue) and the ops that fill, drain, close
// and measure them. A queue lives in its session's resource store, named by
// container/shared_name like a variable (kernels/cpu/data_flow_ops_queue.h).
#include "graph/ops/data_flow_ops.h"

#include "graph/op_registry.h"
#include "graph/shape_inference.h"

namespace dflow {
namespace {

absl::Status ScalarHandle(InferenceContext* c) {
  c->set_output(0, TensorShape({}));
  return absl::OkStatus();
}

absl::Status NoOutputs(InferenceContext*) { return absl::OkStatus(); }

// Dequeued components: shapes only known at run time (the queue's `shapes`
// attr is on another node), so each output is left unknown.
absl::Status UnknownOutputs(InferenceContext* c) {
  for (int i = 0; i < c->num_outputs(); ++i)
    c->set_output(i, TensorShape::Unknown());
  return absl::OkStatus();
}

#define DFLOW_QUEUE_COMMON_ATTRS             \
  Attr("component_types: list(type) >= 1")   \
      .Attr("shapes: list(shape) >= 0 = []") \
      .Attr("capacity: int = -1")

DFLOW_REGISTER_OP("FIFOQueueV2")
    .Output("handle: resource")
    .DFLOW_QUEUE_COMMON_ATTRS.Attr("container: string = ''")
    .Attr("shared_name: string = ''")
    .SetIsStateful()
    .SetShapeFn(ScalarHandle)
    .Doc("A queue that produces elements in first-in first-out order.");

DFLOW_REGISTER_OP("PaddingFIFOQueueV2")
    .Output("handle: resource")
    .DFLOW_QUEUE_COMMON_ATTRS.Attr("container: string = ''")
    .Attr("shared_name: string = ''")
    .SetIsStateful()
    .SetShapeFn(ScalarHandle)
    .Doc(
        "A FIFO queue whose DequeueMany pads components of unknown "
        "dimensions to the largest in the batch.");

DFLOW_REGISTER_OP("RandomShuffleQueueV2")
    .Output("handle: resource")
    .DFLOW_QUEUE_COMMON_ATTRS.Attr("min_after_dequeue: int = 0")
    .Attr("seed: int = 0")
    .Attr("seed2: int = 0")
    .Attr("container: string = ''")
    .Attr("shared_name: string = ''")
    .SetIsStateful()
    .SetShapeFn(ScalarHandle)
    .Doc("A queue that dequeues elements in a random order.");

#undef DFLOW_QUEUE_COMMON_ATTRS

DFLOW_REGISTER_OP("QueueEnqueueV2")
    .Input("handle: resource")
    .Input("components: Tcomponents")
    .Attr("Tcomponents: list(type) >= 1")
    .Attr("timeout_ms: int = -1")
    .SetIsStateful()
    .SetShapeFn(NoOutputs)
    .Doc("Enqueues one element (a tuple of components).");

DFLOW_REGISTER_OP("QueueEnqueueManyV2")
    .Input("handle: resource")
    .Input("components: Tcomponents")
    .Attr("Tcomponents: list(type) >= 1")
    .Attr("timeout_ms: int = -1")
    .SetIsStateful()
    .SetShapeFn(NoOutputs)
    .Doc(
        "Enqueues the elements the components hold along their 0th "
        "dimension.");

DFLOW_REGISTER_OP("QueueDequeueV2")
    .Input("handle: resource")
    .Output("components: component_types")
    .Attr("component_types: list(type) >= 1")
    .Attr("timeout_ms: int = -1")
    .SetIsStateful()
    .SetShapeFn(UnknownOutputs)
    .Doc("Dequeues one element, waiting until there is one.");

DFLOW_REGISTER_OP("QueueDequeueManyV2")
    .Input("handle: resource")
    .Input("n: int32")
    .Output("components: component_types")
    .Attr("component_types: list(type) >= 1")
    .Attr("timeout_ms: int = -1")
    .SetIsStateful()
    .SetShapeFn(UnknownOutputs)
    .Doc("Dequeues n elements, stacked along a new 0th dimension.");

DFLOW_REGISTER_OP("QueueDequeueUpToV2")
    .Input("handle: resource")
    .Input("n: int32")
    .Output("components: component_types")
    .Attr("component_types: list(type) >= 1")
    .Attr("timeout_ms: int = -1")
    .SetIsStateful()
    .SetShapeFn(UnknownOutputs)
    .Doc(
        "Dequeues n elements, or fewer (at least one) once the queue is "
        "closed.");

DFLOW_REGISTER_OP("QueueCloseV2")
    .Input("handle: resource")
    .Attr("cancel_pending_enqueues: bool = false")
    .SetIsStateful()
    .SetShapeFn(NoOutputs)
    .Doc(
        "Closes the queue: later enqueues fail, dequeues drain what is "
        "left, then fail with OutOfRange.");

DFLOW_REGISTER_OP("QueueSizeV2")
    .Input("handle: resource")
    .Output("size: int32")
    .SetIsStateful()
    .SetShapeFn(ScalarHandle)
    .Doc("The number of elements in the queue.");

DFLOW_REGISTER_OP("QueueIsClosedV2")
    .Input("handle: resource")
    .Output("is_closed: bool")
    .SetIsStateful()
    .SetShapeFn(ScalarHandle)
    .Doc("Whether the queue is closed.");

}  // namespace
}  // namespace dflow
