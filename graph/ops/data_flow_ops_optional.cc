// Schemas of TensorFlow's Optional ops (DT_VARIANT values that hold a list
// of tensors or nothing). TensorFlow 2's gradient of a tf.cond writes them:
// each branch of the forward If returns the intermediates the gradient
// needs, wrapped by OptionalFromValue in the branch that computed them and
// OptionalNone in the other, and the gradient's If unwraps them with
// OptionalGetValue. Kernels: kernels/cpu/data_flow_ops_optional.cc.
#include <vector>

#include "graph/op_registry.h"
#include "graph/ops/data_flow_ops.h"
#include "graph/shape_inference.h"
#include "graph/tensor_shape.h"

namespace dflow {
namespace {

absl::Status ScalarHandle(InferenceContext* c) {
  c->set_output(0, TensorShape({}));
  return absl::OkStatus();
}

// OptionalGetValue's components: the shapes its output_shapes attr gives.
absl::Status ComponentShapes(InferenceContext* c) {
  std::vector<TensorShape> shapes;
  if (c->GetAttr("output_shapes", &shapes).ok() &&
      static_cast<int>(shapes.size()) == c->num_outputs()) {
    for (int i = 0; i < c->num_outputs(); ++i) c->set_output(i, shapes[i]);
    return absl::OkStatus();
  }
  for (int i = 0; i < c->num_outputs(); ++i) {
    c->set_output(i, TensorShape::Unknown());
  }
  return absl::OkStatus();
}

}  // namespace

DFLOW_REGISTER_OP("OptionalFromValue")
    .Input("components: Toutput_types")
    .Output("optional: variant")
    .Attr("Toutput_types: list(type) >= 1")
    .SetShapeFn(ScalarHandle)
    .Doc("An optional holding the components.");

DFLOW_REGISTER_OP("OptionalNone")
    .Output("optional: variant")
    .SetShapeFn(ScalarHandle)
    .Doc("An optional holding nothing.");

DFLOW_REGISTER_OP("OptionalHasValue")
    .Input("optional: variant")
    .Output("has_value: bool")
    .SetShapeFn(ScalarHandle)
    .Doc("Whether the optional holds components.");

DFLOW_REGISTER_OP("OptionalGetValue")
    .Input("optional: variant")
    .Output("components: output_types")
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .SetShapeFn(ComponentShapes)
    .Doc("The optional's components (an error when it holds none).");

}  // namespace dflow
