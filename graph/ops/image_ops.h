// Image ops (TensorFlow's core/ops/image_ops.cc) that tf.image's TF1
// augmentations and resizing lower to: AdjustContrastv2 (random_contrast,
// adjust_contrast) and ResizeBilinear with its gradient. The other
// augmentations (random_crop, random_flip_left_right, random_brightness,
// per_image_standardization) are compositions of array, math and random ops
// (RandomUniformInt, Slice, ReverseV2, Mean, ...).
#ifndef DFLOW_GRAPH_OPS_IMAGE_OPS_H_
#define DFLOW_GRAPH_OPS_IMAGE_OPS_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "graph/scope.h"
#include "graph/types.h"

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

// --- image_ops_bicubic_area.cc: bicubic and area resizing. ---

// Bicubic resize of NHWC images to `size` (int32 [new_height, new_width]);
// float output. Legacy sampling uses the a = -0.75 cubic; with
// half_pixel_centers, Keys' a = -0.5 cubic with weights outside the image
// dropped and the rest renormalized (as TensorFlow).
Output ResizeBicubic(const Scope& scope, Input images, Input size,
                     const ResizeAttrs& attrs = {});
// Its gradient with respect to the images: `grads` (float) has the resized
// shape, the result original_image's shape and type (float or double).
Output ResizeBicubicGrad(const Scope& scope, Input grads, Input original_image,
                         const ResizeAttrs& attrs = {});
// Area resize: each output pixel the mean of the input area it covers,
// weighted by overlap; float output.
Output ResizeArea(const Scope& scope, Input images, Input size,
                  bool align_corners = false);

// --- image_ops_color.cc: color space conversion and adjustment. ---

// [..., 3] RGB in [0, 1] <-> hue, saturation, value in [0, 1].
Output RGBToHSV(const Scope& scope, Input images);
Output HSVToRGB(const Scope& scope, Input images);
// Images [..., height, width, 3] with the hue turned by `delta` (a float
// scalar, fraction of a full turn) / the saturation scaled by `scale`.
Output AdjustHue(const Scope& scope, Input images, Input delta);
Output AdjustSaturation(const Scope& scope, Input images, Input scale);

// --- image_ops_crop_and_resize.cc: CropAndResize and its gradient. ---

struct CropAndResizeAttrs {
  std::string method = "bilinear";  // or "nearest"
  float extrapolation_value = 0;    // where a box reaches outside the image
  CropAndResizeAttrs& Method(std::string v) {
    method = std::move(v);
    return *this;
  }
  CropAndResizeAttrs& ExtrapolationValue(float v) {
    extrapolation_value = v;
    return *this;
  }
};

// Crops `boxes` ([num_boxes, 4] normalized y1, x1, y2, x2) of images
// box_ind[i] out of NHWC `image` and resizes each to `crop_size` (int32
// [height, width]): float [num_boxes, height, width, channels].
Output CropAndResize(const Scope& scope, Input image, Input boxes,
                     Input box_ind, Input crop_size,
                     const CropAndResizeAttrs& attrs = {});
// Its gradient with respect to the image, of shape `image_size` (int32
// [batch, height, width, channels]) and type `type`.
Output CropAndResizeGradImage(const Scope& scope, Input grads, Input boxes,
                              Input box_ind, Input image_size, DataType type,
                              const std::string& method = "bilinear");

// --- image_ops_patches.cc: ExtractImagePatches. ---

// The ksizes [1, rows, cols, 1] patches of NHWC images, their taps `rates`
// apart, every `strides`, with "SAME" (zeros outside) or "VALID" padding:
// [batch, out_rows, out_cols, rows * cols * depth], each patch flattened
// row-major (row, col, channel).
Output ExtractImagePatches(const Scope& scope, Input images,
                           const std::vector<int64_t>& ksizes,
                           const std::vector<int64_t>& strides,
                           const std::vector<int64_t>& rates,
                           const std::string& padding);

}  // namespace ops
}  // namespace dflow

#endif  // DFLOW_GRAPH_OPS_IMAGE_OPS_H_
