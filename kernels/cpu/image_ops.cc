// CPU kernel for AdjustContrastv2 (tf.image.adjust_contrast and
// random_contrast): out = mean + factor * (x - mean), the mean per image
// and channel over height and width.
//
// The mean is summed the way TensorFlow's CPU kernel sums it, so the
// results match TensorFlow's bit for bit: the image's rows of channels are
// folded in halves (rows [0, n/2) plus rows [n - n/2, n), the middle row of
// an odd count kept, then again on the first half) until one row is left,
// which is multiplied by 1.0f / (height * width). Half images are computed
// in float and rounded, as TensorFlow does.
#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/tensor.h"
#include "graph/types.h"
#include "kernels/cpu/kernel_util.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

// The per-channel means of one image of `pixels` rows of `channels`
// floats; `scratch` holds (pixels + 1) / 2 rows.
void ChannelMeans(const float* image, int64_t pixels, int64_t channels,
                  float* scratch, float* means) {
  int64_t remaining = pixels;
  bool first = true;
  do {
    const int64_t right = remaining / 2;
    const int64_t left = remaining - right;
    if (first) {
      for (int64_t i = 0; i < right * channels; ++i) {
        scratch[i] = image[left * channels + i] + image[i];
      }
      if (left > right) {
        std::copy_n(image + right * channels, channels,
                    scratch + right * channels);
      }
      first = false;
    } else {
      for (int64_t i = 0; i < right * channels; ++i) {
        scratch[i] += scratch[left * channels + i];
      }
    }
    remaining = left;
  } while (remaining > 1);
  const float scale = 1.0f / static_cast<float>(pixels);
  for (int64_t c = 0; c < channels; ++c) means[c] = scratch[c] * scale;
}

template <typename T>
float ToFloat(T v) {
  if constexpr (std::is_same_v<T, float>) {
    return v;
  } else {
    return v.ToFloat();
  }
}

template <typename T>
T FromFloat(float v) {
  if constexpr (std::is_same_v<T, float>) {
    return v;
  } else {
    return T::FromFloat(v);
  }
}

template <typename T>
class AdjustContrastV2Op : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& images = ctx->input(0);
    const Tensor& factor_t = ctx->input(1);
    const TensorShape& shape = images.shape();
    OP_REQUIRES(ctx, shape.rank() >= 3,
                absl::InvalidArgumentError(absl::StrCat(
                    "images must be at least 3-D ([..., height, width, "
                    "channels]), got shape ",
                    shape.ToString())));
    OP_REQUIRES(ctx, factor_t.shape().rank() == 0,
                absl::InvalidArgumentError(
                    absl::StrCat("contrast_factor must be a scalar, got shape ",
                                 factor_t.shape().ToString())));
    const int rank = shape.rank();
    const int64_t height = shape.dim(rank - 3);
    const int64_t width = shape.dim(rank - 2);
    const int64_t channels = shape.dim(rank - 1);
    const int64_t pixels = height * width;
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    if (images.NumElements() == 0) return;
    const int64_t plane = pixels * channels;
    const int64_t batch = images.NumElements() / plane;
    const float factor = factor_t.data<float>()[0];
    const T* in = images.data<T>();
    T* result = out->data<T>();
    ParallelForShards(ctx, batch, plane * 4, [&](int64_t begin, int64_t end) {
      std::vector<float> image(plane), scratch(((pixels + 1) / 2) * channels),
          means(channels);
      for (int64_t b = begin; b < end; ++b) {
        const T* src = in + b * plane;
        for (int64_t i = 0; i < plane; ++i) image[i] = ToFloat(src[i]);
        ChannelMeans(image.data(), pixels, channels, scratch.data(),
                     means.data());
        T* dst = result + b * plane;
        for (int64_t p = 0; p < pixels; ++p) {
          for (int64_t c = 0; c < channels; ++c) {
            const float m = means[c];
            dst[p * channels + c] =
                FromFloat<T>(m + factor * (image[p * channels + c] - m));
          }
        }
      }
    });
  }
};

DFLOW_REGISTER_KERNEL(KernelDefBuilder("AdjustContrastv2")
                          .Device(kDeviceCpu)
                          .TypeConstraint<float>("T"),
                      AdjustContrastV2Op<float>);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("AdjustContrastv2")
                          .Device(kDeviceCpu)
                          .TypeConstraint<float16>("T"),
                      AdjustContrastV2Op<float16>);

}  // namespace
}  // namespace dflow
