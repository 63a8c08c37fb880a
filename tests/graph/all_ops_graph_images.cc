// The image ops of graph/ops/image_ops_nms.cc, image_ops_codecs.cc and
// image_ops_geometry.cc in the every-op graph (all_ops_graph.h): detection
// post-processing, codecs and the remaining geometry, on the graph's
// [8, 32, 32, 3] float images `x`.
#include "graph/ops/ops.h"
#include "tests/graph/all_ops_graph.h"

namespace dflow {

void AddImageOpsToEveryOpGraph(const Scope& root, Output x) {
  const Scope s = root.NewSubScope("image_more");
  // Detection post-processing: four boxes, their scores.
  Output boxes = ops::Const(s,
                            {0.0f, 0.0f, 0.5f, 0.5f, 0.1f, 0.1f, 0.6f, 0.6f,
                             0.5f, 0.5f, 1.0f, 1.0f, 0.0f, 0.5f, 0.4f, 1.0f},
                            {4, 4});
  Output scores = ops::Const(s, {0.9f, 0.8f, 0.7f, 0.3f}, {4});
  ops::NonMaxSuppression(s, boxes, scores, 3, 0.5f);
  ops::NonMaxSuppressionV2(s, boxes, scores, 3, 0.5f);
  ops::NonMaxSuppressionV3(s, boxes, scores, 3, 0.5f, 0.2f);
  ops::NonMaxSuppressionV4(s, boxes, scores, 3, 0.5f, 0.2f, true);
  ops::NonMaxSuppressionV5(s, boxes, scores, 3, 0.5f, 0.2f, 0.5f, true);
  ops::NonMaxSuppressionWithOverlaps(
      s, ops::MatMul(s, boxes, boxes, ops::MatMulAttrs().TransposeB(true)),
      scores, 3, 0.5f, 0.2f);
  ops::CombinedNonMaxSuppression(s, ops::Reshape(s, boxes, {1, 4, 1, 4}),
                                 ops::Reshape(s, scores, {1, 4, 1}), 2, 3,
                                 0.5f, 0.1f);

  // Codecs: the first image as uint8, through PNG, JPEG and back.
  Output first = ops::Reshape(s, ops::Slice(s, x, {0, 0, 0, 0}, {1, 32, 32, 3}),
                              {32, 32, 3});
  Output pixels = ops::Cast(s, ops::Mul(s, first, 255.0f), DT_UINT8);
  Output png = ops::EncodePng(s, pixels, 6);
  ops::EncodePng(s, ops::Cast(s, pixels, DT_UINT16));
  Output jpeg = ops::EncodeJpeg(s, pixels, ops::EncodeJpegAttrs{"rgb", 90});
  ops::EncodeJpegVariableQuality(s, pixels, 75);
  ops::DecodePng(s, png, 3, DT_UINT16);
  ops::DecodeJpeg(s, jpeg, ops::DecodeJpegAttrs{3, 2});
  ops::DecodeAndCropJpeg(s, jpeg, {4, 4, 16, 16});
  ops::DecodeGif(s, png);
  ops::DecodeBmp(s, png);
  ops::DecodeImage(s, jpeg, 3, DT_FLOAT, false);
  ops::ExtractJpegShape(s, jpeg, DT_INT64);

  // Filtered resampling, morphology, volume patches, boxes.
  Output scale = ops::Const(s, {0.5f, 0.75f}, {2});
  Output shift = ops::Const(s, {0.0f, 0.5f}, {2});
  Output resized = ops::ScaleAndTranslate(s, x, {16, 24}, scale, shift,
                                          "mitchellcubic", true);
  ops::ScaleAndTranslateGrad(s, resized, x, scale, shift, "mitchellcubic",
                             true);
  Output filter = ops::Fill(s, {3, 3, 3}, 0.1f);
  Output dilated =
      ops::Dilation2D(s, x, filter, {1, 1, 1, 1}, {1, 2, 2, 1}, "SAME");
  ops::Dilation2DBackpropInput(s, x, filter, dilated, {1, 1, 1, 1},
                               {1, 2, 2, 1}, "SAME");
  ops::Dilation2DBackpropFilter(s, x, filter, dilated, {1, 1, 1, 1},
                                {1, 2, 2, 1}, "SAME");
  ops::ExtractVolumePatches(s, ops::Reshape(s, x, {1, 8, 32, 32, 3}),
                            {1, 2, 2, 2, 1}, {1, 2, 2, 2, 1}, "VALID");
  Output batch_boxes = ops::Reshape(
      s, ops::Slice(s, ops::Concat(s, {boxes, boxes}, 0), {0, 0}, {8, 4}),
      {8, 1, 4});
  ops::DrawBoundingBoxes(s, x, batch_boxes);
  ops::DrawBoundingBoxesV2(s, x, batch_boxes,
                           ops::Const(s, {1.0f, 0.0f, 0.0f, 1.0f}, {1, 4}));
  Output image_size = ops::Const(s, {32, 32, 3}, {3});
  Output one_box = ops::Const(s, {0.1f, 0.1f, 0.8f, 0.9f}, {1, 1, 4});
  ops::SampleDistortedBoundingBox(s, image_size, one_box,
                                  ops::SampleDistortedAttrs{7, 8});
  ops::SampleDistortedBoundingBoxV2(s, image_size, one_box, 0.3f,
                                    ops::SampleDistortedAttrs{7, 9});
  ops::StatelessSampleDistortedBoundingBox(s, image_size, one_box, 0.3f,
                                           ops::Const(s, {1, 2}, {2}));
}

}  // namespace dflow
