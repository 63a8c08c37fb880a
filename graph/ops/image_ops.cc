// Schemas, shape functions and builder wrappers of the image ops, with
// TensorFlow 2.21's OpDefs (core/ops/image_ops.cc).
#include "graph/ops/image_ops.h"

#include <cstdint>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "graph/attr_value_util.h"
#include "graph/op_registry.h"
#include "graph/ops/shape_fn_util.h"
#include "graph/shape_inference.h"
#include "graph/tensor_shape.h"

namespace dflow {
namespace {

using shape_fn_util::Build;
using shape_fn_util::FirstOutput;
using shape_fn_util::InputWithRank;
using shape_fn_util::InvalidArgument;

absl::Status AdjustContrastShape(InferenceContext* c) {
  TensorShape images, factor;
  DFLOW_RETURN_IF_ERROR(
      c->WithRankAtLeast(c->input(0), 3, "input 'images'", &images));
  DFLOW_RETURN_IF_ERROR(InputWithRank(*c, 1, 0, &factor));
  c->set_output(0, std::move(images));
  return absl::OkStatus();
}

// [batch, new_height, new_width, channels]: the new size from the `size`
// input when it is known at build time.
absl::Status ResizeShape(InferenceContext* c) {
  TensorShape images, size;
  DFLOW_RETURN_IF_ERROR(InputWithRank(*c, 0, 4, &images));
  DFLOW_RETURN_IF_ERROR(InputWithRank(*c, 1, 1, &size));
  if (size.dim(0) >= 0 && size.dim(0) != 2) {
    return InvalidArgument("size must hold 2 values (new_height, new_width), ",
                           "got a vector of ", size.dim(0));
  }
  int64_t height = TensorShape::kUnknownDim, width = TensorShape::kUnknownDim;
  std::vector<int64_t> hw;
  if (c->ConstantInputAsInts(1, &hw) && hw.size() == 2) {
    if (hw[0] <= 0 || hw[1] <= 0) {
      return InvalidArgument("size [", hw[0], ",", hw[1],
                             "] must be positive in both dimensions");
    }
    height = hw[0];
    width = hw[1];
  }
  c->set_output(0, TensorShape({images.dim(0), height, width, images.dim(3)}));
  return absl::OkStatus();
}

absl::Status ResizeGradShape(InferenceContext* c) {
  TensorShape grads, original;
  DFLOW_RETURN_IF_ERROR(InputWithRank(*c, 0, 4, &grads));
  DFLOW_RETURN_IF_ERROR(InputWithRank(*c, 1, 4, &original));
  c->set_output(0, std::move(original));
  return absl::OkStatus();
}

// ResizeNearestNeighborGrad: grads' batch and channels at the original
// size (the `size` input).
absl::Status ResizeNearestGradShape(InferenceContext* c) {
  TensorShape grads, size;
  DFLOW_RETURN_IF_ERROR(InputWithRank(*c, 0, 4, &grads));
  DFLOW_RETURN_IF_ERROR(InputWithRank(*c, 1, 1, &size));
  if (size.dim(0) >= 0 && size.dim(0) != 2) {
    return InvalidArgument("size must hold 2 values (height, width), got a ",
                           "vector of ", size.dim(0));
  }
  int64_t height = TensorShape::kUnknownDim, width = TensorShape::kUnknownDim;
  std::vector<int64_t> hw;
  if (c->ConstantInputAsInts(1, &hw) && hw.size() == 2) {
    if (hw[0] < 0 || hw[1] < 0) {
      return InvalidArgument("size [", hw[0], ",", hw[1],
                             "] must not be negative");
    }
    height = hw[0];
    width = hw[1];
  }
  c->set_output(0, TensorShape({grads.dim(0), height, width, grads.dim(3)}));
  return absl::OkStatus();
}

DFLOW_REGISTER_OP("AdjustContrastv2")
    .Input("images: T")
    .Input("contrast_factor: float")
    .Output("output: T")
    .Attr("T: {half, float} = DT_FLOAT")
    .SetShapeFn(AdjustContrastShape)
    .Doc(
        "Scales each channel's distance from its mean over the image's "
        "height and width by contrast_factor.");

DFLOW_REGISTER_OP("ResizeBilinear")
    .Input("images: T")
    .Input("size: int32")
    .Output("resized_images: float")
    .Attr(
        "T: {int8, uint8, int16, uint16, int32, int64, bfloat16, half, "
        "float, double}")
    .Attr("align_corners: bool = false")
    .Attr("half_pixel_centers: bool = false")
    .SetShapeFn(ResizeShape)
    .Doc(
        "Resizes [batch, height, width, channels] images to `size` by "
        "bilinear interpolation.");

DFLOW_REGISTER_OP("ResizeBilinearGrad")
    .Input("grads: float")
    .Input("original_image: T")
    .Output("output: T")
    .Attr("T: {float, bfloat16, half, double}")
    .Attr("align_corners: bool = false")
    .Attr("half_pixel_centers: bool = false")
    .SetShapeFn(ResizeGradShape)
    .Doc("The gradient of ResizeBilinear with respect to its images.");

DFLOW_REGISTER_OP("ResizeNearestNeighbor")
    .Input("images: T")
    .Input("size: int32")
    .Output("resized_images: T")
    .Attr(
        "T: {int8, uint8, int16, uint16, int32, int64, half, float, double, "
        "bfloat16}")
    .Attr("align_corners: bool = false")
    .Attr("half_pixel_centers: bool = false")
    .SetShapeFn(ResizeShape)
    .Doc(
        "Resizes [batch, height, width, channels] images to `size`, each "
        "output pixel a copy of its nearest input pixel.");

DFLOW_REGISTER_OP("ResizeNearestNeighborGrad")
    .Input("grads: T")
    .Input("size: int32")
    .Output("output: T")
    .Attr("T: {uint8, int8, int32, half, float, double, bfloat16}")
    .Attr("align_corners: bool = false")
    .Attr("half_pixel_centers: bool = false")
    .SetShapeFn(ResizeNearestGradShape)
    .Doc(
        "The gradient of ResizeNearestNeighbor: each gradient pixel added "
        "to the input pixel it was copied from; `size` is the input's.");

shape_fn_util::AttrList ResizeAttrList(const ops::ResizeAttrs& attrs) {
  return {{"align_corners", MakeAttr(attrs.align_corners)},
          {"half_pixel_centers", MakeAttr(attrs.half_pixel_centers)}};
}

}  // namespace

namespace ops {

Output AdjustContrastv2(const Scope& scope, Input images,
                        Input contrast_factor) {
  return FirstOutput(
      Build(scope, "AdjustContrastv2", {images, contrast_factor}));
}

Output ResizeBilinear(const Scope& scope, Input images, Input size,
                      const ResizeAttrs& attrs) {
  return FirstOutput(
      Build(scope, "ResizeBilinear", {images, size}, ResizeAttrList(attrs)));
}

Output ResizeBilinearGrad(const Scope& scope, Input grads, Input original_image,
                          const ResizeAttrs& attrs) {
  return FirstOutput(Build(scope, "ResizeBilinearGrad", {grads, original_image},
                           ResizeAttrList(attrs)));
}

Output ResizeNearestNeighbor(const Scope& scope, Input images, Input size,
                             const ResizeAttrs& attrs) {
  return FirstOutput(Build(scope, "ResizeNearestNeighbor", {images, size},
                           ResizeAttrList(attrs)));
}

Output ResizeNearestNeighborGrad(const Scope& scope, Input grads, Input size,
                                 const ResizeAttrs& attrs) {
  return FirstOutput(Build(scope, "ResizeNearestNeighborGrad", {grads, size},
                           ResizeAttrList(attrs)));
}

}  // namespace ops
}  // namespace dflow
