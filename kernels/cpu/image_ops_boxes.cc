// Bounding-box image ops on CPU, as TensorFlow 2.21:
//  - DrawBoundingBoxes / V2 (core/kernels/image/draw_bounding_box_op.cc):
//    box k of image b ([y1, x1, y2, x2] in [0, 1]) is outlined in color
//    k % colors: rows y1 * (height - 1) and y2 * (height - 1) truncated to
//    integers, columns likewise, each side drawn where it lies inside the
//    image. Without colors (or with an empty colors input) TensorFlow's
//    ten default colors; inverted or fully outside boxes are skipped.
//  - SampleDistortedBoundingBox / V2 / Stateless
//    (core/kernels/image/sample_distorted_bounding_box_op.cc): up to
//    max_attempts random crops of random aspect ratio and area, the first
//    one covering min_object_covered of some given box wins (else the
//    whole image). The random numbers are TensorFlow's: a Philox stream
//    of the seed attrs (each run reserving max_attempts blocks, as
//    GuardedPhiloxRandom::ReserveSamples32(4 * max_attempts)) or of the
//    stateless seed's scrambled key and counter, read one 32-bit word at a
//    time; floats from 23 bits, integers below n by rejection sampling.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <mutex>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/tensor.h"
#include "graph/types.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/random_ops_distributions.h"
#include "kernels/cpu/random_ops_philox.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

// --- DrawBoundingBoxes. ---

std::vector<std::vector<float>> DefaultColors(int64_t depth) {
  std::vector<std::vector<float>> table = {
      {1, 1, 0, 1},   {0, 0, 1, 1},     {1, 0, 0, 1},   {0, 1, 0, 1},
      {0.5, 0, 0.5, 1}, {0.5, 0.5, 0, 1}, {0.5, 0, 0, 1}, {0, 0, 0.5, 1},
      {0, 1, 1, 1},   {1, 0, 1, 1}};
  if (depth == 1) {
    for (std::vector<float>& c : table) c[0] = 1;
  }
  return table;
}

template <typename T>
class DrawBoundingBoxesOp : public OpKernel {
 public:
  explicit DrawBoundingBoxesOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& images = ctx->input(0);
    const Tensor& boxes = ctx->input(1);
    const TensorShape& is = images.shape();
    const TensorShape& bs = boxes.shape();
    OP_REQUIRES(ctx, is.rank() == 4,
                absl::InvalidArgumentError(absl::StrCat(
                    "images must be 4-D [batch, height, width, depth], but "
                    "has shape ",
                    is.ToString())));
    OP_REQUIRES(ctx, bs.rank() == 3 && bs.dim(2) == 4 && bs.dim(0) == is.dim(0),
                absl::InvalidArgumentError(absl::StrCat(
                    "boxes must be [batch, num_boxes, 4] with the images' "
                    "batch ",
                    is.dim(0), ", but has shape ", bs.ToString())));
    const int64_t depth = is.dim(3);
    OP_REQUIRES(ctx, depth == 1 || depth == 3 || depth == 4,
                absl::InvalidArgumentError(absl::StrCat(
                    "images must have 1 (gray), 3 (RGB) or 4 (RGBA) channels, "
                    "not ",
                    depth)));
    std::vector<std::vector<float>> colors;
    if (ctx->num_inputs() == 3) {
      const Tensor& c = ctx->input(2);
      OP_REQUIRES(ctx, c.shape().rank() == 2 && c.shape().dim(1) >= depth,
                  absl::InvalidArgumentError(absl::StrCat(
                      "colors must be a [num_colors, >= ", depth,
                      "] matrix, but has shape ", c.shape().ToString())));
      for (int64_t i = 0; i < c.shape().dim(0); ++i) {
        const float* row = c.data<float>() + i * c.shape().dim(1);
        colors.emplace_back(row, row + depth);
      }
    }
    if (colors.empty()) colors = DefaultColors(depth);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, is, &out));
    T* canvas = EigenData<T>(*out);
    const T* src = EigenData<T>(images);
    std::copy(src, src + images.NumElements(), canvas);
    const int64_t height = is.dim(1), width = is.dim(2);
    const float* b = boxes.data<float>();
    auto paint = [&](int64_t n, int64_t y, int64_t x, const std::vector<float>& c) {
      T* px = canvas + ((n * height + y) * width + x) * depth;
      for (int64_t k = 0; k < depth; ++k) px[k] = static_cast<T>(c[k]);
    };
    for (int64_t n = 0; n < is.dim(0); ++n) {
      for (int64_t k = 0; k < bs.dim(1); ++k) {
        const float* box = b + (n * bs.dim(1) + k) * 4;
        const std::vector<float>& color = colors[k % colors.size()];
        // float * int64 is a float product, then truncated (TensorFlow's);
        // clamped first so that NaN or a huge coordinate converts to a
        // defined integer (far outside: the box is skipped).
        auto edge = [](float v, int64_t size) {
          const float p = v * static_cast<float>(size - 1);
          return static_cast<int64_t>(std::isnan(p) ? -4e18f
                                                    : std::clamp(p, -4e18f, 4e18f));
        };
        const int64_t top = edge(box[0], height);
        const int64_t bottom = edge(box[2], height);
        const int64_t left = edge(box[1], width);
        const int64_t right = edge(box[3], width);
        if (top > bottom || left > right) continue;
        if (top >= height || bottom < 0 || left >= width || right < 0) continue;
        const int64_t top_c = std::max<int64_t>(top, 0);
        const int64_t bottom_c = std::min<int64_t>(bottom, height - 1);
        const int64_t left_c = std::max<int64_t>(left, 0);
        const int64_t right_c = std::min<int64_t>(right, width - 1);
        for (int64_t x = left_c; x <= right_c; ++x) {
          if (top >= 0) paint(n, top, x, color);
          if (bottom < height) paint(n, bottom, x, color);
        }
        for (int64_t y = top_c; y <= bottom_c; ++y) {
          if (left >= 0) paint(n, y, left, color);
          if (right < width) paint(n, y, right, color);
        }
      }
    }
  }
};

// --- SampleDistortedBoundingBox. ---

// The scramble key TensorFlow's stateless ops hash a [2] seed under (as
// kernels/cpu/random_ops_stateless.cc).
constexpr uint32_t kScrambleKey0 = 0x3ec8f720u;
constexpr uint32_t kScrambleKey1 = 0x02461e29u;

struct Rect {
  int min_x = 0, min_y = 0, max_x = 0, max_y = 0;
  float Area() const { return static_cast<float>((max_x - min_x) * (max_y - min_y)); }
  Rect Intersect(const Rect& r) const {
    Rect i{std::max(min_x, r.min_x), std::max(min_y, r.min_y),
           std::min(max_x, r.max_x), std::min(max_y, r.max_y)};
    if (i.min_x > i.max_x || i.min_y > i.max_y) return Rect{};
    return i;
  }
};

// TensorFlow's SimplePhilox: 32-bit words in stream order.
class WordSource {
 public:
  explicit WordSource(PhiloxRandom gen) : gen_(gen), words_(&gen_) {}
  float UnitFloat() { return random_internal::Uint32ToUnitFloat(words_()); }
  // Uniform in [0, n), by rejection as TensorFlow's ExactUniformInt.
  uint32_t Below(uint32_t n) {
    if (n == 0) return words_() * n;
    if ((n & (n - 1)) == 0) return words_() & (n - 1);
    const uint32_t rem = (std::numeric_limits<uint32_t>::max() % n) + 1;
    uint32_t r;
    do {
      r = words_();
    } while (r < rem);
    return r % n;
  }

 private:
  PhiloxRandom gen_;
  random_internal::SingleWordStream words_;
};

bool CoversAnObject(const Rect& crop, float min_covered,
                    const std::vector<Rect>& objects) {
  if (crop.Area() < 1.0f) return false;
  for (const Rect& o : objects) {
    const float area = o.Area();
    if (area < 1.0f) continue;
    if (crop.Intersect(o).Area() / area >= min_covered) return true;
  }
  return false;
}

bool RandomCrop(int width, int height, float min_rel_area, float max_rel_area,
                float aspect, WordSource* random, Rect* crop) {
  if (max_rel_area <= 0.0f || aspect <= 0.0f || width <= 0 || height <= 0 ||
      min_rel_area > max_rel_area) {
    return false;
  }
  const float min_area = min_rel_area * width * height;
  const float max_area = max_rel_area * width * height;
  int h = static_cast<int>(lrintf(std::sqrt(min_area / aspect)));
  int max_h = static_cast<int>(lrintf(std::sqrt(max_area / aspect)));
  if (lrintf(max_h * aspect) > width) {
    // The largest max_h with round(max_h * aspect) <= width.
    const float kEps = 0.0000001f;
    max_h = static_cast<int>((width + 0.5 - kEps) / aspect);
    if (lrintf(max_h * aspect) > width) max_h -= 1;
  }
  if (max_h > height) max_h = height;
  if (h >= max_h) h = max_h;
  if (h < max_h) h += static_cast<int>(random->Below(max_h - h + 1));
  int w = static_cast<int>(lrintf(h * aspect));
  float area = static_cast<float>(w * h);
  if (area < min_area) {
    h += 1;
    w = static_cast<int>(lrintf(h * aspect));
    area = static_cast<float>(w * h);
  }
  if (area > max_area) {
    h -= 1;
    w = static_cast<int>(lrintf(h * aspect));
    area = static_cast<float>(w * h);
  }
  if (area < min_area || area > max_area || w > width || h > height || w <= 0 ||
      h <= 0) {
    return false;
  }
  const int y = h < height ? static_cast<int>(random->Below(height - h)) : 0;
  const int x = w < width ? static_cast<int>(random->Below(width - w)) : 0;
  *crop = Rect{x, y, x + w, y + h};
  return true;
}

enum class SdbbKind { kV1, kV2, kStateless };

template <typename T>
class SampleDistortedBoundingBoxOp : public OpKernel {
 public:
  SampleDistortedBoundingBoxOp(OpKernelConstruction* ctx, SdbbKind kind)
      : OpKernel(ctx), kind_(kind) {
    if (kind_ == SdbbKind::kV1) {
      OP_REQUIRES_OK(ctx, ctx->GetAttr("min_object_covered", &min_covered_));
      OP_REQUIRES(ctx, min_covered_ >= 0,
                  absl::InvalidArgumentError(absl::StrCat(
                      "min_object_covered ", min_covered_,
                      " must be non-negative")));
    }
    OP_REQUIRES_OK(ctx, ctx->GetAttr("use_image_if_no_bounding_boxes",
                                     &use_image_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("aspect_ratio_range", &aspect_range_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("area_range", &area_range_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("max_attempts", &max_attempts_));
    OP_REQUIRES(ctx,
                aspect_range_.size() == 2 && aspect_range_[0] > 0 &&
                    aspect_range_[1] > 0,
                absl::InvalidArgumentError(
                    "aspect_ratio_range must be 2 positive values"));
    OP_REQUIRES(ctx,
                area_range_.size() == 2 && area_range_[0] > 0 &&
                    area_range_[1] > 0 && area_range_[0] <= 1 &&
                    area_range_[1] <= 1,
                absl::InvalidArgumentError(
                    "area_range must be 2 values in (0, 1]"));
    OP_REQUIRES(ctx, max_attempts_ > 0,
                absl::InvalidArgumentError(absl::StrCat(
                    "max_attempts ", max_attempts_, " must be positive")));
    if (kind_ != SdbbKind::kStateless) stream_ = StreamFromSeedAttrs(ctx);
  }

  void Compute(OpKernelContext* ctx) override {
    PhiloxRandom gen;
    if (kind_ == SdbbKind::kStateless) {
      const Tensor& seed = ctx->input(3);
      OP_REQUIRES(ctx, seed.shape().rank() == 1 && seed.shape().dim(0) == 2,
                  absl::InvalidArgumentError(absl::StrCat(
                      "seed must have shape [2], not ", seed.shape().ToString())));
      uint64_t s0, s1;
      if (seed.dtype() == DT_INT32) {
        s0 = static_cast<uint64_t>(static_cast<int64_t>(seed.data<int32_t>()[0]));
        s1 = static_cast<uint64_t>(static_cast<int64_t>(seed.data<int32_t>()[1]));
      } else {
        s0 = static_cast<uint64_t>(seed.data<int64_t>()[0]);
        s1 = static_cast<uint64_t>(seed.data<int64_t>()[1]);
      }
      const PhiloxRandom::Block mix = PhiloxRandom::Compute(
          {static_cast<uint32_t>(s0), static_cast<uint32_t>(s0 >> 32),
           static_cast<uint32_t>(s1), static_cast<uint32_t>(s1 >> 32)},
          {kScrambleKey0, kScrambleKey1});
      gen = PhiloxRandom({0, 0, mix[2], mix[3]}, {mix[0], mix[1]});
    } else {
      std::lock_guard<std::mutex> lock(mu_);
      gen = stream_;
      stream_.Skip(static_cast<uint64_t>(max_attempts_));
    }
    const Tensor& size = ctx->input(0);
    OP_REQUIRES(ctx, size.shape().rank() == 1 && size.NumElements() == 3,
                absl::InvalidArgumentError(absl::StrCat(
                    "image_size must be [height, width, channels], but has "
                    "shape ",
                    size.shape().ToString())));
    const T* sz = size.data<T>();
    OP_REQUIRES(ctx,
                sz[0] >= 0 && sz[1] >= 0 &&
                    static_cast<uint64_t>(sz[0]) < std::numeric_limits<int32_t>::max() &&
                    static_cast<uint64_t>(sz[1]) < std::numeric_limits<int32_t>::max(),
                absl::InvalidArgumentError(absl::StrCat(
                    "image height ", static_cast<int64_t>(sz[0]), " and width ",
                    static_cast<int64_t>(sz[1]), " must be in [0, 2^31 - 1)")));
    const int height = static_cast<int>(sz[0]);
    const int width = static_cast<int>(sz[1]);
    const Tensor& boxes = ctx->input(1);
    OP_REQUIRES(ctx, boxes.shape().rank() == 3 && boxes.shape().dim(2) == 4,
                absl::InvalidArgumentError(absl::StrCat(
                    "bounding_boxes must be [batch, num_boxes, 4], but has "
                    "shape ",
                    boxes.shape().ToString())));
    float min_covered = min_covered_;
    if (kind_ != SdbbKind::kV1) {
      const Tensor& m = ctx->input(2);
      OP_REQUIRES(ctx, m.shape().rank() == 0,
                  absl::InvalidArgumentError(absl::StrCat(
                      "min_object_covered must be a scalar, but has shape ",
                      m.shape().ToString())));
      min_covered = m.data<float>()[0];
      OP_REQUIRES(ctx, min_covered >= 0,
                  absl::InvalidArgumentError(absl::StrCat(
                      "min_object_covered ", min_covered,
                      " must be non-negative")));
    }
    std::vector<Rect> objects;
    const float* b = boxes.data<float>();
    for (int64_t i = 0; i < boxes.NumElements() / 4; ++i) {
      for (int k = 0; k < 4; ++k) {
        OP_REQUIRES(ctx, b[4 * i + k] >= 0.0f && b[4 * i + k] <= 1.0f,
                    absl::InvalidArgumentError(absl::StrCat(
                        "bounding box coordinates must be in [0, 1], got ",
                        b[4 * i + k])));
      }
      objects.push_back(Rect{static_cast<int>(b[4 * i + 1] * width),
                             static_cast<int>(b[4 * i] * height),
                             static_cast<int>(b[4 * i + 3] * width),
                             static_cast<int>(b[4 * i + 2] * height)});
    }
    const Rect image{0, 0, width, height};
    if (objects.empty()) {
      OP_REQUIRES(ctx, use_image_,
                  absl::InvalidArgumentError(
                      "no bounding boxes given: set "
                      "use_image_if_no_bounding_boxes to crop the whole "
                      "image instead"));
      objects.push_back(image);
    }
    WordSource random(gen);
    Rect crop;
    bool found = false;
    for (int64_t i = 0; i < max_attempts_ && !found; ++i) {
      const float aspect =
          random.UnitFloat() * (aspect_range_[1] - aspect_range_[0]) +
          aspect_range_[0];
      found = RandomCrop(width, height, area_range_[0], area_range_[1], aspect,
                         &random, &crop) &&
              CoversAnObject(crop, min_covered, objects);
    }
    if (!found) crop = image;
    Tensor *begin = nullptr, *out_size = nullptr, *bboxes = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({3}), &begin));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape({3}), &out_size));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(2, TensorShape({1, 1, 4}), &bboxes));
    T* bg = begin->data<T>();
    T* sz_out = out_size->data<T>();
    bg[0] = static_cast<T>(crop.min_y);
    bg[1] = static_cast<T>(crop.min_x);
    bg[2] = static_cast<T>(0);
    sz_out[0] = static_cast<T>(crop.max_y - crop.min_y);
    sz_out[1] = static_cast<T>(crop.max_x - crop.min_x);
    sz_out[2] = static_cast<T>(-1);
    float* bb = bboxes->data<float>();
    bb[0] = static_cast<float>(crop.min_y) / static_cast<float>(height);
    bb[1] = static_cast<float>(crop.min_x) / static_cast<float>(width);
    bb[2] = static_cast<float>(crop.max_y) / static_cast<float>(height);
    bb[3] = static_cast<float>(crop.max_x) / static_cast<float>(width);
  }

 private:
  SdbbKind kind_;
  float min_covered_ = 0.1f;
  bool use_image_ = false;
  std::vector<float> aspect_range_, area_range_;
  int64_t max_attempts_ = 100;
  std::mutex mu_;
  PhiloxRandom stream_;
};

template <typename T, SdbbKind kKind>
class SdbbOp : public SampleDistortedBoundingBoxOp<T> {
 public:
  explicit SdbbOp(OpKernelConstruction* ctx)
      : SampleDistortedBoundingBoxOp<T>(ctx, kKind) {}
};

#define DFLOW_REGISTER_DRAW(T, E)                                          \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("DrawBoundingBoxes")              \
                            .Device(kDeviceCpu)                            \
                            .TypeConstraint<T>("T"),                       \
                        DrawBoundingBoxesOp<E>);                           \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("DrawBoundingBoxesV2")            \
                            .Device(kDeviceCpu)                            \
                            .TypeConstraint<T>("T"),                       \
                        DrawBoundingBoxesOp<E>)
DFLOW_REGISTER_DRAW(float, float);
DFLOW_REGISTER_DRAW(float16, Eigen::half);
#undef DFLOW_REGISTER_DRAW

#define DFLOW_REGISTER_SDBB(T)                                             \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("SampleDistortedBoundingBox")     \
                            .Device(kDeviceCpu)                            \
                            .TypeConstraint<T>("T"),                       \
                        SdbbOp<T, SdbbKind::kV1>);                         \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("SampleDistortedBoundingBoxV2")   \
                            .Device(kDeviceCpu)                            \
                            .TypeConstraint<T>("T"),                       \
                        SdbbOp<T, SdbbKind::kV2>);                         \
  DFLOW_REGISTER_KERNEL(                                                   \
      KernelDefBuilder("StatelessSampleDistortedBoundingBox")              \
          .Device(kDeviceCpu)                                              \
          .TypeConstraint<T>("T"),                                         \
      SdbbOp<T, SdbbKind::kStateless>)
DFLOW_REGISTER_SDBB(uint8_t);
DFLOW_REGISTER_SDBB(int8_t);
DFLOW_REGISTER_SDBB(int16_t);
DFLOW_REGISTER_SDBB(int32_t);
DFLOW_REGISTER_SDBB(int64_t);
#undef DFLOW_REGISTER_SDBB

}  // namespace
}  // namespace dflow
