// CPU kernels for SpaceToDepth and DepthToSpace. Both relate a "space"
// tensor and a "depth" tensor with block size bs by
//   NHWC: depth[b, h, w, (dy * bs + dx) * C + c] = space[b, h*bs+dy, w*bs+dx,
//   c] NCHW: depth[b, (dy * bs + dx) * C + c, h, w] = space[b, c, h*bs+dy,
//   w*bs+dx]
// (C the space tensor's depth). SpaceToDepth fills the depth tensor,
// DepthToSpace the space tensor. In NHWC the C channels move as one
// contiguous run. TensorFlow's CPU kernels take NHWC only; NCHW costs
// nothing extra here, so it is supported too.
#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "graph/tensor.h"
#include "graph/types.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/kernel_util_array.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

// Sizes of the space tensor (the depth tensor's follow from them).
struct SpaceDepthGeometry {
  int64_t batch = 0, height = 0, width = 0, depth = 0, block = 0;
  bool nchw = false;
};

// Copies between the space tensor `space` and the depth tensor `depth` in
// the direction `kToDepth`.
template <bool kToDepth, typename T>
void MoveBlocks(const SpaceDepthGeometry& g, T* space, T* depth) {
  const int64_t bs = g.block, c = g.depth;
  const int64_t oh = g.height / bs, ow = g.width / bs;
  auto move = [](T* s, T* d, int64_t n) {
    if constexpr (kToDepth) {
      std::copy(s, s + n, d);
    } else {
      std::copy(d, d + n, s);
    }
  };
  if (!g.nchw) {
    for (int64_t b = 0; b < g.batch; ++b) {
      for (int64_t h = 0; h < oh; ++h) {
        for (int64_t w = 0; w < ow; ++w) {
          T* d = depth + ((b * oh + h) * ow + w) * c * bs * bs;
          for (int64_t dy = 0; dy < bs; ++dy) {
            T* s =
                space + ((b * g.height + h * bs + dy) * g.width + w * bs) * c;
            // The bs pixels of one block row are contiguous in both.
            move(s, d + dy * bs * c, bs * c);
          }
        }
      }
    }
    return;
  }
  for (int64_t b = 0; b < g.batch; ++b) {
    for (int64_t dy = 0; dy < bs; ++dy) {
      for (int64_t dx = 0; dx < bs; ++dx) {
        for (int64_t ch = 0; ch < c; ++ch) {
          T* d = depth + ((b * bs * bs + dy * bs + dx) * c + ch) * oh * ow;
          const T* s0 = space + (b * c + ch) * g.height * g.width;
          for (int64_t h = 0; h < oh; ++h) {
            T* s = const_cast<T*>(s0) + (h * bs + dy) * g.width + dx;
            for (int64_t w = 0; w < ow; ++w) {
              if constexpr (kToDepth) {
                d[h * ow + w] = s[w * bs];
              } else {
                s[w * bs] = d[h * ow + w];
              }
            }
          }
        }
      }
    }
  }
}

template <bool kToDepth>
class SpaceDepthOp : public OpKernel {
 public:
  explicit SpaceDepthOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string format;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("block_size", &block_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("data_format", &format));
    OP_REQUIRES(ctx, format == "NHWC" || format == "NCHW",
                absl::UnimplementedError(absl::StrCat(
                    "data_format ", format,
                    " is not supported on CPU; use NHWC or NCHW")));
    OP_REQUIRES(ctx, block_ >= 2,
                absl::InvalidArgumentError(absl::StrCat(
                    "block_size ", block_, " must be at least 2")));
    nchw_ = format == "NCHW";
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const TensorShape& in = input.shape();
    const char* layout = nchw_ ? "NCHW" : "NHWC";
    OP_REQUIRES(ctx, in.rank() == 4,
                absl::InvalidArgumentError(
                    absl::StrCat("input must be 4-D (", layout,
                                 "), but has shape ", in.ToString())));
    const int hd = nchw_ ? 2 : 1, wd = nchw_ ? 3 : 2, cd = nchw_ ? 1 : 3;
    const int64_t sq = block_ * block_;
    SpaceDepthGeometry g;
    g.batch = in.dim(0);
    g.block = block_;
    g.nchw = nchw_;
    TensorShape out_shape = in;
    if (kToDepth) {
      OP_REQUIRES(ctx, in.dim(hd) % block_ == 0 && in.dim(wd) % block_ == 0,
                  absl::InvalidArgumentError(absl::StrCat(
                      "height and width of input ", in.ToString(), " (", layout,
                      ") must be divisible by block_size ", block_)));
      g.height = in.dim(hd);
      g.width = in.dim(wd);
      g.depth = in.dim(cd);
      out_shape.set_dim(hd, g.height / block_);
      out_shape.set_dim(wd, g.width / block_);
      out_shape.set_dim(cd, g.depth * sq);
    } else {
      OP_REQUIRES(
          ctx, in.dim(cd) % sq == 0,
          absl::InvalidArgumentError(absl::StrCat(
              "the depth ", in.dim(cd), " of input ", in.ToString(), " (",
              layout,
              ") must be divisible by block_size * block_size = ", sq)));
      g.height = in.dim(hd) * block_;
      g.width = in.dim(wd) * block_;
      g.depth = in.dim(cd) / sq;
      out_shape.set_dim(hd, g.height);
      out_shape.set_dim(wd, g.width);
      out_shape.set_dim(cd, g.depth);
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out->NumElements() == 0) return;
    array_kernels::VisitCopyType(input.dtype(), [&](auto* tag) {
      using T = std::remove_pointer_t<decltype(tag)>;
      T* src = const_cast<T*>(array_kernels::CopyData<T>(input));
      T* dst = array_kernels::CopyData<T>(out);
      if constexpr (kToDepth) {
        MoveBlocks<true, T>(g, src, dst);
      } else {
        MoveBlocks<false, T>(g, dst, src);
      }
    });
  }

 private:
  int64_t block_ = 0;
  bool nchw_ = false;
};

DFLOW_REGISTER_KERNEL(KernelDefBuilder("SpaceToDepth")
                          .Device(kDeviceCpu)
                          .TypeConstraint("T", array_kernels::AllTensorTypes()),
                      SpaceDepthOp<true>);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("DepthToSpace")
                          .Device(kDeviceCpu)
                          .TypeConstraint("T", array_kernels::AllTensorTypes()),
                      SpaceDepthOp<false>);

}  // namespace
}  // namespace dflow
