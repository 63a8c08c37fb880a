// CPU kernels for RGBToHSV, HSVToRGB, AdjustHue and AdjustSaturation on
// [..., 3] images, with TensorFlow 2.21's arithmetic (core/kernels/image/
// colorspace_op.h, adjust_hue_op.cc, adjust_saturation_op.cc):
//
// RGBToHSV: v = max, range = max - min, s = range / v (0 when v is 0),
// h = ((g - b), (b - r) + 2, (r - g) + 4 by the maximum channel, r first) /
// (6 * range), 0 when range is 0, plus 1 when negative. HSVToRGB: the
// inverse through the sector floor(6h). Both compute in T (float, double;
// half and bfloat16 in float).
//
// AdjustHue works on the hue sector and the value range directly: h in
// [0, 6) from the order of r, g, b, turned by 6 * delta and wrapped back
// into [0, 6), then rebuilt from min, max and the mid channel.
// AdjustSaturation goes to HSV, scales s (clamped to [0, 1]) and back, in
// float.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "graph/tensor.h"
#include "graph/types.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

// The compute type of T and conversions.
template <typename T>
using ComputeType =
    std::conditional_t<std::is_same_v<T, double>, double, float>;

template <typename T>
ComputeType<T> Load(T v) {
  if constexpr (std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>) {
    return v.ToFloat();
  } else {
    return v;
  }
}

template <typename T>
T Store(ComputeType<T> v) {
  if constexpr (std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>) {
    return T::FromFloat(v);
  } else {
    return v;
  }
}

absl::Status CheckChannels(const TensorShape& s, int min_rank) {
  if (s.rank() < min_rank || s.dim(s.rank() - 1) != 3) {
    return absl::InvalidArgumentError(
        absl::StrCat("images must have rank >= ", min_rank,
                     " and 3 channels in the last dimension, but have shape ",
                     s.ToString()));
  }
  return absl::OkStatus();
}

template <typename F>
void RgbToHsv(F r, F g, F b, F* h, F* s, F* v) {
  const F vv = std::max(r, std::max(g, b));
  const F range = vv - std::min(r, std::min(g, b));
  *s = vv > F(0) ? range / vv : F(0);
  const F norm = F(1) / (F(6) * range);
  F hh;
  if (r == vv) {
    hh = norm * (g - b);
  } else if (g == vv) {
    hh = norm * (b - r) + F(2) / F(6);
  } else {
    hh = norm * (r - g) + F(4) / F(6);
  }
  if (!(range > F(0))) hh = F(0);
  if (hh < F(0)) hh += F(1);
  *h = hh;
  *v = vv;
}

template <typename F>
void HsvToRgb(F h, F s, F v, F* r, F* g, F* b) {
  const F c = s * v;
  const F m = v - c;
  const F dh = h * F(6);
  const int sector = static_cast<int>(std::floor(dh));
  F fmodu = std::fmod(dh, F(2));
  if (fmodu < F(0)) fmodu += F(2);
  const F x = c * (F(1) - std::abs(fmodu - F(1)));
  F rr = 0, gg = 0, bb = 0;
  switch (sector) {
    case 0:
      rr = c;
      gg = x;
      break;
    case 1:
      rr = x;
      gg = c;
      break;
    case 2:
      gg = c;
      bb = x;
      break;
    case 3:
      gg = x;
      bb = c;
      break;
    case 4:
      rr = x;
      bb = c;
      break;
    case 5:
      rr = c;
      bb = x;
      break;
    default:
      break;
  }
  *r = rr + m;
  *g = gg + m;
  *b = bb + m;
}

template <typename T, bool kToHsv>
class ColorSpaceOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& images = ctx->input(0);
    OP_REQUIRES_OK(ctx, CheckChannels(images.shape(), 1));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, images.shape(), &out));
    const T* in = images.data<T>();
    T* o = out->data<T>();
    const int64_t pixels = images.NumElements() / 3;
    using F = ComputeType<T>;
    for (int64_t i = 0; i < pixels; ++i) {
      const F a = Load(in[3 * i]), b = Load(in[3 * i + 1]),
              c = Load(in[3 * i + 2]);
      F x, y, z;
      if constexpr (kToHsv) {
        RgbToHsv(a, b, c, &x, &y, &z);
      } else {
        HsvToRgb(a, b, c, &x, &y, &z);
      }
      o[3 * i] = Store<T>(x);
      o[3 * i + 1] = Store<T>(y);
      o[3 * i + 2] = Store<T>(z);
    }
  }
};

// The scalar float input 1 (delta or scale).
absl::Status ReadScalar(const Tensor& t, const char* name, float* v) {
  if (t.shape().rank() != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        name, " must be a scalar, but has shape ", t.shape().ToString()));
  }
  *v = t.data<float>()[0];
  return absl::OkStatus();
}

// Hue in sectors [0, 6) and the value range of an RGB pixel.
void RgbToHueRange(float r, float g, float b, float* h, float* lo, float* hi) {
  float mid;
  int sector;
  if (r < g) {
    if (b < r) {
      *hi = g, mid = r, *lo = b, sector = 1;
    } else if (b > g) {
      *hi = b, mid = g, *lo = r, sector = 3;
    } else {
      *hi = g, mid = b, *lo = r, sector = 2;
    }
  } else {
    if (b < g) {
      *hi = r, mid = g, *lo = b, sector = 0;
    } else if (b > r) {
      *hi = b, mid = r, *lo = g, sector = 4;
    } else {
      *hi = r, mid = b, *lo = g, sector = 5;
    }
  }
  if (*hi == *lo) {
    *h = 0;
    return;
  }
  const float ratio = (mid - *lo) / (*hi - *lo);
  *h = static_cast<float>(sector) + ((sector & 1) == 0 ? ratio : 1 - ratio);
}

void HueRangeToRgb(float h, float lo, float hi, float* r, float* g, float* b) {
  const int sector = static_cast<int>(h);
  float ratio = h - static_cast<float>(sector);
  if ((sector & 1) != 0) ratio = 1 - ratio;
  const float mid = lo + ratio * (hi - lo);
  switch (sector) {
    case 0:
      *r = hi, *g = mid, *b = lo;
      break;
    case 1:
      *r = mid, *g = hi, *b = lo;
      break;
    case 2:
      *r = lo, *g = hi, *b = mid;
      break;
    case 3:
      *r = lo, *g = mid, *b = hi;
      break;
    case 4:
      *r = mid, *g = lo, *b = hi;
      break;
    default:
      *r = hi, *g = lo, *b = mid;
      break;
  }
}

template <typename T, bool kHue>
class AdjustHsvOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& images = ctx->input(0);
    OP_REQUIRES_OK(ctx, CheckChannels(images.shape(), 3));
    float amount = 0;
    OP_REQUIRES_OK(
        ctx, ReadScalar(ctx->input(1), kHue ? "delta" : "scale", &amount));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, images.shape(), &out));
    const T* in = images.data<T>();
    T* o = out->data<T>();
    const int64_t pixels = images.NumElements() / 3;
    for (int64_t i = 0; i < pixels; ++i) {
      const float r = Load(in[3 * i]), g = Load(in[3 * i + 1]),
                  b = Load(in[3 * i + 2]);
      float x, y, z;
      if constexpr (kHue) {
        float h, lo, hi;
        RgbToHueRange(r, g, b, &h, &lo, &hi);
        h += amount * 6.0f;
        while (h < 0) h += 6.0f;
        while (h >= 6.0f) h -= 6.0f;
        HueRangeToRgb(h, lo, hi, &x, &y, &z);
      } else {
        float h, s, v;
        RgbToHsv(r, g, b, &h, &s, &v);
        s = std::min(1.0f, std::max(0.0f, s * amount));
        HsvToRgb(h, s, v, &x, &y, &z);
      }
      o[3 * i] = Store<T>(x);
      o[3 * i + 1] = Store<T>(y);
      o[3 * i + 2] = Store<T>(z);
    }
  }
};

#define DFLOW_REGISTER_COLOR(OP, T, ...)                              \
  DFLOW_REGISTER_KERNEL(                                              \
      KernelDefBuilder(OP).Device(kDeviceCpu).TypeConstraint<T>("T"), \
      __VA_ARGS__)

DFLOW_REGISTER_COLOR("RGBToHSV", float, ColorSpaceOp<float, true>);
DFLOW_REGISTER_COLOR("RGBToHSV", double, ColorSpaceOp<double, true>);
DFLOW_REGISTER_COLOR("RGBToHSV", float16, ColorSpaceOp<float16, true>);
DFLOW_REGISTER_COLOR("RGBToHSV", bfloat16, ColorSpaceOp<bfloat16, true>);
DFLOW_REGISTER_COLOR("HSVToRGB", float, ColorSpaceOp<float, false>);
DFLOW_REGISTER_COLOR("HSVToRGB", double, ColorSpaceOp<double, false>);
DFLOW_REGISTER_COLOR("HSVToRGB", float16, ColorSpaceOp<float16, false>);
DFLOW_REGISTER_COLOR("HSVToRGB", bfloat16, ColorSpaceOp<bfloat16, false>);
DFLOW_REGISTER_COLOR("AdjustHue", float, AdjustHsvOp<float, true>);
DFLOW_REGISTER_COLOR("AdjustHue", float16, AdjustHsvOp<float16, true>);
DFLOW_REGISTER_COLOR("AdjustSaturation", float, AdjustHsvOp<float, false>);
DFLOW_REGISTER_COLOR("AdjustSaturation", float16, AdjustHsvOp<float16, false>);

#undef DFLOW_REGISTER_COLOR

}  // namespace
}  // namespace dflow
