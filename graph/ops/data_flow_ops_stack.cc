// Schemas of TensorFlow's stacks (core/ops/data_flow_ops.cc), with
// TensorFlow 2.21's OpDefs: the accumulators of TF1 while-loop gradients.
// The forward loop pushes each iteration's value, the gradient loop pops
// them in reverse. A stack lives for one step (runtime/step_container.h);
// kernels/cpu/data_flow_ops_stack.cc has the kernels.
#include "graph/op_registry.h"
#include "graph/shape_inference.h"

namespace dflow {
namespace {

absl::Status ScalarHandle(InferenceContext* c) {
  c->set_output(0, TensorShape({}));
  return absl::OkStatus();
}

// What a pop returns depends on the pushes of the run: unknown.
absl::Status UnknownElement(InferenceContext* c) {
  c->set_output(0, TensorShape::Unknown());
  return absl::OkStatus();
}

// A push returns the element it pushed.
absl::Status PushedElement(InferenceContext* c) {
  c->set_output(0, c->input(1));
  return absl::OkStatus();
}

absl::Status NoOutputs(InferenceContext*) { return absl::OkStatus(); }

DFLOW_REGISTER_OP("StackV2")
    .Input("max_size: int32")
    .Output("handle: resource")
    .Attr("elem_type: type")
    .Attr("stack_name: string = ''")
    .SetIsStateful()
    .SetShapeFn(ScalarHandle)
    .Doc(
        "A new, empty stack of elem_type tensors holding at most max_size "
        "(< 0: unbounded); it lives until the step ends.");

DFLOW_REGISTER_OP("StackPushV2")
    .Input("handle: resource")
    .Input("elem: T")
    .Output("output: T")
    .Attr("T: type")
    .Attr("swap_memory: bool = false")
    .SetIsStateful()
    .SetShapeFn(PushedElement)
    .Doc("Pushes elem onto the stack and returns it.");

DFLOW_REGISTER_OP("StackPopV2")
    .Input("handle: resource")
    .Output("elem: elem_type")
    .Attr("elem_type: type")
    .SetIsStateful()
    .SetShapeFn(UnknownElement)
    .Doc("Pops the last element pushed; an error on an empty stack.");

DFLOW_REGISTER_OP("StackCloseV2")
    .Input("handle: resource")
    .SetIsStateful()
    .SetShapeFn(NoOutputs)
    .Doc("Closes the stack and frees its elements; later uses fail.");

}  // namespace
}  // namespace dflow
