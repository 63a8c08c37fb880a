// ExtractGlimpse and ExtractGlimpseV2 (graph/ops/image_ops_transform.cc):
// a [h, w] window of each image, its top-left corner at the offset
// converted to pixels as TensorFlow converts it (in float, then truncated
// toward zero):
//   V1: normalized: x *= width; centered: x = x / 2 + width / 2 (also
//       when not normalized); then x -= w / 2 always.
//   V2: normalized and centered: as V1; normalized only: x *= width;
//       centered only: x += width / 2; neither: x as given.
// A window reaching past the image is first filled with noise and then
// gets the part that overlaps the image, placed as TensorFlow places it
// (its quirks included: a window left of the image that is also wider
// than it keeps the overlap at the window's right). Noise "zero" is 0;
// "uniform" and "gaussian" are random in TensorFlow (unseeded), here drawn
// from a fixed-seed generator per kernel so runs repeat.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "kernels/cpu/kernel_util.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

enum class Noise { kZero, kUniform, kGaussian };

class ExtractGlimpseOp : public OpKernel {
 public:
  explicit ExtractGlimpseOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    version_ = type_string() == "ExtractGlimpse" ? 1 : 2;
    bool uniform_noise = false;
    std::string noise;
    ctx->SetStatus(ctx->GetAttr("normalized", &normalized_));
    ctx->SetStatus(ctx->GetAttr("centered", &centered_));
    ctx->SetStatus(ctx->GetAttr("uniform_noise", &uniform_noise));
    ctx->SetStatus(ctx->GetAttr("noise", &noise));
    if (uniform_noise && !noise.empty() && noise != "uniform") {
      ctx->SetStatus(absl::InvalidArgumentError(
          "The uniform_noise and noise could not be specified at the same "
          "time"));
    }
    if (noise.empty()) {
      noise_ = uniform_noise ? Noise::kUniform : Noise::kGaussian;
    } else if (noise == "uniform") {
      noise_ = Noise::kUniform;
    } else if (noise == "gaussian") {
      noise_ = Noise::kGaussian;
    } else if (noise == "zero") {
      noise_ = Noise::kZero;
    } else {
      ctx->SetStatus(absl::InvalidArgumentError(absl::StrCat(
          "The noise could only be uniform, gaussian, or zero, got '", noise,
          "'")));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& size = ctx->input(1);
    const Tensor& offsets = ctx->input(2);
    const TensorShape& s = input.shape();
    OP_REQUIRES(ctx, s.rank() == 4,
                absl::InvalidArgumentError(absl::StrCat(
                    "input must be 4-dimensional (batch_size, height, width, "
                    "depth), got shape ",
                    s.ToString())));
    const int64_t batch = s.dim(0), in_h = s.dim(1), in_w = s.dim(2),
                  depth = s.dim(3);
    OP_REQUIRES(ctx, size.shape().rank() == 1 && size.NumElements() == 2,
                absl::InvalidArgumentError(absl::StrCat(
                    "size must be a vector of size 2 (height, width), got "
                    "shape ",
                    size.shape().ToString())));
    const int64_t h = size.data<int32_t>()[0];
    const int64_t w = size.data<int32_t>()[1];
    OP_REQUIRES(ctx, h >= 0 && w >= 0,
                absl::InvalidArgumentError(absl::StrCat(
                    "size must be non-negative, got [", h, ",", w, "]")));
    OP_REQUIRES(ctx,
                offsets.shape().rank() == 2 &&
                    offsets.shape().dim(0) == batch &&
                    offsets.shape().dim(1) == 2,
                absl::InvalidArgumentError(absl::StrCat(
                    "offsets must be [batch, 2] (y, x) with batch ", batch,
                    ", got shape ", offsets.shape().ToString())));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(
                            0, TensorShape({batch, h, w, depth}), &out));
    if (out->NumElements() == 0) return;
    OP_REQUIRES(ctx, in_h > 0 && in_w > 0,
                absl::InvalidArgumentError(absl::StrCat(
                    "input images must not be empty, got shape ",
                    s.ToString())));
    const float* in = input.data<float>();
    const float* off = offsets.data<float>();
    float* o = out->data<float>();
    for (int64_t b = 0; b < batch; ++b) {
      const float* image = in + b * in_h * in_w * depth;
      float* glimpse = o + b * h * w * depth;
      float y = off[2 * b], x = off[2 * b + 1];
      if (version_ == 1) {
        if (normalized_) {
          x *= in_w;
          y *= in_h;
        }
        if (centered_) {
          x /= 2.0f;
          y /= 2.0f;
          x += in_w / 2.0f;
          y += in_h / 2.0f;
        }
        x -= w / 2.0f;
        y -= h / 2.0f;
      } else if (normalized_) {
        x *= in_w;
        y *= in_h;
        if (centered_) {
          x /= 2.0f;
          y /= 2.0f;
          x += in_w / 2.0f;
          y += in_h / 2.0f;
          x -= w / 2.0f;
          y -= h / 2.0f;
        }
      } else if (centered_) {
        x += in_w / 2.0f;
        y += in_h / 2.0f;
      }
      // Placement of the overlap, per axis: TensorFlow's rules.
      int64_t src_x = static_cast<int64_t>(x), src_y = static_cast<int64_t>(y);
      int64_t ext_x = w, ext_y = h, dst_x = 0, dst_y = 0;
      bool partial = false;
      Axis(in_w, w, &src_x, &ext_x, &dst_x, &partial);
      Axis(in_h, h, &src_y, &ext_y, &dst_y, &partial);
      if (partial) FillNoise(image, in_h * in_w, depth, h * w, glimpse);
      if (ext_x <= 0 || ext_y <= 0) continue;
      for (int64_t r = 0; r < ext_y; ++r) {
        std::copy_n(image + ((src_y + r) * in_w + src_x) * depth,
                    ext_x * depth,
                    glimpse + ((dst_y + r) * w + dst_x) * depth);
      }
    }
  }

 private:
  // One axis of length `len` and window `win` with its (truncated) start
  // `*src`: the extent of the overlap, its start in the image and in the
  // window.
  static void Axis(int64_t len, int64_t win, int64_t* src, int64_t* ext,
                   int64_t* dst, bool* partial) {
    const int64_t start = *src;
    int64_t covered = win;
    if (start < 0) {
      *src = 0;
      covered = std::max<int64_t>(0, win + start);
      *dst = win - covered;
      *partial = true;
    } else if (start + win >= len) {
      covered = std::max<int64_t>(0, len - start);
      *partial = true;
    }
    *ext = std::min(len, covered);
  }

  void FillNoise(const float* image, int64_t pixels, int64_t depth,
                 int64_t out_pixels, float* glimpse) {
    if (noise_ == Noise::kZero) {
      std::fill_n(glimpse, out_pixels * depth, 0.0f);
      return;
    }
    absl::MutexLock lock(&mu_);
    if (noise_ == Noise::kUniform) {
      // Uniform in [min, max) of the whole image.
      const auto [lo, hi] = std::minmax_element(image, image + pixels * depth);
      std::uniform_real_distribution<float> u(0.0f, 1.0f);
      const float range = *hi - *lo;
      for (int64_t i = 0; i < out_pixels * depth; ++i) {
        glimpse[i] = *lo + u(rng_) * range;
      }
      return;
    }
    // Gaussian with each channel's mean and deviation, clipped to the
    // channel's range.
    for (int64_t c = 0; c < depth; ++c) {
      double sum = 0, sq = 0;
      float lo = image[c], hi = image[c];
      for (int64_t p = 0; p < pixels; ++p) {
        const float v = image[p * depth + c];
        sum += v;
        lo = std::min(lo, v);
        hi = std::max(hi, v);
      }
      const float mean = static_cast<float>(sum / pixels);
      for (int64_t p = 0; p < pixels; ++p) {
        const double d = image[p * depth + c] - mean;
        sq += d * d;
      }
      const float sigma = static_cast<float>(std::sqrt(sq / pixels));
      std::normal_distribution<float> n(0.0f, 1.0f);
      for (int64_t p = 0; p < out_pixels; ++p) {
        glimpse[p * depth + c] =
            std::min(hi, std::max(lo, mean + n(rng_) * sigma));
      }
    }
  }

  int version_ = 2;
  bool normalized_ = true;
  bool centered_ = true;
  Noise noise_ = Noise::kUniform;
  absl::Mutex mu_;
  std::mt19937 rng_ ABSL_GUARDED_BY(mu_){20260101};
};

DFLOW_REGISTER_KERNEL(KernelDefBuilder("ExtractGlimpse").Device(kDeviceCpu),
                      ExtractGlimpseOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("ExtractGlimpseV2").Device(kDeviceCpu),
                      ExtractGlimpseOp);

}  // namespace
}  // namespace dflow
