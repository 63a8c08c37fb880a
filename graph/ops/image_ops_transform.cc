// Schemas, shape functions and wrappers of the image ops the misc family
// adds (image_ops.h), following TensorFlow 2.21's core/ops/image_ops.cc:
// ImageProjectiveTransformV2 and V3 (the op of Keras's RandomRotation,
// RandomTranslation, RandomZoom and RandomShear layers) and ExtractGlimpse
// / V2 (tf.image.extract_glimpse). The CPU kernels are
// kernels/cpu/image_ops_transform.cc and image_ops_glimpse.cc.
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "graph/op_registry.h"
#include "graph/ops/image_ops.h"
#include "graph/ops/shape_fn_util.h"
#include "graph/shape_inference.h"
#include "graph/tensor_shape.h"

namespace dflow {
namespace {

using shape_fn_util::FirstOutput;
using shape_fn_util::InputWithRank;
using shape_fn_util::InvalidArgument;

constexpr int64_t kUnknown = TensorShape::kUnknownDim;

// [batch, output_shape[0], output_shape[1], channels].
absl::Status ProjectiveTransformShape(InferenceContext* c) {
  TensorShape images, transforms, size, v;
  DFLOW_RETURN_IF_ERROR(InputWithRank(*c, 0, 4, &images));
  DFLOW_RETURN_IF_ERROR(InputWithRank(*c, 1, 2, &transforms));
  DFLOW_RETURN_IF_ERROR(InputWithRank(*c, 2, 1, &size));
  if (c->num_inputs() > 3) {
    DFLOW_RETURN_IF_ERROR(InputWithRank(*c, 3, 0, &v));
  }
  std::vector<int64_t> hw;
  int64_t h = kUnknown, w = kUnknown;
  if (c->ConstantInputAsInts(2, &hw)) {
    if (hw.size() != 2) {
      return InvalidArgument("output_shape must have 2 elements, got ",
                             hw.size());
    }
    if (hw[0] <= 0 || hw[1] <= 0) {
      return InvalidArgument("output_shape [", hw[0], ",", hw[1],
                             "] must be positive");
    }
    h = hw[0];
    w = hw[1];
  }
  c->set_output(0, TensorShape({images.dim(0), h, w, images.dim(3)}));
  return absl::OkStatus();
}

// [batch, size[0], size[1], depth].
absl::Status ExtractGlimpseShape(InferenceContext* c) {
  TensorShape input, size, offsets;
  DFLOW_RETURN_IF_ERROR(InputWithRank(*c, 0, 4, &input));
  DFLOW_RETURN_IF_ERROR(InputWithRank(*c, 1, 1, &size));
  DFLOW_RETURN_IF_ERROR(InputWithRank(*c, 2, 2, &offsets));
  int64_t batch;
  DFLOW_RETURN_IF_ERROR(c->MergeDim(input.dim(0), offsets.dim(0),
                                    "the batch of 'input' and of 'offsets'",
                                    &batch));
  if (offsets.dim(1) >= 0 && offsets.dim(1) != 2) {
    return InvalidArgument("offsets must be [batch, 2], got shape ",
                           offsets.ToString());
  }
  std::vector<int64_t> hw;
  int64_t h = kUnknown, w = kUnknown;
  if (c->ConstantInputAsInts(1, &hw)) {
    if (hw.size() != 2) {
      return InvalidArgument("size must have 2 elements, got ", hw.size());
    }
    h = hw[0];
    w = hw[1];
  }
  c->set_output(0, TensorShape({batch, h, w, input.dim(3)}));
  return absl::OkStatus();
}

#define DFLOW_GLIMPSE_OP(name, doc)                   \
  DFLOW_REGISTER_OP(name)                             \
      .Input("input: float")                          \
      .Input("size: int32")                           \
      .Input("offsets: float")                        \
      .Output("glimpse: float")                       \
      .Attr("centered: bool = true")                  \
      .Attr("normalized: bool = true")                \
      .Attr("uniform_noise: bool = true")             \
      .Attr("noise: string = 'uniform'")              \
      .SetShapeFn(ExtractGlimpseShape)                \
      .Doc(doc)

DFLOW_GLIMPSE_OP("ExtractGlimpse",
                 "Windows of size [h, w] of each image at offsets [y, x] "
                 "(tf.compat.v1.image.extract_glimpse: the window's center "
                 "at the offset in every mode).");
DFLOW_GLIMPSE_OP("ExtractGlimpseV2",
                 "Windows of size [h, w] of each image at offsets [y, x] "
                 "(tf.image.extract_glimpse).");

#undef DFLOW_GLIMPSE_OP

constexpr char kTransformTypes[] =
    "dtype: {uint8, int32, int64, half, bfloat16, float, double}";

DFLOW_REGISTER_OP("ImageProjectiveTransformV2")
    .Input("images: dtype")
    .Input("transforms: float")
    .Input("output_shape: int32")
    .Output("transformed_images: dtype")
    .Attr(kTransformTypes)
    .Attr("interpolation: string")
    .Attr("fill_mode: string = 'CONSTANT'")
    .SetShapeFn(ProjectiveTransformShape)
    .Doc("Each image resampled through its projective transform (rows of "
         "[a0, a1, a2, b0, b1, b2, c0, c1] mapping output to input points); "
         "points outside filled with 0.");

DFLOW_REGISTER_OP("ImageProjectiveTransformV3")
    .Input("images: dtype")
    .Input("transforms: float")
    .Input("output_shape: int32")
    .Input("fill_value: float")
    .Output("transformed_images: dtype")
    .Attr(kTransformTypes)
    .Attr("interpolation: string")
    .Attr("fill_mode: string = 'CONSTANT'")
    .SetShapeFn(ProjectiveTransformShape)
    .Doc("ImageProjectiveTransformV2 with a fill value for CONSTANT mode.");

}  // namespace

namespace ops {

Output ImageProjectiveTransformV2(const Scope& scope, Input images,
                                  Input transforms, Input output_shape,
                                  const std::string& interpolation,
                                  const std::string& fill_mode) {
  return FirstOutput(OpBuilder(scope, "ImageProjectiveTransformV2")
                         .Input(images)
                         .Input(transforms)
                         .Input(output_shape)
                         .Attr("interpolation", interpolation)
                         .Attr("fill_mode", fill_mode)
                         .Finalize());
}

Output ImageProjectiveTransformV3(const Scope& scope, Input images,
                                  Input transforms, Input output_shape,
                                  Input fill_value,
                                  const std::string& interpolation,
                                  const std::string& fill_mode) {
  return FirstOutput(OpBuilder(scope, "ImageProjectiveTransformV3")
                         .Input(images)
                         .Input(transforms)
                         .Input(output_shape)
                         .Input(fill_value)
                         .Attr("interpolation", interpolation)
                         .Attr("fill_mode", fill_mode)
                         .Finalize());
}

namespace {
Output Glimpse(const Scope& scope, const char* op, Input input, Input size,
               Input offsets, const ExtractGlimpseAttrs& attrs) {
  return FirstOutput(OpBuilder(scope, op)
                         .Input(input)
                         .Input(size)
                         .Input(offsets)
                         .Attr("centered", attrs.centered)
                         .Attr("normalized", attrs.normalized)
                         .Attr("uniform_noise", attrs.uniform_noise)
                         .Attr("noise", attrs.noise)
                         .Finalize());
}
}  // namespace

Output ExtractGlimpse(const Scope& scope, Input input, Input size,
                      Input offsets, const ExtractGlimpseAttrs& attrs) {
  return Glimpse(scope, "ExtractGlimpse", input, size, offsets, attrs);
}

Output ExtractGlimpseV2(const Scope& scope, Input input, Input size,
                        Input offsets, const ExtractGlimpseAttrs& attrs) {
  return Glimpse(scope, "ExtractGlimpseV2", input, size, offsets, attrs);
}

}  // namespace ops
}  // namespace dflow
