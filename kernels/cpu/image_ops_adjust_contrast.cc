// AdjustContrast (the deprecated first version; tf.image.adjust_contrast
// writes AdjustContrastv2) on CPU, as TensorFlow 2.21's
// core/kernels/image/adjust_contrast_op.cc: images of rank >= 3 as
// [batch, height, width, channels] (leading dims folded into the batch),
// each channel's mean over height and width summed in float, then
//   out = clamp((float(x) - mean) * factor + mean, min_value, max_value)
// in float. TensorFlow sums with an Eigen reduction: its order may differ
// from this row-major one in the last bits.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/tensor.h"
#include "graph/types.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

template <typename T>
class AdjustContrastOp : public OpKernel {
 public:
  explicit AdjustContrastOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& images = ctx->input(0);
    const TensorShape& s = images.shape();
    OP_REQUIRES(ctx, s.rank() >= 3,
                absl::InvalidArgumentError(absl::StrCat(
                    "images must be at least 3-D [..., height, width, "
                    "channels], but has shape ",
                    s.ToString())));
    const char* names[] = {"contrast_factor", "min_value", "max_value"};
    float v[3];
    for (int i = 0; i < 3; ++i) {
      const Tensor& t = ctx->input(i + 1);
      OP_REQUIRES(ctx, t.shape().rank() == 0,
                  absl::InvalidArgumentError(absl::StrCat(
                      names[i], " must be a scalar, but has shape ",
                      t.shape().ToString())));
      v[i] = t.data<float>()[0];
    }
    const int64_t height = s.dim(s.rank() - 3), width = s.dim(s.rank() - 2),
                  channels = s.dim(s.rank() - 1);
    const int64_t pixels = height * width;
    const int64_t batch = pixels * channels == 0
                              ? 0
                              : images.NumElements() / (pixels * channels);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, s, &out));
    const T* in = images.data<T>();
    float* o = out->data<float>();
    std::vector<float> mean(channels);
    for (int64_t b = 0; b < batch; ++b) {
      const T* img = in + b * pixels * channels;
      std::fill(mean.begin(), mean.end(), 0.0f);
      for (int64_t p = 0; p < pixels; ++p) {
        for (int64_t c = 0; c < channels; ++c) {
          mean[c] += static_cast<float>(img[p * channels + c]);
        }
      }
      for (float& m : mean) m /= static_cast<float>(pixels);
      float* dst = o + b * pixels * channels;
      for (int64_t p = 0; p < pixels; ++p) {
        for (int64_t c = 0; c < channels; ++c) {
          const float x = static_cast<float>(img[p * channels + c]);
          const float adjusted = (x - mean[c]) * v[0] + mean[c];
          dst[p * channels + c] = std::max(std::min(adjusted, v[2]), v[1]);
        }
      }
    }
  }
};

#define DFLOW_REGISTER_ADJUST(T)                                     \
  DFLOW_REGISTER_KERNEL(                                             \
      KernelDefBuilder("AdjustContrast").Device(kDeviceCpu).TypeConstraint<T>( \
          "T"),                                                      \
      AdjustContrastOp<T>)
DFLOW_REGISTER_ADJUST(uint8_t);
DFLOW_REGISTER_ADJUST(int8_t);
DFLOW_REGISTER_ADJUST(int16_t);
DFLOW_REGISTER_ADJUST(int32_t);
DFLOW_REGISTER_ADJUST(int64_t);
DFLOW_REGISTER_ADJUST(float);
DFLOW_REGISTER_ADJUST(double);
#undef DFLOW_REGISTER_ADJUST

}  // namespace
}  // namespace dflow
