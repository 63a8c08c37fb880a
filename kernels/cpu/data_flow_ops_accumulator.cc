// CPU kernels of TensorFlow's conditional accumulator ops (graph/ops/
// data_flow_ops_accumulator.cc) over the ConditionalAccumulator of
// data_flow_ops_conditional_accumulator.h. ResourceConditionalAccumulator
// makes the handle: the accumulator lives in the session's VariableStore
// under container/shared_name (or the node's name), made on first run.
// The take is an AsyncOpKernel: a take the accumulator cannot serve yet
// waits without a thread.
#include <memory>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "kernels/cpu/data_flow_ops_conditional_accumulator.h"
#include "kernels/cpu/kernel_util_resource.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"
#include "runtime/variables.h"

namespace dflow {
namespace {

class AccumulatorOp : public OpKernel {
 public:
  explicit AccumulatorOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    options_.name = ctx->name();
    ctx->SetStatus(ctx->GetAttr("dtype", &options_.dtype));
    ctx->SetStatus(ctx->GetAttr("shape", &options_.shape));
    std::string reduction;
    ctx->SetStatus(ctx->GetAttr("reduction_type", &reduction));
    if (reduction != "MEAN" && reduction != "SUM") {
      ctx->SetStatus(absl::InvalidArgumentError(absl::StrCat(
          "reduction_type must be MEAN or SUM, got '", reduction, "'")));
    }
    options_.mean = reduction == "MEAN";
    key_ = ResourceKey(ctx);
  }

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<Var*> var = LookupOrCreateResource<ConditionalAccumulator>(
        ctx, key_, "conditional accumulator",
        [this] { return std::make_unique<ConditionalAccumulator>(options_); });
    OP_REQUIRES_OK(ctx, var.status());
    ctx->set_output_var(0, *var);
  }
  bool IsExpensive() const override { return false; }

 private:
  ConditionalAccumulator::Options options_;
  std::string key_;
};

// The accumulator input 0's handle names, or an error for the kernel.
absl::StatusOr<ConditionalAccumulator*> AccumulatorOf(OpKernelContext* ctx) {
  auto* accumulator = ResourceOfInput<ConditionalAccumulator>(ctx, 0);
  if (accumulator == nullptr) {
    return absl::InvalidArgumentError(
        "input 0 is not the handle of a conditional accumulator (connect it "
        "to a ResourceConditionalAccumulator)");
  }
  return accumulator;
}

// A scalar of `dtype` input `i`, or an error naming what it is for.
absl::Status ScalarInput(OpKernelContext* ctx, int i, DataType dtype,
                         const char* what) {
  const Tensor& t = ctx->input(i);
  if (t.dtype() != dtype || t.shape().rank() != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, " must be a ", DataTypeName(dtype), " scalar, got ",
        t.DebugString()));
  }
  return absl::OkStatus();
}

class ApplyGradientOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<ConditionalAccumulator*> accumulator = AccumulatorOf(ctx);
    OP_REQUIRES_OK(ctx, accumulator.status());
    OP_REQUIRES_OK(ctx, ScalarInput(ctx, 1, DT_INT64, "local_step"));
    OP_REQUIRES_OK(ctx, (*accumulator)->Apply(ctx->input(1).data<int64_t>()[0],
                                              ctx->input(2)));
  }
  bool IsExpensive() const override { return false; }
};

class TakeGradientOp : public AsyncOpKernel {
 public:
  using AsyncOpKernel::AsyncOpKernel;
  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    absl::StatusOr<ConditionalAccumulator*> accumulator = AccumulatorOf(ctx);
    absl::Status s = accumulator.status();
    if (s.ok()) s = ScalarInput(ctx, 1, DT_INT32, "num_required");
    if (s.ok() && ctx->input(1).data<int32_t>()[0] < 1) {
      s = absl::InvalidArgumentError(
          absl::StrCat("Argument num_required must be positive, but was ",
                       ctx->input(1).data<int32_t>()[0]));
    }
    if (!s.ok()) {
      ctx->SetStatus(s);
      done();
      return;
    }
    (*accumulator)->Take(ctx->input(1).data<int32_t>()[0],
                         [ctx, done = std::move(done)](const absl::Status& st,
                                                       Tensor result) {
                           if (st.ok()) {
                             ctx->set_output(0, std::move(result));
                           } else {
                             ctx->SetStatus(st);
                           }
                           done();
                         });
  }
  bool IsExpensive() const override { return false; }
};

class NumAccumulatedOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<ConditionalAccumulator*> accumulator = AccumulatorOf(ctx);
    OP_REQUIRES_OK(ctx, accumulator.status());
    ctx->set_output(0, Tensor::Scalar((*accumulator)->NumAccumulated()));
  }
  bool IsExpensive() const override { return false; }
};

class SetGlobalStepOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<ConditionalAccumulator*> accumulator = AccumulatorOf(ctx);
    OP_REQUIRES_OK(ctx, accumulator.status());
    OP_REQUIRES_OK(ctx, ScalarInput(ctx, 1, DT_INT64, "new_global_step"));
    (*accumulator)->SetGlobalStep(ctx->input(1).data<int64_t>()[0]);
  }
  bool IsExpensive() const override { return false; }
};

// TensorFlow's kernels take half, float and double; dflow's float and
// double (a half accumulator fails to place, naming the dtype).
DFLOW_REGISTER_KERNEL(KernelDefBuilder("ResourceConditionalAccumulator")
                          .Device(kDeviceCpu)
                          .TypeConstraint("dtype", {DT_FLOAT, DT_DOUBLE}),
                      AccumulatorOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("ResourceAccumulatorApplyGradient")
                          .Device(kDeviceCpu)
                          .TypeConstraint("dtype", {DT_FLOAT, DT_DOUBLE}),
                      ApplyGradientOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("ResourceAccumulatorTakeGradient")
                          .Device(kDeviceCpu)
                          .TypeConstraint("dtype", {DT_FLOAT, DT_DOUBLE}),
                      TakeGradientOp);
DFLOW_REGISTER_KERNEL(
    KernelDefBuilder("ResourceAccumulatorNumAccumulated").Device(kDeviceCpu),
    NumAccumulatedOp);
DFLOW_REGISTER_KERNEL(
    KernelDefBuilder("ResourceAccumulatorSetGlobalStep").Device(kDeviceCpu),
    SetGlobalStepOp);

}  // namespace
}  // namespace dflow
