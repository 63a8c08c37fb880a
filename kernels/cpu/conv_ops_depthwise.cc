// CPU kernels for DepthwiseConv2dNative and its two gradients on NHWC
// images (TensorFlow's CPU kernels are NHWC only too). Input channel c is
// convolved with its own filters[:, :, c, m]; output channel c * M + m.
// Because filter[kh, kw] is the C * M values in output-channel order, the
// products of one filter tap with one input pixel are a single contiguous
// run of C * M multiply-adds (input channel j / M), which the compiler
// vectorizes. Strides, dilations and SAME/VALID/EXPLICIT padding follow
// Conv2D (kernel_util_window.h). half and bfloat16 compute in float.
//
//   forward:         one output pixel per unit, summed over its taps
//   input gradient:  one image per unit, each output pixel scattered back
//   filter gradient: one filter tap per unit, summed over every position
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "graph/tensor.h"
#include "graph/types.h"
#include "kernels/cpu/conv_ops_common.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/kernel_util_window.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace conv {
namespace {

constexpr char kDepthwiseFilterLayout[] =
    "[height, width, in_channels, channel_multiplier]";

struct DepthwiseGeometry {
  int64_t batch = 0, in_rows = 0, in_cols = 0, depth = 0, multiplier = 0;
  int64_t filter_rows = 0, filter_cols = 0;
  int64_t out_rows = 0, out_cols = 0;
  int64_t stride_rows = 1, stride_cols = 1;
  int64_t dilation_rows = 1, dilation_cols = 1;
  int64_t pad_top = 0, pad_left = 0;

  int64_t out_depth() const { return depth * multiplier; }
  TensorShape output_shape() const {
    return TensorShape({batch, out_rows, out_cols, out_depth()});
  }
  // The input row and column filter tap (kh, kw) of output (oy, ox) reads.
  int64_t InRow(int64_t oy, int64_t kh) const {
    return oy * stride_rows - pad_top + kh * dilation_rows;
  }
  int64_t InCol(int64_t ox, int64_t kw) const {
    return ox * stride_cols - pad_left + kw * dilation_cols;
  }
};

// acc[j] += pixel[j / multiplier] * taps[j] for j < depth * multiplier.
template <typename C>
inline void MultiplyAddTap(const C* pixel, const C* taps, int64_t depth,
                           int64_t multiplier, C* acc) {
  if (multiplier == 1) {
    for (int64_t j = 0; j < depth; ++j) acc[j] += pixel[j] * taps[j];
    return;
  }
  for (int64_t c = 0; c < depth; ++c) {
    const C v = pixel[c];
    C* a = acc + c * multiplier;
    const C* t = taps + c * multiplier;
    for (int64_t m = 0; m < multiplier; ++m) a[m] += v * t[m];
  }
}

// The attrs (Conv2D's, read by ConvOpBase) and the geometry of one call.
class DepthwiseOpBase : public ConvOpBase {
 public:
  using ConvOpBase::ConvOpBase;

 protected:
  absl::Status Geometry(const TensorShape& input, const TensorShape& filter,
                        DepthwiseGeometry* g) const {
    g->batch = input.dim(0);
    g->in_rows = input.dim(1);
    g->in_cols = input.dim(2);
    g->depth = input.dim(3);
    g->filter_rows = filter.dim(0);
    g->filter_cols = filter.dim(1);
    g->multiplier = filter.dim(3);
    const std::string what =
        absl::StrCat("input ", input.ToString(),
                     " (NHWC) and depthwise filter ", filter.ToString());
    if (filter.dim(2) != g->depth) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, ": the input has ", g->depth,
                       " channels but the filter ", "expects ", filter.dim(2),
                       " (filter dimension 2); they must be ", "equal"));
    }
    g->stride_rows = strides_[window::kRowDim];
    g->stride_cols = strides_[window::kColDim];
    g->dilation_rows = dilations_[window::kRowDim];
    g->dilation_cols = dilations_[window::kColDim];
    window::WindowDim rows, cols;
    absl::Status s =
        window::ComputeWindow(g->in_rows, g->filter_rows, g->dilation_rows,
                              g->stride_rows, padding_, 0, &rows);
    if (s.ok()) {
      s = window::ComputeWindow(g->in_cols, g->filter_cols, g->dilation_cols,
                                g->stride_cols, padding_, 1, &cols);
    }
    if (!s.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(what, ": ", s.message()));
    }
    g->out_rows = rows.out;
    g->out_cols = cols.out;
    g->pad_top = rows.pad_before;
    g->pad_left = cols.pad_before;
    return absl::OkStatus();
  }

  // For the gradients: the forward geometry, whose output out_backprop
  // must match.
  absl::Status BackpropGeometry(const TensorShape& input,
                                const TensorShape& filter,
                                const TensorShape& out_backprop,
                                DepthwiseGeometry* g) const {
    if (absl::Status s = Geometry(input, filter, g); !s.ok()) return s;
    if (g->output_shape() == out_backprop) return absl::OkStatus();
    return absl::InvalidArgumentError(absl::StrCat(
        "input ", input.ToString(), " (NHWC), depthwise filter ",
        filter.ToString(), " and out_backprop ", out_backprop.ToString(),
        ": out_backprop must match the convolution's output ",
        g->output_shape().ToString(), " (strides ",
        window::ListString(strides_), ", dilations ",
        window::ListString(dilations_), ", padding ", padding_.name, ")"));
  }
};

template <typename T>
class DepthwiseConv2dNativeOp : public DepthwiseOpBase {
 public:
  using DepthwiseOpBase::DepthwiseOpBase;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& filter = ctx->input(1);
    OP_REQUIRES_OK(ctx, CheckRank4(input, "input", kImageLayout));
    OP_REQUIRES_OK(ctx, CheckRank4(filter, "filter", kDepthwiseFilterLayout));
    DepthwiseGeometry g;
    OP_REQUIRES_OK(ctx, Geometry(input.shape(), filter.shape(), &g));
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, g.output_shape(), &output));
    if (output->NumElements() == 0) return;
    using C = typename ComputeType<T>::type;
    Tensor input_holder, filter_holder, output_holder;
    const C* in = nullptr;
    const C* w = nullptr;
    C* out = nullptr;
    OP_REQUIRES_OK(ctx, ComputeInput<T>(ctx, input, &input_holder, &in));
    OP_REQUIRES_OK(ctx, ComputeInput<T>(ctx, filter, &filter_holder, &w));
    OP_REQUIRES_OK(ctx, ComputeOutput<T>(ctx, output, &output_holder, &out));
    const int64_t out_depth = g.out_depth();
    const int64_t pixels = g.batch * g.out_rows * g.out_cols;
    const int64_t taps = g.filter_rows * g.filter_cols;
    ParallelForShards(
        ctx, pixels, taps * out_depth * 2, [&](int64_t begin, int64_t end) {
          for (int64_t p = begin; p < end; ++p) {
            const int64_t b = p / (g.out_rows * g.out_cols);
            const int64_t oy = (p / g.out_cols) % g.out_rows;
            const int64_t ox = p % g.out_cols;
            C* acc = out + p * out_depth;
            std::fill(acc, acc + out_depth, C(0));
            for (int64_t kh = 0; kh < g.filter_rows; ++kh) {
              const int64_t iy = g.InRow(oy, kh);
              if (iy < 0 || iy >= g.in_rows) continue;
              for (int64_t kw = 0; kw < g.filter_cols; ++kw) {
                const int64_t ix = g.InCol(ox, kw);
                if (ix < 0 || ix >= g.in_cols) continue;
                MultiplyAddTap(
                    in + ((b * g.in_rows + iy) * g.in_cols + ix) * g.depth,
                    w + (kh * g.filter_cols + kw) * out_depth, g.depth,
                    g.multiplier, acc);
              }
            }
          }
        });
    FinishOutput<T>(output_holder, output);
  }
};

template <typename T>
class DepthwiseConv2dNativeBackpropInputOp : public DepthwiseOpBase {
 public:
  using DepthwiseOpBase::DepthwiseOpBase;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& sizes = ctx->input(0);
    const Tensor& filter = ctx->input(1);
    const Tensor& out_backprop = ctx->input(2);
    OP_REQUIRES_OK(ctx, CheckRank4(filter, "filter", kDepthwiseFilterLayout));
    OP_REQUIRES_OK(ctx, CheckRank4(out_backprop, "out_backprop", kImageLayout));
    std::vector<int64_t> dims;
    OP_REQUIRES_OK(ctx, ReadShapeInput(sizes, "input_sizes", 4, 0, &dims));
    const TensorShape input_shape(dims);
    DepthwiseGeometry g;
    OP_REQUIRES_OK(ctx, BackpropGeometry(input_shape, filter.shape(),
                                         out_backprop.shape(), &g));
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input_shape, &output));
    if (output->NumElements() == 0) return;
    using C = typename ComputeType<T>::type;
    Tensor filter_holder, grad_holder, output_holder;
    const C* w = nullptr;
    const C* dy = nullptr;
    C* dx = nullptr;
    OP_REQUIRES_OK(ctx, ComputeInput<T>(ctx, filter, &filter_holder, &w));
    OP_REQUIRES_OK(ctx, ComputeInput<T>(ctx, out_backprop, &grad_holder, &dy));
    OP_REQUIRES_OK(ctx, ComputeOutput<T>(ctx, output, &output_holder, &dx));
    const int64_t out_depth = g.out_depth(), m = g.multiplier;
    const int64_t image = g.in_rows * g.in_cols * g.depth;
    const int64_t out_image = g.out_rows * g.out_cols * out_depth;
    const int64_t taps = g.filter_rows * g.filter_cols;
    ParallelForShards(
        ctx, g.batch, out_image * taps * 2, [&](int64_t begin, int64_t end) {
          for (int64_t b = begin; b < end; ++b) {
            C* image_dx = dx + b * image;
            std::fill(image_dx, image_dx + image, C(0));
            for (int64_t oy = 0; oy < g.out_rows; ++oy) {
              for (int64_t ox = 0; ox < g.out_cols; ++ox) {
                const C* grad =
                    dy + b * out_image + (oy * g.out_cols + ox) * out_depth;
                for (int64_t kh = 0; kh < g.filter_rows; ++kh) {
                  const int64_t iy = g.InRow(oy, kh);
                  if (iy < 0 || iy >= g.in_rows) continue;
                  for (int64_t kw = 0; kw < g.filter_cols; ++kw) {
                    const int64_t ix = g.InCol(ox, kw);
                    if (ix < 0 || ix >= g.in_cols) continue;
                    const C* tap = w + (kh * g.filter_cols + kw) * out_depth;
                    C* pixel = image_dx + (iy * g.in_cols + ix) * g.depth;
                    if (m == 1) {
                      for (int64_t c = 0; c < g.depth; ++c) {
                        pixel[c] += grad[c] * tap[c];
                      }
                      continue;
                    }
                    for (int64_t c = 0; c < g.depth; ++c) {
                      C sum = 0;
                      for (int64_t k = 0; k < m; ++k) {
                        sum += grad[c * m + k] * tap[c * m + k];
                      }
                      pixel[c] += sum;
                    }
                  }
                }
              }
            }
          }
        });
    FinishOutput<T>(output_holder, output);
  }
};

template <typename T>
class DepthwiseConv2dNativeBackpropFilterOp : public DepthwiseOpBase {
 public:
  using DepthwiseOpBase::DepthwiseOpBase;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& sizes = ctx->input(1);
    const Tensor& out_backprop = ctx->input(2);
    OP_REQUIRES_OK(ctx, CheckRank4(input, "input", kImageLayout));
    OP_REQUIRES_OK(ctx, CheckRank4(out_backprop, "out_backprop", kImageLayout));
    std::vector<int64_t> dims;
    OP_REQUIRES_OK(ctx, ReadShapeInput(sizes, "filter_sizes", 4, 0, &dims));
    const TensorShape filter_shape(dims);
    DepthwiseGeometry g;
    OP_REQUIRES_OK(ctx, BackpropGeometry(input.shape(), filter_shape,
                                         out_backprop.shape(), &g));
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, filter_shape, &output));
    if (output->NumElements() == 0) return;
    using C = typename ComputeType<T>::type;
    Tensor input_holder, grad_holder, output_holder;
    const C* in = nullptr;
    const C* dy = nullptr;
    C* dw = nullptr;
    OP_REQUIRES_OK(ctx, ComputeInput<T>(ctx, input, &input_holder, &in));
    OP_REQUIRES_OK(ctx, ComputeInput<T>(ctx, out_backprop, &grad_holder, &dy));
    OP_REQUIRES_OK(ctx, ComputeOutput<T>(ctx, output, &output_holder, &dw));
    const int64_t out_depth = g.out_depth();
    const int64_t positions = g.batch * g.out_rows * g.out_cols;
    ParallelForShards(
        ctx, g.filter_rows * g.filter_cols, positions * out_depth * 2,
        [&](int64_t begin, int64_t end) {
          for (int64_t t = begin; t < end; ++t) {
            const int64_t kh = t / g.filter_cols, kw = t % g.filter_cols;
            C* acc = dw + t * out_depth;
            std::fill(acc, acc + out_depth, C(0));
            for (int64_t p = 0; p < positions; ++p) {
              const int64_t b = p / (g.out_rows * g.out_cols);
              const int64_t oy = (p / g.out_cols) % g.out_rows;
              const int64_t ox = p % g.out_cols;
              const int64_t iy = g.InRow(oy, kh), ix = g.InCol(ox, kw);
              if (iy < 0 || iy >= g.in_rows || ix < 0 || ix >= g.in_cols) {
                continue;
              }
              MultiplyAddTap(
                  in + ((b * g.in_rows + iy) * g.in_cols + ix) * g.depth,
                  dy + p * out_depth, g.depth, g.multiplier, acc);
            }
          }
        });
    FinishOutput<T>(output_holder, output);
  }
};

#define DFLOW_REGISTER_DEPTHWISE(T)                                            \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("DepthwiseConv2dNative")              \
                            .Device(kDeviceCpu)                                \
                            .TypeConstraint<T>("T"),                           \
                        DepthwiseConv2dNativeOp<T>);                           \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("DepthwiseConv2dNativeBackpropInput") \
                            .Device(kDeviceCpu)                                \
                            .TypeConstraint<T>("T")                            \
                            .HostMemory("input_sizes"),                        \
                        DepthwiseConv2dNativeBackpropInputOp<T>);              \
  DFLOW_REGISTER_KERNEL(                                                       \
      KernelDefBuilder("DepthwiseConv2dNativeBackpropFilter")                  \
          .Device(kDeviceCpu)                                                  \
          .TypeConstraint<T>("T")                                              \
          .HostMemory("filter_sizes"),                                         \
      DepthwiseConv2dNativeBackpropFilterOp<T>)

DFLOW_REGISTER_DEPTHWISE(float);
DFLOW_REGISTER_DEPTHWISE(double);
DFLOW_REGISTER_DEPTHWISE(float16);
DFLOW_REGISTER_DEPTHWISE(bfloat16);
#undef DFLOW_REGISTER_DEPTHWISE

}  // namespace
}  // namespace conv
}  // namespace dflow
