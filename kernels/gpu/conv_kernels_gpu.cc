// The GPU kernels of Conv2D, Conv2DBackpropInput and Conv2DBackpropFilter:
// kernels/gpu/kernel_defs_nn.cc's definitions for float, half and bfloat16,
// and double for the forward convolution only (int32, also defined there, has
// no GPU implementation: cuDNN does not convolve integers, and such nodes are
// placed on the CPU), computed by conv_ops_gpu.h's cuDNN launchers on the
// device's compute stream. Attrs, geometry, shape checks and their messages are
// the CPU kernels' own (conv::ConvOpBase, kernels/cpu/conv_ops_common.h), so a
// node behaves the same on either device.
//
// cuDNN's scratch (workspaces, the transposed filter, padded copies) comes
// from the device's allocator as temporaries: freed when Compute returns,
// which is safe because the next kernel that gets that memory runs after
// this one on the same compute stream (kernels/gpu/gpu_kernel_util.h).
//
// Only built with cuDNN; other builds register nothing here.
#include "third_party/cuda/cuda_config.h"

#if DFLOW_HAVE_CUDNN

#include <cstdint>
#include <deque>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "graph/tensor.h"
#include "graph/types.h"
#include "kernels/cpu/conv_ops_common.h"
#include "kernels/cpu/kernel_util_window.h"
#include "kernels/gpu/conv_ops_gpu.h"
#include "kernels/gpu/dnn_handles.h"
#include "kernels/gpu/gpu_kernel_util.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

using conv::CheckRank4;
using conv::ConvGeometry;
using conv::ConvOpBase;
using conv::kFilterLayout;
using conv::kImageLayout;
using conv::ReadShapeInput;

// Scratch as temporary tensors of the kernel's device.
class TempTensorScratch : public GpuScratchAllocator {
 public:
  explicit TempTensorScratch(OpKernelContext* ctx) : ctx_(ctx) {}

  absl::StatusOr<void*> Allocate(size_t bytes) override {
    Tensor& t = temps_.emplace_back();
    absl::Status s = ctx_->allocate_temp(
        DT_INT8, TensorShape({static_cast<int64_t>(bytes)}), &t);
    if (!s.ok()) return s;
    return t.raw_data();
  }

 private:
  OpKernelContext* ctx_;
  std::deque<Tensor> temps_;
};

GpuConvParams ParamsOf(const ConvGeometry& g, DataType dtype) {
  GpuConvParams p;
  p.dtype = dtype;
  p.batch = g.batch;
  p.in_rows = g.in_rows;
  p.in_cols = g.in_cols;
  p.in_depth = g.in_depth;
  p.filter_rows = g.filter_rows;
  p.filter_cols = g.filter_cols;
  p.filter_depth = g.filter_depth;
  p.out_depth = g.out_depth;
  p.out_rows = g.out_rows;
  p.out_cols = g.out_cols;
  p.stride_rows = g.stride_rows;
  p.stride_cols = g.stride_cols;
  p.dilation_rows = g.dilation_rows;
  p.dilation_cols = g.dilation_cols;
  p.pad_top = g.pad_top;
  p.pad_left = g.pad_left;
  return p;
}

class ConvGpuBase : public ConvOpBase {
 public:
  using ConvOpBase::ConvOpBase;

 protected:
  // The forward geometry, whose output `out_backprop` must match (the CPU
  // gradient kernels' check and words).
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
class Conv2DGpuOp : public ConvGpuBase {
 public:
  using ConvGpuBase::ConvGpuBase;

  void Compute(OpKernelContext* ctx) override {
    DFLOW_GPU_KERNEL_PREAMBLE(ctx, gpu);
    const Tensor& input = ctx->input(0);
    const Tensor& filter = ctx->input(1);
    OP_REQUIRES_OK(ctx, CheckRank4(input, "input", kImageLayout));
    OP_REQUIRES_OK(ctx, CheckRank4(filter, "filter", kFilterLayout));
    ConvGeometry g;
    OP_REQUIRES_OK(ctx, ComputeGeometry(input.shape(), filter.shape(), &g));
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, g.output_shape(), &output));
    if (output->NumElements() == 0) return;
    TempTensorScratch scratch(ctx);
    OP_REQUIRES_OK(
        ctx,
        LaunchConv2D(gpu->physical_ordinal(), GpuComputeStreamOf(ctx),
                     ParamsOf(g, DataTypeToEnum<T>::value), input.raw_data(),
                     filter.raw_data(), output->raw_data(), &scratch));
  }
};

template <typename T>
class Conv2DBackpropInputGpuOp : public ConvGpuBase {
 public:
  using ConvGpuBase::ConvGpuBase;

  void Compute(OpKernelContext* ctx) override {
    DFLOW_GPU_KERNEL_PREAMBLE(ctx, gpu);
    const Tensor& sizes = ctx->input(0);  // host memory
    const Tensor& filter = ctx->input(1);
    const Tensor& out_backprop = ctx->input(2);
    OP_REQUIRES_OK(ctx, CheckRank4(filter, "filter", kFilterLayout));
    OP_REQUIRES_OK(ctx, CheckRank4(out_backprop, "out_backprop", kImageLayout));
    std::vector<int64_t> dims;
    OP_REQUIRES_OK(ctx, ReadShapeInput(sizes, "input_sizes", 4, 2, &dims));
    if (dims.size() == 2) {
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
    TempTensorScratch scratch(ctx);
    OP_REQUIRES_OK(ctx,
                   LaunchConv2DBackpropInput(
                       gpu->physical_ordinal(), GpuComputeStreamOf(ctx),
                       ParamsOf(g, DataTypeToEnum<T>::value), filter.raw_data(),
                       out_backprop.raw_data(), output->raw_data(), &scratch));
  }
};

template <typename T>
class Conv2DBackpropFilterGpuOp : public ConvGpuBase {
 public:
  using ConvGpuBase::ConvGpuBase;

  void Compute(OpKernelContext* ctx) override {
    DFLOW_GPU_KERNEL_PREAMBLE(ctx, gpu);
    const Tensor& input = ctx->input(0);
    const Tensor& sizes = ctx->input(1);  // host memory
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
    TempTensorScratch scratch(ctx);
    OP_REQUIRES_OK(ctx,
                   LaunchConv2DBackpropFilter(
                       gpu->physical_ordinal(), GpuComputeStreamOf(ctx),
                       ParamsOf(g, DataTypeToEnum<T>::value), input.raw_data(),
                       out_backprop.raw_data(), output->raw_data(), &scratch));
  }
};

#define DFLOW_REGISTER_CONV_FORWARD_GPU(T)                                  \
  DFLOW_REGISTER_GPU_KERNEL(                                                \
      KernelDefBuilder("Conv2D").Device(kDeviceGpu).TypeConstraint<T>("T"), \
      Conv2DGpuOp<T>)

#define DFLOW_REGISTER_CONV_GPU(T)                                   \
  DFLOW_REGISTER_CONV_FORWARD_GPU(T);                                \
  DFLOW_REGISTER_GPU_KERNEL(KernelDefBuilder("Conv2DBackpropInput")  \
                                .Device(kDeviceGpu)                  \
                                .TypeConstraint<T>("T")              \
                                .HostMemory("input_sizes"),          \
                            Conv2DBackpropInputGpuOp<T>);            \
  DFLOW_REGISTER_GPU_KERNEL(KernelDefBuilder("Conv2DBackpropFilter") \
                                .Device(kDeviceGpu)                  \
                                .TypeConstraint<T>("T")              \
                                .HostMemory("filter_sizes"),         \
                            Conv2DBackpropFilterGpuOp<T>)

DFLOW_REGISTER_CONV_GPU(float);
DFLOW_REGISTER_CONV_GPU(float16);
DFLOW_REGISTER_CONV_GPU(bfloat16);
// Forward only (kernel_defs_nn.cc says why).
DFLOW_REGISTER_CONV_FORWARD_GPU(double);

#undef DFLOW_REGISTER_CONV_GPU
#undef DFLOW_REGISTER_CONV_FORWARD_GPU

}  // namespace
}  // namespace dflow

#endif  // DFLOW_HAVE_CUDNN
