// Schemas, shape functions and wrappers of the color ops RGBToHSV,
// HSVToRGB, AdjustHue and AdjustSaturation (image_ops.h), following
// TensorFlow 2.21's core/ops/image_ops.cc. Images are [..., 3]. The CPU
// kernels are kernels/cpu/image_ops_color.cc.
#include <cstdint>

#include "absl/status/status.h"
#include "graph/op_registry.h"
#include "graph/ops/image_ops.h"
#include "graph/ops/shape_fn_util.h"
#include "graph/shape_inference.h"
#include "graph/tensor_shape.h"

namespace dflow {
namespace {

using shape_fn_util::Build;
using shape_fn_util::FirstOutput;
using shape_fn_util::InvalidArgument;

// images: rank >= 1 (>= 3 with `image_rank3`) with a last dimension of 3
// (or unknown); the output has its shape. Input 1, when `scalar_1`, is a
// scalar.
absl::Status ColorShape(InferenceContext* c, int min_rank, bool scalar_1) {
  TensorShape images;
  DFLOW_RETURN_IF_ERROR(
      c->WithRankAtLeast(c->input(0), min_rank, "input 'images'", &images));
  if (images.rank() >= 1) {
    const int64_t last = images.dim(images.rank() - 1);
    if (last != TensorShape::kUnknownDim && last != 3) {
      return InvalidArgument("images ", images.ToString(),
                             " must have 3 channels (the last dimension)");
    }
  }
  if (scalar_1) {
    TensorShape scalar;
    DFLOW_RETURN_IF_ERROR(c->WithRank(c->input(1), 0, "input 1", &scalar));
  }
  c->set_output(0, images);
  return absl::OkStatus();
}

}  // namespace

DFLOW_REGISTER_OP("RGBToHSV")
    .Input("images: T")
    .Output("output: T")
    .Attr("T: {half, bfloat16, float, double} = DT_FLOAT")
    .SetShapeFn([](InferenceContext* c) { return ColorShape(c, 1, false); })
    .Doc("RGB in [0, 1] to hue, saturation and value in [0, 1].");

DFLOW_REGISTER_OP("HSVToRGB")
    .Input("images: T")
    .Output("output: T")
    .Attr("T: {half, bfloat16, float, double} = DT_FLOAT")
    .SetShapeFn([](InferenceContext* c) { return ColorShape(c, 1, false); })
    .Doc("Hue, saturation and value in [0, 1] to RGB.");

DFLOW_REGISTER_OP("AdjustHue")
    .Input("images: T")
    .Input("delta: float")
    .Output("output: T")
    .Attr("T: {half, float} = DT_FLOAT")
    .SetShapeFn([](InferenceContext* c) { return ColorShape(c, 3, true); })
    .Doc("Rotates the hue of RGB images by delta (a fraction of a turn).");

DFLOW_REGISTER_OP("AdjustSaturation")
    .Input("images: T")
    .Input("scale: float")
    .Output("output: T")
    .Attr("T: {half, float} = DT_FLOAT")
    .SetShapeFn([](InferenceContext* c) { return ColorShape(c, 3, true); })
    .Doc("Scales the saturation of RGB images (clamped to [0, 1]).");

namespace ops {

Output RGBToHSV(const Scope& scope, Input images) {
  return FirstOutput(Build(scope, "RGBToHSV", {images}));
}

Output HSVToRGB(const Scope& scope, Input images) {
  return FirstOutput(Build(scope, "HSVToRGB", {images}));
}

Output AdjustHue(const Scope& scope, Input images, Input delta) {
  return FirstOutput(Build(scope, "AdjustHue", {images, delta}));
}

Output AdjustSaturation(const Scope& scope, Input images, Input scale) {
  return FirstOutput(Build(scope, "AdjustSaturation", {images, scale}));
}

}  // namespace ops
}  // namespace dflow
