// CropAndResize and CropAndResizeGradImage on CPU (NHWC) with TensorFlow
// 2.21's arithmetic (core/kernels/image/crop_and_resize_op.cc). Box
// (y1, x1, y2, x2) of image box_ind[b] is sampled at
//   in_y = y1 * (H - 1) + y * (y2 - y1) * (H - 1) / (crop_h - 1)
// (the box's centre (y1 + y2) / 2 * (H - 1) when crop_h is 1), the same
// along x, in float. A sample outside [0, H - 1] x [0, W - 1] is
// extrapolation_value (and gets no gradient). "bilinear" interpolates the
// floor and ceil neighbours; "nearest" takes the rounded one. The image
// gradient adds each incoming value to the pixels it was sampled from with
// the same weights.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>

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

template <typename T>
T FromFloat(float v) {
  if constexpr (std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>) {
    return T::FromFloat(v);
  } else {
    return static_cast<T>(v);
  }
}

// Checks boxes [n, 4] and box_ind [n] (each in [0, batch)); sets n.
absl::Status CheckBoxes(const Tensor& boxes, const Tensor& box_ind,
                        int64_t batch, int64_t* n) {
  if (boxes.shape().rank() != 2 || boxes.shape().dim(1) != 4) {
    return absl::InvalidArgumentError(
        absl::StrCat("boxes must be [num_boxes, 4], but has shape ",
                     boxes.shape().ToString()));
  }
  *n = boxes.shape().dim(0);
  if (box_ind.shape().rank() != 1 || box_ind.shape().dim(0) != *n) {
    return absl::InvalidArgumentError(absl::StrCat(
        "box_ind must be a vector of the ", *n, " boxes' images, but has ",
        "shape ", box_ind.shape().ToString()));
  }
  const int32_t* ind = box_ind.data<int32_t>();
  for (int64_t i = 0; i < *n; ++i) {
    if (ind[i] < 0 || ind[i] >= batch) {
      return absl::InvalidArgumentError(
          absl::StrCat("box_ind[", i, "] = ", ind[i], " is not in [0, ", batch,
                       ") (the images in the batch)"));
    }
  }
  return absl::OkStatus();
}

absl::Status ReadPositivePair(const Tensor& t, const char* name, int64_t* a,
                              int64_t* b) {
  if (t.shape().rank() != 1 || t.NumElements() != 2) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, " must be a vector of 2 values, but has shape ",
                     t.shape().ToString()));
  }
  *a = t.data<int32_t>()[0];
  *b = t.data<int32_t>()[1];
  if (*a <= 0 || *b <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, " [", *a, ",", *b, "] must be positive"));
  }
  return absl::OkStatus();
}

// Where crop index i of a box [lo, hi] samples an image dimension of `size`.
float Sample(float lo, float hi, int64_t i, int64_t crop, int64_t size) {
  const float span = static_cast<float>(size - 1);
  if (crop > 1) {
    const float scale = (hi - lo) * span / static_cast<float>(crop - 1);
    return lo * span + static_cast<float>(i) * scale;
  }
  return 0.5f * (lo + hi) * span;
}

bool ReadMethod(OpKernelConstruction* ctx, bool* nearest) {
  std::string method;
  absl::Status s = ctx->GetAttr("method", &method);
  if (s.ok() && method != "bilinear" && method != "nearest") {
    s = absl::InvalidArgumentError(
        absl::StrCat("method '", method, "' must be 'bilinear' or 'nearest'"));
  }
  if (!s.ok()) {
    ctx->SetStatus(s);
    return false;
  }
  *nearest = method == "nearest";
  return true;
}

// Calls visit(box, y, x, image index, inside, in_y, in_x) for every sample
// of every box's crop_h x crop_w crop; `inside` says whether (in_y, in_x)
// is in the image.
template <typename Visit>
void ForEachSample(const float* boxes, const int32_t* box_ind, int64_t n,
                   int64_t ch, int64_t cw, int64_t h, int64_t w,
                   Visit&& visit) {
  for (int64_t b = 0; b < n; ++b) {
    const float* box = boxes + 4 * b;
    for (int64_t y = 0; y < ch; ++y) {
      const float in_y = Sample(box[0], box[2], y, ch, h);
      const bool row_in = in_y >= 0 && in_y <= static_cast<float>(h - 1);
      for (int64_t x = 0; x < cw; ++x) {
        const float in_x = Sample(box[1], box[3], x, cw, w);
        const bool in =
            row_in && in_x >= 0 && in_x <= static_cast<float>(w - 1);
        visit(b, y, x, box_ind[b], in, in_y, in_x);
      }
    }
  }
}

template <typename T>
class CropAndResizeOp : public OpKernel {
 public:
  explicit CropAndResizeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    if (!ReadMethod(ctx, &nearest_)) return;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("extrapolation_value", &extrapolate_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& image = ctx->input(0);
    const Tensor& boxes = ctx->input(1);
    const Tensor& box_ind = ctx->input(2);
    const TensorShape& is = image.shape();
    OP_REQUIRES(ctx, is.rank() == 4,
                absl::InvalidArgumentError(absl::StrCat(
                    "image must be 4-D [batch, height, width, channels], but "
                    "has shape ",
                    is.ToString())));
    OP_REQUIRES(
        ctx, is.dim(1) > 0 && is.dim(2) > 0,
        absl::InvalidArgumentError(absl::StrCat("image ", is.ToString(),
                                                " must have a non-empty height "
                                                "and width")));
    int64_t n = 0, ch = 0, cw = 0;
    OP_REQUIRES_OK(ctx, CheckBoxes(boxes, box_ind, is.dim(0), &n));
    OP_REQUIRES_OK(ctx, ReadPositivePair(ctx->input(3), "crop_size", &ch, &cw));
    const int64_t h = is.dim(1), w = is.dim(2), d = is.dim(3);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx,
                   ctx->allocate_output(0, TensorShape({n, ch, cw, d}), &out));
    const T* img = image.data<T>();
    float* o = out->data<float>();
    ForEachSample(
        boxes.data<float>(), box_ind.data<int32_t>(), n, ch, cw, h, w,
        [&](int64_t b, int64_t y, int64_t x, int64_t bi, bool in, float in_y,
            float in_x) {
          float* dst = o + ((b * ch + y) * cw + x) * d;
          if (!in) {
            std::fill(dst, dst + d, extrapolate_);
            return;
          }
          const T* base = img + bi * h * w * d;
          if (nearest_) {
            const int64_t cy = static_cast<int64_t>(std::round(in_y));
            const int64_t cx = static_cast<int64_t>(std::round(in_x));
            const T* px = base + (cy * w + cx) * d;
            for (int64_t c = 0; c < d; ++c) dst[c] = AsFloat(px[c]);
            return;
          }
          const int64_t top = static_cast<int64_t>(std::floor(in_y));
          const int64_t bottom = static_cast<int64_t>(std::ceil(in_y));
          const int64_t left = static_cast<int64_t>(std::floor(in_x));
          const int64_t right = static_cast<int64_t>(std::ceil(in_x));
          const float yl = in_y - static_cast<float>(top);
          const float xl = in_x - static_cast<float>(left);
          const T* tl = base + (top * w + left) * d;
          const T* tr = base + (top * w + right) * d;
          const T* bl = base + (bottom * w + left) * d;
          const T* br = base + (bottom * w + right) * d;
          for (int64_t c = 0; c < d; ++c) {
            const float t =
                AsFloat(tl[c]) + (AsFloat(tr[c]) - AsFloat(tl[c])) * xl;
            const float bo =
                AsFloat(bl[c]) + (AsFloat(br[c]) - AsFloat(bl[c])) * xl;
            dst[c] = t + (bo - t) * yl;
          }
        });
  }

 private:
  bool nearest_ = false;
  float extrapolate_ = 0;
};

template <typename T>
class CropAndResizeGradImageOp : public OpKernel {
 public:
  explicit CropAndResizeGradImageOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ReadMethod(ctx, &nearest_);
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& grads = ctx->input(0);
    const Tensor& boxes = ctx->input(1);
    const Tensor& box_ind = ctx->input(2);
    const Tensor& size = ctx->input(3);
    OP_REQUIRES(ctx, size.shape().rank() == 1 && size.NumElements() == 4,
                absl::InvalidArgumentError(absl::StrCat(
                    "image_size must be a vector of 4 sizes [batch, height, "
                    "width, channels], but has shape ",
                    size.shape().ToString())));
    const int32_t* sz = size.data<int32_t>();
    OP_REQUIRES(ctx, sz[0] >= 0 && sz[1] > 0 && sz[2] > 0 && sz[3] >= 0,
                absl::InvalidArgumentError(absl::StrCat(
                    "image_size [", sz[0], ",", sz[1], ",", sz[2], ",", sz[3],
                    "] must have a positive height and width")));
    const TensorShape& gs = grads.shape();
    OP_REQUIRES(ctx, gs.rank() == 4,
                absl::InvalidArgumentError(absl::StrCat(
                    "grads must be 4-D [num_boxes, crop_height, crop_width, "
                    "channels], but has shape ",
                    gs.ToString())));
    int64_t n = 0;
    OP_REQUIRES_OK(ctx, CheckBoxes(boxes, box_ind, sz[0], &n));
    OP_REQUIRES(ctx, gs.dim(0) == n && gs.dim(3) == sz[3],
                absl::InvalidArgumentError(absl::StrCat(
                    "grads ", gs.ToString(), " must have one crop per box (", n,
                    ") and the image's ", sz[3], " channels")));
    const int64_t h = sz[1], w = sz[2], d = sz[3], ch = gs.dim(1),
                  cw = gs.dim(2);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(
        ctx, ctx->allocate_output(0, TensorShape({sz[0], h, w, d}), &out));
    T* o = out->data<T>();
    std::fill(o, o + out->NumElements(), FromFloat<T>(0.0f));
    const float* g = grads.data<float>();
    auto add = [&](T* px, int64_t c, float v) {
      px[c] = FromFloat<T>(AsFloat(px[c]) + v);
    };
    ForEachSample(
        boxes.data<float>(), box_ind.data<int32_t>(), n, ch, cw, h, w,
        [&](int64_t b, int64_t y, int64_t x, int64_t bi, bool in, float in_y,
            float in_x) {
          if (!in) return;
          const float* src = g + ((b * ch + y) * cw + x) * d;
          T* base = o + bi * h * w * d;
          if (nearest_) {
            const int64_t cy = static_cast<int64_t>(std::round(in_y));
            const int64_t cx = static_cast<int64_t>(std::round(in_x));
            T* px = base + (cy * w + cx) * d;
            for (int64_t c = 0; c < d; ++c) add(px, c, src[c]);
            return;
          }
          const int64_t top = static_cast<int64_t>(std::floor(in_y));
          const int64_t bottom = static_cast<int64_t>(std::ceil(in_y));
          const int64_t left = static_cast<int64_t>(std::floor(in_x));
          const int64_t right = static_cast<int64_t>(std::ceil(in_x));
          const float yl = in_y - static_cast<float>(top);
          const float xl = in_x - static_cast<float>(left);
          for (int64_t c = 0; c < d; ++c) {
            const float dtop = (1 - yl) * src[c];
            add(base + (top * w + left) * d, c, (1 - xl) * dtop);
            add(base + (top * w + right) * d, c, xl * dtop);
            const float dbottom = yl * src[c];
            add(base + (bottom * w + left) * d, c, (1 - xl) * dbottom);
            add(base + (bottom * w + right) * d, c, xl * dbottom);
          }
        });
  }

 private:
  bool nearest_ = false;
};

#define DFLOW_REGISTER_CROP(T)                            \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("CropAndResize") \
                            .Device(kDeviceCpu)           \
                            .TypeConstraint<T>("T")       \
                            .HostMemory("crop_size"),     \
                        CropAndResizeOp<T>)

DFLOW_REGISTER_CROP(uint8_t);
DFLOW_REGISTER_CROP(uint16_t);
DFLOW_REGISTER_CROP(int8_t);
DFLOW_REGISTER_CROP(int16_t);
DFLOW_REGISTER_CROP(int32_t);
DFLOW_REGISTER_CROP(int64_t);
DFLOW_REGISTER_CROP(float16);
DFLOW_REGISTER_CROP(float);
DFLOW_REGISTER_CROP(double);
#undef DFLOW_REGISTER_CROP

#define DFLOW_REGISTER_CROP_GRAD(T)                                \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("CropAndResizeGradImage") \
                            .Device(kDeviceCpu)                    \
                            .TypeConstraint<T>("T")                \
                            .HostMemory("image_size"),             \
                        CropAndResizeGradImageOp<T>)

DFLOW_REGISTER_CROP_GRAD(float);
DFLOW_REGISTER_CROP_GRAD(double);
DFLOW_REGISTER_CROP_GRAD(float16);
#undef DFLOW_REGISTER_CROP_GRAD

}  // namespace
}  // namespace dflow
