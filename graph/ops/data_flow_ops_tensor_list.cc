// Schemas of TensorFlow's TensorList ops (core/ops/list_ops.cc), with
// TensorFlow 2.21's OpDefs: what TensorFlow 2's while loops accumulate
// forward values in for their gradients, and what tf.TensorArray becomes
// inside a tf.function or a functional While. A TensorList is a value (a
// DT_VARIANT scalar) that ops take and return anew; it never changes under
// a tensor that holds it. kernels/cpu/data_flow_ops_tensor_list.cc has the
// kernels.
//
// An element_shape input is TensorFlow's encoding of a partial shape: the
// scalar -1 for an unknown rank, else a vector with -1 for unknown sizes.
#include <cstdint>
#include <vector>

#include "graph/op_registry.h"
#include "graph/shape_inference.h"

namespace dflow {
namespace {

absl::Status ListHandle(InferenceContext* c) {
  for (int i = 0; i < c->num_outputs(); ++i) c->set_output(i, TensorShape({}));
  return absl::OkStatus();
}

// The element shape input `i` says, or unknown.
TensorShape ElementShape(InferenceContext* c, int i) {
  const Tensor* t = c->input_tensor(i);
  if (t != nullptr && t->shape().rank() == 0) return TensorShape::Unknown();
  TensorShape shape;
  if (!c->ShapeFromShapeTensor(i, &shape).ok()) return TensorShape::Unknown();
  return shape;
}

// GetItem: the element shape input (2).
absl::Status ItemShape(InferenceContext* c) {
  c->set_output(0, ElementShape(c, 2));
  return absl::OkStatus();
}

// PopBack: the list, and an element shaped as input 1 says.
absl::Status PopBackShape(InferenceContext* c) {
  c->set_output(0, TensorShape({}));
  c->set_output(1, ElementShape(c, 1));
  return absl::OkStatus();
}

// Stack: [num_elements] + the element shape input (1).
absl::Status StackShape(InferenceContext* c) {
  const TensorShape element = ElementShape(c, 1);
  if (element.unknown_rank()) {
    c->set_output(0, TensorShape::Unknown());
    return absl::OkStatus();
  }
  int64_t n = -1;
  c->GetAttr("num_elements", &n).IgnoreError();
  TensorShape out({n < 0 ? TensorShape::kUnknownDim : n});
  for (int64_t d : element.dims()) out.AddDim(d);
  c->set_output(0, std::move(out));
  return absl::OkStatus();
}

// Gather: [len(indices)] + the element shape input (2).
absl::Status GatherShape(InferenceContext* c) {
  const TensorShape element = ElementShape(c, 2);
  if (element.unknown_rank()) {
    c->set_output(0, TensorShape::Unknown());
    return absl::OkStatus();
  }
  const TensorShape& indices = c->input(1);
  TensorShape out(
      {indices.rank() == 1 ? indices.dim(0) : TensorShape::kUnknownDim});
  for (int64_t d : element.dims()) out.AddDim(d);
  c->set_output(0, std::move(out));
  return absl::OkStatus();
}

// ConcatV2: [?] + the element shape input (1) past its 0th size, and the
// lengths.
absl::Status ConcatShape(InferenceContext* c) {
  const TensorShape element = ElementShape(c, 1);
  if (element.unknown_rank() || element.rank() == 0) {
    c->set_output(0, TensorShape::Unknown());
  } else {
    TensorShape out({TensorShape::kUnknownDim});
    for (int d = 1; d < element.rank(); ++d) out.AddDim(element.dim(d));
    c->set_output(0, std::move(out));
  }
  c->set_output(1, TensorShape({TensorShape::kUnknownDim}));
  return absl::OkStatus();
}

absl::Status VectorOfUnknownLength(InferenceContext* c) {
  c->set_output(0, TensorShape({TensorShape::kUnknownDim}));
  return absl::OkStatus();
}

}  // namespace

DFLOW_REGISTER_OP("EmptyTensorList")
    .Input("element_shape: shape_type")
    .Input("max_num_elements: int32")
    .Output("handle: variant")
    .Attr("element_dtype: type")
    .Attr("shape_type: {int32, int64}")
    .SetShapeFn(ListHandle)
    .Doc(
        "A list of no tensors of element_dtype (at most max_num_elements, "
        "-1: no limit).");

DFLOW_REGISTER_OP("TensorListReserve")
    .Input("element_shape: shape_type")
    .Input("num_elements: int32")
    .Output("handle: variant")
    .Attr("element_dtype: type")
    .Attr("shape_type: {int32, int64}")
    .SetShapeFn(ListHandle)
    .Doc("A list of num_elements unset tensors (SetItem fills them).");

DFLOW_REGISTER_OP("TensorListFromTensor")
    .Input("tensor: element_dtype")
    .Input("element_shape: shape_type")
    .Output("output_handle: variant")
    .Attr("element_dtype: type")
    .Attr("shape_type: {int32, int64}")
    .SetShapeFn(ListHandle)
    .Doc("The list of tensor's rows (its slices along dimension 0).");

DFLOW_REGISTER_OP("TensorListPushBack")
    .Input("input_handle: variant")
    .Input("tensor: element_dtype")
    .Output("output_handle: variant")
    .Attr("element_dtype: type")
    .SetShapeFn(ListHandle)
    .Doc("The list with tensor appended.");

DFLOW_REGISTER_OP("TensorListPopBack")
    .Input("input_handle: variant")
    .Input("element_shape: int32")
    .Output("output_handle: variant")
    .Output("tensor: element_dtype")
    .Attr("element_dtype: type")
    .SetShapeFn(PopBackShape)
    .Doc("The list without its last tensor, and that tensor.");

DFLOW_REGISTER_OP("TensorListSetItem")
    .Input("input_handle: variant")
    .Input("index: int32")
    .Input("item: element_dtype")
    .Output("output_handle: variant")
    .Attr("element_dtype: type")
    .Attr("resize_if_index_out_of_bounds: bool = false")
    .SetShapeFn(ListHandle)
    .Doc("The list with item at index.");

DFLOW_REGISTER_OP("TensorListGetItem")
    .Input("input_handle: variant")
    .Input("index: int32")
    .Input("element_shape: Tshape")
    .Output("item: element_dtype")
    .Attr("element_dtype: type")
    .Attr("Tshape: {int32, int64} = DT_INT32")
    .SetShapeFn(ItemShape)
    .Doc("The tensor at index (zeros of element_shape when it is unset).");

DFLOW_REGISTER_OP("TensorListStack")
    .Input("input_handle: variant")
    .Input("element_shape: int32")
    .Output("tensor: element_dtype")
    .Attr("element_dtype: type")
    .Attr("num_elements: int = -1")
    .SetShapeFn(StackShape)
    .Doc("The list's tensors stacked along a new dimension 0.");

DFLOW_REGISTER_OP("TensorListGather")
    .Input("input_handle: variant")
    .Input("indices: int32")
    .Input("element_shape: int32")
    .Output("values: element_dtype")
    .Attr("element_dtype: type")
    .SetShapeFn(GatherShape)
    .Doc("The tensors at indices stacked along a new dimension 0.");

DFLOW_REGISTER_OP("TensorListScatter")
    .Input("tensor: element_dtype")
    .Input("indices: int32")
    .Input("element_shape: shape_type")
    .Output("output_handle: variant")
    .Attr("element_dtype: type")
    .Attr("shape_type: {int32, int64}")
    .SetShapeFn(ListHandle)
    .Doc("A new list holding tensor[i] at indices[i].");

DFLOW_REGISTER_OP("TensorListScatterV2")
    .Input("tensor: element_dtype")
    .Input("indices: int32")
    .Input("element_shape: shape_type")
    .Input("num_elements: int32")
    .Output("output_handle: variant")
    .Attr("element_dtype: type")
    .Attr("shape_type: {int32, int64}")
    .SetShapeFn(ListHandle)
    .Doc(
        "A new list of at least num_elements tensors (-1: as many as the "
        "indices reach) holding tensor[i] at indices[i].");

DFLOW_REGISTER_OP("TensorListScatterIntoExistingList")
    .Input("input_handle: variant")
    .Input("tensor: element_dtype")
    .Input("indices: int32")
    .Output("output_handle: variant")
    .Attr("element_dtype: type")
    .SetShapeFn(ListHandle)
    .Doc("The list with tensor[i] set at indices[i] (growing to reach them).");

DFLOW_REGISTER_OP("TensorListConcatV2")
    .Input("input_handle: variant")
    .Input("element_shape: shape_type")
    .Input("leading_dims: int64")
    .Output("tensor: element_dtype")
    .Output("lengths: int64")
    .Attr("element_dtype: type")
    .Attr("shape_type: {int32, int64}")
    .SetShapeFn(ConcatShape)
    .Doc(
        "The list's tensors joined along dimension 0 (they may differ "
        "there only), and each one's size in that dimension.");

DFLOW_REGISTER_OP("TensorListSplit")
    .Input("tensor: element_dtype")
    .Input("element_shape: shape_type")
    .Input("lengths: int64")
    .Output("output_handle: variant")
    .Attr("element_dtype: type")
    .Attr("shape_type: {int32, int64}")
    .SetShapeFn(ListHandle)
    .Doc(
        "A new list of consecutive pieces of tensor along dimension 0, of "
        "the given lengths.");

DFLOW_REGISTER_OP("TensorListLength")
    .Input("input_handle: variant")
    .Output("length: int32")
    .SetShapeFn(shape_fns::ScalarShape)
    .Doc("How many tensors the list holds.");

DFLOW_REGISTER_OP("TensorListElementShape")
    .Input("input_handle: variant")
    .Output("element_shape: shape_type")
    .Attr("shape_type: {int32, int64}")
    .SetShapeFn(VectorOfUnknownLength)
    .Doc("The list's element shape (the scalar -1 when its rank is unknown).");

}  // namespace dflow
