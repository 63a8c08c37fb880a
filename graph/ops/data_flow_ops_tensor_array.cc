// Schemas of TensorFlow's TensorArray ops (core/ops/data_flow_ops.cc), with
// TensorFlow 2.21's OpDefs: what tf.TensorArray and TF1 dynamic_rnn build
// on. A TensorArray is a vector of tensors behind a handle, made afresh by
// TensorArrayV3 each run (runtime/step_container.h); the `flow` scalar
// threaded through its reads and writes carries no data, only the order
// among them (a loop's writes are loop variables through it).
// kernels/cpu/data_flow_ops_tensor_array.cc has the kernels.
#include <cstdint>
#include <vector>

#include "graph/op_registry.h"
#include "graph/shape_inference.h"

namespace dflow {
namespace {

absl::Status HandleAndFlow(InferenceContext* c) {
  for (int i = 0; i < c->num_outputs(); ++i) c->set_output(i, TensorShape({}));
  return absl::OkStatus();
}

absl::Status NoOutputs(InferenceContext*) { return absl::OkStatus(); }

// Read: the array's element_shape is on another node, so unknown.
absl::Status UnknownOutput(InferenceContext* c) {
  c->set_output(0, TensorShape::Unknown());
  return absl::OkStatus();
}

// Gather: [len(indices)] + element_shape (from the attr when it is known).
absl::Status GatherShape(InferenceContext* c) {
  TensorShape element = TensorShape::Unknown();
  c->GetAttr("element_shape", &element).IgnoreError();
  const TensorShape& indices = c->input(1);
  const int64_t n =
      indices.rank() == 1 ? indices.dim(0) : TensorShape::kUnknownDim;
  if (element.unknown_rank()) {
    c->set_output(0, TensorShape::Unknown());
    return absl::OkStatus();
  }
  std::vector<int64_t> dims = {n};
  for (int d = 0; d < element.rank(); ++d) dims.push_back(element.dim(d));
  c->set_output(0, TensorShape(dims));
  return absl::OkStatus();
}

DFLOW_REGISTER_OP("TensorArrayV3")
    .Input("size: int32")
    .Output("handle: resource")
    .Output("flow: float")
    .Attr("dtype: type")
    .Attr("element_shape: shape = { unknown_rank: true }")
    .Attr("dynamic_size: bool = false")
    .Attr("clear_after_read: bool = true")
    .Attr("identical_element_shapes: bool = false")
    .Attr("tensor_array_name: string = ''")
    .SetIsStateful()
    .SetShapeFn(HandleAndFlow)
    .Doc(
        "A new TensorArray of `size` unwritten dtype elements (growing on "
        "write when dynamic_size); it lives until the step ends.");

DFLOW_REGISTER_OP("TensorArrayGradV3")
    .Input("handle: resource")
    .Input("flow_in: float")
    .Output("grad_handle: resource")
    .Output("flow_out: float")
    .Attr("source: string")
    .SetIsStateful()
    .SetShapeFn(HandleAndFlow)
    .Doc(
        "The gradient TensorArray of `handle` for `source`: made on first "
        "use with the same size, found afterwards; its writes to one index "
        "add up.");

DFLOW_REGISTER_OP("TensorArrayWriteV3")
    .Input("handle: resource")
    .Input("index: int32")
    .Input("value: T")
    .Input("flow_in: float")
    .Output("flow_out: float")
    .Attr("T: type")
    .SetIsStateful()
    .SetShapeFn(shape_fns::ScalarShape)
    .Doc("Writes value at index.");

DFLOW_REGISTER_OP("TensorArrayReadV3")
    .Input("handle: resource")
    .Input("index: int32")
    .Input("flow_in: float")
    .Output("value: dtype")
    .Attr("dtype: type")
    .SetIsStateful()
    .SetShapeFn(UnknownOutput)
    .Doc("Reads the element at index (clearing it when clear_after_read).");

DFLOW_REGISTER_OP("TensorArrayGatherV3")
    .Input("handle: resource")
    .Input("indices: int32")
    .Input("flow_in: float")
    .Output("value: dtype")
    .Attr("dtype: type")
    .Attr("element_shape: shape = { unknown_rank: true }")
    .SetIsStateful()
    .SetShapeFn(GatherShape)
    .Doc("The elements at indices, stacked along a new 0th dimension.");

DFLOW_REGISTER_OP("TensorArrayScatterV3")
    .Input("handle: resource")
    .Input("indices: int32")
    .Input("value: T")
    .Input("flow_in: float")
    .Output("flow_out: float")
    .Attr("T: type")
    .SetIsStateful()
    .SetShapeFn(shape_fns::ScalarShape)
    .Doc("Writes value[i] at indices[i] for every i.");

// Concat: [?] + element_shape_except0 (unknown rank when that is).
absl::Status ConcatShape(InferenceContext* c) {
  TensorShape except0 = TensorShape::Unknown();
  c->GetAttr("element_shape_except0", &except0).IgnoreError();
  if (except0.unknown_rank()) {
    c->set_output(0, TensorShape::Unknown());
  } else {
    std::vector<int64_t> dims = {TensorShape::kUnknownDim};
    for (int d = 0; d < except0.rank(); ++d) dims.push_back(except0.dim(d));
    c->set_output(0, TensorShape(dims));
  }
  c->set_output(1, TensorShape({TensorShape::kUnknownDim}));
  return absl::OkStatus();
}

DFLOW_REGISTER_OP("TensorArrayConcatV3")
    .Input("handle: resource")
    .Input("flow_in: float")
    .Output("value: dtype")
    .Output("lengths: int64")
    .Attr("dtype: type")
    .Attr("element_shape_except0: shape = { unknown_rank: true }")
    .SetIsStateful()
    .SetShapeFn(ConcatShape)
    .Doc(
        "Every element joined along dimension 0 (they may differ there "
        "only), and each one's size in that dimension.");

DFLOW_REGISTER_OP("TensorArraySplitV3")
    .Input("handle: resource")
    .Input("value: T")
    .Input("lengths: int64")
    .Input("flow_in: float")
    .Output("flow_out: float")
    .Attr("T: type")
    .SetIsStateful()
    .SetShapeFn(shape_fns::ScalarShape)
    .Doc(
        "Writes consecutive pieces of value along dimension 0, of the given "
        "lengths, at indices 0, 1, ...");

DFLOW_REGISTER_OP("TensorArraySizeV3")
    .Input("handle: resource")
    .Input("flow_in: float")
    .Output("size: int32")
    .SetIsStateful()
    .SetShapeFn(shape_fns::ScalarShape)
    .Doc("The number of elements (written or not).");

DFLOW_REGISTER_OP("TensorArrayCloseV3")
    .Input("handle: resource")
    .SetIsStateful()
    .SetShapeFn(NoOutputs)
    .Doc("Closes the TensorArray and frees its elements; later uses fail.");

}  // namespace
}  // namespace dflow
