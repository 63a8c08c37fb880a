// ExtractVolumePatches on CPU (NDHWC), as TensorFlow 2.21's
// (core/kernels/extract_volume_patches_op.cc): output voxel (p, r, c) holds
// the patch whose taps are input planes p * stride_p - pad_front + i, rows
// r * stride_r - pad_top + j and cols c * stride_c - pad_left + k,
// flattened (i, j, k, channel) into the depth; taps outside the volume are
// zero. SAME pads (out - 1) * stride + ksize - in, the smaller half first.
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

class ExtractVolumePatchesOp : public OpKernel {
 public:
  explicit ExtractVolumePatchesOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::vector<int64_t> ksizes, strides;
    std::string padding;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("ksizes", &ksizes));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("strides", &strides));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("padding", &padding));
    same_ = padding == "SAME";
    bool ok = ksizes.size() == 5 && strides.size() == 5;
    for (size_t i = 0; ok && i < 5; ++i) ok = ksizes[i] >= 1 && strides[i] >= 1;
    ok = ok && ksizes[0] == 1 && ksizes[4] == 1 && strides[0] == 1 &&
         strides[4] == 1;
    OP_REQUIRES(ctx, ok,
                absl::InvalidArgumentError(absl::StrCat(
                    "ksizes [", absl::StrJoin(ksizes, ","), "] and strides [",
                    absl::StrJoin(strides, ","),
                    "] must have 5 positive entries, 1 for the batch and "
                    "depth")));
    for (int i = 0; i < 3; ++i) {
      ksize_[i] = ksizes[i + 1];
      stride_[i] = strides[i + 1];
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const TensorShape& s = input.shape();
    OP_REQUIRES(ctx, s.rank() == 5,
                absl::InvalidArgumentError(absl::StrCat(
                    "input must be 5-D [batch, planes, rows, cols, depth], but "
                    "has shape ",
                    s.ToString())));
    std::array<int64_t, 3> in{s.dim(1), s.dim(2), s.dim(3)}, out{}, pad{};
    for (int i = 0; i < 3; ++i) {
      if (same_) {
        out[i] = (in[i] + stride_[i] - 1) / stride_[i];
        pad[i] = std::max<int64_t>(0, (out[i] - 1) * stride_[i] + ksize_[i] - in[i]) / 2;
      } else {
        OP_REQUIRES(ctx, in[i] >= ksize_[i],
                    absl::InvalidArgumentError(absl::StrCat(
                        "input ", s.ToString(), " is smaller than the patch (",
                        ksize_[i], ") in dimension ", i + 1,
                        " with VALID padding")));
        out[i] = (in[i] - ksize_[i]) / stride_[i] + 1;
      }
    }
    const int64_t n = s.dim(0), d = s.dim(4);
    int64_t patch = d;
    for (int i = 0; i < 3; ++i) {
      OP_REQUIRES(ctx, !__builtin_mul_overflow(patch, ksize_[i], &patch),
                  absl::InvalidArgumentError("the patches are too large"));
    }
    Tensor* result = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(
                            0, TensorShape({n, out[0], out[1], out[2], patch}),
                            &result));
    if (result->NumElements() == 0) return;
    array_kernels::VisitCopyType(input.dtype(), [&](auto* tag) {
      using T = std::remove_pointer_t<decltype(tag)>;
      const T* src = array_kernels::CopyData<T>(input);
      T* to = array_kernels::CopyData<T>(result);
      for (int64_t b = 0; b < n; ++b) {
        const T* vol = src + b * in[0] * in[1] * in[2] * d;
        for (int64_t p = 0; p < out[0]; ++p) {
          for (int64_t r = 0; r < out[1]; ++r) {
            for (int64_t c = 0; c < out[2]; ++c) {
              for (int64_t i = 0; i < ksize_[0]; ++i) {
                const int64_t z = p * stride_[0] - pad[0] + i;
                for (int64_t j = 0; j < ksize_[1]; ++j) {
                  const int64_t y = r * stride_[1] - pad[1] + j;
                  for (int64_t k = 0; k < ksize_[2]; ++k, to += d) {
                    const int64_t x = c * stride_[2] - pad[2] + k;
                    if (z < 0 || z >= in[0] || y < 0 || y >= in[1] || x < 0 ||
                        x >= in[2]) {
                      std::fill(to, to + d, T{});
                    } else {
                      const T* from = vol + ((z * in[1] + y) * in[2] + x) * d;
                      std::copy(from, from + d, to);
                    }
                  }
                }
              }
            }
          }
        }
      }
    });
  }

 private:
  std::array<int64_t, 3> ksize_{}, stride_{};
  bool same_ = false;
};

DFLOW_REGISTER_KERNEL(KernelDefBuilder("ExtractVolumePatches")
                          .Device(kDeviceCpu)
                          .TypeConstraint("T", array_kernels::AllTensorTypes()),
                      ExtractVolumePatchesOp);

}  // namespace
}  // namespace dflow
