// ExtractImagePatches on CPU (NHWC), as TensorFlow 2.21's: output pixel
// (r, c) holds the patch whose taps are input rows r * stride_r - pad_top +
// i * rate_r and cols c * stride_c - pad_left + j * rate_c, flattened
// (i, j, channel) into the depth; taps outside the image are zero. Padding
// follows TensorFlow's SAME/VALID rules for the dilated patch size. Each
// tap moves as a contiguous run of channels.
#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/tensor.h"
#include "graph/types.h"
#include "kernels/cpu/kernel_util_array.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

class ExtractImagePatchesOp : public OpKernel {
 public:
  explicit ExtractImagePatchesOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::vector<int64_t> ksizes, strides, rates;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("ksizes", &ksizes));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("strides", &strides));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("rates", &rates));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("padding", &padding_));
    bool ok = ksizes.size() == 4 && strides.size() == 4 && rates.size() == 4;
    for (size_t i = 0; ok && i < 4; ++i) {
      ok = ksizes[i] >= 1 && strides[i] >= 1 && rates[i] >= 1;
    }
    ok = ok && ksizes[0] == 1 && ksizes[3] == 1 && strides[0] == 1 &&
         strides[3] == 1 && rates[0] == 1 && rates[3] == 1;
    OP_REQUIRES(ctx, ok,
                absl::InvalidArgumentError(absl::StrCat(
                    "ksizes [", absl::StrJoin(ksizes, ","), "], strides [",
                    absl::StrJoin(strides, ","), "] and rates [",
                    absl::StrJoin(rates, ","),
                    "] must have 4 positive entries, 1 for the batch and "
                    "depth")));
    for (int i = 0; i < 2; ++i) {
      ksize_[i] = ksizes[i + 1];
      stride_[i] = strides[i + 1];
      rate_[i] = rates[i + 1];
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& images = ctx->input(0);
    const TensorShape& s = images.shape();
    OP_REQUIRES(ctx, s.rank() == 4,
                absl::InvalidArgumentError(absl::StrCat(
                    "images must be 4-D [batch, rows, cols, depth], but have "
                    "shape ",
                    s.ToString())));
    const int64_t in[2] = {s.dim(1), s.dim(2)};
    int64_t out[2], pad[2];
    for (int i = 0; i < 2; ++i) {
      const int64_t span = (ksize_[i] - 1) * rate_[i] + 1;
      if (padding_ == "SAME") {
        out[i] = (in[i] + stride_[i] - 1) / stride_[i];
        const int64_t total = (out[i] - 1) * stride_[i] + span - in[i];
        pad[i] = total > 0 ? total / 2 : 0;
      } else {
        OP_REQUIRES(ctx, in[i] >= span,
                    absl::InvalidArgumentError(absl::StrCat(
                        "images ", s.ToString(), " are smaller than the ",
                        "dilated patch (", span, ") in dimension ", i + 1,
                        " with VALID padding")));
        out[i] = (in[i] - span) / stride_[i] + 1;
        pad[i] = 0;
      }
    }
    const int64_t n = s.dim(0), d = s.dim(3);
    const int64_t patch = ksize_[0] * ksize_[1] * d;
    Tensor* result = nullptr;
    OP_REQUIRES_OK(
        ctx, ctx->allocate_output(0, TensorShape({n, out[0], out[1], patch}),
                                  &result));
    if (result->NumElements() == 0) return;
    array_kernels::VisitCopyType(images.dtype(), [&](auto* tag) {
      using T = std::remove_pointer_t<decltype(tag)>;
      const T* src = array_kernels::CopyData<T>(images);
      T* dst = array_kernels::CopyData<T>(result);
      for (int64_t b = 0; b < n; ++b) {
        const T* img = src + b * in[0] * in[1] * d;
        for (int64_t r = 0; r < out[0]; ++r) {
          for (int64_t c = 0; c < out[1]; ++c) {
            T* to = dst + ((b * out[0] + r) * out[1] + c) * patch;
            for (int64_t i = 0; i < ksize_[0]; ++i) {
              const int64_t y = r * stride_[0] - pad[0] + i * rate_[0];
              for (int64_t j = 0; j < ksize_[1]; ++j) {
                const int64_t x = c * stride_[1] - pad[1] + j * rate_[1];
                T* tap = to + (i * ksize_[1] + j) * d;
                if (y < 0 || y >= in[0] || x < 0 || x >= in[1]) {
                  std::fill(tap, tap + d, T{});
                } else {
                  const T* from = img + (y * in[1] + x) * d;
                  std::copy(from, from + d, tap);
                }
              }
            }
          }
        }
      }
    });
  }

 private:
  std::array<int64_t, 2> ksize_{}, stride_{}, rate_{};
  std::string padding_;
};

DFLOW_REGISTER_KERNEL(KernelDefBuilder("ExtractImagePatches")
                          .Device(kDeviceCpu)
                          .TypeConstraint("T", array_kernels::AllTensorTypes()),
                      ExtractImagePatchesOp);

}  // namespace
}  // namespace dflow
