// Schemas, shape functions and wrappers of ResizeBicubic, its gradient
// ResizeBicubicGrad and ResizeArea (image_ops.h), following TensorFlow
// 2.21's core/ops/image_ops.cc. The CPU kernels are
// kernels/cpu/image_ops_bicubic_area.cc.
#include <cstdint>
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

// [batch, size[0], size[1], channels]; the sizes when size is known.
absl::Status ResizedShape(InferenceContext* c) {
  TensorShape images, size;
  DFLOW_RETURN_IF_ERROR(InputWithRank(*c, 0, 4, &images));
  DFLOW_RETURN_IF_ERROR(InputWithRank(*c, 1, 1, &size));
  if (size.dim(0) >= 0 && size.dim(0) != 2) {
    return InvalidArgument("size must hold 2 values (new_height, new_width), ",
                           "got a vector of ", size.dim(0));
  }
  int64_t height = kUnknown, width = kUnknown;
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

absl::Status OriginalImageShape(InferenceContext* c) {
  TensorShape grads, original;
  DFLOW_RETURN_IF_ERROR(InputWithRank(*c, 0, 4, &grads));
  DFLOW_RETURN_IF_ERROR(InputWithRank(*c, 1, 4, &original));
  c->set_output(0, original);
  return absl::OkStatus();
}

constexpr char kImageTypes[] =
    "T: {int8, uint8, int16, uint16, int32, int64, half, float, double, "
    "bfloat16}";

}  // namespace

DFLOW_REGISTER_OP("ResizeBicubic")
    .Input("images: T")
    .Input("size: int32")
    .Output("resized_images: float")
    .Attr(kImageTypes)
    .Attr("align_corners: bool = false")
    .Attr("half_pixel_centers: bool = false")
    .SetShapeFn(ResizedShape)
    .Doc("Resizes NHWC images to `size` by bicubic interpolation.");

DFLOW_REGISTER_OP("ResizeBicubicGrad")
    .Input("grads: float")
    .Input("original_image: T")
    .Output("output: T")
    .Attr("T: {float, double}")
    .Attr("align_corners: bool = false")
    .Attr("half_pixel_centers: bool = false")
    .SetShapeFn(OriginalImageShape)
    .Doc("ResizeBicubic's gradient with respect to its images.");

DFLOW_REGISTER_OP("ResizeArea")
    .Input("images: T")
    .Input("size: int32")
    .Output("resized_images: float")
    .Attr(kImageTypes)
    .Attr("align_corners: bool = false")
    .SetShapeFn(ResizedShape)
    .Doc(
        "Resizes NHWC images to `size`: each output pixel is the mean of "
        "the input area it covers.");

namespace ops {

Output ResizeBicubic(const Scope& scope, Input images, Input size,
                     const ResizeAttrs& attrs) {
  return FirstOutput(
      Build(scope, "ResizeBicubic", {images, size},
            {{"align_corners", MakeAttr(attrs.align_corners)},
             {"half_pixel_centers", MakeAttr(attrs.half_pixel_centers)}}));
}

Output ResizeBicubicGrad(const Scope& scope, Input grads, Input original_image,
                         const ResizeAttrs& attrs) {
  return FirstOutput(
      Build(scope, "ResizeBicubicGrad", {grads, original_image},
            {{"align_corners", MakeAttr(attrs.align_corners)},
             {"half_pixel_centers", MakeAttr(attrs.half_pixel_centers)}}));
}

Output ResizeArea(const Scope& scope, Input images, Input size,
                  bool align_corners) {
  return FirstOutput(Build(scope, "ResizeArea", {images, size},
                           {{"align_corners", MakeAttr(align_corners)}}));
}

}  // namespace ops
}  // namespace dflow
