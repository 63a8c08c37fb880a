// The gradients of Conv2D on CPU: Conv2DBackpropInput (d loss / d input,
// the input's shape given as an int32 vector) and Conv2DBackpropFilter
// (d loss / d filter, the filter's shape given likewise). Unlike
// TensorFlow's CPU kernels these also handle dilations and grouped
// convolutions, as the forward kernel does.
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "graph/tensor.h"
#include "graph/types.h"
#include "kernels/cpu/conv_ops_common.h"
#include "kernels/cpu/kernel_util_window.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace conv {
namespace {

class ConvBackpropBase : public ConvOpBase {
 public:
  using ConvOpBase::ConvOpBase;

 protected:
  // The geometry of the forward convolution of `input` and `filter`, whose
  // output `out_backprop` must match.
  absl::Status BackpropGeometry(const TensorShape& input,
                                const TensorShape& filter,
                                const TensorShape& out_backprop,
                                ConvGeometry* g) const {
    if (absl::Status s = ComputeGeometry(input, filter, g); !s.ok()) return s;
    if (g->output_shape() == out_backprop) return absl::OkStatus();
    return absl::InvalidArgumentError(absl::StrCat(
        "input ", input.ToString(), " (NHWC), filter ", filter.ToString(),
        " and out_backprop ", out_backprop.ToString(),
        ": out_backprop must match the convolution's output ",
        g->output_shape().ToString(), " (strides ",
        window::ListString(strides_), ", dilations ",
        window::ListString(dilations_), ", padding ", padding_.name, ")"));
  }
};

template <typename T>
class Conv2DBackpropInputOp : public ConvBackpropBase {
 public:
  using ConvBackpropBase::ConvBackpropBase;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& sizes = ctx->input(0);
    const Tensor& filter = ctx->input(1);
    const Tensor& out_backprop = ctx->input(2);
    OP_REQUIRES_OK(ctx, CheckRank4(filter, "filter", kFilterLayout));
    OP_REQUIRES_OK(ctx, CheckRank4(out_backprop, "out_backprop", kImageLayout));
    std::vector<int64_t> dims;
    OP_REQUIRES_OK(ctx, ReadShapeInput(sizes, "input_sizes", 4, 2, &dims));
    if (dims.size() == 2) {
      // Only the spatial sizes: batch from out_backprop, channels from the
      // filter (as TensorFlow).
      dims = {out_backprop.shape().dim(0), dims[0], dims[1],
              filter.shape().dim(2)};
    }
    const TensorShape input_shape(dims);
    ConvGeometry g;
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
    ConvBackpropInput<C>(ctx, g, w, dy, dx);
    if (ctx->status().ok()) FinishOutput<T>(output_holder, output);
  }
};

template <typename T>
class Conv2DBackpropFilterOp : public ConvBackpropBase {
 public:
  using ConvBackpropBase::ConvBackpropBase;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& sizes = ctx->input(1);
    const Tensor& out_backprop = ctx->input(2);
    OP_REQUIRES_OK(ctx, CheckRank4(input, "input", kImageLayout));
    OP_REQUIRES_OK(ctx, CheckRank4(out_backprop, "out_backprop", kImageLayout));
    std::vector<int64_t> dims;
    OP_REQUIRES_OK(ctx, ReadShapeInput(sizes, "filter_sizes", 4, 0, &dims));
    const TensorShape filter_shape(dims);
    ConvGeometry g;
    OP_REQUIRES_OK(ctx, BackpropGeometry(input.shape(), filter_shape,
                                         out_backprop.shape(), &g));
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, filter_shape, &output));
    if (output->NumElements() == 0) return;
    using C = typename ComputeType<T>::type;
    Tensor input_holder, grad_holder, output_holder;
    const C* x = nullptr;
    const C* dy = nullptr;
    C* dw = nullptr;
    OP_REQUIRES_OK(ctx, ComputeInput<T>(ctx, input, &input_holder, &x));
    OP_REQUIRES_OK(ctx, ComputeInput<T>(ctx, out_backprop, &grad_holder, &dy));
    OP_REQUIRES_OK(ctx, ComputeOutput<T>(ctx, output, &output_holder, &dw));
    ConvBackpropFilter<C>(ctx, g, x, dy, dw);
    if (ctx->status().ok()) FinishOutput<T>(output_holder, output);
  }
};

#define DFLOW_REGISTER_CONV_BACKPROP(OP, T)                            \
  DFLOW_REGISTER_KERNEL(                                               \
      KernelDefBuilder(#OP).Device(kDeviceCpu).TypeConstraint<T>("T"), \
      OP##Op<T>)

DFLOW_REGISTER_CONV_BACKPROP(Conv2DBackpropInput, float);
DFLOW_REGISTER_CONV_BACKPROP(Conv2DBackpropInput, double);
DFLOW_REGISTER_CONV_BACKPROP(Conv2DBackpropInput, int32_t);
DFLOW_REGISTER_CONV_BACKPROP(Conv2DBackpropInput, float16);
DFLOW_REGISTER_CONV_BACKPROP(Conv2DBackpropInput, bfloat16);
DFLOW_REGISTER_CONV_BACKPROP(Conv2DBackpropFilter, float);
DFLOW_REGISTER_CONV_BACKPROP(Conv2DBackpropFilter, double);
DFLOW_REGISTER_CONV_BACKPROP(Conv2DBackpropFilter, float16);
DFLOW_REGISTER_CONV_BACKPROP(Conv2DBackpropFilter, bfloat16);

#undef DFLOW_REGISTER_CONV_BACKPROP

}  // namespace
}  // namespace conv
}  // namespace dflow
