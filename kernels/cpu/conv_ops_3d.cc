// Conv3D and its gradients Conv3DBackpropInputV2 and Conv3DBackpropFilterV2
// on CPU (NDHWC, as TensorFlow's CPU kernels; filters [d, h, w, in, out]),
// with strides, dilations and SAME/VALID padding. Each is lowered to GEMM
// (kernel_util_blas.h) over an im2col matrix: one row per output position,
// holding the d * h * w * in input values its dilated window covers (zeros
// in the padding). The forward pass is cols x filter, the input gradient
// is out_backprop x filter^T scattered back (col2im), the filter gradient
// cols^T x out_backprop summed over the batch. The matrix is built for a
// bounded number of rows at a time so its memory stays small.
#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/tensor.h"
#include "graph/types.h"
#include "kernels/cpu/kernel_util_blas.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

// About 4M elements of im2col matrix at a time.
constexpr int64_t kColsBudget = int64_t{1} << 22;

struct Conv3DGeometry {
  int64_t batch = 0, in_c = 0, out_c = 0;
  std::array<int64_t, 3> in{}, window{}, stride{}, dilation{}, out{}, pad{};

  int64_t positions() const { return out[0] * out[1] * out[2]; }
  int64_t patch() const { return window[0] * window[1] * window[2] * in_c; }
  TensorShape input_shape() const {
    return TensorShape({batch, in[0], in[1], in[2], in_c});
  }
  TensorShape output_shape() const {
    return TensorShape({batch, out[0], out[1], out[2], out_c});
  }
  TensorShape filter_shape() const {
    return TensorShape({window[0], window[1], window[2], in_c, out_c});
  }
};

// Copies (kToCols) the windows of output positions [r0, r1) of image `img`
// into `cols` ([r1 - r0, patch]), zeros for the padding; or adds them back
// from `cols` into `img` (col2im).
template <bool kToCols, typename T>
void Im2Col(const Conv3DGeometry& g, int64_t r0, int64_t r1, T* img, T* cols) {
  const int64_t c = g.in_c, patch = g.patch();
  for (int64_t r = r0; r < r1; ++r) {
    const int64_t o2 = r % g.out[2], o1 = (r / g.out[2]) % g.out[1],
                  o0 = r / (g.out[2] * g.out[1]);
    T* row = cols + (r - r0) * patch;
    for (int64_t k0 = 0; k0 < g.window[0]; ++k0) {
      const int64_t i0 = o0 * g.stride[0] - g.pad[0] + k0 * g.dilation[0];
      for (int64_t k1 = 0; k1 < g.window[1]; ++k1) {
        const int64_t i1 = o1 * g.stride[1] - g.pad[1] + k1 * g.dilation[1];
        for (int64_t k2 = 0; k2 < g.window[2]; ++k2) {
          const int64_t i2 = o2 * g.stride[2] - g.pad[2] + k2 * g.dilation[2];
          T* to = row + ((k0 * g.window[1] + k1) * g.window[2] + k2) * c;
          const bool inside = i0 >= 0 && i0 < g.in[0] && i1 >= 0 &&
                              i1 < g.in[1] && i2 >= 0 && i2 < g.in[2];
          if (!inside) {
            if constexpr (kToCols) std::fill(to, to + c, T(0));
            continue;
          }
          T* px = img + ((i0 * g.in[1] + i1) * g.in[2] + i2) * c;
          if constexpr (kToCols) {
            std::copy(px, px + c, to);
          } else {
            for (int64_t j = 0; j < c; ++j) px[j] += to[j];
          }
        }
      }
    }
  }
}

// Reads strides, dilations, padding and data_format (NDHWC only).
class Conv3DBase : public OpKernel {
 public:
  explicit Conv3DBase(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string format;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("strides", &strides_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("dilations", &dilations_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("padding", &padding_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("data_format", &format));
    OP_REQUIRES(ctx, format == "NDHWC",
                absl::UnimplementedError(absl::StrCat(
                    ctx->node().op(), " on CPU supports only data_format ",
                    "NDHWC, but the node asks for ", format,
                    " (as TensorFlow's CPU kernel)")));
    bool ok = strides_.size() == 5 && dilations_.size() == 5;
    for (size_t i = 0; ok && i < 5; ++i) {
      ok = strides_[i] >= 1 && dilations_[i] >= 1;
    }
    ok = ok && strides_[0] == 1 && strides_[4] == 1 && dilations_[0] == 1 &&
         dilations_[4] == 1;
    OP_REQUIRES(ctx, ok,
                absl::InvalidArgumentError(absl::StrCat(
                    "strides [", absl::StrJoin(strides_, ","),
                    "] and dilations [", absl::StrJoin(dilations_, ","),
                    "] must have 5 positive entries (NDHWC), 1 for the batch "
                    "and channels")));
  }

 protected:
  absl::Status ComputeGeometry(const TensorShape& input,
                               const TensorShape& filter,
                               Conv3DGeometry* g) const {
    if (input.rank() != 5) {
      return absl::InvalidArgumentError(absl::StrCat(
          "input must be 5-D [batch, depth, height, width, channels] (NDHWC), "
          "but has shape ",
          input.ToString()));
    }
    if (filter.rank() != 5) {
      return absl::InvalidArgumentError(
          absl::StrCat("filter must be 5-D [depth, height, width, in_channels, "
                       "out_channels], but has shape ",
                       filter.ToString()));
    }
    if (input.dim(4) != filter.dim(3)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "input ", input.ToString(), " has ", input.dim(4),
          " channels but filter ", filter.ToString(), " expects ",
          filter.dim(3), " (grouped 3-D convolution is not supported on CPU)"));
    }
    g->batch = input.dim(0);
    g->in_c = input.dim(4);
    g->out_c = filter.dim(4);
    for (int i = 0; i < 3; ++i) {
      const int64_t in = input.dim(i + 1), k = filter.dim(i),
                    s = strides_[i + 1], d = dilations_[i + 1];
      const int64_t span = (k - 1) * d + 1;
      g->in[i] = in;
      g->window[i] = k;
      g->stride[i] = s;
      g->dilation[i] = d;
      if (padding_ == "SAME") {
        g->out[i] = (in + s - 1) / s;
        const int64_t total = (g->out[i] - 1) * s + span - in;
        g->pad[i] = total > 0 ? total / 2 : 0;
      } else {
        if (in < span) {
          return absl::InvalidArgumentError(absl::StrCat(
              "input ", input.ToString(), " is smaller than the dilated ",
              "filter ", filter.ToString(), " (", span, ") in dimension ",
              i + 1, " with VALID padding"));
        }
        g->out[i] = (in - span) / s + 1;
        g->pad[i] = 0;
      }
    }
    return absl::OkStatus();
  }

  // Rows of the im2col matrix per step.
  static int64_t RowsPerStep(const Conv3DGeometry& g) {
    return std::max<int64_t>(
        1,
        std::min(g.positions(), kColsBudget / std::max<int64_t>(1, g.patch())));
  }

  // Reads a shape vector input (input_sizes, filter_sizes) of 5 sizes.
  static absl::Status ReadShape(const Tensor& t, const char* name,
                                TensorShape* shape) {
    if (t.shape().rank() != 1 || t.NumElements() != 5) {
      return absl::InvalidArgumentError(
          absl::StrCat(name, " must be a vector of 5 sizes, but has shape ",
                       t.shape().ToString()));
    }
    for (int i = 0; i < 5; ++i) {
      const int64_t d = t.dtype() == DT_INT64
                            ? t.data<int64_t>()[i]
                            : static_cast<int64_t>(t.data<int32_t>()[i]);
      if (d < 0) {
        return absl::InvalidArgumentError(
            absl::StrCat(name, " has a negative size ", d, " at ", i));
      }
      shape->AddDim(d);
    }
    return absl::OkStatus();
  }

  absl::Status CheckBackprop(const Conv3DGeometry& g,
                             const Tensor& out_backprop) const {
    if (out_backprop.shape() == g.output_shape()) return absl::OkStatus();
    return absl::InvalidArgumentError(absl::StrCat(
        "out_backprop has shape ", out_backprop.shape().ToString(),
        " but the convolution of input ", g.input_shape().ToString(),
        " with filter ", g.filter_shape().ToString(), " gives ",
        g.output_shape().ToString()));
  }

  std::vector<int64_t> strides_, dilations_;
  std::string padding_;
};

template <typename T>
class Conv3DOp : public Conv3DBase {
 public:
  using Conv3DBase::Conv3DBase;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& filter = ctx->input(1);
    Conv3DGeometry g;
    OP_REQUIRES_OK(ctx, ComputeGeometry(input.shape(), filter.shape(), &g));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, g.output_shape(), &out));
    if (out->NumElements() == 0) return;
    const int64_t patch = g.patch(), p = g.positions(), step = RowsPerStep(g);
    T* in = const_cast<T*>(input.data<T>());
    const T* w = filter.data<T>();
    T* o = out->data<T>();
    std::vector<T> cols(step * patch);
    const int64_t image = g.in[0] * g.in[1] * g.in[2] * g.in_c;
    for (int64_t b = 0; b < g.batch; ++b) {
      for (int64_t r0 = 0; r0 < p; r0 += step) {
        const int64_t r1 = std::min(p, r0 + step);
        Im2Col<true>(g, r0, r1, in + b * image, cols.data());
        OP_REQUIRES_OK(
            ctx, Gemm<T>(ctx->thread_pool(), false, false, r1 - r0, g.out_c,
                         patch, cols.data(), patch, w, g.out_c, T(0),
                         o + (b * p + r0) * g.out_c, g.out_c));
      }
    }
  }
};

template <typename T>
class Conv3DBackpropInputOp : public Conv3DBase {
 public:
  using Conv3DBase::Conv3DBase;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& filter = ctx->input(1);
    const Tensor& dy = ctx->input(2);
    TensorShape in_shape;
    OP_REQUIRES_OK(ctx, ReadShape(ctx->input(0), "input_sizes", &in_shape));
    Conv3DGeometry g;
    OP_REQUIRES_OK(ctx, ComputeGeometry(in_shape, filter.shape(), &g));
    OP_REQUIRES_OK(ctx, CheckBackprop(g, dy));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in_shape, &out));
    T* dx = out->data<T>();
    std::fill(dx, dx + out->NumElements(), T(0));
    if (dy.NumElements() == 0 || out->NumElements() == 0) return;
    const int64_t patch = g.patch(), p = g.positions(), step = RowsPerStep(g);
    const T* w = filter.data<T>();
    const T* d = dy.data<T>();
    std::vector<T> cols(step * patch);
    const int64_t image = g.in[0] * g.in[1] * g.in[2] * g.in_c;
    for (int64_t b = 0; b < g.batch; ++b) {
      for (int64_t r0 = 0; r0 < p; r0 += step) {
        const int64_t r1 = std::min(p, r0 + step);
        OP_REQUIRES_OK(ctx,
                       Gemm<T>(ctx->thread_pool(), false, true, r1 - r0, patch,
                               g.out_c, d + (b * p + r0) * g.out_c, g.out_c, w,
                               g.out_c, T(0), cols.data(), patch));
        Im2Col<false>(g, r0, r1, dx + b * image, cols.data());
      }
    }
  }
};

template <typename T>
class Conv3DBackpropFilterOp : public Conv3DBase {
 public:
  using Conv3DBase::Conv3DBase;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& dy = ctx->input(2);
    TensorShape filter_shape;
    OP_REQUIRES_OK(ctx,
                   ReadShape(ctx->input(1), "filter_sizes", &filter_shape));
    Conv3DGeometry g;
    OP_REQUIRES_OK(ctx, ComputeGeometry(input.shape(), filter_shape, &g));
    OP_REQUIRES_OK(ctx, CheckBackprop(g, dy));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, filter_shape, &out));
    T* dw = out->data<T>();
    std::fill(dw, dw + out->NumElements(), T(0));
    if (dy.NumElements() == 0 || out->NumElements() == 0) return;
    const int64_t patch = g.patch(), p = g.positions(), step = RowsPerStep(g);
    T* in = const_cast<T*>(input.data<T>());
    const T* d = dy.data<T>();
    std::vector<T> cols(step * patch);
    const int64_t image = g.in[0] * g.in[1] * g.in[2] * g.in_c;
    for (int64_t b = 0; b < g.batch; ++b) {
      for (int64_t r0 = 0; r0 < p; r0 += step) {
        const int64_t r1 = std::min(p, r0 + step);
        Im2Col<true>(g, r0, r1, in + b * image, cols.data());
        OP_REQUIRES_OK(ctx, Gemm<T>(ctx->thread_pool(), true, false, patch,
                                    g.out_c, r1 - r0, cols.data(), patch,
                                    d + (b * p + r0) * g.out_c, g.out_c, T(1),
                                    dw, g.out_c));
      }
    }
  }
};

#define DFLOW_REGISTER_CONV3D(T)                                            \
  DFLOW_REGISTER_KERNEL(                                                    \
      KernelDefBuilder("Conv3D").Device(kDeviceCpu).TypeConstraint<T>("T"), \
      Conv3DOp<T>);                                                         \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("Conv3DBackpropInputV2")           \
                            .Device(kDeviceCpu)                             \
                            .TypeConstraint<T>("T")                         \
                            .TypeConstraint("Tshape", {DT_INT32, DT_INT64}) \
                            .HostMemory("input_sizes"),                     \
                        Conv3DBackpropInputOp<T>);                          \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("Conv3DBackpropFilterV2")          \
                            .Device(kDeviceCpu)                             \
                            .TypeConstraint<T>("T")                         \
                            .HostMemory("filter_sizes"),                    \
                        Conv3DBackpropFilterOp<T>)

DFLOW_REGISTER_CONV3D(float);
DFLOW_REGISTER_CONV3D(double);

#undef DFLOW_REGISTER_CONV3D

}  // namespace
}  // namespace dflow
