// CPU kernels that forward their inputs unchanged: Identity, IdentityN,
// StopGradient (whose only difference is in the gradient), Snapshot (dflow
// never changes a value once read: forwarding it is a snapshot),
// EnsureShape (after checking the shape) and NoOp. They
// never copy: the output is the input tensor, sharing its buffer. The
// classes serve the GPU too (kernel_util_identity.h).
#include "absl/strings/str_cat.h"
#include "graph/tensor.h"
#include "graph/tensor_shape.h"
#include "graph/types.h"
#include "kernels/cpu/kernel_util_array.h"
#include "kernels/cpu/kernel_util_identity.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

using array_kernels::AllTypesAndResource;

using array_kernels::IdentityKernel;
using array_kernels::IdentityNKernel;
using array_kernels::NoOpKernel;

DFLOW_REGISTER_KERNEL(KernelDefBuilder("Identity")
                          .Device(kDeviceCpu)
                          .TypeConstraint("T", AllTypesAndResource()),
                      IdentityKernel);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("StopGradient")
                          .Device(kDeviceCpu)
                          .TypeConstraint("T", AllTypesAndResource()),
                      IdentityKernel);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("PreventGradient")
                          .Device(kDeviceCpu)
                          .TypeConstraint("T", AllTypesAndResource()),
                      IdentityKernel);
// GuaranteeConst: the promise concerns optimizers; the value passes.
DFLOW_REGISTER_KERNEL(KernelDefBuilder("GuaranteeConst")
                          .Device(kDeviceCpu)
                          .TypeConstraint("T", AllTypesAndResource()),
                      IdentityKernel);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("Snapshot")
                          .Device(kDeviceCpu)
                          .TypeConstraint("T", AllTypesAndResource()),
                      IdentityKernel);

// Forwards its input when its shape is compatible with the `shape` attr
// (unknown dimensions match anything).
class EnsureShapeKernel : public OpKernel {
 public:
  explicit EnsureShapeKernel(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("shape", &expected_));
  }
  void Compute(OpKernelContext* ctx) override {
    const TensorShape& got = ctx->input(0).shape();
    OP_REQUIRES(ctx, got.IsCompatibleWith(expected_),
                absl::InvalidArgumentError(absl::StrCat(
                    "Shape of tensor input ", got.ToString(),
                    " is not compatible with expected shape ",
                    expected_.ToString())));
    array_kernels::ForwardInput(ctx, 0);
  }
  bool IsExpensive() const override { return false; }

 private:
  TensorShape expected_;
};
DFLOW_REGISTER_KERNEL(KernelDefBuilder("EnsureShape")
                          .Device(kDeviceCpu)
                          .TypeConstraint("T", AllTypesAndResource()),
                      EnsureShapeKernel);

// T is a list(type): the registry's constraints take one type per attr, so
// IdentityN matches any list.
DFLOW_REGISTER_KERNEL(KernelDefBuilder("IdentityN").Device(kDeviceCpu),
                      IdentityNKernel);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("NoOp").Device(kDeviceCpu), NoOpKernel);

}  // namespace
}  // namespace dflow
