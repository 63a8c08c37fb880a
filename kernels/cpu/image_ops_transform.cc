// ImageProjectiveTransformV2 and V3 (graph/ops/image_ops_transform.cc):
// each output pixel (x, y) reads the input at the projective transform of
// (x, y), NEAREST (round half away from zero) or BILINEAR, with points
// outside the image mapped by the fill mode (REFLECT, WRAP, NEAREST: the
// edge; CONSTANT: the fill value, 0 for V2). The arithmetic is
// TensorFlow's, in float and in its order (the int64 lengths and the
// float coordinates mixed as TensorFlow's C++ mixes them; bilinear sums in
// float even for double images, then converted to the image type by a
// C++ cast: truncation for integer images), so the pixels equal
// TensorFlow's.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
#include "kernels/cpu/kernel_util.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

enum class FillMode { kReflect, kWrap, kConstant, kNearest };

float Clamp(float v, int64_t len) {
  return std::min(std::max(v, 0.0f), static_cast<float>(len - 1));
}

// An input coordinate of an axis of length `len` mapped into the image
// (scipy's ndimage rules, as TensorFlow's MapCoordinate).
float MapCoordinate(float in, int64_t len, FillMode mode) {
  switch (mode) {
    case FillMode::kReflect:
      // [abcd] reflected to [dcba|abcd|dcba].
      if (in < 0) {
        if (len <= 1) {
          in = 0;
        } else {
          const int64_t sz2 = 2 * len;
          if (in < sz2) in = sz2 * static_cast<int64_t>(-in / sz2) + in;
          in = (in < -len) ? in + sz2 : -in - 1;
        }
      } else if (in > len - 1) {
        if (len <= 1) {
          in = 0;
        } else {
          const int64_t sz2 = 2 * len;
          in -= sz2 * static_cast<int64_t>(in / sz2);
          if (in >= len) in = sz2 - in - 1;
        }
      }
      return Clamp(in, len);
    case FillMode::kWrap:
      // [abcd] wrapped to [abcd|abcd|abcd].
      if (in < 0) {
        if (len <= 1) {
          in = 0;
        } else {
          const int64_t sz = len - 1;
          in += len * (static_cast<int64_t>(-in / sz) + 1);
        }
      } else if (in > len - 1) {
        if (len <= 1) {
          in = 0;
        } else {
          const int64_t sz = len - 1;
          in -= len * static_cast<int64_t>(in / sz);
        }
      }
      return Clamp(in, len);
    case FillMode::kNearest:
      return Clamp(in, len);
    case FillMode::kConstant:
      break;
  }
  return in;
}

template <typename T>
class ImageProjectiveTransformOp : public OpKernel {
 public:
  explicit ImageProjectiveTransformOp(OpKernelConstruction* ctx)
      : OpKernel(ctx) {
    std::string interpolation, fill_mode;
    ctx->SetStatus(ctx->GetAttr("interpolation", &interpolation));
    ctx->SetStatus(ctx->GetAttr("fill_mode", &fill_mode));
    if (interpolation == "NEAREST") {
      bilinear_ = false;
    } else if (interpolation == "BILINEAR") {
      bilinear_ = true;
    } else {
      ctx->SetStatus(absl::InvalidArgumentError(absl::StrCat(
          "interpolation must be NEAREST or BILINEAR, got '", interpolation,
          "'")));
    }
    if (fill_mode == "REFLECT") {
      mode_ = FillMode::kReflect;
    } else if (fill_mode == "WRAP") {
      mode_ = FillMode::kWrap;
    } else if (fill_mode == "CONSTANT") {
      mode_ = FillMode::kConstant;
    } else if (fill_mode == "NEAREST") {
      mode_ = FillMode::kNearest;
    } else {
      ctx->SetStatus(absl::InvalidArgumentError(absl::StrCat(
          "fill_mode must be REFLECT, WRAP, CONSTANT or NEAREST, got '",
          fill_mode, "'")));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& images = ctx->input(0);
    const Tensor& transforms = ctx->input(1);
    const Tensor& size = ctx->input(2);
    OP_REQUIRES(ctx, images.shape().rank() == 4,
                absl::InvalidArgumentError(absl::StrCat(
                    "Input images must have rank 4, got shape ",
                    images.shape().ToString())));
    const int64_t batch = images.shape().dim(0);
    const int64_t in_h = images.shape().dim(1);
    const int64_t in_w = images.shape().dim(2);
    const int64_t channels = images.shape().dim(3);
    OP_REQUIRES(ctx,
                transforms.shape().rank() == 2 &&
                    (transforms.shape().dim(0) == batch ||
                     transforms.shape().dim(0) == 1) &&
                    transforms.shape().dim(1) == 8,
                absl::InvalidArgumentError(absl::StrCat(
                    "Input transform should be num_images x 8 or 1 x 8, got "
                    "shape ",
                    transforms.shape().ToString(), " for ", batch,
                    " images")));
    OP_REQUIRES(ctx, size.shape().rank() == 1 && size.NumElements() == 2,
                absl::InvalidArgumentError(absl::StrCat(
                    "output_shape must be a 1-D int32 tensor of 2 elements, "
                    "got shape ",
                    size.shape().ToString())));
    const int64_t out_h = size.data<int32_t>()[0];
    const int64_t out_w = size.data<int32_t>()[1];
    OP_REQUIRES(ctx, out_h > 0 && out_w > 0,
                absl::InvalidArgumentError(absl::StrCat(
                    "output dimensions must be positive, got [", out_h, ",",
                    out_w, "]")));
    T fill = T(0);
    if (num_inputs() > 3) {
      const Tensor& fv = ctx->input(3);
      OP_REQUIRES(ctx, fv.shape().rank() == 0,
                  absl::InvalidArgumentError(absl::StrCat(
                      "fill_value must be a scalar, got shape ",
                      fv.shape().ToString())));
      fill = static_cast<T>(fv.data<float>()[0]);
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(
                            0, TensorShape({batch, out_h, out_w, channels}),
                            &out));
    const T* in = images.data<T>();
    const float* tr = transforms.data<float>();
    const bool per_image = transforms.shape().dim(0) != 1;
    T* o = out->data<T>();
    const bool bilinear = bilinear_;
    const FillMode mode = mode_;
    auto read = [&](int64_t b, int64_t y, int64_t x, int64_t c) -> T {
      return (0 <= y && y < in_h && 0 <= x && x < in_w)
                 ? in[((b * in_h + y) * in_w + x) * channels + c]
                 : fill;
    };
    ParallelForShards(
        ctx, batch * out_h, out_w * channels * 20,
        [&](int64_t r0, int64_t r1) {
          for (int64_t r = r0; r < r1; ++r) {
            const int64_t b = r / out_h;
            const int64_t oy = r % out_h;
            const float* t = per_image ? tr + 8 * b : tr;
            T* row = o + r * out_w * channels;
            for (int64_t ox = 0; ox < out_w; ++ox) {
              T* px = row + ox * channels;
              // int64 coordinates times float, as TensorFlow writes them.
              const float projection = t[6] * ox + t[7] * oy + 1.f;
              if (projection == 0) {
                std::fill_n(px, channels, fill);
                continue;
              }
              const float in_x = (t[0] * ox + t[1] * oy + t[2]) / projection;
              const float in_y = (t[3] * ox + t[4] * oy + t[5]) / projection;
              const float x = MapCoordinate(in_x, in_w, mode);
              const float y = MapCoordinate(in_y, in_h, mode);
              // No range check here: as in TensorFlow, each pixel read
              // (the nearest, or each of the four bilinear corners) is the
              // fill value when it falls outside the image, so a point
              // just outside still blends with (or rounds to) the edge.
              if (!bilinear) {
                const int64_t iy = static_cast<int64_t>(std::round(y));
                const int64_t ix = static_cast<int64_t>(std::round(x));
                for (int64_t c = 0; c < channels; ++c) {
                  px[c] = read(b, iy, ix, c);
                }
                continue;
              }
              const float y_floor = std::floor(y);
              const float x_floor = std::floor(x);
              const float y_ceil = y_floor + 1;
              const float x_ceil = x_floor + 1;
              const int64_t y0 = static_cast<int64_t>(y_floor);
              const int64_t x0 = static_cast<int64_t>(x_floor);
              const int64_t y1 = static_cast<int64_t>(y_ceil);
              const int64_t x1 = static_cast<int64_t>(x_ceil);
              for (int64_t c = 0; c < channels; ++c) {
                const float top =
                    (x_ceil - x) * static_cast<float>(read(b, y0, x0, c)) +
                    (x - x_floor) * static_cast<float>(read(b, y0, x1, c));
                const float bottom =
                    (x_ceil - x) * static_cast<float>(read(b, y1, x0, c)) +
                    (x - x_floor) * static_cast<float>(read(b, y1, x1, c));
                px[c] = static_cast<T>((y_ceil - y) * top +
                                       (y - y_floor) * bottom);
              }
            }
          }
        });
  }

 private:
  bool bilinear_ = false;
  FillMode mode_ = FillMode::kConstant;
};

#define DFLOW_REGISTER_PROJECTIVE(T)                                 \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("ImageProjectiveTransformV2") \
                            .Device(kDeviceCpu)                      \
                            .TypeConstraint<T>("dtype"),             \
                        ImageProjectiveTransformOp<T>);              \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("ImageProjectiveTransformV3") \
                            .Device(kDeviceCpu)                      \
                            .TypeConstraint<T>("dtype"),             \
                        ImageProjectiveTransformOp<T>)
DFLOW_REGISTER_PROJECTIVE(uint8_t);
DFLOW_REGISTER_PROJECTIVE(int32_t);
DFLOW_REGISTER_PROJECTIVE(int64_t);
DFLOW_REGISTER_PROJECTIVE(float);
DFLOW_REGISTER_PROJECTIVE(double);

}  // namespace
}  // namespace dflow
