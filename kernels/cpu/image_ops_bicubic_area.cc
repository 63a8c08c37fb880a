// CPU kernels for ResizeBicubic, ResizeBicubicGrad and ResizeArea (NHWC)
// with TensorFlow 2.21's arithmetic (core/kernels/image/
// resize_bicubic_op.cc, resize_area_op.cc), so results match TensorFlow's.
//
// Bicubic: output index i samples the input at p = i * scale (legacy) or
// (i + 0.5) * scale - 0.5 (half_pixel_centers), scale = in / out, or
// (in - 1) / (out - 1) with align_corners and out > 1. The four taps
// floor(p) - 1 .. floor(p) + 2 are clamped to the image and weighted by a
// cubic convolution kernel read from a 1025-entry table at the fraction of
// p rounded to 1/1024: a = -0.75 (legacy), or Keys' a = -0.5 with
// half_pixel_centers, where a tap outside the image gets weight 0 and the
// weights are renormalized. Rows are interpolated along x, then along y,
// in float. The gradient scatters each incoming value to the 4 x 4 taps
// with the product of their weights.
//
// Area: output pixel (y, x) covers input [y * sy, (y + 1) * sy) x
// [x * sx, (x + 1) * sx) (scales as above, no half-pixel offset); each
// input pixel counts with its overlap (indices clamped to the image), and
// the sum is divided by sy * sx.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/tensor.h"
#include "graph/types.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

template <typename T>
float AsFloat(T v) {
  if constexpr (std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>) {
    return v.ToFloat();
  } else {
    return static_cast<float>(v);
  }
}

float Scale(int64_t in, int64_t out, bool align_corners) {
  return (align_corners && out > 1)
             ? static_cast<float>(in - 1) / static_cast<float>(out - 1)
             : static_cast<float>(in) / static_cast<float>(out);
}

// size: two positive int32 values.
absl::Status ReadSize(const Tensor& size, int64_t* h, int64_t* w) {
  if (size.shape().rank() != 1 || size.NumElements() != 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "size must be a vector of 2 values (height, width), got shape ",
        size.shape().ToString()));
  }
  *h = size.data<int32_t>()[0];
  *w = size.data<int32_t>()[1];
  if (*h < 1 || *w < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "size [", *h, ",", *w, "] must be positive in both dimensions"));
  }
  return absl::OkStatus();
}

absl::Status CheckImages(const TensorShape& s, const char* name) {
  if (s.rank() != 4) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, " must be 4-D [batch, height, width, channels], ",
                     "but has shape ", s.ToString()));
  }
  if (s.dim(1) < 1 || s.dim(2) < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        name, " ", s.ToString(), " must have a non-empty height and width"));
  }
  return absl::OkStatus();
}

absl::Status ReadAlignment(OpKernelConstruction* ctx, bool has_half_pixel,
                           bool* align_corners, bool* half_pixel_centers) {
  absl::Status s = ctx->GetAttr("align_corners", align_corners);
  if (s.ok() && has_half_pixel) {
    s = ctx->GetAttr("half_pixel_centers", half_pixel_centers);
  }
  if (s.ok() && *align_corners && *half_pixel_centers) {
    s = absl::InvalidArgumentError(
        "align_corners and half_pixel_centers cannot both be true");
  }
  return s;
}

// --- Bicubic. ---

constexpr int kTableSize = 1024;

// The cubic convolution kernel at |t| = x (taps 0..1 away, index 2 * i)
// and 1 + x (taps 1..2 away, index 2 * i + 1), x = i / kTableSize.
std::vector<float> CubicTable(float a) {
  std::vector<float> t((kTableSize + 1) * 2);
  for (int i = 0; i <= kTableSize; ++i) {
    float x = static_cast<float>(i * 1.0 / kTableSize);
    t[i * 2] = ((a + 2) * x - (a + 3)) * x * x + 1;
    x += 1.0f;
    t[i * 2 + 1] = ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
  }
  return t;
}

const std::vector<float>& Table(bool keys) {
  static const std::vector<float>* legacy =
      new std::vector<float>(CubicTable(-0.75f));
  static const std::vector<float>* keys_table =
      new std::vector<float>(CubicTable(-0.5f));
  return keys ? *keys_table : *legacy;
}

struct Taps {
  std::array<int64_t, 4> index;
  std::array<float, 4> weight;
};

std::vector<Taps> BicubicTaps(int64_t in, int64_t out, float scale,
                              bool half_pixel) {
  const std::vector<float>& table = Table(half_pixel);
  std::vector<Taps> taps(out);
  for (int64_t i = 0; i < out; ++i) {
    const float p = half_pixel ? (static_cast<float>(i) + 0.5f) * scale - 0.5f
                               : static_cast<float>(i) * scale;
    const int64_t base = static_cast<int64_t>(std::floor(p));
    const int64_t off = lrintf((p - static_cast<float>(base)) * kTableSize);
    Taps& t = taps[i];
    t.weight = {table[off * 2 + 1], table[off * 2],
                table[(kTableSize - off) * 2],
                table[(kTableSize - off) * 2 + 1]};
    for (int k = 0; k < 4; ++k) {
      const int64_t at = base - 1 + k;
      t.index[k] = std::min(in - 1, std::max(int64_t{0}, at));
      if (half_pixel && t.index[k] != at) t.weight[k] = 0.0f;
    }
    if (half_pixel) {
      const float sum = t.weight[0] + t.weight[1] + t.weight[2] + t.weight[3];
      if (std::abs(sum) >= 1000.0f * std::numeric_limits<float>::min()) {
        const float inv = 1.0f / sum;
        for (float& w : t.weight) w *= inv;
      }
    }
  }
  return taps;
}

float Cubic(const std::array<float, 4>& w, float v0, float v1, float v2,
            float v3) {
  return v0 * w[0] + v1 * w[1] + v2 * w[2] + v3 * w[3];
}

template <typename T>
class ResizeBicubicOp : public OpKernel {
 public:
  explicit ResizeBicubicOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ReadAlignment(ctx, true, &align_, &half_pixel_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& images = ctx->input(0);
    OP_REQUIRES_OK(ctx, CheckImages(images.shape(), "images"));
    int64_t oh = 0, ow = 0;
    OP_REQUIRES_OK(ctx, ReadSize(ctx->input(1), &oh, &ow));
    const int64_t n = images.shape().dim(0), ih = images.shape().dim(1),
                  iw = images.shape().dim(2), c = images.shape().dim(3);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx,
                   ctx->allocate_output(0, TensorShape({n, oh, ow, c}), &out));
    const std::vector<Taps> ys =
        BicubicTaps(ih, oh, Scale(ih, oh, align_), half_pixel_);
    const std::vector<Taps> xs =
        BicubicTaps(iw, ow, Scale(iw, ow, align_), half_pixel_);
    const T* in = images.data<T>();
    float* o = out->data<float>();
    std::array<float, 4> rows;
    for (int64_t b = 0; b < n; ++b) {
      const T* img = in + b * ih * iw * c;
      for (int64_t y = 0; y < oh; ++y) {
        const Taps& ty = ys[y];
        for (int64_t x = 0; x < ow; ++x) {
          const Taps& tx = xs[x];
          float* dst = o + ((b * oh + y) * ow + x) * c;
          for (int64_t ch = 0; ch < c; ++ch) {
            for (int k = 0; k < 4; ++k) {
              const T* row = img + ty.index[k] * iw * c + ch;
              rows[k] = Cubic(tx.weight, AsFloat(row[tx.index[0] * c]),
                              AsFloat(row[tx.index[1] * c]),
                              AsFloat(row[tx.index[2] * c]),
                              AsFloat(row[tx.index[3] * c]));
            }
            dst[ch] = Cubic(ty.weight, rows[0], rows[1], rows[2], rows[3]);
          }
        }
      }
    }
  }

 private:
  bool align_ = false, half_pixel_ = false;
};

template <typename T>
class ResizeBicubicGradOp : public OpKernel {
 public:
  explicit ResizeBicubicGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ReadAlignment(ctx, true, &align_, &half_pixel_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& grads = ctx->input(0);
    const Tensor& original = ctx->input(1);
    OP_REQUIRES_OK(ctx, CheckImages(grads.shape(), "grads"));
    OP_REQUIRES_OK(ctx, CheckImages(original.shape(), "original_image"));
    const TensorShape& gs = grads.shape();
    const TensorShape& os = original.shape();
    OP_REQUIRES(ctx, gs.dim(0) == os.dim(0) && gs.dim(3) == os.dim(3),
                absl::InvalidArgumentError(absl::StrCat(
                    "grads ", gs.ToString(), " and original_image ",
                    os.ToString(), " must have the same batch and channels")));
    const int64_t n = gs.dim(0), oh = gs.dim(1), ow = gs.dim(2), c = gs.dim(3);
    const int64_t ih = os.dim(1), iw = os.dim(2);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, os, &out));
    T* dst = out->data<T>();
    std::fill(dst, dst + out->NumElements(), T(0));
    const std::vector<Taps> ys =
        BicubicTaps(ih, oh, Scale(ih, oh, align_), half_pixel_);
    const std::vector<Taps> xs =
        BicubicTaps(iw, ow, Scale(iw, ow, align_), half_pixel_);
    const float* g = grads.data<float>();
    for (int64_t b = 0; b < n; ++b) {
      T* img = dst + b * ih * iw * c;
      for (int64_t y = 0; y < oh; ++y) {
        const Taps& ty = ys[y];
        for (int64_t x = 0; x < ow; ++x) {
          const Taps& tx = xs[x];
          const float* src = g + ((b * oh + y) * ow + x) * c;
          for (int ky = 0; ky < 4; ++ky) {
            for (int kx = 0; kx < 4; ++kx) {
              T* px = img + (ty.index[ky] * iw + tx.index[kx]) * c;
              const float w = ty.weight[ky] * tx.weight[kx];
              for (int64_t ch = 0; ch < c; ++ch) {
                px[ch] += static_cast<T>(src[ch] * w);
              }
            }
          }
        }
      }
    }
  }

 private:
  bool align_ = false, half_pixel_ = false;
};

// --- Area. ---

// The input cells [start, end) under output cell i and the overlap of each.
struct AreaSpan {
  int64_t start = 0;
  std::vector<float> overlap;
};

std::vector<AreaSpan> AreaSpans(int64_t out, float scale) {
  std::vector<AreaSpan> spans(out);
  for (int64_t i = 0; i < out; ++i) {
    const float lo = static_cast<float>(i) * scale;
    const float hi = static_cast<float>(i + 1) * scale;
    const int64_t start = static_cast<int64_t>(std::floor(lo));
    const int64_t end = static_cast<int64_t>(std::ceil(hi));
    spans[i].start = start;
    for (int64_t k = start; k < end; ++k) {
      const float kf = static_cast<float>(k);
      float o;
      if (kf < lo) {
        o = kf + 1 > hi ? scale : kf + 1 - lo;
      } else {
        o = kf + 1 > hi ? hi - kf : 1.0f;
      }
      spans[i].overlap.push_back(o);
    }
  }
  return spans;
}

template <typename T>
class ResizeAreaOp : public OpKernel {
 public:
  explicit ResizeAreaOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    bool unused = false;
    OP_REQUIRES_OK(ctx, ReadAlignment(ctx, false, &align_, &unused));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& images = ctx->input(0);
    OP_REQUIRES_OK(ctx, CheckImages(images.shape(), "images"));
    int64_t oh = 0, ow = 0;
    OP_REQUIRES_OK(ctx, ReadSize(ctx->input(1), &oh, &ow));
    const int64_t n = images.shape().dim(0), ih = images.shape().dim(1),
                  iw = images.shape().dim(2), c = images.shape().dim(3);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx,
                   ctx->allocate_output(0, TensorShape({n, oh, ow, c}), &out));
    const float sy = Scale(ih, oh, align_), sx = Scale(iw, ow, align_);
    const std::vector<AreaSpan> ys = AreaSpans(oh, sy), xs = AreaSpans(ow, sx);
    const float inv_area = 1.0f / (sy * sx);
    const T* in = images.data<T>();
    float* o = out->data<float>();
    std::vector<float> acc(c), row(c);
    for (int64_t b = 0; b < n; ++b) {
      const T* img = in + b * ih * iw * c;
      for (int64_t y = 0; y < oh; ++y) {
        const AreaSpan& span_y = ys[y];
        for (int64_t x = 0; x < ow; ++x) {
          const AreaSpan& span_x = xs[x];
          std::fill(acc.begin(), acc.end(), 0.0f);
          for (size_t ky = 0; ky < span_y.overlap.size(); ++ky) {
            const int64_t iy = std::min<int64_t>(
                span_y.start + static_cast<int64_t>(ky), ih - 1);
            std::fill(row.begin(), row.end(), 0.0f);
            for (size_t kx = 0; kx < span_x.overlap.size(); ++kx) {
              const int64_t ix = std::min<int64_t>(
                  span_x.start + static_cast<int64_t>(kx), iw - 1);
              const T* px = img + (iy * iw + ix) * c;
              const float w = span_x.overlap[kx];
              for (int64_t ch = 0; ch < c; ++ch) row[ch] += AsFloat(px[ch]) * w;
            }
            const float wy = span_y.overlap[ky];
            for (int64_t ch = 0; ch < c; ++ch) acc[ch] += row[ch] * wy;
          }
          float* dst = o + ((b * oh + y) * ow + x) * c;
          for (int64_t ch = 0; ch < c; ++ch) dst[ch] = acc[ch] * inv_area;
        }
      }
    }
  }

 private:
  bool align_ = false;
};

#define DFLOW_REGISTER_RESIZE_BICUBIC_AREA(T)             \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("ResizeBicubic") \
                            .Device(kDeviceCpu)           \
                            .TypeConstraint<T>("T")       \
                            .HostMemory("size"),          \
                        ResizeBicubicOp<T>);              \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("ResizeArea")    \
                            .Device(kDeviceCpu)           \
                            .TypeConstraint<T>("T")       \
                            .HostMemory("size"),          \
                        ResizeAreaOp<T>)

DFLOW_REGISTER_RESIZE_BICUBIC_AREA(int8_t);
DFLOW_REGISTER_RESIZE_BICUBIC_AREA(uint8_t);
DFLOW_REGISTER_RESIZE_BICUBIC_AREA(int16_t);
DFLOW_REGISTER_RESIZE_BICUBIC_AREA(uint16_t);
DFLOW_REGISTER_RESIZE_BICUBIC_AREA(int32_t);
DFLOW_REGISTER_RESIZE_BICUBIC_AREA(int64_t);
DFLOW_REGISTER_RESIZE_BICUBIC_AREA(float16);
DFLOW_REGISTER_RESIZE_BICUBIC_AREA(bfloat16);
DFLOW_REGISTER_RESIZE_BICUBIC_AREA(float);
DFLOW_REGISTER_RESIZE_BICUBIC_AREA(double);
#undef DFLOW_REGISTER_RESIZE_BICUBIC_AREA

DFLOW_REGISTER_KERNEL(KernelDefBuilder("ResizeBicubicGrad")
                          .Device(kDeviceCpu)
                          .TypeConstraint<float>("T"),
                      ResizeBicubicGradOp<float>);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("ResizeBicubicGrad")
                          .Device(kDeviceCpu)
                          .TypeConstraint<double>("T"),
                      ResizeBicubicGradOp<double>);

}  // namespace
}  // namespace dflow
