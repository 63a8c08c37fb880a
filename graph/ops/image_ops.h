// Image ops (TensorFlow's core/ops/image_ops.cc) that tf.image's TF1
// augmentations and resizing lower to: AdjustContrastv2 (random_contrast,
// adjust_contrast) and ResizeBilinear with its gradient. The other
// augmentations (random_crop, random_flip_left_right, random_brightness,
// per_image_standardization) are compositions of array, math and random ops
// (RandomUniformInt, Slice, ReverseV2, Mean, ...).
#ifndef DFLOW_GRAPH_OPS_IMAGE_OPS_H_
#define DFLOW_GRAPH_OPS_IMAGE_OPS_H_

#include "graph/scope.h"

namespace dflow {
namespace ops {

// (x - mean) * contrast_factor + mean per channel, the mean over the
// height and width of each image; `images` is [..., height, width,
// channels] (half or float), `contrast_factor` a float scalar.
Output AdjustContrastv2(const Scope& scope, Input images,
                        Input contrast_factor);

struct ResizeAttrs {
  bool align_corners = false;
  bool half_pixel_centers = false;
  ResizeAttrs& AlignCorners(bool v) {
    align_corners = v;
    return *this;
  }
  ResizeAttrs& HalfPixelCenters(bool v) {
    half_pixel_centers = v;
    return *this;
  }
};

// Bilinear resize of [batch, height, width, channels] images to `size`
// ([new_height, new_width], int32); the output is float whatever the
// input's type.
Output ResizeBilinear(const Scope& scope, Input images, Input size,
                      const ResizeAttrs& attrs = {});

// The gradient of ResizeBilinear with respect to its images: `grads` is
// the float gradient of the resized images, `original_image` gives the
// shape and type of the result.
Output ResizeBilinearGrad(const Scope& scope, Input grads, Input original_image,
                          const ResizeAttrs& attrs = {});

// Resizes images to `size` (int32 [new_height, new_width]), each output
// pixel a copy of the input pixel nearest to it (same type as the images).
Output ResizeNearestNeighbor(const Scope& scope, Input images, Input size,
                             const ResizeAttrs& attrs = {});
// Its gradient: `grads` of the resized images summed back into images of
// `size` (the original height and width).
Output ResizeNearestNeighborGrad(const Scope& scope, Input grads, Input size,
                                 const ResizeAttrs& attrs = {});

}  // namespace ops
}  // namespace dflow

#endif  // DFLOW_GRAPH_OPS_IMAGE_OPS_H_
