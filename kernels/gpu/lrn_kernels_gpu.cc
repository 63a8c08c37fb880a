// The GPU kernels of LRN and LRNGrad: kernels/gpu/kernel_defs_nn.cc's
// definitions (float), computed by lrn_ops_gpu.h's cuDNN launchers on the
// device's compute stream, with the CPU kernels' attr and shape checks
// (kernels/cpu/lrn_ops.cc). Parameters cuDNN does not take (depth_radius
// above 7, bias below 1e-5, beta below 0.01) fail with InvalidArgument
// saying to place the op on CPU, as TensorFlow's GPU kernel does.
//
// Only built with cuDNN; other builds register nothing here.
#include "third_party/cuda/cuda_config.h"

#if DFLOW_HAVE_CUDNN

#include <array>
#include <cstdint>
#include <limits>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "graph/tensor.h"
#include "graph/types.h"
#include "kernels/gpu/gpu_kernel_util.h"
#include "kernels/gpu/lrn_ops_gpu.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

class LrnGpuBase : public OpKernel {
 public:
  explicit LrnGpuBase(OpKernelConstruction* ctx) : OpKernel(ctx) {
    absl::Status s = ctx->GetAttr("depth_radius", &params_.depth_radius);
    if (s.ok()) s = ctx->GetAttr("bias", &params_.bias);
    if (s.ok()) s = ctx->GetAttr("alpha", &params_.alpha);
    if (s.ok()) s = ctx->GetAttr("beta", &params_.beta);
    if (s.ok() &&
        (params_.depth_radius < 0 ||
         params_.depth_radius > std::numeric_limits<int32_t>::max())) {
      s = absl::InvalidArgumentError(absl::StrCat("depth_radius is ",
                                                  params_.depth_radius,
                                                  " but must be in [0, 2^31)"));
    }
    // Parameters cuDNN refuses are an error when the kernel is built.
    if (s.ok()) s = ToCudnnLrn(params_).status();
    ctx->SetStatus(s);
  }

 protected:
  static absl::Status CheckImage(const Tensor& t, const char* name) {
    if (t.shape().rank() == 4) return absl::OkStatus();
    return absl::InvalidArgumentError(absl::StrCat(
        name, " must be 4-D [batch, height, width, channels], got shape ",
        t.shape().ToString()));
  }

  static std::array<int64_t, 4> Dims(const Tensor& t) {
    return {t.shape().dim(0), t.shape().dim(1), t.shape().dim(2),
            t.shape().dim(3)};
  }

  GpuLrnParams params_;
};

template <typename T>
class LrnGpuOp : public LrnGpuBase {
 public:
  using LrnGpuBase::LrnGpuBase;

  void Compute(OpKernelContext* ctx) override {
    DFLOW_GPU_KERNEL_PREAMBLE(ctx, gpu);
    const Tensor& input = ctx->input(0);
    OP_REQUIRES_OK(ctx, CheckImage(input, "input"));
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &output));
    if (output->NumElements() == 0) return;
    OP_REQUIRES_OK(ctx,
                   LaunchLrn(gpu->physical_ordinal(), GpuComputeStreamOf(ctx),
                             DataTypeToEnum<T>::value, Dims(input), params_,
                             input.raw_data(), output->raw_data()));
  }
};

template <typename T>
class LrnGradGpuOp : public LrnGpuBase {
 public:
  using LrnGpuBase::LrnGpuBase;

  void Compute(OpKernelContext* ctx) override {
    DFLOW_GPU_KERNEL_PREAMBLE(ctx, gpu);
    const Tensor& grads = ctx->input(0);
    const Tensor& input = ctx->input(1);
    const Tensor& output_image = ctx->input(2);
    OP_REQUIRES_OK(ctx, CheckImage(grads, "input_grads"));
    OP_REQUIRES(
        ctx,
        grads.shape() == input.shape() && grads.shape() == output_image.shape(),
        absl::InvalidArgumentError(absl::StrCat(
            "input_grads ", grads.shape().ToString(), ", input_image ",
            input.shape().ToString(), " and output_image ",
            output_image.shape().ToString(), " must have the same 4-D shape")));
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &output));
    if (output->NumElements() == 0) return;
    OP_REQUIRES_OK(
        ctx, LaunchLrnGrad(gpu->physical_ordinal(), GpuComputeStreamOf(ctx),
                           DataTypeToEnum<T>::value, Dims(input), params_,
                           grads.raw_data(), input.raw_data(),
                           output_image.raw_data(), output->raw_data()));
  }
};

DFLOW_REGISTER_GPU_KERNEL(
    KernelDefBuilder("LRN").Device(kDeviceGpu).TypeConstraint<float>("T"),
    LrnGpuOp<float>);
DFLOW_REGISTER_GPU_KERNEL(
    KernelDefBuilder("LRNGrad").Device(kDeviceGpu).TypeConstraint<float>("T"),
    LrnGradGpuOp<float>);

}  // namespace
}  // namespace dflow

#endif  // DFLOW_HAVE_CUDNN
