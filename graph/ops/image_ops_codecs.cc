// Schemas, shape functions and wrappers of the image codec ops
// (image_ops.h): DecodeJpeg, DecodeAndCropJpeg, DecodePng, DecodeGif,
// DecodeBmp, DecodeImage, ExtractJpegShape, EncodeJpeg,
// EncodeJpegVariableQuality and EncodePng, following TensorFlow 2.21's
// core/ops/image_ops.cc. The CPU kernels are kernels/cpu/image_ops_codecs.cc
// (on libjpeg-turbo, libpng and giflib).
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

// The `channels` attr as an output dim: 0 means "the file's" (unknown).
absl::Status ChannelsDim(InferenceContext* c, int64_t* dim) {
  int64_t channels = 0;
  DFLOW_RETURN_IF_ERROR(c->GetAttr("channels", &channels));
  if (channels < 0) {
    return InvalidArgument("channels ", channels, " must be non-negative");
  }
  *dim = channels == 0 ? kUnknown : channels;
  return absl::OkStatus();
}

// A scalar `contents` decoded to [height, width, channels].
absl::Status DecodeShape(InferenceContext* c) {
  TensorShape contents;
  DFLOW_RETURN_IF_ERROR(InputWithRank(*c, 0, 0, &contents));
  int64_t channels = kUnknown;
  DFLOW_RETURN_IF_ERROR(ChannelsDim(c, &channels));
  c->set_output(0, TensorShape({kUnknown, kUnknown, channels}));
  return absl::OkStatus();
}

// [crop height, crop width, channels], the crop known when constant.
absl::Status DecodeAndCropShape(InferenceContext* c) {
  DFLOW_RETURN_IF_ERROR(DecodeShape(c));
  TensorShape window;
  DFLOW_RETURN_IF_ERROR(InputWithRank(*c, 1, 1, &window));
  std::vector<int64_t> w;
  if (c->ConstantInputAsInts(1, &w) && w.size() == 4) {
    if (w[2] < 0 || w[3] < 0) {
      return InvalidArgument("crop_window [", w[0], ",", w[1], ",", w[2], ",",
                             w[3], "] must have a non-negative size");
    }
    TensorShape out = c->output(0);
    out.set_dim(0, w[2]);
    out.set_dim(1, w[3]);
    c->set_output(0, out);
  }
  return absl::OkStatus();
}

// DecodeImage: every frame of a GIF (4-D) unless expand_animations is off.
absl::Status DecodeImageShape(InferenceContext* c) {
  bool expand = true;
  DFLOW_RETURN_IF_ERROR(c->GetAttr("expand_animations", &expand));
  DFLOW_RETURN_IF_ERROR(DecodeShape(c));
  if (expand) c->set_output(0, TensorShape::Unknown());
  return absl::OkStatus();
}

absl::Status DecodeGifShape(InferenceContext* c) {
  TensorShape contents;
  DFLOW_RETURN_IF_ERROR(InputWithRank(*c, 0, 0, &contents));
  c->set_output(0, TensorShape({kUnknown, kUnknown, kUnknown, 3}));
  return absl::OkStatus();
}

// A 3-D image in, a scalar string out.
absl::Status EncodeShape(InferenceContext* c) {
  TensorShape image;
  DFLOW_RETURN_IF_ERROR(InputWithRank(*c, 0, 3, &image));
  for (int i = 1; i < c->num_inputs(); ++i) {
    TensorShape quality;
    DFLOW_RETURN_IF_ERROR(InputWithRank(*c, i, 0, &quality));
  }
  c->set_output(0, TensorShape({}));
  return absl::OkStatus();
}

// EncodePng: [..., height, width, channels] -> one file per image, the
// leading (batch) dimensions.
absl::Status EncodePngShape(InferenceContext* c) {
  const TensorShape& image = c->input(0);
  if (image.unknown_rank()) {
    c->set_output(0, TensorShape::Unknown());
    return absl::OkStatus();
  }
  if (image.rank() < 3) {
    return absl::InvalidArgumentError(absl::StrCat(
        "input 'image' must have rank >= 3 ([..., height, width, "
        "channels]), got shape ", image.ToString()));
  }
  TensorShape out;
  for (int i = 0; i + 3 < image.rank(); ++i) out.AddDim(image.dim(i));
  c->set_output(0, out);
  return absl::OkStatus();
}

absl::Status ExtractJpegShapeShape(InferenceContext* c) {
  TensorShape contents;
  DFLOW_RETURN_IF_ERROR(InputWithRank(*c, 0, 0, &contents));
  c->set_output(0, TensorShape({3}));
  return absl::OkStatus();
}

}  // namespace

DFLOW_REGISTER_OP("DecodeJpeg")
    .Input("contents: string")
    .Output("image: uint8")
    .Attr("channels: int = 0")
    .Attr("ratio: int = 1")
    .Attr("fancy_upscaling: bool = true")
    .Attr("try_recover_truncated: bool = false")
    .Attr("acceptable_fraction: float = 1")
    .Attr("dct_method: string = ''")
    .SetShapeFn(DecodeShape)
    .Doc(
        "Decodes a JPEG (or PNG, or one-frame GIF) file to [height, width, "
        "channels] uint8.");

DFLOW_REGISTER_OP("DecodeAndCropJpeg")
    .Input("contents: string")
    .Input("crop_window: int32")
    .Output("image: uint8")
    .Attr("channels: int = 0")
    .Attr("ratio: int = 1")
    .Attr("fancy_upscaling: bool = true")
    .Attr("try_recover_truncated: bool = false")
    .Attr("acceptable_fraction: float = 1")
    .Attr("dct_method: string = ''")
    .SetShapeFn(DecodeAndCropShape)
    .Doc(
        "Decodes the crop_window [y, x, height, width] of a JPEG file, "
        "decoding only what the crop needs.");

DFLOW_REGISTER_OP("DecodePng")
    .Input("contents: string")
    .Output("image: dtype")
    .Attr("channels: int = 0")
    .Attr("dtype: {uint8, uint16} = uint8")
    .SetShapeFn(DecodeShape)
    .Doc("Decodes a PNG (or JPEG, or one-frame GIF) file.");

DFLOW_REGISTER_OP("DecodeGif")
    .Input("contents: string")
    .Output("image: uint8")
    .SetShapeFn(DecodeGifShape)
    .Doc("Decodes every frame of a GIF file to [frames, height, width, 3].");

DFLOW_REGISTER_OP("DecodeBmp")
    .Input("contents: string")
    .Output("image: uint8")
    .Attr("channels: int = 0")
    .SetShapeFn(DecodeShape)
    .Doc("Decodes an uncompressed 8, 24 or 32-bit BMP file.");

DFLOW_REGISTER_OP("DecodeImage")
    .Input("contents: string")
    .Output("image: dtype")
    .Attr("channels: int = 0")
    .Attr("dtype: {uint8, uint16, float} = uint8")
    .Attr("expand_animations: bool = true")
    .SetShapeFn(DecodeImageShape)
    .Doc("Decodes a JPEG, PNG, GIF or BMP file, whichever its bytes say.");

DFLOW_REGISTER_OP("ExtractJpegShape")
    .Input("contents: string")
    .Output("image_shape: output_type")
    .Attr("output_type: {int32, int64} = int32")
    .SetShapeFn(ExtractJpegShapeShape)
    .Doc("[height, width, channels] of a JPEG file, from its header.");

DFLOW_REGISTER_OP("EncodeJpeg")
    .Input("image: uint8")
    .Output("contents: string")
    .Attr("format: {'', 'grayscale', 'rgb'} = ''")
    .Attr("quality: int = 95")
    .Attr("progressive: bool = false")
    .Attr("optimize_size: bool = false")
    .Attr("chroma_downsampling: bool = true")
    .Attr("density_unit: {'in', 'cm'} = 'in'")
    .Attr("x_density: int = 300")
    .Attr("y_density: int = 300")
    .Attr("xmp_metadata: string = ''")
    .SetShapeFn(EncodeShape)
    .Doc("Encodes a [height, width, 1 or 3] uint8 image as a JPEG file.");

DFLOW_REGISTER_OP("EncodeJpegVariableQuality")
    .Input("images: uint8")
    .Input("quality: int32")
    .Output("contents: string")
    .SetShapeFn(EncodeShape)
    .Doc("EncodeJpeg with the quality as an input.");

DFLOW_REGISTER_OP("EncodePng")
    .Input("image: T")
    .Output("contents: string")
    .Attr("compression: int = -1")
    .Attr("T: {uint8, uint16} = uint8")
    .SetShapeFn(EncodePngShape)
    .Doc("Encodes a [..., height, width, 1 to 4] image (or batch of them) "
         "as PNG files.");

namespace ops {

Output DecodeJpeg(const Scope& scope, Input contents,
                  const DecodeJpegAttrs& attrs) {
  return FirstOutput(
      Build(scope, "DecodeJpeg", {contents},
            {{"channels", MakeAttr(int64_t{attrs.channels})},
             {"ratio", MakeAttr(int64_t{attrs.ratio})},
             {"fancy_upscaling", MakeAttr(attrs.fancy_upscaling)},
             {"try_recover_truncated", MakeAttr(attrs.try_recover_truncated)},
             {"acceptable_fraction", MakeAttr(attrs.acceptable_fraction)},
             {"dct_method", MakeAttr(attrs.dct_method)}}));
}

Output DecodeAndCropJpeg(const Scope& scope, Input contents, Input crop_window,
                         const DecodeJpegAttrs& attrs) {
  return FirstOutput(
      Build(scope, "DecodeAndCropJpeg", {contents, crop_window},
            {{"channels", MakeAttr(int64_t{attrs.channels})},
             {"ratio", MakeAttr(int64_t{attrs.ratio})},
             {"fancy_upscaling", MakeAttr(attrs.fancy_upscaling)},
             {"try_recover_truncated", MakeAttr(attrs.try_recover_truncated)},
             {"acceptable_fraction", MakeAttr(attrs.acceptable_fraction)},
             {"dct_method", MakeAttr(attrs.dct_method)}}));
}

Output DecodePng(const Scope& scope, Input contents, int channels,
                 DataType dtype) {
  return FirstOutput(Build(scope, "DecodePng", {contents},
                           {{"channels", MakeAttr(int64_t{channels})},
                            {"dtype", MakeAttr(dtype)}}));
}

Output DecodeGif(const Scope& scope, Input contents) {
  return FirstOutput(Build(scope, "DecodeGif", {contents}));
}

Output DecodeBmp(const Scope& scope, Input contents, int channels) {
  return FirstOutput(Build(scope, "DecodeBmp", {contents},
                           {{"channels", MakeAttr(int64_t{channels})}}));
}

Output DecodeImage(const Scope& scope, Input contents, int channels,
                   DataType dtype, bool expand_animations) {
  return FirstOutput(
      Build(scope, "DecodeImage", {contents},
            {{"channels", MakeAttr(int64_t{channels})},
             {"dtype", MakeAttr(dtype)},
             {"expand_animations", MakeAttr(expand_animations)}}));
}

Output ExtractJpegShape(const Scope& scope, Input contents,
                        DataType output_type) {
  return FirstOutput(Build(scope, "ExtractJpegShape", {contents},
                           {{"output_type", MakeAttr(output_type)}}));
}

Output EncodeJpeg(const Scope& scope, Input image,
                  const EncodeJpegAttrs& attrs) {
  return FirstOutput(
      Build(scope, "EncodeJpeg", {image},
            {{"format", MakeAttr(attrs.format)},
             {"quality", MakeAttr(int64_t{attrs.quality})},
             {"progressive", MakeAttr(attrs.progressive)},
             {"optimize_size", MakeAttr(attrs.optimize_size)},
             {"chroma_downsampling", MakeAttr(attrs.chroma_downsampling)},
             {"density_unit", MakeAttr(attrs.density_unit)},
             {"x_density", MakeAttr(int64_t{attrs.x_density})},
             {"y_density", MakeAttr(int64_t{attrs.y_density})},
             {"xmp_metadata", MakeAttr(attrs.xmp_metadata)}}));
}

Output EncodeJpegVariableQuality(const Scope& scope, Input images,
                                 Input quality) {
  return FirstOutput(
      Build(scope, "EncodeJpegVariableQuality", {images, quality}));
}

Output EncodePng(const Scope& scope, Input image, int compression) {
  return FirstOutput(Build(scope, "EncodePng", {image},
                           {{"compression", MakeAttr(int64_t{compression})}}));
}

}  // namespace ops
}  // namespace dflow
