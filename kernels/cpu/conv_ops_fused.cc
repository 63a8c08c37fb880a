// _FusedConv2D (made by compiler/fuse_bias_activation.h): activation(
// Conv2D(input, filter) + bias), activation "" or "Relu", float NHWC.
//
// oneDNN adds the bias and applies the Relu inside its convolution kernel,
// to each block of output while it is still in registers
// (conv_ops_onednn.h's ConvEpilogue), so the output is written once
// instead of three times and read twice more by BiasAdd and Relu. On seed
// 003's first layer (batch 32, 24x24x3 -> 64 channels, 5x5, one Zen 4
// thread) Conv2D + BiasAdd + Relu took 1.9 + 0.26 + 0.14 ms. Where oneDNN
// does not convolve (DFLOW_CONV=im2col, a shape it refuses) the kernel
// convolves as Conv2D does and then adds the bias and applies the Relu in
// one pass.
#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
#include "kernels/cpu/conv_ops_common.h"
#include "kernels/cpu/conv_ops_onednn.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/kernel_util_fused.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace conv {
namespace {

class FusedConv2DOp : public ConvOpBase {
 public:
  explicit FusedConv2DOp(OpKernelConstruction* ctx) : ConvOpBase(ctx) {
    relu_ = ReadFusedActivation(ctx);
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& filter = ctx->input(1);
    const Tensor& bias = ctx->input(2);
    OP_REQUIRES_OK(ctx, CheckRank4(input, "input", kImageLayout));
    OP_REQUIRES_OK(ctx, CheckRank4(filter, "filter", kFilterLayout));
    ConvGeometry g;
    OP_REQUIRES_OK(ctx, ComputeGeometry(input.shape(), filter.shape(), &g));
    OP_REQUIRES(
        ctx, bias.shape().rank() == 1 && bias.shape().dim(0) == g.out_depth,
        absl::InvalidArgumentError(absl::StrCat(
            "the bias must be a vector of the convolution's ", g.out_depth,
            " output channels, got ", bias.shape().ToString())));
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, g.output_shape(), &output));
    if (output->NumElements() == 0) return;
    const float* in = input.data<float>();
    const float* w = filter.data<float>();
    const float* b = bias.data<float>();
    float* out = output->data<float>();
    if (OneDnnConvolves(g) &&
        OneDnnConvolve(ctx->thread_pool(), ConvPass::kForward, g, in, w, out,
                       ConvEpilogue{b, relu_})
            .ok()) {
      return;
    }
    ConvForward<float>(ctx, g, in, w, out);
    if (!ctx->status().ok()) return;
    AddBiasAndActivate<float>(ctx, out, g.out_positions(), g.out_depth, b,
                              relu_);
  }

 private:
  bool relu_ = false;
};

DFLOW_REGISTER_KERNEL(KernelDefBuilder("_FusedConv2D")
                          .Device(kDeviceCpu)
                          .TypeConstraint<float>("T"),
                      FusedConv2DOp);

}  // namespace
}  // namespace conv
}  // namespace dflow
