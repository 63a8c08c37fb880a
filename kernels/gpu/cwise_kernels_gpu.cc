// The GPU kernels of the element-wise ops, over cwise_ops_gpu.h, registered
// under kernels/gpu/kernel_defs_math.cc's and kernel_defs_nn.cc's
// definitions with the CPU kernels' checks and messages:
//   Neg, Square                                  half, bfloat16, float, double,
//   int64 Sqrt, Rsqrt, Exp, Log, Sigmoid, Tanh, SigmoidGrad, TanhGrad, ReluGrad
//   half, bfloat16, float, double Relu those and int8 Add, AddV2, Sub, Mul,
//   Maximum, Minimum, SquaredDifference, Pow, Less, Greater        half,
//   bfloat16, float, double, int64 RealDiv half, bfloat16, float, double Equal
//   those, int64 and bool
// Not implemented (definitions only): the complex types, the small integer
// types of Mul/Less/Greater/Equal, and TensorFlow's int32 host kernels.
// Integer Pow with a negative exponent gives 0 here (the CPU kernel fails:
// the exponent is in device memory).
//
// Only built with CUDA; other builds register nothing here.
#include "third_party/cuda/cuda_config.h"

#if DFLOW_HAVE_CUDA

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/tensor.h"
#include "kernels/gpu/cwise_ops_gpu.h"
#include "kernels/gpu/gpu_shape_plans.h"
#include "kernels/gpu/math_kernels_gpu_util.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

using gpu_kernels::DimsOf;
using gpu_kernels::LauncherType;
using gpu_kernels::LaunchStream;

template <GpuUnaryOp kOp>
class UnaryGpuOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    DFLOW_GPU_ASSIGN_OR_RETURN(ctx, stream, LaunchStream(ctx));
    const Tensor& x = ctx->input(0);
    DFLOW_GPU_ASSIGN_OR_RETURN(ctx, type, LauncherType(*this, x.dtype()));
    Tensor* y = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &y));
    OP_REQUIRES_OK(ctx, LaunchUnary(kOp, type, x.raw_data(), y->raw_data(),
                                    x.NumElements(), stream));
  }
};

template <GpuGradOp kOp>
class GradGpuOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    DFLOW_GPU_ASSIGN_OR_RETURN(ctx, stream, LaunchStream(ctx));
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    OP_REQUIRES(ctx, a.shape() == b.shape(),
                absl::InvalidArgumentError(absl::StrCat(
                    type_string(), " needs inputs of one shape, got ",
                    a.shape().ToString(), " and ", b.shape().ToString())));
    DFLOW_GPU_ASSIGN_OR_RETURN(ctx, type, LauncherType(*this, a.dtype()));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, a.shape(), &out));
    OP_REQUIRES_OK(ctx, LaunchGrad(kOp, type, a.raw_data(), b.raw_data(),
                                   out->raw_data(), a.NumElements(), stream));
  }
};

template <GpuBinaryOp kOp>
class BinaryGpuOp : public OpKernel {
 public:
  explicit BinaryGpuOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    if (kOp == GpuBinaryOp::kEqual &&
        ctx->node().FindAttr("incompatible_shape_error") != nullptr) {
      ctx->SetStatus(
          ctx->GetAttr("incompatible_shape_error", &incompatible_shape_error_));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    DFLOW_GPU_ASSIGN_OR_RETURN(ctx, stream, LaunchStream(ctx));
    const Tensor& x = ctx->input(0);
    const Tensor& y = ctx->input(1);
    DFLOW_GPU_ASSIGN_OR_RETURN(ctx, type, LauncherType(*this, x.dtype()));
    std::vector<int64_t> out_dims;
    absl::StatusOr<BroadcastPlan> plan =
        MakeBroadcastPlan({DimsOf(x.shape()), DimsOf(y.shape())}, &out_dims);
    Tensor* z = nullptr;
    if (!plan.ok() && absl::IsInvalidArgument(plan.status()) &&
        !incompatible_shape_error_) {
      // TensorFlow's Equal: shapes that do not broadcast compare unequal.
      OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(), &z));
      OP_REQUIRES_OK(ctx,
                     CudaStatus(cudaMemsetAsync(z->raw_data(), 0, 1, stream),
                                "cudaMemsetAsync (Equal: false)"));
      return;
    }
    OP_REQUIRES_OK(ctx, plan.status());
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(out_dims), &z));
    if (z->NumElements() == 0) return;
    OP_REQUIRES_OK(ctx, LaunchBinary(kOp, type, *plan, x.raw_data(),
                                     y.raw_data(), z->raw_data(), stream));
  }

 private:
  bool incompatible_shape_error_ = true;
};

#define DFLOW_GPU_CWISE(op, kernel, T) \
  DFLOW_REGISTER_GPU_KERNEL(           \
      KernelDefBuilder(op).Device(kDeviceGpu).TypeConstraint<T>("T"), kernel)

#define DFLOW_GPU_CWISE_FLOATS(op, kernel) \
  DFLOW_GPU_CWISE(op, kernel, float16);    \
  DFLOW_GPU_CWISE(op, kernel, bfloat16);   \
  DFLOW_GPU_CWISE(op, kernel, float);      \
  DFLOW_GPU_CWISE(op, kernel, double)

#define DFLOW_GPU_CWISE_FLOATS_INT64(op, kernel) \
  DFLOW_GPU_CWISE_FLOATS(op, kernel);            \
  DFLOW_GPU_CWISE(op, kernel, int64_t)

DFLOW_GPU_CWISE_FLOATS_INT64("Neg", UnaryGpuOp<GpuUnaryOp::kNeg>);
DFLOW_GPU_CWISE_FLOATS_INT64("Square", UnaryGpuOp<GpuUnaryOp::kSquare>);
DFLOW_GPU_CWISE_FLOATS("Sqrt", UnaryGpuOp<GpuUnaryOp::kSqrt>);
DFLOW_GPU_CWISE_FLOATS("Rsqrt", UnaryGpuOp<GpuUnaryOp::kRsqrt>);
DFLOW_GPU_CWISE_FLOATS("Exp", UnaryGpuOp<GpuUnaryOp::kExp>);
DFLOW_GPU_CWISE_FLOATS("Log", UnaryGpuOp<GpuUnaryOp::kLog>);
DFLOW_GPU_CWISE_FLOATS("Sigmoid", UnaryGpuOp<GpuUnaryOp::kSigmoid>);
DFLOW_GPU_CWISE_FLOATS("Tanh", UnaryGpuOp<GpuUnaryOp::kTanh>);
DFLOW_GPU_CWISE_FLOATS("Relu", UnaryGpuOp<GpuUnaryOp::kRelu>);
DFLOW_GPU_CWISE("Relu", UnaryGpuOp<GpuUnaryOp::kRelu>, int8_t);

DFLOW_GPU_CWISE_FLOATS("ReluGrad", GradGpuOp<GpuGradOp::kReluGrad>);
DFLOW_GPU_CWISE_FLOATS("SigmoidGrad", GradGpuOp<GpuGradOp::kSigmoidGrad>);
DFLOW_GPU_CWISE_FLOATS("TanhGrad", GradGpuOp<GpuGradOp::kTanhGrad>);

DFLOW_GPU_CWISE_FLOATS_INT64("Add", BinaryGpuOp<GpuBinaryOp::kAdd>);
DFLOW_GPU_CWISE_FLOATS_INT64("AddV2", BinaryGpuOp<GpuBinaryOp::kAdd>);
DFLOW_GPU_CWISE_FLOATS_INT64("Sub", BinaryGpuOp<GpuBinaryOp::kSub>);
DFLOW_GPU_CWISE_FLOATS_INT64("Mul", BinaryGpuOp<GpuBinaryOp::kMul>);
DFLOW_GPU_CWISE_FLOATS("RealDiv", BinaryGpuOp<GpuBinaryOp::kRealDiv>);
DFLOW_GPU_CWISE_FLOATS_INT64("Maximum", BinaryGpuOp<GpuBinaryOp::kMaximum>);
DFLOW_GPU_CWISE_FLOATS_INT64("Minimum", BinaryGpuOp<GpuBinaryOp::kMinimum>);
DFLOW_GPU_CWISE_FLOATS_INT64("SquaredDifference",
                             BinaryGpuOp<GpuBinaryOp::kSquaredDifference>);
DFLOW_GPU_CWISE_FLOATS_INT64("Pow", BinaryGpuOp<GpuBinaryOp::kPow>);
DFLOW_GPU_CWISE_FLOATS_INT64("Less", BinaryGpuOp<GpuBinaryOp::kLess>);
DFLOW_GPU_CWISE_FLOATS_INT64("Greater", BinaryGpuOp<GpuBinaryOp::kGreater>);
DFLOW_GPU_CWISE_FLOATS_INT64("Equal", BinaryGpuOp<GpuBinaryOp::kEqual>);
DFLOW_GPU_CWISE("Equal", BinaryGpuOp<GpuBinaryOp::kEqual>, bool);

#undef DFLOW_GPU_CWISE_FLOATS_INT64
#undef DFLOW_GPU_CWISE_FLOATS
#undef DFLOW_GPU_CWISE

}  // namespace
}  // namespace dflow

#endif  // DFLOW_HAVE_CUDA
