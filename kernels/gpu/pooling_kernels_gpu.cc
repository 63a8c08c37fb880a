// The GPU kernels of MaxPool, AvgPool, MaxPoolGrad and AvgPoolGrad:
// kernels/gpu/kernel_defs_nn.cc's definitions (float, double, half,
// bfloat16), computed by pooling_ops_gpu.h's cuDNN launchers on the
// device's compute stream. Attrs, geometry, checks and their messages are
// the CPU kernels' own (pooling::PoolOpBase, kernels/cpu/
// pooling_ops_common.h).
//
// Only built with cuDNN; other builds register nothing here.
#include "third_party/cuda/cuda_config.h"

#if DFLOW_HAVE_CUDNN

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "graph/tensor.h"
#include "graph/types.h"
#include "kernels/cpu/pooling_ops_common.h"
#include "kernels/gpu/gpu_kernel_util.h"
#include "kernels/gpu/pooling_ops_gpu.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

using pooling::PoolGeometry;
using pooling::PoolKind;
using pooling::PoolOpBase;

GpuPoolParams ParamsOf(const PoolGeometry& g, DataType dtype) {
  GpuPoolParams p;
  p.dtype = dtype;
  p.batch = g.batch;
  p.in_rows = g.in_rows;
  p.in_cols = g.in_cols;
  p.depth = g.depth;
  p.window_rows = g.window_rows;
  p.window_cols = g.window_cols;
  p.depth_window = g.depth_window;
  p.stride_rows = g.stride_rows;
  p.stride_cols = g.stride_cols;
  p.pad_top = g.pad_top;
  p.pad_left = g.pad_left;
  p.out_rows = g.out_rows;
  p.out_cols = g.out_cols;
  p.out_depth = g.out_depth;
  return p;
}

template <typename T, bool kMax>
class PoolGpuOp : public PoolOpBase {
 public:
  explicit PoolGpuOp(OpKernelConstruction* ctx)
      : PoolOpBase(ctx, kMax ? PoolKind::kMax : PoolKind::kAvg) {}

  void Compute(OpKernelContext* ctx) override {
    DFLOW_GPU_KERNEL_PREAMBLE(ctx, gpu);
    const Tensor& input = ctx->input(0);
    PoolGeometry g;
    OP_REQUIRES_OK(ctx, ComputeGeometry(input.shape(), &g));
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, g.output_shape(), &output));
    if (output->NumElements() == 0) return;
    const GpuPoolParams p = ParamsOf(g, DataTypeToEnum<T>::value);
    const int ordinal = gpu->physical_ordinal();
    void* stream = GpuComputeStreamOf(ctx);
    OP_REQUIRES_OK(ctx,
                   kMax ? LaunchMaxPool(ordinal, stream, p, input.raw_data(),
                                        output->raw_data())
                        : LaunchAvgPool(ordinal, stream, p, input.raw_data(),
                                        output->raw_data()));
  }
};

template <typename T>
class MaxPoolGradGpuOp : public PoolOpBase {
 public:
  explicit MaxPoolGradGpuOp(OpKernelConstruction* ctx)
      : PoolOpBase(ctx, PoolKind::kMaxGrad) {}

  void Compute(OpKernelContext* ctx) override {
    DFLOW_GPU_KERNEL_PREAMBLE(ctx, gpu);
    const Tensor& input = ctx->input(0);
    const Tensor& orig_output = ctx->input(1);
    const Tensor& grad = ctx->input(2);
    PoolGeometry g;
    OP_REQUIRES_OK(ctx, ComputeGeometry(input.shape(), &g));
    OP_REQUIRES_OK(ctx,
                   CheckPooledShape(g, "orig_output", orig_output.shape()));
    OP_REQUIRES_OK(ctx, CheckPooledShape(g, "grad", grad.shape()));
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &output));
    if (output->NumElements() == 0) return;
    OP_REQUIRES_OK(
        ctx, LaunchMaxPoolGrad(gpu->physical_ordinal(), GpuComputeStreamOf(ctx),
                               ParamsOf(g, DataTypeToEnum<T>::value),
                               input.raw_data(), orig_output.raw_data(),
                               grad.raw_data(), output->raw_data()));
  }
};

template <typename T>
class AvgPoolGradGpuOp : public PoolOpBase {
 public:
  explicit AvgPoolGradGpuOp(OpKernelConstruction* ctx)
      : PoolOpBase(ctx, PoolKind::kAvg) {}

  void Compute(OpKernelContext* ctx) override {
    DFLOW_GPU_KERNEL_PREAMBLE(ctx, gpu);
    const Tensor& sizes = ctx->input(0);  // host memory
    const Tensor& grad = ctx->input(1);
    OP_REQUIRES(
        ctx,
        sizes.dtype() == DT_INT32 && sizes.shape().rank() == 1 &&
            sizes.NumElements() == 4,
        absl::InvalidArgumentError(absl::StrCat(
            "orig_input_shape must be an int32 vector of 4 sizes, got ",
            DataTypeName(sizes.dtype()), " ", sizes.shape().ToString())));
    std::vector<int64_t> dims(sizes.data<int32_t>(), sizes.data<int32_t>() + 4);
    for (int i = 0; i < 4; ++i) {
      OP_REQUIRES(ctx, dims[i] >= 0,
                  absl::InvalidArgumentError(
                      absl::StrCat("orig_input_shape[", i, "] is ", dims[i],
                                   " but sizes must be >= 0")));
    }
    const TensorShape input_shape(dims);
    PoolGeometry g;
    OP_REQUIRES_OK(ctx, ComputeGeometry(input_shape, &g));
    OP_REQUIRES_OK(ctx, CheckPooledShape(g, "grad", grad.shape()));
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input_shape, &output));
    if (output->NumElements() == 0) return;
    OP_REQUIRES_OK(
        ctx, LaunchAvgPoolGrad(gpu->physical_ordinal(), GpuComputeStreamOf(ctx),
                               ParamsOf(g, DataTypeToEnum<T>::value),
                               grad.raw_data(), output->raw_data()));
  }
};

#define DFLOW_REGISTER_POOL_GPU(T)                                           \
  DFLOW_REGISTER_GPU_KERNEL(                                                 \
      KernelDefBuilder("MaxPool").Device(kDeviceGpu).TypeConstraint<T>("T"), \
      PoolGpuOp<T, true>);                                                   \
  DFLOW_REGISTER_GPU_KERNEL(                                                 \
      KernelDefBuilder("AvgPool").Device(kDeviceGpu).TypeConstraint<T>("T"), \
      PoolGpuOp<T, false>);                                                  \
  DFLOW_REGISTER_GPU_KERNEL(KernelDefBuilder("MaxPoolGrad")                  \
                                .Device(kDeviceGpu)                          \
                                .TypeConstraint<T>("T"),                     \
                            MaxPoolGradGpuOp<T>);                            \
  DFLOW_REGISTER_GPU_KERNEL(KernelDefBuilder("AvgPoolGrad")                  \
                                .Device(kDeviceGpu)                          \
                                .TypeConstraint<T>("T")                      \
                                .HostMemory("orig_input_shape"),             \
                            AvgPoolGradGpuOp<T>)

DFLOW_REGISTER_POOL_GPU(float);
DFLOW_REGISTER_POOL_GPU(double);
DFLOW_REGISTER_POOL_GPU(float16);
DFLOW_REGISTER_POOL_GPU(bfloat16);

#undef DFLOW_REGISTER_POOL_GPU

}  // namespace
}  // namespace dflow

#endif  // DFLOW_HAVE_CUDNN
