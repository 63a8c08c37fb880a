// MaxPoolWithArgmax and MaxPoolGradWithArgmax on CPU (NHWC), as TensorFlow
// 2.21's: argmax is the flat index (y * width + x) * channels + c of each
// window's maximum in its image (plus b * height * width * channels with
// include_batch_in_index); of equal maxima the first in row-major order
// wins. The gradient adds each grad element at its argmax; an argmax outside
// the input is an InvalidArgument naming it.
#include <array>
#include <cstdint>
#include <type_traits>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "graph/tensor.h"
#include "graph/types.h"
#include "kernels/cpu/kernel_util_window.h"
#include "kernels/cpu/pooling_ops_common.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

using pooling::EigenElement;

// The attrs both ops read, and the pooled geometry of an NHWC input.
class ArgmaxPoolBase : public OpKernel {
 public:
  explicit ArgmaxPoolBase(OpKernelConstruction* ctx) : OpKernel(ctx) {
    absl::Status s = window::GetWindowAttr(*ctx, "ksize", false, &ksize_);
    if (s.ok()) s = window::GetWindowAttr(*ctx, "strides", false, &strides_);
    if (s.ok()) s = window::GetPadding(*ctx, false, &padding_);
    if (s.ok()) {
      s = ctx->GetAttr("include_batch_in_index", &include_batch_);
    }
    if (!s.ok()) ctx->SetStatus(s);
  }

 protected:
  struct Geometry {
    int64_t batch, rows, cols, depth, out_rows, out_cols, pad_top, pad_left;
  };

  absl::Status ComputeGeometry(const TensorShape& in, Geometry* g) const {
    if (in.rank() != 4) {
      return absl::InvalidArgumentError(
          absl::StrCat("input must be 4-D [batch, height, width, channels], ",
                       "but has shape ", in.ToString()));
    }
    g->batch = in.dim(0);
    g->rows = in.dim(1);
    g->cols = in.dim(2);
    g->depth = in.dim(3);
    window::WindowDim r, c;
    absl::Status s =
        window::ComputeWindow(g->rows, ksize_[window::kRowDim], 1,
                              strides_[window::kRowDim], padding_, 0, &r);
    if (s.ok()) {
      s = window::ComputeWindow(g->cols, ksize_[window::kColDim], 1,
                                strides_[window::kColDim], padding_, 1, &c);
    }
    if (!s.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "input ", in.ToString(), " with ksize ", window::ListString(ksize_),
          " and strides ", window::ListString(strides_), ": ", s.message()));
    }
    g->out_rows = r.out;
    g->out_cols = c.out;
    g->pad_top = r.pad_before;
    g->pad_left = c.pad_before;
    return absl::OkStatus();
  }

  std::array<int64_t, 4> ksize_{}, strides_{};
  window::Padding padding_;
  bool include_batch_ = false;
};

template <typename T, typename Idx>
class MaxPoolWithArgmaxOp : public ArgmaxPoolBase {
 public:
  using ArgmaxPoolBase::ArgmaxPoolBase;

  void Compute(OpKernelContext* ctx) override {
    using E = typename EigenElement<T>::type;
    const Tensor& input = ctx->input(0);
    Geometry g;
    OP_REQUIRES_OK(ctx, ComputeGeometry(input.shape(), &g));
    const TensorShape out_shape({g.batch, g.out_rows, g.out_cols, g.depth});
    Tensor* out = nullptr;
    Tensor* argmax = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, out_shape, &argmax));
    const E* in = reinterpret_cast<const E*>(input.data<T>());
    E* o = reinterpret_cast<E*>(out->data<T>());
    Idx* a = argmax->data<Idx>();
    const int64_t image = g.rows * g.cols * g.depth;
    const int64_t kr = ksize_[window::kRowDim], kc = ksize_[window::kColDim];
    for (int64_t b = 0; b < g.batch; ++b) {
      const E* img = in + b * image;
      const int64_t base = include_batch_ ? b * image : 0;
      for (int64_t oy = 0; oy < g.out_rows; ++oy) {
        const int64_t y0 = oy * strides_[window::kRowDim] - g.pad_top;
        const int64_t y_begin = y0 < 0 ? 0 : y0;
        const int64_t y_end = y0 + kr < g.rows ? y0 + kr : g.rows;
        for (int64_t ox = 0; ox < g.out_cols; ++ox) {
          const int64_t x0 = ox * strides_[window::kColDim] - g.pad_left;
          const int64_t x_begin = x0 < 0 ? 0 : x0;
          const int64_t x_end = x0 + kc < g.cols ? x0 + kc : g.cols;
          const int64_t at =
              ((b * g.out_rows + oy) * g.out_cols + ox) * g.depth;
          E* best = o + at;
          Idx* where = a + at;
          // The window's first pixel starts every channel's maximum; later
          // pixels replace it only when strictly greater (first max wins).
          const int64_t first = (y_begin * g.cols + x_begin) * g.depth;
          for (int64_t c = 0; c < g.depth; ++c) {
            best[c] = img[first + c];
            where[c] = static_cast<Idx>(base + first + c);
          }
          for (int64_t y = y_begin; y < y_end; ++y) {
            for (int64_t x = x_begin; x < x_end; ++x) {
              const int64_t pix = (y * g.cols + x) * g.depth;
              const E* v = img + pix;
              for (int64_t c = 0; c < g.depth; ++c) {
                if (v[c] > best[c]) {
                  best[c] = v[c];
                  where[c] = static_cast<Idx>(base + pix + c);
                }
              }
            }
          }
        }
      }
    }
  }
};

template <typename T, typename Idx>
class MaxPoolGradWithArgmaxOp : public ArgmaxPoolBase {
 public:
  using ArgmaxPoolBase::ArgmaxPoolBase;

  void Compute(OpKernelContext* ctx) override {
    using E = typename EigenElement<T>::type;
    const Tensor& input = ctx->input(0);
    const Tensor& grad = ctx->input(1);
    const Tensor& argmax = ctx->input(2);
    Geometry g;
    OP_REQUIRES_OK(ctx, ComputeGeometry(input.shape(), &g));
    const TensorShape pooled({g.batch, g.out_rows, g.out_cols, g.depth});
    OP_REQUIRES(ctx, grad.shape() == pooled,
                absl::InvalidArgumentError(absl::StrCat(
                    "grad must have the pooled shape ", pooled.ToString(),
                    " of input ", input.shape().ToString(), ", but has shape ",
                    grad.shape().ToString())));
    OP_REQUIRES(ctx, argmax.shape() == pooled,
                absl::InvalidArgumentError(absl::StrCat(
                    "argmax must have the pooled shape ", pooled.ToString(),
                    " of input ", input.shape().ToString(), ", but has shape ",
                    argmax.shape().ToString())));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &out));
    E* o = reinterpret_cast<E*>(out->data<T>());
    const E* gr = reinterpret_cast<const E*>(grad.data<T>());
    const Idx* a = argmax.data<Idx>();
    const int64_t total = input.NumElements();
    for (int64_t i = 0; i < total; ++i) o[i] = E(0);
    const int64_t image = g.rows * g.cols * g.depth;
    const int64_t per_batch = g.out_rows * g.out_cols * g.depth;
    for (int64_t b = 0; b < g.batch; ++b) {
      const int64_t base = include_batch_ ? 0 : b * image;
      const int64_t limit = include_batch_ ? total : image;
      for (int64_t i = b * per_batch; i < (b + 1) * per_batch; ++i) {
        const int64_t idx = static_cast<int64_t>(a[i]);
        OP_REQUIRES(ctx, idx >= 0 && idx < limit,
                    absl::InvalidArgumentError(absl::StrCat(
                        "argmax[", i, "] = ", idx, " is outside [0, ", limit,
                        ") (the input ", input.shape().ToString(),
                        include_batch_ ? "" : " per image", ")")));
        o[base + idx] += gr[i];
      }
    }
  }
};

#define DFLOW_REGISTER_ARGMAX_POOL(T)                             \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("MaxPoolWithArgmax")     \
                            .Device(kDeviceCpu)                   \
                            .TypeConstraint<T>("T")               \
                            .TypeConstraint<int64_t>("Targmax"),  \
                        MaxPoolWithArgmaxOp<T, int64_t>);         \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("MaxPoolWithArgmax")     \
                            .Device(kDeviceCpu)                   \
                            .TypeConstraint<T>("T")               \
                            .TypeConstraint<int32_t>("Targmax"),  \
                        MaxPoolWithArgmaxOp<T, int32_t>);         \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("MaxPoolGradWithArgmax") \
                            .Device(kDeviceCpu)                   \
                            .TypeConstraint<T>("T")               \
                            .TypeConstraint<int64_t>("Targmax"),  \
                        MaxPoolGradWithArgmaxOp<T, int64_t>);     \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("MaxPoolGradWithArgmax") \
                            .Device(kDeviceCpu)                   \
                            .TypeConstraint<T>("T")               \
                            .TypeConstraint<int32_t>("Targmax"),  \
                        MaxPoolGradWithArgmaxOp<T, int32_t>)

DFLOW_REGISTER_ARGMAX_POOL(float);
DFLOW_REGISTER_ARGMAX_POOL(double);
DFLOW_REGISTER_ARGMAX_POOL(float16);
DFLOW_REGISTER_ARGMAX_POOL(bfloat16);
DFLOW_REGISTER_ARGMAX_POOL(int32_t);
DFLOW_REGISTER_ARGMAX_POOL(int64_t);

#undef DFLOW_REGISTER_ARGMAX_POOL

}  // namespace
}  // namespace dflow
