// CPU kernels for ResizeBilinear and ResizeBilinearGrad with TensorFlow's
// arithmetic (core/kernels/image/resize_bilinear_op.cc), so results match
// TensorFlow's: output pixel i samples the input at
//   i * scale                       (legacy),
//   (i + 0.5) * scale - 0.5         (half_pixel_centers),
// in float, with scale = in / out, or (in - 1) / (out - 1) when
// align_corners and out > 1; the two neighbours are floor and ceil of that
// position clamped to the image, weighted by its fraction. The forward
// interpolates along x then y in float; the gradient scatters each
// incoming value to the four neighbours with the same weights.
// ResizeNearestNeighbor copies the input pixel at
//   floor(i * scale)                (legacy),
//   floor((i + 0.5) * scale)        (half_pixel_centers),
//   round(i * scale)                (align_corners),
// clamped to the image; its gradient adds each incoming pixel to the input
// pixel it was copied from.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/tensor.h"
#include "graph/types.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/kernel_util_array.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

float ResizeScale(int64_t in, int64_t out, bool align_corners) {
  return (align_corners && out > 1)
             ? static_cast<float>(in - 1) / static_cast<float>(out - 1)
             : static_cast<float>(in) / static_cast<float>(out);
}

float SourcePosition(int64_t i, float scale, bool half_pixel_centers) {
  return half_pixel_centers ? (static_cast<float>(i) + 0.5f) * scale - 0.5f
                            : static_cast<float>(i) * scale;
}

// The two input indices an output index reads and the weight of the upper.
struct Neighbours {
  int64_t lower = 0;
  int64_t upper = 0;
  float lerp = 0;
};

std::vector<Neighbours> NeighboursOf(int64_t in, int64_t out, float scale,
                                     bool half_pixel_centers) {
  std::vector<Neighbours> n(out);
  for (int64_t i = 0; i < out; ++i) {
    const float pos = SourcePosition(i, scale, half_pixel_centers);
    const float below = std::floor(pos);
    n[i].lower = std::max(static_cast<int64_t>(below), int64_t{0});
    n[i].upper = std::min(static_cast<int64_t>(std::ceil(pos)), in - 1);
    n[i].lerp = pos - below;
  }
  return n;
}

template <typename T>
float AsFloat(T v) {
  if constexpr (std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>) {
    return v.ToFloat();
  } else {
    return static_cast<float>(v);
  }
}

template <typename T>
T FromFloat(float v) {
  if constexpr (std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>) {
    return T::FromFloat(v);
  } else {
    return static_cast<T>(v);
  }
}

// The attrs both kernels read, and their common check.
struct ResizeOptions {
  bool align_corners = false;
  bool half_pixel_centers = false;

  absl::Status Read(OpKernelConstruction* ctx) {
    if (absl::Status s = ctx->GetAttr("align_corners", &align_corners);
        !s.ok()) {
      return s;
    }
    if (absl::Status s =
            ctx->GetAttr("half_pixel_centers", &half_pixel_centers);
        !s.ok()) {
      return s;
    }
    if (align_corners && half_pixel_centers) {
      return absl::InvalidArgumentError(
          "half_pixel_centers and align_corners cannot both be true; with "
          "half_pixel_centers set align_corners to false");
    }
    return absl::OkStatus();
  }
};

template <typename T>
class ResizeBilinearOp : public OpKernel {
 public:
  explicit ResizeBilinearOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(options_.Read(ctx));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& images = ctx->input(0);
    const Tensor& size_in = ctx->input(1);
    const TensorShape& shape = images.shape();
    OP_REQUIRES(ctx, shape.rank() == 4,
                absl::InvalidArgumentError(absl::StrCat(
                    "images must be 4-D [batch, height, width, channels], "
                    "got shape ",
                    shape.ToString())));
    OP_REQUIRES(ctx, size_in.shape().rank() == 1 && size_in.NumElements() == 2,
                absl::InvalidArgumentError(absl::StrCat(
                    "size must be a vector of 2 values (new_height, "
                    "new_width), got shape ",
                    size_in.shape().ToString())));
    const int64_t out_h = size_in.data<int32_t>()[0];
    const int64_t out_w = size_in.data<int32_t>()[1];
    OP_REQUIRES(ctx, out_h > 0 && out_w > 0,
                absl::InvalidArgumentError(
                    absl::StrCat("size [", out_h, ",", out_w,
                                 "] must be positive in both dimensions")));
    const int64_t batch = shape.dim(0), in_h = shape.dim(1),
                  in_w = shape.dim(2), channels = shape.dim(3);
    OP_REQUIRES(ctx, in_h > 0 && in_w > 0,
                absl::InvalidArgumentError(
                    absl::StrCat("images of shape ", shape.ToString(),
                                 " have no pixels to interpolate from")));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx,
                   ctx->allocate_output(
                       0, TensorShape({batch, out_h, out_w, channels}), &out));
    if (out->NumElements() == 0) return;
    const std::vector<Neighbours> ys = NeighboursOf(
        in_h, out_h, ResizeScale(in_h, out_h, options_.align_corners),
        options_.half_pixel_centers);
    const std::vector<Neighbours> xs = NeighboursOf(
        in_w, out_w, ResizeScale(in_w, out_w, options_.align_corners),
        options_.half_pixel_centers);
    const T* in = images.data<T>();
    float* result = out->data<float>();
    const int64_t in_row = in_w * channels, out_row = out_w * channels;
    // One unit: an output row of one image.
    ParallelForShards(
        ctx, batch * out_h, out_row * 8, [&](int64_t begin, int64_t end) {
          for (int64_t r = begin; r < end; ++r) {
            const int64_t b = r / out_h, y = r % out_h;
            const T* top = in + (b * in_h + ys[y].lower) * in_row;
            const T* bottom = in + (b * in_h + ys[y].upper) * in_row;
            const float y_lerp = ys[y].lerp;
            float* dst = result + r * out_row;
            for (int64_t x = 0; x < out_w; ++x) {
              const int64_t left = xs[x].lower * channels;
              const int64_t right = xs[x].upper * channels;
              const float x_lerp = xs[x].lerp;
              for (int64_t c = 0; c < channels; ++c) {
                const float top_left = AsFloat(top[left + c]);
                const float top_right = AsFloat(top[right + c]);
                const float bottom_left = AsFloat(bottom[left + c]);
                const float bottom_right = AsFloat(bottom[right + c]);
                const float t = top_left + (top_right - top_left) * x_lerp;
                const float u =
                    bottom_left + (bottom_right - bottom_left) * x_lerp;
                dst[x * channels + c] = t + (u - t) * y_lerp;
              }
            }
          }
        });
  }

 private:
  ResizeOptions options_;
};

// Sums into float (double for double images) and rounds half and bfloat16
// once at the end.
template <typename T>
class ResizeBilinearGradOp : public OpKernel {
 public:
  explicit ResizeBilinearGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(options_.Read(ctx));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& grads = ctx->input(0);
    const Tensor& original = ctx->input(1);
    OP_REQUIRES(ctx, grads.shape().rank() == 4 && original.shape().rank() == 4,
                absl::InvalidArgumentError(absl::StrCat(
                    "grads ", grads.shape().ToString(), " and original_image ",
                    original.shape().ToString(),
                    " must both be 4-D [batch, height, width, channels]")));
    const int64_t batch = grads.shape().dim(0), out_h = grads.shape().dim(1),
                  out_w = grads.shape().dim(2), channels = grads.shape().dim(3);
    const int64_t in_h = original.shape().dim(1),
                  in_w = original.shape().dim(2);
    OP_REQUIRES(
        ctx,
        original.shape().dim(0) == batch && original.shape().dim(3) == channels,
        absl::InvalidArgumentError(
            absl::StrCat("grads ", grads.shape().ToString(),
                         " and original_image ", original.shape().ToString(),
                         " must have the same batch size and channels")));
    OP_REQUIRES(ctx, in_h > 0 && in_w > 0,
                absl::InvalidArgumentError(
                    absl::StrCat("original_image ", original.shape().ToString(),
                                 " must have a positive height and width")));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, original.shape(), &out));
    using Acc = std::conditional_t<std::is_same_v<T, double>, double, float>;
    const int64_t in_row = in_w * channels, out_row = out_w * channels;
    const int64_t plane = in_h * in_row;
    if (out->NumElements() == 0) return;
    const std::vector<Neighbours> ys = NeighboursOf(
        in_h, out_h, ResizeScale(in_h, out_h, options_.align_corners),
        options_.half_pixel_centers);
    const std::vector<Neighbours> xs = NeighboursOf(
        in_w, out_w, ResizeScale(in_w, out_w, options_.align_corners),
        options_.half_pixel_centers);
    const float* g = grads.data<float>();
    T* result = out->data<T>();
    // One unit: an image (its gradient rows overlap, so an image is summed
    // by one thread, in TensorFlow's order).
    ParallelForShards(
        ctx, batch, out_h * out_row * 8, [&](int64_t begin, int64_t end) {
          std::vector<Acc> acc(plane);
          for (int64_t b = begin; b < end; ++b) {
            std::fill(acc.begin(), acc.end(), Acc{0});
            for (int64_t y = 0; y < out_h; ++y) {
              const float y_lerp = ys[y].lerp, y_keep = 1.0f - y_lerp;
              Acc* top = acc.data() + ys[y].lower * in_row;
              Acc* bottom = acc.data() + ys[y].upper * in_row;
              const float* src = g + (b * out_h + y) * out_row;
              for (int64_t x = 0; x < out_w; ++x) {
                const float x_lerp = xs[x].lerp, x_keep = 1.0f - x_lerp;
                const int64_t left = xs[x].lower * channels;
                const int64_t right = xs[x].upper * channels;
                for (int64_t c = 0; c < channels; ++c) {
                  const float v = src[x * channels + c];
                  top[left + c] += static_cast<Acc>(v * y_keep * x_keep);
                  top[right + c] += static_cast<Acc>(v * y_keep * x_lerp);
                  bottom[left + c] += static_cast<Acc>(v * y_lerp * x_keep);
                  bottom[right + c] += static_cast<Acc>(v * y_lerp * x_lerp);
                }
              }
            }
            T* dst = result + b * plane;
            for (int64_t i = 0; i < plane; ++i) {
              if constexpr (std::is_same_v<T, Acc>) {
                dst[i] = acc[i];
              } else {
                dst[i] = FromFloat<T>(acc[i]);
              }
            }
          }
        });
  }

 private:
  ResizeOptions options_;
};

// The input index each output index of a nearest-neighbour resize copies
// (TensorFlow's float arithmetic, so ties round the same way).
std::vector<int64_t> NearestSources(int64_t in, int64_t out,
                                    const ResizeOptions& options) {
  const float scale = ResizeScale(in, out, options.align_corners);
  std::vector<int64_t> source(out);
  for (int64_t i = 0; i < out; ++i) {
    const float pos = options.half_pixel_centers
                          ? (static_cast<float>(i) + 0.5f) * scale
                          : static_cast<float>(i) * scale;
    const int64_t at = static_cast<int64_t>(
        options.align_corners ? std::round(pos) : std::floor(pos));
    source[i] = std::max(int64_t{0}, std::min(at, in - 1));
  }
  return source;
}

// The size input: two positive int32 values (`allow_zero`: non-negative).
absl::Status ReadResizeSize(const Tensor& size, bool allow_zero, int64_t* h,
                            int64_t* w) {
  if (size.shape().rank() != 1 || size.NumElements() != 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("size must be a vector of 2 values (height, width), got "
                     "shape ",
                     size.shape().ToString()));
  }
  *h = size.data<int32_t>()[0];
  *w = size.data<int32_t>()[1];
  const int64_t least = allow_zero ? 0 : 1;
  if (*h < least || *w < least) {
    return absl::InvalidArgumentError(absl::StrCat(
        "size [", *h, ",", *w, "] must be ",
        allow_zero ? "non-negative" : "positive", " in both dimensions"));
  }
  return absl::OkStatus();
}

// Moves whole pixels (channels runs) of any element type.
class ResizeNearestNeighborOp : public OpKernel {
 public:
  explicit ResizeNearestNeighborOp(OpKernelConstruction* ctx)
      : OpKernel(ctx) {
    ctx->SetStatus(options_.Read(ctx));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& images = ctx->input(0);
    const TensorShape& shape = images.shape();
    OP_REQUIRES(ctx, shape.rank() == 4,
                absl::InvalidArgumentError(absl::StrCat(
                    "images must be 4-D [batch, height, width, channels], "
                    "got shape ",
                    shape.ToString())));
    int64_t out_h = 0, out_w = 0;
    OP_REQUIRES_OK(ctx, ReadResizeSize(ctx->input(1), false, &out_h, &out_w));
    const int64_t batch = shape.dim(0), in_h = shape.dim(1),
                  in_w = shape.dim(2), channels = shape.dim(3);
    OP_REQUIRES(ctx, in_h > 0 && in_w > 0,
                absl::InvalidArgumentError(
                    absl::StrCat("images of shape ", shape.ToString(),
                                 " have no pixels to resize from")));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx,
                   ctx->allocate_output(
                       0, TensorShape({batch, out_h, out_w, channels}), &out));
    if (out->NumElements() == 0) return;
    const std::vector<int64_t> ys = NearestSources(in_h, out_h, options_);
    const std::vector<int64_t> xs = NearestSources(in_w, out_w, options_);
    const int64_t in_row = in_w * channels, out_row = out_w * channels;
    array_kernels::VisitCopyType(images.dtype(), [&](auto* tag) {
      using T = std::remove_pointer_t<decltype(tag)>;
      const T* in = array_kernels::CopyData<T>(images);
      T* result = array_kernels::CopyData<T>(out);
      ParallelForShards(
          ctx, batch * out_h, out_row * 2, [&](int64_t begin, int64_t end) {
            for (int64_t r = begin; r < end; ++r) {
              const int64_t b = r / out_h, y = r % out_h;
              const T* src = in + (b * in_h + ys[y]) * in_row;
              T* dst = result + r * out_row;
              for (int64_t x = 0; x < out_w; ++x) {
                std::copy(src + xs[x] * channels,
                          src + (xs[x] + 1) * channels, dst + x * channels);
              }
            }
          });
    });
  }

 private:
  ResizeOptions options_;
};

// Sums image by image (the pixels an image's rows add to overlap), in the
// element type (integers wrap as TensorFlow's do) or, for half and
// bfloat16, in float.
template <typename T>
class ResizeNearestNeighborGradOp : public OpKernel {
 public:
  explicit ResizeNearestNeighborGradOp(OpKernelConstruction* ctx)
      : OpKernel(ctx) {
    ctx->SetStatus(options_.Read(ctx));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& grads = ctx->input(0);
    const TensorShape& shape = grads.shape();
    OP_REQUIRES(ctx, shape.rank() == 4,
                absl::InvalidArgumentError(absl::StrCat(
                    "grads must be 4-D [batch, height, width, channels], got "
                    "shape ",
                    shape.ToString())));
    int64_t in_h = 0, in_w = 0;
    OP_REQUIRES_OK(ctx, ReadResizeSize(ctx->input(1), true, &in_h, &in_w));
    const int64_t batch = shape.dim(0), out_h = shape.dim(1),
                  out_w = shape.dim(2), channels = shape.dim(3);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(
                            0, TensorShape({batch, in_h, in_w, channels}),
                            &out));
    T* result = out->data<T>();
    std::fill(result, result + out->NumElements(), FromFloat<T>(0.0f));
    if (out->NumElements() == 0 || grads.NumElements() == 0) return;
    // The forward's map from the gradient's pixels to the image's.
    const std::vector<int64_t> ys = NearestSources(in_h, out_h, options_);
    const std::vector<int64_t> xs = NearestSources(in_w, out_w, options_);
    const int64_t in_row = in_w * channels, out_row = out_w * channels;
    const int64_t plane = in_h * in_row;
    const T* g = grads.data<T>();
    ParallelForShards(
        ctx, batch, out_h * out_row * 2, [&](int64_t begin, int64_t end) {
          // half and bfloat16 sum in float, rounded once at the end.
          std::vector<Acc> scratch(kConverts ? plane : 0);
          for (int64_t b = begin; b < end; ++b) {
            Acc* image;
            if constexpr (kConverts) {
              std::fill(scratch.begin(), scratch.end(), 0.0f);
              image = scratch.data();
            } else {
              image = result + b * plane;
            }
            for (int64_t y = 0; y < out_h; ++y) {
              const T* src = g + (b * out_h + y) * out_row;
              Acc* dst = image + ys[y] * in_row;
              for (int64_t x = 0; x < out_w; ++x) {
                Acc* pixel = dst + xs[x] * channels;
                const T* from = src + x * channels;
                for (int64_t c = 0; c < channels; ++c) {
                  if constexpr (kConverts) {
                    pixel[c] += AsFloat(from[c]);
                  } else {
                    pixel[c] += from[c];
                  }
                }
              }
            }
            if constexpr (kConverts) {
              for (int64_t i = 0; i < plane; ++i) {
                result[b * plane + i] = FromFloat<T>(scratch[i]);
              }
            }
          }
        });
  }

 private:
  static constexpr bool kConverts =
      std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>;
  using Acc = std::conditional_t<kConverts, float, T>;

  ResizeOptions options_;
};

DFLOW_REGISTER_KERNEL(
    KernelDefBuilder("ResizeNearestNeighbor")
        .Device(kDeviceCpu)
        .TypeConstraint("T", {DT_INT8, DT_UINT8, DT_INT16, DT_UINT16,
                              DT_INT32, DT_INT64, DT_HALF, DT_FLOAT,
                              DT_DOUBLE, DT_BFLOAT16})
        .HostMemory("size"),
    ResizeNearestNeighborOp);

#define DFLOW_REGISTER_RESIZE_NEAREST_GRAD(T)                         \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("ResizeNearestNeighborGrad") \
                            .Device(kDeviceCpu)                       \
                            .TypeConstraint<T>("T")                   \
                            .HostMemory("size"),                      \
                        ResizeNearestNeighborGradOp<T>)

DFLOW_REGISTER_RESIZE_NEAREST_GRAD(float);
DFLOW_REGISTER_RESIZE_NEAREST_GRAD(double);
DFLOW_REGISTER_RESIZE_NEAREST_GRAD(int32_t);
DFLOW_REGISTER_RESIZE_NEAREST_GRAD(int8_t);
DFLOW_REGISTER_RESIZE_NEAREST_GRAD(uint8_t);
DFLOW_REGISTER_RESIZE_NEAREST_GRAD(float16);
DFLOW_REGISTER_RESIZE_NEAREST_GRAD(bfloat16);
#undef DFLOW_REGISTER_RESIZE_NEAREST_GRAD

#define DFLOW_REGISTER_RESIZE(T)                           \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("ResizeBilinear") \
                            .Device(kDeviceCpu)            \
                            .TypeConstraint<T>("T")        \
                            .HostMemory("size"),           \
                        ResizeBilinearOp<T>)

DFLOW_REGISTER_RESIZE(int8_t);
DFLOW_REGISTER_RESIZE(uint8_t);
DFLOW_REGISTER_RESIZE(int16_t);
DFLOW_REGISTER_RESIZE(uint16_t);
DFLOW_REGISTER_RESIZE(int32_t);
DFLOW_REGISTER_RESIZE(int64_t);
DFLOW_REGISTER_RESIZE(bfloat16);
DFLOW_REGISTER_RESIZE(float16);
DFLOW_REGISTER_RESIZE(float);
DFLOW_REGISTER_RESIZE(double);
#undef DFLOW_REGISTER_RESIZE

#define DFLOW_REGISTER_RESIZE_GRAD(T)                          \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("ResizeBilinearGrad") \
                            .Device(kDeviceCpu)                \
                            .TypeConstraint<T>("T"),           \
                        ResizeBilinearGradOp<T>)

DFLOW_REGISTER_RESIZE_GRAD(float);
DFLOW_REGISTER_RESIZE_GRAD(double);
DFLOW_REGISTER_RESIZE_GRAD(float16);
DFLOW_REGISTER_RESIZE_GRAD(bfloat16);
#undef DFLOW_REGISTER_RESIZE_GRAD

}  // namespace
}  // namespace dflow
