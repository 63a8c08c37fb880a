// The GPU kernels of the reductions, ArgMax, bias, L2Loss, softmax and the
// cross-entropy losses, over reduction_ops_gpu.h, registered under
// kernels/gpu/kernel_defs_math.cc's and kernel_defs_nn.cc's definitions
// with the CPU kernels' checks and messages:
//   Sum, Mean, Prod, Max, Min      half, bfloat16, float, double, int64
//                                  (Tidx int32/int64, axes in host memory)
//   ArgMax                         half, bfloat16, float, double, bool
//   BiasAdd, BiasAddGrad, L2Loss, Softmax, LogSoftmax,
//   SoftmaxCrossEntropyWithLogits,
//   SparseSoftmaxCrossEntropyWithLogits   half, bfloat16, float, double
// Not implemented (definitions only): the complex types and TensorFlow's
// int32 host reductions. A sparse label out of range gives a NaN row (the
// labels are in device memory) where the CPU kernel fails.
//
// Only built with CUDA; other builds register nothing here.
#include "third_party/cuda/cuda_config.h"

#if DFLOW_HAVE_CUDA

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/tensor.h"
#include "kernels/gpu/gpu_shape_plans.h"
#include "kernels/gpu/math_kernels_gpu_util.h"
#include "kernels/gpu/reduction_ops_gpu.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

using gpu_kernels::DimsOf;
using gpu_kernels::HostInts;
using gpu_kernels::LauncherType;
using gpu_kernels::LaunchStream;
using gpu_kernels::Workspace;

template <GpuReduction kOp>
class ReductionGpuOp : public OpKernel {
 public:
  explicit ReductionGpuOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("keep_dims", &keep_dims_));
  }

  void Compute(OpKernelContext* ctx) override {
    DFLOW_GPU_ASSIGN_OR_RETURN(ctx, stream, LaunchStream(ctx));
    const Tensor& in = ctx->input(0);
    const Tensor& axes = ctx->input(1);
    OP_REQUIRES(ctx, axes.shape().rank() <= 1,
                absl::InvalidArgumentError(absl::StrCat(
                    "reduction_indices must be a scalar or a vector, but has "
                    "shape ",
                    axes.shape().ToString())));
    OP_REQUIRES(ctx, axes.dtype() == DT_INT32 || axes.dtype() == DT_INT64,
                absl::InvalidArgumentError(
                    absl::StrCat("reduction_indices must be int32 or int64, "
                                 "not ",
                                 DataTypeName(axes.dtype()))));
    DFLOW_GPU_ASSIGN_OR_RETURN(ctx, type, LauncherType(*this, in.dtype()));
    absl::StatusOr<ReducePlan> plan =
        MakeReducePlan(DimsOf(in.shape()), HostInts(axes));
    OP_REQUIRES_OK(ctx, plan.status());
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx,
                   ctx->allocate_output(
                       0,
                       TensorShape(keep_dims_ ? plan->output_shape_keep_dims
                                              : plan->output_shape),
                       &out));
    Tensor workspace;
    const int64_t bytes = ReduceWorkspaceBytes(*plan, type);
    if (bytes > 0) OP_REQUIRES_OK(ctx, Workspace(ctx, bytes, &workspace));
    OP_REQUIRES_OK(
        ctx, LaunchReduce(kOp, type, *plan, in.raw_data(), out->raw_data(),
                          bytes > 0 ? workspace.raw_data() : nullptr, bytes,
                          stream));
  }

 private:
  bool keep_dims_ = false;
};

class ArgMaxGpuOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    DFLOW_GPU_ASSIGN_OR_RETURN(ctx, stream, LaunchStream(ctx));
    const Tensor& in = ctx->input(0);
    const Tensor& dim = ctx->input(1);
    OP_REQUIRES(ctx, dim.shape().rank() == 0,
                absl::InvalidArgumentError(absl::StrCat(
                    "dim must be a scalar, but received tensor of shape: ",
                    dim.shape().ToString())));
    const int64_t axis = HostInts(dim)[0];
    const TensorShape& shape = in.shape();
    const int rank = shape.rank();
    OP_REQUIRES(
        ctx, axis >= -rank && axis < rank,
        absl::InvalidArgumentError(absl::StrCat(
            "Expected dimension in the range [", -rank, ", ", rank,
            "), but got ", axis, " (input shape ", shape.ToString(), ")")));
    const int a = static_cast<int>(axis < 0 ? axis + rank : axis);
    const int64_t reduce = shape.dim(a);
    OP_REQUIRES(
        ctx, reduce > 0,
        absl::InvalidArgumentError(absl::StrCat(
            "Reduction axis ", a, " is empty in shape ", shape.ToString())));
    TensorShape out_shape;
    int64_t outer = 1, inner = 1;
    for (int i = 0; i < rank; ++i) {
      if (i == a) continue;
      out_shape.AddDim(shape.dim(i));
      (i < a ? outer : inner) *= shape.dim(i);
    }
    const DataType out_type = output_type(0);
    OP_REQUIRES(ctx, out_type != DT_INT32 || reduce - 1 <= INT32_MAX,
                absl::InvalidArgumentError(absl::StrCat(
                    "ArgMax over axis ", a, " of shape ", shape.ToString(),
                    " has indices up to ", reduce - 1,
                    ", which output_type int32 cannot hold")));
    DFLOW_GPU_ASSIGN_OR_RETURN(ctx, type, LauncherType(*this, in.dtype()));
    DFLOW_GPU_ASSIGN_OR_RETURN(ctx, otype, LauncherType(*this, out_type));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out->NumElements() == 0) return;
    OP_REQUIRES_OK(ctx, LaunchArgMax(type, otype, in.raw_data(), outer, reduce,
                                     inner, out->raw_data(), stream));
  }
};

absl::Status ReadDataFormat(OpKernelConstruction* ctx, bool* nchw) {
  std::string format;
  absl::Status s = ctx->GetAttr("data_format", &format);
  if (!s.ok()) return s;
  if (format != "NHWC" && format != "NCHW") {
    return absl::InvalidArgumentError(
        absl::StrCat("data_format must be NHWC or NCHW, got '", format, "'"));
  }
  *nchw = format == "NCHW";
  return absl::OkStatus();
}

absl::Status CheckAtLeast2D(const Tensor& t) {
  if (t.shape().rank() < 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Input tensor must be at least 2D: ", t.shape().ToString()));
  }
  return absl::OkStatus();
}

class BiasAddGpuOp : public OpKernel {
 public:
  explicit BiasAddGpuOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ReadDataFormat(ctx, &nchw_));
  }

  void Compute(OpKernelContext* ctx) override {
    DFLOW_GPU_ASSIGN_OR_RETURN(ctx, stream, LaunchStream(ctx));
    const Tensor& value = ctx->input(0);
    const Tensor& bias = ctx->input(1);
    OP_REQUIRES_OK(ctx, CheckAtLeast2D(value));
    OP_REQUIRES(ctx, bias.shape().rank() == 1,
                absl::InvalidArgumentError(absl::StrCat(
                    "Biases must be 1D: ", bias.shape().ToString())));
    const TensorShape& shape = value.shape();
    const int channel_dim = nchw_ ? 1 : shape.rank() - 1;
    const int64_t channels = shape.dim(channel_dim);
    OP_REQUIRES(ctx, bias.shape().dim(0) == channels,
                absl::InvalidArgumentError(absl::StrCat(
                    "Must provide as many biases as the channel dimension of "
                    "the input tensor: ",
                    bias.shape().ToString(), " vs. ", shape.ToString(),
                    " (data_format ", nchw_ ? "NCHW" : "NHWC",
                    ", channel dimension ", channel_dim, ")")));
    DFLOW_GPU_ASSIGN_OR_RETURN(ctx, type, LauncherType(*this, value.dtype()));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    if (out->NumElements() == 0) return;
    int64_t inner = 1;  // NCHW of rank 2 is channels last
    if (nchw_) {
      for (int i = 2; i < shape.rank(); ++i) inner *= shape.dim(i);
    }
    OP_REQUIRES_OK(ctx, LaunchBiasAdd(type, value.raw_data(), bias.raw_data(),
                                      out->raw_data(), value.NumElements(),
                                      channels, inner, stream));
  }

 private:
  bool nchw_ = false;
};

class BiasAddGradGpuOp : public OpKernel {
 public:
  explicit BiasAddGradGpuOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ReadDataFormat(ctx, &nchw_));
  }

  void Compute(OpKernelContext* ctx) override {
    DFLOW_GPU_ASSIGN_OR_RETURN(ctx, stream, LaunchStream(ctx));
    const Tensor& grad = ctx->input(0);
    OP_REQUIRES_OK(ctx, CheckAtLeast2D(grad));
    DFLOW_GPU_ASSIGN_OR_RETURN(ctx, type, LauncherType(*this, grad.dtype()));
    const int rank = grad.shape().rank();
    const int channel_dim = nchw_ ? 1 : rank - 1;
    std::vector<bool> reduce(rank, true);
    reduce[channel_dim] = false;
    const ReducePlan plan =
        MakeReducePlanFromMask(DimsOf(grad.shape()), reduce);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx,
                   ctx->allocate_output(
                       0, TensorShape({grad.shape().dim(channel_dim)}), &out));
    Tensor workspace;
    const int64_t bytes = ReduceWorkspaceBytes(plan, type);
    if (bytes > 0) OP_REQUIRES_OK(ctx, Workspace(ctx, bytes, &workspace));
    OP_REQUIRES_OK(ctx, LaunchReduce(GpuReduction::kSum, type, plan,
                                     grad.raw_data(), out->raw_data(),
                                     bytes > 0 ? workspace.raw_data() : nullptr,
                                     bytes, stream));
  }

 private:
  bool nchw_ = false;
};

class L2LossGpuOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    DFLOW_GPU_ASSIGN_OR_RETURN(ctx, stream, LaunchStream(ctx));
    const Tensor& in = ctx->input(0);
    DFLOW_GPU_ASSIGN_OR_RETURN(ctx, type, LauncherType(*this, in.dtype()));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(), &out));
    Tensor workspace;
    const int64_t bytes = L2LossWorkspaceBytes(in.NumElements(), type);
    if (bytes > 0) OP_REQUIRES_OK(ctx, Workspace(ctx, bytes, &workspace));
    OP_REQUIRES_OK(ctx, LaunchL2Loss(type, in.raw_data(), in.NumElements(),
                                     out->raw_data(),
                                     bytes > 0 ? workspace.raw_data() : nullptr,
                                     bytes, stream));
  }
};

template <bool kLog>
class SoftmaxGpuOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    DFLOW_GPU_ASSIGN_OR_RETURN(ctx, stream, LaunchStream(ctx));
    const Tensor& logits = ctx->input(0);
    const TensorShape& shape = logits.shape();
    OP_REQUIRES(
        ctx, shape.rank() >= 1,
        absl::InvalidArgumentError(absl::StrCat(
            "logits must have >= 1 dimension, got ", shape.ToString())));
    DFLOW_GPU_ASSIGN_OR_RETURN(ctx, type, LauncherType(*this, logits.dtype()));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    const int64_t n = logits.NumElements();
    if (n == 0) return;
    const int64_t c = shape.dim(shape.rank() - 1);
    OP_REQUIRES_OK(ctx, LaunchSoftmax(type, kLog, logits.raw_data(),
                                      out->raw_data(), n / c, c, stream));
  }
};

class SoftmaxXentGpuOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    DFLOW_GPU_ASSIGN_OR_RETURN(ctx, stream, LaunchStream(ctx));
    const Tensor& logits = ctx->input(0);
    const Tensor& labels = ctx->input(1);
    absl::StatusOr<XentPlan> plan =
        MakeXentPlan(DimsOf(logits.shape()), DimsOf(labels.shape()));
    OP_REQUIRES_OK(ctx, plan.status());
    DFLOW_GPU_ASSIGN_OR_RETURN(ctx, type, LauncherType(*this, logits.dtype()));
    Tensor* loss = nullptr;
    Tensor* backprop = nullptr;
    OP_REQUIRES_OK(ctx,
                   ctx->allocate_output(0, TensorShape({plan->rows}), &loss));
    OP_REQUIRES_OK(
        ctx, ctx->allocate_output(1, TensorShape({plan->rows, plan->classes}),
                                  &backprop));
    OP_REQUIRES_OK(ctx, LaunchSoftmaxXent(type, *plan, logits.raw_data(),
                                          labels.raw_data(), loss->raw_data(),
                                          backprop->raw_data(), stream));
  }
};

class SparseSoftmaxXentGpuOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    DFLOW_GPU_ASSIGN_OR_RETURN(ctx, stream, LaunchStream(ctx));
    const Tensor& logits = ctx->input(0);
    const Tensor& labels = ctx->input(1);
    OP_REQUIRES(
        ctx, logits.shape().rank() == 2,
        absl::InvalidArgumentError(absl::StrCat(
            "logits must be 2-D, but got shape ", logits.shape().ToString())));
    OP_REQUIRES(
        ctx, labels.shape().rank() == 1,
        absl::InvalidArgumentError(absl::StrCat(
            "labels must be 1-D, but got shape ", labels.shape().ToString())));
    const int64_t rows = logits.shape().dim(0);
    const int64_t c = logits.shape().dim(1);
    OP_REQUIRES(ctx, labels.shape().dim(0) == rows,
                absl::InvalidArgumentError(absl::StrCat(
                    "logits and labels must have the same first dimension, "
                    "got logits shape ",
                    logits.shape().ToString(), " and labels shape ",
                    labels.shape().ToString())));
    OP_REQUIRES(ctx, rows == 0 || c > 0,
                absl::InvalidArgumentError(absl::StrCat(
                    "Must have at least one class, but got logits shape ",
                    logits.shape().ToString())));
    DFLOW_GPU_ASSIGN_OR_RETURN(ctx, type, LauncherType(*this, logits.dtype()));
    DFLOW_GPU_ASSIGN_OR_RETURN(ctx, ltype, LauncherType(*this, labels.dtype()));
    Tensor* loss = nullptr;
    Tensor* backprop = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({rows}), &loss));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, logits.shape(), &backprop));
    OP_REQUIRES_OK(
        ctx, LaunchSparseSoftmaxXent(type, ltype, logits.raw_data(),
                                     labels.raw_data(), loss->raw_data(),
                                     backprop->raw_data(), rows, c, stream));
  }
};

#define DFLOW_GPU_REDUCTION(NAME, OP, T)                                      \
  DFLOW_REGISTER_GPU_KERNEL(KernelDefBuilder(NAME)                            \
                                .Device(kDeviceGpu)                           \
                                .TypeConstraint<T>("T")                       \
                                .TypeConstraint("Tidx", {DT_INT32, DT_INT64}) \
                                .HostMemory("reduction_indices"),             \
                            ReductionGpuOp<GpuReduction::OP>)

#define DFLOW_GPU_REDUCTIONS(T)          \
  DFLOW_GPU_REDUCTION("Sum", kSum, T);   \
  DFLOW_GPU_REDUCTION("Mean", kMean, T); \
  DFLOW_GPU_REDUCTION("Prod", kProd, T); \
  DFLOW_GPU_REDUCTION("Max", kMax, T);   \
  DFLOW_GPU_REDUCTION("Min", kMin, T)

DFLOW_GPU_REDUCTIONS(float16);
DFLOW_GPU_REDUCTIONS(bfloat16);
DFLOW_GPU_REDUCTIONS(float);
DFLOW_GPU_REDUCTIONS(double);
DFLOW_GPU_REDUCTIONS(int64_t);

#define DFLOW_GPU_ARGMAX(T)                                    \
  DFLOW_REGISTER_GPU_KERNEL(                                   \
      KernelDefBuilder("ArgMax")                               \
          .Device(kDeviceGpu)                                  \
          .TypeConstraint<T>("T")                              \
          .TypeConstraint("Tidx", {DT_INT32, DT_INT64})        \
          .TypeConstraint("output_type", {DT_INT32, DT_INT64}) \
          .HostMemory("dimension"),                            \
      ArgMaxGpuOp)

DFLOW_GPU_ARGMAX(float16);
DFLOW_GPU_ARGMAX(bfloat16);
DFLOW_GPU_ARGMAX(float);
DFLOW_GPU_ARGMAX(double);
DFLOW_GPU_ARGMAX(bool);

#define DFLOW_GPU_NN(op, kernel, T) \
  DFLOW_REGISTER_GPU_KERNEL(        \
      KernelDefBuilder(op).Device(kDeviceGpu).TypeConstraint<T>("T"), kernel)

#define DFLOW_GPU_NN_ALL(T)                                           \
  DFLOW_GPU_NN("BiasAdd", BiasAddGpuOp, T);                           \
  DFLOW_GPU_NN("BiasAddGrad", BiasAddGradGpuOp, T);                   \
  DFLOW_GPU_NN("L2Loss", L2LossGpuOp, T);                             \
  DFLOW_GPU_NN("Softmax", SoftmaxGpuOp<false>, T);                    \
  DFLOW_GPU_NN("LogSoftmax", SoftmaxGpuOp<true>, T);                  \
  DFLOW_GPU_NN("SoftmaxCrossEntropyWithLogits", SoftmaxXentGpuOp, T); \
  DFLOW_REGISTER_GPU_KERNEL(                                          \
      KernelDefBuilder("SparseSoftmaxCrossEntropyWithLogits")         \
          .Device(kDeviceGpu)                                         \
          .TypeConstraint<T>("T")                                     \
          .TypeConstraint("Tlabels", {DT_INT32, DT_INT64}),           \
      SparseSoftmaxXentGpuOp)

DFLOW_GPU_NN_ALL(float16);
DFLOW_GPU_NN_ALL(bfloat16);
DFLOW_GPU_NN_ALL(float);
DFLOW_GPU_NN_ALL(double);

#undef DFLOW_GPU_NN_ALL
#undef DFLOW_GPU_NN
#undef DFLOW_GPU_ARGMAX
#undef DFLOW_GPU_REDUCTIONS
#undef DFLOW_GPU_REDUCTION

}  // namespace
}  // namespace dflow

#endif  // DFLOW_HAVE_CUDA
