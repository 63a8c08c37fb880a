// ScaleAndTranslate and ScaleAndTranslateGrad on CPU with TensorFlow 2.21's
// arithmetic (core/kernels/image/scale_and_translate_op.cc and
// sampling_kernels.h): what tf.image.resize writes for lanczos3,
// lanczos5, gaussian and mitchellcubic, and for antialiased resizes.
//
// Each output index x of a dimension samples the input at
//   s = (x + 0.5) / scale - translate / scale
// (nothing when s is outside [0, size]) with a filter kernel of radius r,
// widened by 1 / scale when antialiasing a downscale: input pixels i with
// ceil(s - r' - 0.5) <= i <= floor(s + r' - 0.5) (clamped to the image),
// weights kernel(|i + 0.5 - s| / kernel_scale) normalized to sum 1 (left
// 0 when the sum is ~0). Rows are filtered first into a float
// intermediate, then columns, accumulating in float in span order. The
// gradient runs the transposed spans (each input pixel gathers the
// outputs it fed, by ascending output index) through the same passes.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/tensor.h"
#include "graph/types.h"
#include "kernels/cpu/kernel_util.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

enum class Kernel {
  kLanczos1,
  kLanczos3,
  kLanczos5,
  kGaussian,
  kBox,
  kTriangle,
  kKeysCubic,
  kMitchellCubic,
  kInvalid
};

Kernel KernelFromName(const std::string& s) {
  if (s == "lanczos1") return Kernel::kLanczos1;
  if (s == "lanczos3") return Kernel::kLanczos3;
  if (s == "lanczos5") return Kernel::kLanczos5;
  if (s == "gaussian") return Kernel::kGaussian;
  if (s == "box") return Kernel::kBox;
  if (s == "triangle") return Kernel::kTriangle;
  if (s == "keyscubic") return Kernel::kKeysCubic;
  if (s == "mitchellcubic") return Kernel::kMitchellCubic;
  return Kernel::kInvalid;
}

float Radius(Kernel k) {
  switch (k) {
    case Kernel::kLanczos3:
      return 3.0f;
    case Kernel::kLanczos5:
      return 5.0f;
    case Kernel::kGaussian:
      return 1.5f;
    case Kernel::kKeysCubic:
    case Kernel::kMitchellCubic:
      return 2.0f;
    default:
      return 1.0f;
  }
}

// The filter at distance x, in TensorFlow's precision (the Gaussian's
// exponent in double, as its 2.0 literal makes it).
float Weight(Kernel k, float x) {
  x = std::abs(x);
  switch (k) {
    case Kernel::kLanczos1:
    case Kernel::kLanczos3:
    case Kernel::kLanczos5: {
      constexpr float kPi = 3.14159265359f;
      const float r = Radius(k);
      if (x > r) return 0.0f;
      if (x <= 1e-3f) return 1.0f;
      return r * std::sin(kPi * x) * std::sin(kPi * x / r) / (kPi * kPi * x * x);
    }
    case Kernel::kGaussian: {
      const float radius = 1.5f, sigma = radius / 3.0f;
      if (x >= radius) return 0.0f;
      return static_cast<float>(std::exp(-x * x / (2.0 * sigma * sigma)));
    }
    case Kernel::kBox:
      return x < 0.5f ? 1.0f : (x == 0.5f ? 0.5f : 0.0f);
    case Kernel::kTriangle:
      return x < 1.0f ? 1.0f - x : 0.0f;
    case Kernel::kKeysCubic:
      if (x >= 2.0f) return 0.0f;
      if (x >= 1.0f) return ((-0.5f * x + 2.5f) * x - 4.0f) * x + 2.0f;
      return ((1.5f * x - 2.5f) * x) * x + 1.0f;
    case Kernel::kMitchellCubic:
      if (x >= 2.0f) return 0.0f;
      if (x >= 1.0f) {
        return (((-7.0f / 18.0f) * x + 2.0f) * x - 10.0f / 3.0f) * x +
               16.0f / 9.0f;
      }
      return (((7.0f / 6.0f) * x - 2.0f) * x) * x + 8.0f / 9.0f;
    default:
      return 0.0f;
  }
}

// For each output index: the first input index and span_size weights.
struct Spans {
  int span_size = 0;
  std::vector<int32_t> starts;
  std::vector<float> weights;
};

Spans ComputeSpans(Kernel k, int64_t out_size, int64_t in_size, float scale,
                   float translate, bool antialias) {
  const float inv_scale = 1.0 / scale;
  const float inv_translate = -inv_scale * translate;
  const float kernel_scale = antialias ? std::max(inv_scale, 1.0f) : 1.0f;
  const float radius = Radius(k);
  Spans spans;
  spans.span_size = static_cast<int>(
      std::min<int64_t>(2 * static_cast<int>(std::ceil(radius * kernel_scale)) + 1,
                        in_size));
  spans.starts.assign(out_size, 0);
  spans.weights.assign(spans.span_size * out_size, 0.0f);
  const float one_over_kernel_scale = 1.0f / kernel_scale;
  std::vector<float> temp;
  for (int64_t x = 0; x < out_size; ++x) {
    const float sample = (static_cast<float>(x) + 0.5f) * inv_scale + inv_translate;
    // Written so that a NaN sample is skipped too.
    if (!(sample >= 0 && sample <= static_cast<float>(in_size))) continue;
    int64_t start = static_cast<int64_t>(
        std::ceil(sample - radius * kernel_scale - 0.5f));
    int64_t end = static_cast<int64_t>(
        std::floor(sample + radius * kernel_scale - 0.5f));
    start = std::min(std::max<int64_t>(start, 0), in_size - 1);
    end = std::min(std::max<int64_t>(end, 0), in_size - 1) + 1;
    float total = 0.0f;
    temp.clear();
    for (int64_t i = start; i < end; ++i) {
      const float pos = static_cast<float>(i) + 0.5f - sample;
      const float w = Weight(k, std::abs(pos * one_over_kernel_scale));
      total += w;
      temp.push_back(w);
    }
    // The span never exceeds span_size: its ends are within r' of s.
    if (std::abs(total) >= 1000.0f * std::numeric_limits<float>::min()) {
      const float inv_total = 1.0f / total;
      for (size_t j = 0; j < temp.size() && j < static_cast<size_t>(spans.span_size);
           ++j) {
        spans.weights[x * spans.span_size + j] = temp[j] * inv_total;
      }
    }
    spans.starts[x] = static_cast<int32_t>(start);
  }
  return spans;
}

// The transposed spans: for each forward input index, the forward outputs
// it contributed to (ascending) and their weights.
Spans GradSpans(const Spans& forward, int64_t forward_out, int64_t forward_in) {
  struct Part {
    int64_t index;
    float weight;
  };
  std::vector<std::vector<Part>> parts(forward_in);
  for (int64_t o = 0; o < forward_out; ++o) {
    int64_t in = forward.starts[o];
    for (int j = 0; j < forward.span_size; ++j, ++in) {
      const float w = forward.weights[o * forward.span_size + j];
      if (w != 0.0f && in < forward_in) parts[in].push_back({o, w});
    }
  }
  int64_t max_size = 0;
  for (std::vector<Part>& p : parts) {
    if (p.empty()) continue;
    std::sort(p.begin(), p.end(),
              [](const Part& a, const Part& b) { return a.index < b.index; });
    max_size = std::max(max_size, p.back().index - p.front().index + 1);
  }
  Spans g;
  g.span_size = static_cast<int>(max_size);
  g.starts.assign(forward_in, 0);
  g.weights.assign(g.span_size * forward_in, 0.0f);
  for (int64_t i = 0; i < forward_in; ++i) {
    if (parts[i].empty()) continue;
    const int64_t first = parts[i].front().index;
    g.starts[i] = static_cast<int32_t>(first);
    for (const Part& p : parts[i]) {
      g.weights[i * g.span_size + p.index - first] += p.weight;
    }
  }
  return g;
}

template <typename T>
float ToFloat(T v) {
  return static_cast<float>(v);
}

// [batch, in_h, in_w, c] -> [batch, out_h, out_w, c] through rows then
// columns.
template <typename T>
void Resample(const T* image, int64_t batch, int64_t in_h, int64_t in_w,
              int64_t channels, const Spans& rows, const Spans& cols,
              int64_t out_h, int64_t out_w, float* out) {
  const int64_t in_row = in_w * channels;
  const int64_t out_row = out_w * channels;
  std::vector<float> mid(out_h * in_row);
  for (int64_t b = 0; b < batch; ++b) {
    const T* img = image + b * in_h * in_row;
    for (int64_t y = 0; y < out_h; ++y) {
      float* dst = mid.data() + y * in_row;
      std::fill(dst, dst + in_row, 0.0f);
      const int64_t start = rows.starts[y];
      const int64_t n = std::min<int64_t>(start + rows.span_size, in_h) - start;
      const float* w = rows.weights.data() + y * rows.span_size;
      for (int64_t j = 0; j < n; ++j) {
        const T* src = img + (start + j) * in_row;
        for (int64_t k = 0; k < in_row; ++k) dst[k] += w[j] * ToFloat(src[k]);
      }
    }
    float* o = out + b * out_h * out_row;
    for (int64_t y = 0; y < out_h; ++y) {
      const float* src_row = mid.data() + y * in_row;
      for (int64_t x = 0; x < out_w; ++x) {
        float* px = o + y * out_row + x * channels;
        const int64_t start = cols.starts[x];
        const int64_t n = std::min<int64_t>(start + cols.span_size, in_w) - start;
        const float* w = cols.weights.data() + x * cols.span_size;
        std::fill(px, px + channels, 0.0f);
        for (int64_t j = 0; j < n; ++j) {
          const float* src = src_row + (start + j) * channels;
          for (int64_t c = 0; c < channels; ++c) px[c] += w[j] * src[c];
        }
      }
    }
  }
}

absl::Status ReadPair(const Tensor& t, const char* name, float* a, float* b) {
  if (t.shape().rank() != 1 || t.NumElements() != 2) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, " must be a vector of 2 values, but has shape ",
                     t.shape().ToString()));
  }
  *a = t.data<float>()[0];
  *b = t.data<float>()[1];
  return absl::OkStatus();
}

bool ReadKernelAttrs(OpKernelConstruction* ctx, Kernel* kernel,
                     bool* antialias) {
  std::string name;
  absl::Status s = ctx->GetAttr("kernel_type", &name);
  if (s.ok()) s = ctx->GetAttr("antialias", antialias);
  if (s.ok()) {
    *kernel = KernelFromName(name);
    if (*kernel == Kernel::kInvalid) {
      s = absl::InvalidArgumentError(absl::StrCat(
          "kernel_type '", name,
          "' must be one of lanczos1, lanczos3, lanczos5, gaussian, box, "
          "triangle, keyscubic, mitchellcubic"));
    }
  }
  if (!s.ok()) ctx->SetStatus(s);
  return s.ok();
}

absl::Status ReadScaleTranslation(OpKernelContext* ctx, float* row_scale,
                                  float* col_scale, float* row_t,
                                  float* col_t) {
  absl::Status s = ReadPair(ctx->input(2), "scale", row_scale, col_scale);
  if (!s.ok()) return s;
  if (!(*row_scale > 0 && *col_scale > 0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "scale [", *row_scale, ",", *col_scale, "] must be positive"));
  }
  // A scale whose inverse overflows would widen the kernel to infinity.
  if (!std::isfinite(1.0f / *row_scale) || !std::isfinite(1.0f / *col_scale)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "scale [", *row_scale, ",", *col_scale, "] is too small"));
  }
  return ReadPair(ctx->input(3), "translation", row_t, col_t);
}

template <typename T>
class ScaleAndTranslateOp : public OpKernel {
 public:
  explicit ScaleAndTranslateOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ReadKernelAttrs(ctx, &kernel_, &antialias_);
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& images = ctx->input(0);
    const TensorShape& is = images.shape();
    OP_REQUIRES(ctx, is.rank() == 4,
                absl::InvalidArgumentError(absl::StrCat(
                    "images must be 4-D [batch, height, width, channels], but "
                    "has shape ",
                    is.ToString())));
    const Tensor& size = ctx->input(1);
    OP_REQUIRES(ctx, size.shape().rank() == 1 && size.NumElements() == 2,
                absl::InvalidArgumentError(absl::StrCat(
                    "size must be a vector of 2 values, but has shape ",
                    size.shape().ToString())));
    const int64_t out_h = size.data<int32_t>()[0];
    const int64_t out_w = size.data<int32_t>()[1];
    OP_REQUIRES(ctx, out_h > 0 && out_w > 0,
                absl::InvalidArgumentError(absl::StrCat(
                    "size [", out_h, ",", out_w, "] must be positive")));
    OP_REQUIRES(ctx, is.dim(1) > 0 && is.dim(2) > 0 && is.dim(3) > 0,
                absl::InvalidArgumentError(absl::StrCat(
                    "images ", is.ToString(),
                    " must have a non-empty height, width and channels")));
    OP_REQUIRES(ctx,
                is.dim(1) < std::numeric_limits<int32_t>::max() &&
                    is.dim(2) < std::numeric_limits<int32_t>::max(),
                absl::InvalidArgumentError("image sizes must fit in int32"));
    float rs = 0, cs = 0, rt = 0, ct = 0;
    OP_REQUIRES_OK(ctx, ReadScaleTranslation(ctx, &rs, &cs, &rt, &ct));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(
                            0, TensorShape({is.dim(0), out_h, out_w, is.dim(3)}),
                            &out));
    if (out->NumElements() == 0) return;
    const Spans cols = ComputeSpans(kernel_, out_w, is.dim(2), cs, ct, antialias_);
    const Spans rows = ComputeSpans(kernel_, out_h, is.dim(1), rs, rt, antialias_);
    Resample(EigenData<T>(images), is.dim(0), is.dim(1), is.dim(2), is.dim(3),
             rows, cols, out_h, out_w, out->data<float>());
  }

 private:
  Kernel kernel_ = Kernel::kLanczos3;
  bool antialias_ = true;
};

class ScaleAndTranslateGradOp : public OpKernel {
 public:
  explicit ScaleAndTranslateGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ReadKernelAttrs(ctx, &kernel_, &antialias_);
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& grads = ctx->input(0);
    const Tensor& original = ctx->input(1);
    const TensorShape& gs = grads.shape();
    const TensorShape& os = original.shape();
    OP_REQUIRES(ctx, gs.rank() == 4 && os.rank() == 4,
                absl::InvalidArgumentError(absl::StrCat(
                    "grads ", gs.ToString(), " and original_image ",
                    os.ToString(), " must be 4-D")));
    OP_REQUIRES(ctx, gs.dim(0) == os.dim(0) && gs.dim(3) == os.dim(3),
                absl::InvalidArgumentError(absl::StrCat(
                    "grads ", gs.ToString(), " and original_image ",
                    os.ToString(), " must have the same batch and channels")));
    OP_REQUIRES(ctx,
                os.dim(1) < std::numeric_limits<int32_t>::max() &&
                    os.dim(2) < std::numeric_limits<int32_t>::max(),
                absl::InvalidArgumentError("image sizes must fit in int32"));
    float rs = 0, cs = 0, rt = 0, ct = 0;
    OP_REQUIRES_OK(ctx, ReadScaleTranslation(ctx, &rs, &cs, &rt, &ct));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(
                            0, TensorShape({gs.dim(0), os.dim(1), os.dim(2), gs.dim(3)}),
                            &out));
    if (out->NumElements() == 0) return;
    if (gs.num_elements() == 0) {
      std::fill(out->data<float>(), out->data<float>() + out->NumElements(), 0.0f);
      return;
    }
    const Spans cols = GradSpans(
        ComputeSpans(kernel_, gs.dim(2), os.dim(2), cs, ct, antialias_),
        gs.dim(2), os.dim(2));
    const Spans rows = GradSpans(
        ComputeSpans(kernel_, gs.dim(1), os.dim(1), rs, rt, antialias_),
        gs.dim(1), os.dim(1));
    Resample(grads.data<float>(), gs.dim(0), gs.dim(1), gs.dim(2), gs.dim(3),
             rows, cols, os.dim(1), os.dim(2), out->data<float>());
  }

 private:
  Kernel kernel_ = Kernel::kLanczos3;
  bool antialias_ = true;
};

#define DFLOW_REGISTER_SCALE(T, E)                                \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("ScaleAndTranslate")     \
                            .Device(kDeviceCpu)                   \
                            .TypeConstraint<T>("T"),              \
                        ScaleAndTranslateOp<E>)
DFLOW_REGISTER_SCALE(int8_t, int8_t);
DFLOW_REGISTER_SCALE(uint8_t, uint8_t);
DFLOW_REGISTER_SCALE(int16_t, int16_t);
DFLOW_REGISTER_SCALE(uint16_t, uint16_t);
DFLOW_REGISTER_SCALE(int32_t, int32_t);
DFLOW_REGISTER_SCALE(int64_t, int64_t);
DFLOW_REGISTER_SCALE(float16, Eigen::half);
DFLOW_REGISTER_SCALE(bfloat16, Eigen::bfloat16);
DFLOW_REGISTER_SCALE(float, float);
DFLOW_REGISTER_SCALE(double, double);
#undef DFLOW_REGISTER_SCALE

DFLOW_REGISTER_KERNEL(KernelDefBuilder("ScaleAndTranslateGrad")
                          .Device(kDeviceCpu)
                          .TypeConstraint<float>("T"),
                      ScaleAndTranslateGradOp);

}  // namespace
}  // namespace dflow
