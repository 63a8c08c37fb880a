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


// --- image_ops_nms.cc: non-maximum suppression. ---

// Greedy non-maximum suppression of `boxes` ([n, 4], any two opposite
// corners) by descending `scores` ([n]): the indices (int32, at most
// max_output_size) of the boxes kept, each overlapping every box kept
// before it by at most the IOU threshold; equal scores go by index.
Output NonMaxSuppression(const Scope& scope, Input boxes, Input scores,
                         Input max_output_size, float iou_threshold = 0.5f);
Output NonMaxSuppressionV2(const Scope& scope, Input boxes, Input scores,
                           Input max_output_size, Input iou_threshold);
// Boxes scored <= score_threshold are never kept.
Output NonMaxSuppressionV3(const Scope& scope, Input boxes, Input scores,
                           Input max_output_size, Input iou_threshold,
                           Input score_threshold);
// {selected_indices, valid_outputs}; with `pad` the indices are padded
// with zeros to max_output_size.
OutputList NonMaxSuppressionV4(const Scope& scope, Input boxes, Input scores,
                               Input max_output_size, Input iou_threshold,
                               Input score_threshold, bool pad = false);
// {selected_indices, selected_scores, valid_outputs}; soft_nms_sigma > 0
// decays overlapping boxes' scores by exp(-iou^2 / (2 sigma)) instead of
// dropping them (Bodla et al.'s soft-NMS).
OutputList NonMaxSuppressionV5(const Scope& scope, Input boxes, Input scores,
                               Input max_output_size, Input iou_threshold,
                               Input score_threshold, Input soft_nms_sigma,
                               bool pad = false);
// NonMaxSuppressionV3 on a given [n, n] overlap matrix instead of IOUs.
Output NonMaxSuppressionWithOverlaps(const Scope& scope, Input overlaps,
                                     Input scores, Input max_output_size,
                                     Input overlap_threshold,
                                     Input score_threshold);
// Per-class NMS of a batch (boxes [batch, n, q, 4] with q 1 or classes,
// scores [batch, n, classes]), then the best max_total_size survivors of
// all classes: {nmsed_boxes, nmsed_scores, nmsed_classes,
// valid_detections}.
OutputList CombinedNonMaxSuppression(const Scope& scope, Input boxes,
                                     Input scores, Input max_per_class,
                                     Input max_total_size, Input iou_threshold,
                                     Input score_threshold,
                                     bool pad_per_class = false,
                                     bool clip_boxes = true);

// --- image_ops_codecs.cc: JPEG, PNG, GIF and BMP files. ---

struct DecodeJpegAttrs {
  int channels = 0;  // 0: the file's, 1 or 3
  int ratio = 1;     // 1, 2, 4 or 8: decode downscaled
  bool fancy_upscaling = true;
  bool try_recover_truncated = false;
  float acceptable_fraction = 1.0f;
  std::string dct_method;  // "", "INTEGER_FAST" or "INTEGER_ACCURATE"
};

// A scalar string holding a JPEG file -> [height, width, channels] uint8.
Output DecodeJpeg(const Scope& scope, Input contents,
                  const DecodeJpegAttrs& attrs = {});
// Only crop_window (int32 [y, x, height, width]) of it.
Output DecodeAndCropJpeg(const Scope& scope, Input contents, Input crop_window,
                         const DecodeJpegAttrs& attrs = {});
// A PNG file -> [height, width, channels] of `dtype` (uint8 or uint16).
Output DecodePng(const Scope& scope, Input contents, int channels = 0,
                 DataType dtype = DT_UINT8);
// A GIF file -> [frames, height, width, 3] uint8.
Output DecodeGif(const Scope& scope, Input contents);
Output DecodeBmp(const Scope& scope, Input contents, int channels = 0);
// Any of the four formats; `dtype` uint8, uint16 or float (in [0, 1]).
Output DecodeImage(const Scope& scope, Input contents, int channels = 0,
                   DataType dtype = DT_UINT8, bool expand_animations = true);
// [height, width, channels] from a JPEG file's header.
Output ExtractJpegShape(const Scope& scope, Input contents,
                        DataType output_type = DT_INT32);

struct EncodeJpegAttrs {
  std::string format;  // "", "grayscale" or "rgb"
  int quality = 95;
  bool progressive = false;
  bool optimize_size = false;
  bool chroma_downsampling = true;
  std::string density_unit = "in";
  int x_density = 300;
  int y_density = 300;
  std::string xmp_metadata;
};

// A [height, width, 1 or 3] uint8 image -> a JPEG file (scalar string).
Output EncodeJpeg(const Scope& scope, Input image,
                  const EncodeJpegAttrs& attrs = {});
Output EncodeJpegVariableQuality(const Scope& scope, Input images,
                                 Input quality);
// A [height, width, 1 to 4] uint8 or uint16 image -> a PNG file.
Output EncodePng(const Scope& scope, Input image, int compression = -1);

// --- image_ops_geometry.cc: filtered resampling, morphology, volume
// patches, box drawing and sampling. ---

// Resamples NHWC `images` to `size` (int32 [h, w]) at `scale` and
// `translation` (float [2] each, rows then columns) with `kernel_type`
// (lanczos1/3/5, gaussian, box, triangle, keyscubic, mitchellcubic),
// widening the kernel when downscaling with `antialias`; float output.
Output ScaleAndTranslate(const Scope& scope, Input images, Input size,
                         Input scale, Input translation,
                         const std::string& kernel_type = "lanczos3",
                         bool antialias = true);
// Its gradient: float `grads` of the resized shape summed back into
// original_image's shape.
Output ScaleAndTranslateGrad(const Scope& scope, Input grads,
                             Input original_image, Input scale,
                             Input translation,
                             const std::string& kernel_type = "lanczos3",
                             bool antialias = true);

// Grayscale dilation of NHWC `input` by `filter` [rows, cols, depth]
// (tf.nn.dilation2d); strides and rates [1, r, c, 1], padding "SAME" or
// "VALID". The gradients go to the winning tap of each window.
Output Dilation2D(const Scope& scope, Input input, Input filter,
                  const std::vector<int64_t>& strides,
                  const std::vector<int64_t>& rates,
                  const std::string& padding);
Output Dilation2DBackpropInput(const Scope& scope, Input input, Input filter,
                               Input out_backprop,
                               const std::vector<int64_t>& strides,
                               const std::vector<int64_t>& rates,
                               const std::string& padding);
Output Dilation2DBackpropFilter(const Scope& scope, Input input, Input filter,
                                Input out_backprop,
                                const std::vector<int64_t>& strides,
                                const std::vector<int64_t>& rates,
                                const std::string& padding);

// The ksizes [1, p, r, c, 1] patches of NDHWC `input` every `strides`,
// flattened (plane, row, col, channel) into the depth.
Output ExtractVolumePatches(const Scope& scope, Input input,
                            const std::vector<int64_t>& ksizes,
                            const std::vector<int64_t>& strides,
                            const std::string& padding);

// Images with `boxes` ([batch, n, 4] normalized y1, x1, y2, x2) outlined;
// V2 cycles through `colors` ([num_colors, >= channels]).
Output DrawBoundingBoxes(const Scope& scope, Input images, Input boxes);
Output DrawBoundingBoxesV2(const Scope& scope, Input images, Input boxes,
                           Input colors);

struct SampleDistortedAttrs {
  int64_t seed = 0, seed2 = 0;        // stateful versions only
  float min_object_covered = 0.1f;    // V1 only (an input in V2)
  std::vector<float> aspect_ratio_range = {0.75f, 1.33f};
  std::vector<float> area_range = {0.05f, 1.0f};
  int max_attempts = 100;
  bool use_image_if_no_bounding_boxes = false;
};

// A random crop of an image of `image_size` ([h, w, c]) covering at least
// min_object_covered of one of `bounding_boxes` ([batch, n, 4]): {begin,
// size} for Slice and the crop as a [1, 1, 4] box.
OutputList SampleDistortedBoundingBox(const Scope& scope, Input image_size,
                                      Input bounding_boxes,
                                      const SampleDistortedAttrs& attrs = {});
OutputList SampleDistortedBoundingBoxV2(const Scope& scope, Input image_size,
                                        Input bounding_boxes,
                                        Input min_object_covered,
                                        const SampleDistortedAttrs& attrs = {});
// The same as a pure function of `seed` (int32 or int64 [2]).
OutputList StatelessSampleDistortedBoundingBox(
    const Scope& scope, Input image_size, Input bounding_boxes,
    Input min_object_covered, Input seed,
    const SampleDistortedAttrs& attrs = {});

// --- image_ops_transform.cc ---

// Each image of `images` [batch, h, w, c] resampled through a projective
// transform (`transforms` [1 or batch, 8]: output point (x, y) reads input
// point ((a0 x + a1 y + a2) / k, (b0 x + b1 y + b2) / k), k = c0 x + c1 y +
// 1) into [batch, output_shape[0], output_shape[1], c]. interpolation:
// "NEAREST" or "BILINEAR"; fill_mode: "REFLECT", "WRAP", "CONSTANT" or
// "NEAREST" (points outside the image). V2 fills with 0, V3 with
// `fill_value`.
Output ImageProjectiveTransformV2(const Scope& scope, Input images,
                                  Input transforms, Input output_shape,
                                  const std::string& interpolation,
                                  const std::string& fill_mode = "CONSTANT");
Output ImageProjectiveTransformV3(const Scope& scope, Input images,
                                  Input transforms, Input output_shape,
                                  Input fill_value,
                                  const std::string& interpolation,
                                  const std::string& fill_mode = "CONSTANT");

// Windows of `size` [h, w] of `input` [batch, height, width, depth] at
// `offsets` [batch, 2] ((y, x); normalized: fractions of the image;
// centered: from the image's center, -1..1 when normalized). Parts of a
// window outside the image: noise "zero" zeros; "uniform" / "gaussian"
// (or "" with uniform_noise) random values, which dflow draws from a
// fixed-seed generator (TensorFlow's are unseeded).
struct ExtractGlimpseAttrs {
  bool centered = true;
  bool normalized = true;
  bool uniform_noise = true;
  std::string noise = "uniform";
  ExtractGlimpseAttrs& Centered(bool v) {
    centered = v;
    return *this;
  }
  ExtractGlimpseAttrs& Normalized(bool v) {
    normalized = v;
    return *this;
  }
  ExtractGlimpseAttrs& UniformNoise(bool v) {
    uniform_noise = v;
    return *this;
  }
  ExtractGlimpseAttrs& Noise(std::string v) {
    noise = std::move(v);
    return *this;
  }
};
// V1 (tf.compat.v1.image.extract_glimpse) always moves the offset to the
// window's center; V2 only when normalized and centered.
Output ExtractGlimpse(const Scope& scope, Input input, Input size,
                      Input offsets, const ExtractGlimpseAttrs& attrs = {});
Output ExtractGlimpseV2(const Scope& scope, Input input, Input size,
                        Input offsets, const ExtractGlimpseAttrs& attrs = {});

}  // namespace ops
}  // namespace dflow

#endif  // DFLOW_GRAPH_OPS_IMAGE_OPS_H_
