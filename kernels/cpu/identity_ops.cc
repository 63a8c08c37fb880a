// CPU kernels that forward their inputs unchanged: Identity, IdentityN,
// StopGradient (whose only difference is in the gradient) and NoOp. They
// never copy: the output is the input tensor, sharing its buffer.
#include "graph/tensor.h"
#include "graph/types.h"
#include "kernels/cpu/kernel_util_array.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

using array_kernels::AllTypesAndResource;

// Forwards input i to output i. A resource handle stays a handle; a
// reference input (a VariableV2 read through a non-ref edge) becomes the
// variable's current value.
void Forward(OpKernelContext* ctx, int i) {
  Var* var = ctx->input_var(i);
  if (var != nullptr) {
    if (ctx->kernel().input_type(i) == DT_RESOURCE) {
      ctx->set_output_var(i, var);
    } else {
      ctx->set_output(i, var->Read());
    }
    return;
  }
  ctx->set_output(i, ctx->input(i));
}

class IdentityOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override { Forward(ctx, 0); }
  bool IsExpensive() const override { return false; }
};

class IdentityNOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    for (int i = 0; i < ctx->num_inputs(); ++i) Forward(ctx, i);
  }
  bool IsExpensive() const override { return false; }
};

class NoOpOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext*) override {}
  bool IsExpensive() const override { return false; }
};

DFLOW_REGISTER_KERNEL(KernelDefBuilder("Identity")
                          .Device(kDeviceCpu)
                          .TypeConstraint("T", AllTypesAndResource()),
                      IdentityOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("StopGradient")
                          .Device(kDeviceCpu)
                          .TypeConstraint("T", AllTypesAndResource()),
                      IdentityOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("PreventGradient")
                          .Device(kDeviceCpu)
                          .TypeConstraint("T", AllTypesAndResource()),
                      IdentityOp);
// T is a list(type): the registry's constraints take one type per attr, so
// IdentityN matches any list.
DFLOW_REGISTER_KERNEL(KernelDefBuilder("IdentityN").Device(kDeviceCpu),
                      IdentityNOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("NoOp").Device(kDeviceCpu), NoOpOp);

}  // namespace
}  // namespace dflow
