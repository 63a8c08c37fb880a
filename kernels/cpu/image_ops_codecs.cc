// The image codec kernels: DecodeJpeg, DecodeAndCropJpeg, DecodePng,
// DecodeGif, DecodeBmp, DecodeImage, ExtractJpegShape, EncodeJpeg,
// EncodeJpegVariableQuality and EncodePng, on image_ops_codec_io.h.
//
// As TensorFlow 2.21 (core/kernels/image/decode_image_op.cc), one decoder
// serves every Decode* op and picks the format by the file's first bytes,
// so DecodeJpeg also reads PNG and single-frame GIF files and DecodePng
// JPEGs; what an op returns for each format (3-D or 4-D, which channel
// counts, which formats it refuses) follows TensorFlow's kernel. uint16 and
// float outputs of 8-bit formats are the samples times 256 (TensorFlow's
// floor(65536 / 256), not 257) and / 255; a PNG decodes to float through
// 16 bits (/ 65535). A bad or truncated file
// is an InvalidArgument saying what libjpeg, libpng or giflib found.
// Encoded bytes come from Debian's libraries and may differ from
// TensorFlow's (other library versions); they decode to the same pixels.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "graph/tensor.h"
#include "graph/types.h"
#include "kernels/cpu/image_ops_codec_io.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

enum class Format { kUnknown, kJpeg, kPng, kGif, kBmp, kWebp };

Format Classify(absl::string_view data) {
  if (absl::StartsWith(data, "\xff\xd8\xff")) return Format::kJpeg;
  if (absl::StartsWith(data, absl::string_view("\x89PNG\r\n\x1a\n", 8))) {
    return Format::kPng;
  }
  if (absl::StartsWith(data, "GIF8")) return Format::kGif;
  if (absl::StartsWith(data, "BM")) return Format::kBmp;
  if (data.size() > 12 && absl::StartsWith(data, "RIFF") &&
      data.substr(8, 4) == "WEBP") {
    return Format::kWebp;
  }
  return Format::kUnknown;
}

// Reads the scalar string input 0.
absl::Status ReadContents(OpKernelContext* ctx, absl::string_view* out) {
  const Tensor& t = ctx->input(0);
  if (t.shape().rank() != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "contents must be a scalar string, but has shape ",
        t.shape().ToString()));
  }
  *out = t.data<std::string>()[0];
  if (out->empty()) return absl::InvalidArgumentError("contents is empty");
  if (out->size() > static_cast<size_t>(std::numeric_limits<int>::max())) {
    return absl::InvalidArgumentError(
        absl::StrCat("contents (", out->size(), " bytes) is too large"));
  }
  return absl::OkStatus();
}

class DecodeImageOp : public OpKernel {
 public:
  explicit DecodeImageOp(OpKernelConstruction* ctx)
      : OpKernel(ctx), op_(type_string()) {
    jpeg_ = op_ == "DecodeJpeg" || op_ == "DecodeAndCropJpeg";
    if (jpeg_) {
      OP_REQUIRES_OK(ctx, ctx->GetAttr("ratio", &flags_.ratio));
      OP_REQUIRES(ctx,
                  flags_.ratio == 1 || flags_.ratio == 2 || flags_.ratio == 4 ||
                      flags_.ratio == 8,
                  absl::InvalidArgumentError(absl::StrCat(
                      "ratio must be 1, 2, 4 or 8, got ", flags_.ratio)));
      OP_REQUIRES_OK(ctx,
                     ctx->GetAttr("fancy_upscaling", &flags_.fancy_upscaling));
      OP_REQUIRES_OK(ctx, ctx->GetAttr("try_recover_truncated",
                                       &flags_.try_recover_truncated));
      OP_REQUIRES_OK(ctx, ctx->GetAttr("acceptable_fraction",
                                       &flags_.min_acceptable_fraction));
      std::string dct;
      OP_REQUIRES_OK(ctx, ctx->GetAttr("dct_method", &dct));
      OP_REQUIRES(ctx,
                  dct.empty() || dct == "INTEGER_FAST" ||
                      dct == "INTEGER_ACCURATE",
                  absl::InvalidArgumentError(absl::StrCat(
                      "dct_method '", dct,
                      "' must be '', 'INTEGER_FAST' or 'INTEGER_ACCURATE'")));
      flags_.integer_accurate = dct == "INTEGER_ACCURATE";
    }
    if (op_ == "DecodePng" || op_ == "DecodeImage") {
      OP_REQUIRES_OK(ctx, ctx->GetAttr("dtype", &dtype_));
    }
    if (op_ == "DecodeImage") {
      OP_REQUIRES_OK(ctx, ctx->GetAttr("expand_animations", &expand_));
    }
    if (op_ != "DecodeGif") {
      OP_REQUIRES_OK(ctx, ctx->GetAttr("channels", &channels_));
      OP_REQUIRES(ctx,
                  channels_ == 0 || channels_ == 1 || channels_ == 3 ||
                      channels_ == 4,
                  absl::InvalidArgumentError(absl::StrCat(
                      "channels must be 0, 1, 3 or 4, got ", channels_)));
    } else {
      channels_ = 3;
    }
  }

  void Compute(OpKernelContext* ctx) override {
    absl::string_view data;
    OP_REQUIRES_OK(ctx, ReadContents(ctx, &data));
    switch (Classify(data)) {
      case Format::kJpeg:
        return DecodeJpeg(ctx, data);
      case Format::kPng:
        return DecodePng(ctx, data);
      case Format::kGif:
        return DecodeGif(ctx, data);
      case Format::kBmp:
        return DecodeBmp(ctx, data);
      case Format::kWebp:
        ctx->SetStatus(absl::InvalidArgumentError(
            "WebP images are not supported by dflow's image decoders"));
        return;
      case Format::kUnknown:
        ctx->SetStatus(absl::InvalidArgumentError(
            "unknown image file format: JPEG, PNG, GIF or BMP required"));
        return;
    }
  }

 private:
  // Allocates the output for a decode of `frames` frames (3-D when
  // `three_d`) and returns the buffer the decoder writes: the output's
  // own for uint8 (and for a 16-bit decode into uint16), else scratch_
  // that Finish converts.
  codec_io::Allocate Allocator(OpKernelContext* ctx, bool four_d,
                               bool sixteen_bits, Tensor** out) {
    return [=](int frames, int h, int w, int c) -> uint8_t* {
      TensorShape shape = four_d ? TensorShape({frames, h, w, c})
                                 : TensorShape({h, w, c});
      absl::Status s = ctx->allocate_output(0, shape, out);
      if (!s.ok()) {
        ctx->SetStatus(s);
        return nullptr;
      }
      if (dtype_ == DT_UINT8) return (*out)->data<uint8_t>();
      if (dtype_ == DT_UINT16 && sixteen_bits) {
        return reinterpret_cast<uint8_t*>((*out)->data<uint16_t>());
      }
      scratch_.assign(static_cast<size_t>((*out)->NumElements()) *
                          (sixteen_bits ? 2 : 1),
                      0);
      return scratch_.data();
    };
  }

  // Converts scratch_ into the uint16 or float output.
  void Finish(Tensor* out, bool sixteen_bits) {
    if (dtype_ == DT_UINT8 || (dtype_ == DT_UINT16 && sixteen_bits)) return;
    const int64_t n = out->NumElements();
    if (sixteen_bits) {  // float from 16-bit PNG samples
      const uint16_t* src = reinterpret_cast<const uint16_t*>(scratch_.data());
      float* dst = out->data<float>();
      const float scale = 1.0f / 65535.0f;
      for (int64_t i = 0; i < n; ++i) dst[i] = static_cast<float>(src[i]) * scale;
    } else if (dtype_ == DT_UINT16) {
      uint16_t* dst = out->data<uint16_t>();
      for (int64_t i = 0; i < n; ++i) {
        dst[i] = static_cast<uint16_t>(scratch_[i] * 256);
      }
    } else {
      float* dst = out->data<float>();
      const float scale = 1.0f / 255.0f;
      for (int64_t i = 0; i < n; ++i) dst[i] = static_cast<float>(scratch_[i]) * scale;
    }
    scratch_.clear();
  }

  void DecodeJpeg(OpKernelContext* ctx, absl::string_view data) {
    OP_REQUIRES(ctx, channels_ != 4,
                absl::InvalidArgumentError(
                    "JPEG images have 1 or 3 channels, not 4"));
    OP_REQUIRES(ctx, op_ != "DecodeBmp",
                absl::InvalidArgumentError(
                    "DecodeBmp got a JPEG file: use DecodeJpeg or DecodeImage"));
    codec_io::JpegDecodeFlags flags = flags_;
    flags.components = channels_;
    if (op_ == "DecodeAndCropJpeg") {
      const Tensor& w = ctx->input(1);
      OP_REQUIRES(ctx, w.shape().rank() == 1 && w.NumElements() == 4,
                  absl::InvalidArgumentError(absl::StrCat(
                      "crop_window must be [y, x, height, width], but has "
                      "shape ",
                      w.shape().ToString())));
      const int32_t* v = w.data<int32_t>();
      flags.crop = true;
      flags.crop_y = v[0];
      flags.crop_x = v[1];
      flags.crop_height = v[2];
      flags.crop_width = v[3];
    }
    Tensor* out = nullptr;
    std::string error;
    const bool ok = codec_io::JpegDecode(
        data, flags, Allocator(ctx, op_ == "DecodeGif", false, &out), &error);
    if (!ctx->status().ok()) return;
    OP_REQUIRES(ctx, ok,
                absl::InvalidArgumentError(absl::StrCat(
                    "invalid JPEG data (", data.size(), " bytes) or crop "
                    "window: ",
                    error)));
    Finish(out, false);
  }

  void DecodePng(OpKernelContext* ctx, absl::string_view data) {
    OP_REQUIRES(ctx, op_ != "DecodeBmp",
                absl::InvalidArgumentError(
                    "DecodeBmp got a PNG file: use DecodePng or DecodeImage"));
    OP_REQUIRES(ctx, op_ != "DecodeAndCropJpeg",
                absl::InvalidArgumentError(
                    "DecodeAndCropJpeg reads JPEG files only, but got a PNG"));
    const bool sixteen = dtype_ != DT_UINT8;
    Tensor* out = nullptr;
    std::string error;
    const bool ok = codec_io::PngDecode(
        data, channels_, sixteen ? 16 : 8,
        Allocator(ctx, op_ == "DecodeGif", sixteen, &out), &error);
    if (!ctx->status().ok()) return;
    OP_REQUIRES(ctx, ok,
                absl::InvalidArgumentError(absl::StrCat(
                    "invalid PNG data (", data.size(), " bytes): ", error)));
    Finish(out, sixteen);
  }

  void DecodeGif(OpKernelContext* ctx, absl::string_view data) {
    OP_REQUIRES(ctx, channels_ == 0 || channels_ == 3,
                absl::InvalidArgumentError(absl::StrCat(
                    "GIF images have 3 channels, not ", channels_)));
    OP_REQUIRES(ctx, op_ != "DecodeBmp",
                absl::InvalidArgumentError(
                    "DecodeBmp got a GIF file: use DecodeGif or DecodeImage"));
    OP_REQUIRES(ctx, op_ != "DecodeAndCropJpeg",
                absl::InvalidArgumentError(
                    "DecodeAndCropJpeg reads JPEG files only, but got a GIF"));
    // DecodeJpeg and DecodePng take single-frame GIFs as 3-D images;
    // DecodeImage without expand_animations the first frame.
    const bool three_d =
        op_ == "DecodeJpeg" || op_ == "DecodePng" ||
        (op_ == "DecodeImage" && !expand_);
    Tensor* out = nullptr;
    std::string error;
    codec_io::Allocate inner = Allocator(ctx, !three_d, false, &out);
    const bool single_frame_op = op_ == "DecodeJpeg" || op_ == "DecodePng";
    codec_io::Allocate allocate = [&](int frames, int h, int w, int c) {
      if (single_frame_op && frames != 1) {
        ctx->SetStatus(absl::InvalidArgumentError(absl::StrCat(
            "got ", frames, " frames, but animated GIFs can only be decoded "
            "by DecodeGif or DecodeImage")));
        return static_cast<uint8_t*>(nullptr);
      }
      return inner(frames, h, w, c);
    };
    const bool ok = codec_io::GifDecode(
        data, op_ == "DecodeImage" && !expand_, allocate, &error);
    if (!ctx->status().ok()) return;
    OP_REQUIRES(ctx, ok,
                absl::InvalidArgumentError(absl::StrCat(
                    "invalid GIF data (", data.size(), " bytes): ", error)));
    Finish(out, false);
  }

  // BMP: TensorFlow's own reader of uncompressed 8, 24 and 32-bit files
  // (the header fields at bytes 10, 18, 22 and 28, rows padded to 4
  // bytes, bottom-up unless the height is negative, BGR(A) order).
  void DecodeBmp(OpKernelContext* ctx, absl::string_view data) {
    OP_REQUIRES(ctx, channels_ != 1,
                absl::InvalidArgumentError(absl::StrCat(
                    "BMP images decode to 0, 3 or 4 channels, not ", channels_)));
    OP_REQUIRES(ctx, op_ == "DecodeBmp" || op_ == "DecodeImage",
                absl::InvalidArgumentError(absl::StrCat(
                    op_, " got a BMP file: use DecodeBmp or DecodeImage")));
    OP_REQUIRES(ctx, data.size() >= 32,
                absl::InvalidArgumentError(absl::StrCat(
                    "incomplete BMP file: its header needs 32 bytes, got ",
                    data.size())));
    auto le32 = [&](size_t at) {
      uint32_t v = 0;
      for (int i = 3; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(data[at + i]);
      return static_cast<int32_t>(v);
    };
    const int32_t header = le32(10), width = le32(18), height = le32(22);
    const int bpp = static_cast<int16_t>(static_cast<uint8_t>(data[28]) |
                                         (static_cast<uint8_t>(data[29]) << 8));
    const int in_channels = bpp / 8;
    OP_REQUIRES(ctx, in_channels == 1 || in_channels == 3 || in_channels == 4,
                absl::InvalidArgumentError(absl::StrCat(
                    "BMP images with ", bpp, " bits per pixel are not "
                    "supported (8, 24 or 32)")));
    OP_REQUIRES(ctx, width > 0 && height != 0 && header >= 0 &&
                         height != std::numeric_limits<int32_t>::min(),
                absl::InvalidArgumentError(absl::StrCat(
                    "BMP width ", width, " must be positive, height ", height,
                    " nonzero, header size ", header, " nonnegative")));
    const int64_t rows = std::abs(int64_t{height});
    OP_REQUIRES(ctx, int64_t{width} * rows < std::numeric_limits<int32_t>::max() / 8,
                absl::InvalidArgumentError("the BMP image is too large"));
    const int64_t row_size = (int64_t{in_channels} * width + 3) / 4 * 4;
    const int64_t diff = static_cast<int64_t>(data.size()) - header - row_size * rows;
    OP_REQUIRES(ctx, diff == 0,
                absl::InvalidArgumentError(absl::StrCat(
                    "BMP file size should be the header plus row_size * "
                    "height, but they differ by ",
                    diff)));
    const int out_channels = channels_ ? channels_ : in_channels;
    Tensor* out = nullptr;
    codec_io::Allocate allocate = Allocator(ctx, false, false, &out);
    uint8_t* dst = allocate(1, static_cast<int>(rows), width, out_channels);
    if (dst == nullptr) return;
    const uint8_t* px = reinterpret_cast<const uint8_t*>(data.data()) + header;
    for (int64_t i = 0; i < rows; ++i) {
      const uint8_t* src = px + (height < 0 ? i : rows - 1 - i) * row_size;
      for (int64_t j = 0; j < width; ++j, dst += out_channels) {
        const uint8_t* p = src + j * in_channels;
        if (in_channels == 1) {
          dst[0] = p[0];
          if (out_channels >= 3) dst[1] = dst[2] = p[0];
          if (out_channels == 4) dst[3] = 255;
        } else {
          dst[0] = p[2];
          dst[1] = p[1];
          dst[2] = p[0];
          if (out_channels == 4) dst[3] = in_channels == 4 ? p[3] : 255;
        }
      }
    }
    Finish(out, false);
  }

  std::string op_;
  bool jpeg_ = false;
  codec_io::JpegDecodeFlags flags_;
  DataType dtype_ = DT_UINT8;
  bool expand_ = true;
  int channels_ = 0;
  std::vector<uint8_t> scratch_;
};

class ExtractJpegShapeOp : public OpKernel {
 public:
  explicit ExtractJpegShapeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    absl::string_view data;
    OP_REQUIRES_OK(ctx, ReadContents(ctx, &data));
    int h = 0, w = 0, c = 0;
    std::string error;
    OP_REQUIRES(ctx, codec_io::JpegShape(data, &h, &w, &c, &error),
                absl::InvalidArgumentError(absl::StrCat(
                    "invalid JPEG data (", data.size(), " bytes): ", error)));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({3}), &out));
    if (out->dtype() == DT_INT64) {
      int64_t* o = out->data<int64_t>();
      o[0] = h;
      o[1] = w;
      o[2] = c;
    } else {
      int32_t* o = out->data<int32_t>();
      o[0] = h;
      o[1] = w;
      o[2] = c;
    }
  }
};

// A 3-D [height, width, channels] image with int32-sized extents.
absl::Status CheckImage(const Tensor& image) {
  const TensorShape& s = image.shape();
  if (s.rank() != 3) {
    return absl::InvalidArgumentError(absl::StrCat(
        "image must be 3-D [height, width, channels], but has shape ",
        s.ToString()));
  }
  if (image.NumElements() >= std::numeric_limits<int32_t>::max()) {
    return absl::InvalidArgumentError(
        "cannot encode images of 2^31 or more elements");
  }
  return absl::OkStatus();
}

// EncodeJpeg (attrs) and EncodeJpegVariableQuality (quality input,
// default settings otherwise).
class EncodeJpegOp : public OpKernel {
 public:
  explicit EncodeJpegOp(OpKernelConstruction* ctx)
      : OpKernel(ctx), variable_(type_string() == "EncodeJpegVariableQuality") {
    if (variable_) return;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("format", &format_));
    OP_REQUIRES(ctx, format_.empty() || format_ == "grayscale" || format_ == "rgb",
                absl::InvalidArgumentError(absl::StrCat(
                    "format must be '', 'grayscale' or 'rgb', got '", format_,
                    "'")));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("quality", &flags_.quality));
    OP_REQUIRES(ctx, flags_.quality >= 0 && flags_.quality <= 100,
                absl::InvalidArgumentError(absl::StrCat(
                    "quality must be in [0, 100], got ", flags_.quality)));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("progressive", &flags_.progressive));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("optimize_size", &flags_.optimize_size));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("chroma_downsampling",
                                     &flags_.chroma_downsampling));
    std::string unit;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("density_unit", &unit));
    OP_REQUIRES(ctx, unit == "in" || unit == "cm",
                absl::InvalidArgumentError(absl::StrCat(
                    "density_unit must be 'in' or 'cm', got '", unit, "'")));
    flags_.density_unit = unit == "in" ? 1 : 2;
    int64_t x = 0, y = 0;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("x_density", &x));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("y_density", &y));
    flags_.x_density = static_cast<int>(x);
    flags_.y_density = static_cast<int>(y);
    OP_REQUIRES_OK(ctx, ctx->GetAttr("xmp_metadata", &flags_.xmp_metadata));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& image = ctx->input(0);
    OP_REQUIRES_OK(ctx, CheckImage(image));
    codec_io::JpegEncodeFlags flags = flags_;
    if (variable_) {
      const Tensor& q = ctx->input(1);
      OP_REQUIRES(ctx, q.shape().rank() == 0,
                  absl::InvalidArgumentError(absl::StrCat(
                      "quality must be a scalar, but has shape ",
                      q.shape().ToString())));
      flags.quality = q.data<int32_t>()[0];
      OP_REQUIRES(ctx, flags.quality >= 0 && flags.quality <= 100,
                  absl::InvalidArgumentError(absl::StrCat(
                      "quality must be in [0, 100], got ", flags.quality)));
    }
    const int64_t channels = image.shape().dim(2);
    if (format_.empty()) {
      OP_REQUIRES(ctx, channels == 1 || channels == 3,
                  absl::InvalidArgumentError(absl::StrCat(
                      "image must have 1 or 3 channels, got shape ",
                      image.shape().ToString())));
    } else {
      const int64_t want = format_ == "grayscale" ? 1 : 3;
      OP_REQUIRES(ctx, channels == want,
                  absl::InvalidArgumentError(absl::StrCat(
                      "format '", format_, "' expects ", want,
                      " channels, got shape ", image.shape().ToString())));
    }
    flags.components = static_cast<int>(channels);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({}), &out));
    std::string error;
    OP_REQUIRES(
        ctx,
        codec_io::JpegEncode(image.data<uint8_t>(),
                             static_cast<int>(image.shape().dim(0)),
                             static_cast<int>(image.shape().dim(1)), flags,
                             &out->data<std::string>()[0], &error),
        absl::InvalidArgumentError(absl::StrCat("JPEG encoding failed: ", error)));
  }

 private:
  bool variable_;
  std::string format_;
  codec_io::JpegEncodeFlags flags_;
};

class EncodePngOp : public OpKernel {
 public:
  explicit EncodePngOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("compression", &compression_));
    OP_REQUIRES(ctx, compression_ >= -1 && compression_ <= 9,
                absl::InvalidArgumentError(absl::StrCat(
                    "compression must be in [-1, 9], got ", compression_)));
  }

  // One PNG per [height, width, channels] image of a [..., h, w, c] input
  // (TensorFlow 2's batched EncodePng, what tf.summary.image writes).
  void Compute(OpKernelContext* ctx) override {
    const Tensor& image = ctx->input(0);
    const TensorShape& s = image.shape();
    OP_REQUIRES(ctx, s.rank() >= 3,
                absl::InvalidArgumentError(absl::StrCat(
                    "image must be [..., height, width, channels], but has "
                    "shape ",
                    s.ToString())));
    const int r = s.rank();
    const int64_t height = s.dim(r - 3), width = s.dim(r - 2),
                  channels = s.dim(r - 1);
    OP_REQUIRES(ctx, channels >= 1 && channels <= 4,
                absl::InvalidArgumentError(absl::StrCat(
                    "image must have 1, 2, 3 or 4 channels, got shape ",
                    s.ToString())));
    OP_REQUIRES(ctx,
                height * width * channels < std::numeric_limits<int32_t>::max(),
                absl::InvalidArgumentError(
                    "cannot encode images of 2^31 or more elements"));
    TensorShape batch;
    for (int i = 0; i + 3 < r; ++i) batch.AddDim(s.dim(i));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, batch, &out));
    const bool sixteen = image.dtype() == DT_UINT16;
    const int64_t image_bytes =
        height * width * channels * (sixteen ? 2 : 1);
    const char* data = static_cast<const char*>(image.raw_data());
    for (int64_t i = 0; i < batch.num_elements(); ++i) {
      std::string error;
      OP_REQUIRES(
          ctx,
          codec_io::PngEncode(data + i * image_bytes, static_cast<int>(height),
                              static_cast<int>(width),
                              static_cast<int>(channels), sixteen ? 16 : 8,
                              static_cast<int>(compression_),
                              &out->data<std::string>()[i], &error),
          absl::InvalidArgumentError(error));
    }
  }

 private:
  int64_t compression_ = -1;
};

DFLOW_REGISTER_KERNEL(KernelDefBuilder("DecodeJpeg").Device(kDeviceCpu),
                      DecodeImageOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("DecodeAndCropJpeg").Device(kDeviceCpu),
                      DecodeImageOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("DecodePng").Device(kDeviceCpu),
                      DecodeImageOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("DecodeGif").Device(kDeviceCpu),
                      DecodeImageOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("DecodeBmp").Device(kDeviceCpu),
                      DecodeImageOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("DecodeImage").Device(kDeviceCpu),
                      DecodeImageOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("ExtractJpegShape").Device(kDeviceCpu),
                      ExtractJpegShapeOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("EncodeJpeg").Device(kDeviceCpu),
                      EncodeJpegOp);
DFLOW_REGISTER_KERNEL(
    KernelDefBuilder("EncodeJpegVariableQuality").Device(kDeviceCpu),
    EncodeJpegOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("EncodePng").Device(kDeviceCpu),
                      EncodePngOp);

}  // namespace
}  // namespace dflow
