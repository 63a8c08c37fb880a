// Schemas, shape functions and wrappers of CropAndResize and its image
// gradient CropAndResizeGradImage (image_ops.h), following TensorFlow
// 2.21's core/ops/image_ops.cc. The CPU kernels are
// kernels/cpu/image_ops_crop_and_resize.cc.
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "graph/attr_value_util.h"
#include "graph/op_registry.h"
#include "graph/ops/image_ops.h"
#include "graph/ops/shape_fn_util.h"
#include "graph/shape_inference.h"
#include "graph/tensor_shape.h"

namespace dflow {
namespace {

using shape_fn_util::Build;
using shape_fn_util::FirstOutput;
using shape_fn_util::InputWithRank;
using shape_fn_util::InvalidArgument;

constexpr int64_t kUnknown = TensorShape::kUnknownDim;

// boxes [num_boxes, 4] and box_ind [num_boxes]: num_boxes as far as known.
absl::Status NumBoxes(InferenceContext* c, int64_t* n) {
  TensorShape boxes, box_ind;
  DFLOW_RETURN_IF_ERROR(InputWithRank(*c, 1, 2, &boxes));
  DFLOW_RETURN_IF_ERROR(InputWithRank(*c, 2, 1, &box_ind));
  if (boxes.dim(1) != kUnknown && boxes.dim(1) != 4) {
    return InvalidArgument("boxes ", boxes.ToString(),
                           " must be [num_boxes, 4]");
  }
  return c->MergeDim(boxes.dim(0), box_ind.dim(0),
                     "num_boxes of boxes and box_ind", n);
}

absl::Status CropAndResizeShape(InferenceContext* c) {
  TensorShape image, crop_size;
  DFLOW_RETURN_IF_ERROR(InputWithRank(*c, 0, 4, &image));
  DFLOW_RETURN_IF_ERROR(InputWithRank(*c, 3, 1, &crop_size));
  int64_t n = kUnknown;
  DFLOW_RETURN_IF_ERROR(NumBoxes(c, &n));
  int64_t h = kUnknown, w = kUnknown;
  std::vector<int64_t> hw;
  if (c->ConstantInputAsInts(3, &hw) && hw.size() == 2) {
    if (hw[0] <= 0 || hw[1] <= 0) {
      return InvalidArgument("crop_size [", hw[0], ",", hw[1],
                             "] must be positive");
    }
    h = hw[0];
    w = hw[1];
  }
  c->set_output(0, TensorShape({n, h, w, image.dim(3)}));
  return absl::OkStatus();
}

absl::Status CropAndResizeGradImageShape(InferenceContext* c) {
  TensorShape grads, out;
  DFLOW_RETURN_IF_ERROR(InputWithRank(*c, 0, 4, &grads));
  int64_t n = kUnknown;
  DFLOW_RETURN_IF_ERROR(NumBoxes(c, &n));
  DFLOW_RETURN_IF_ERROR(c->ShapeFromShapeTensor(3, &out));
  DFLOW_RETURN_IF_ERROR(c->WithRank(out, 4, "input 'image_size'", &out));
  c->set_output(0, out);
  return absl::OkStatus();
}

}  // namespace

DFLOW_REGISTER_OP("CropAndResize")
    .Input("image: T")
    .Input("boxes: float")
    .Input("box_ind: int32")
    .Input("crop_size: int32")
    .Output("crops: float")
    .Attr(
        "T: {uint8, uint16, int8, int16, int32, int64, half, float, "
        "double}")
    .Attr("method: {'bilinear', 'nearest'} = 'bilinear'")
    .Attr("extrapolation_value: float = 0")
    .SetShapeFn(CropAndResizeShape)
    .Doc(
        "Crops normalized boxes [y1, x1, y2, x2] out of images and resizes "
        "each to crop_size.");

DFLOW_REGISTER_OP("CropAndResizeGradImage")
    .Input("grads: float")
    .Input("boxes: float")
    .Input("box_ind: int32")
    .Input("image_size: int32")
    .Output("output: T")
    .Attr("T: {float, half, double}")
    .Attr("method: {'bilinear', 'nearest'} = 'bilinear'")
    .SetShapeFn(CropAndResizeGradImageShape)
    .Doc("CropAndResize's gradient with respect to its image.");

namespace ops {

Output CropAndResize(const Scope& scope, Input image, Input boxes,
                     Input box_ind, Input crop_size,
                     const CropAndResizeAttrs& attrs) {
  return FirstOutput(
      Build(scope, "CropAndResize", {image, boxes, box_ind, crop_size},
            {{"method", MakeAttr(attrs.method)},
             {"extrapolation_value", MakeAttr(attrs.extrapolation_value)}}));
}

Output CropAndResizeGradImage(const Scope& scope, Input grads, Input boxes,
                              Input box_ind, Input image_size, DataType type,
                              const std::string& method) {
  return FirstOutput(Build(
      scope, "CropAndResizeGradImage", {grads, boxes, box_ind, image_size},
      {{"T", MakeAttr(type)}, {"method", MakeAttr(method)}}));
}

}  // namespace ops
}  // namespace dflow
