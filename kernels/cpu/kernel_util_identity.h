// The kernels that forward their inputs unchanged, one class for every
// device: Identity (also StopGradient and PreventGradient), IdentityN and
// NoOp. They never copy: the output is the input
// tensor, sharing its buffer, wherever that buffer lives. A resource handle
// stays a handle; a reference input (a VariableV2 read through a non-ref
// edge) becomes the variable's current value.
#ifndef DFLOW_KERNELS_CPU_KERNEL_UTIL_IDENTITY_H_
#define DFLOW_KERNELS_CPU_KERNEL_UTIL_IDENTITY_H_

#include "runtime/op_kernel.h"

namespace dflow {
namespace array_kernels {

// Forwards input i to output i.
void ForwardInput(OpKernelContext* ctx, int i);

class IdentityKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override { ForwardInput(ctx, 0); }
  bool IsExpensive() const override { return false; }
};

class IdentityNKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    for (int i = 0; i < ctx->num_inputs(); ++i) ForwardInput(ctx, i);
  }
  bool IsExpensive() const override { return false; }
};

class NoOpKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext*) override {}
  bool IsExpensive() const override { return false; }
};

}  // namespace array_kernels
}  // namespace dflow

#endif  // DFLOW_KERNELS_CPU_KERNEL_UTIL_IDENTITY_H_
