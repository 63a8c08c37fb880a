// CPU kernels that forward their inputs unchanged: Identity, IdentityN,
// StopGradient (whose only difference is in the gradient) and NoOp. They
// never copy: the output is the input tensor, sharing its buffer. The
// classes serve the GPU too (kernel_util_identity.h).
#include "graph/tensor.h"
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
// T is a list(type): the registry's constraints take one type per attr, so
// IdentityN matches any list.
DFLOW_REGISTER_KERNEL(KernelDefBuilder("IdentityN").Device(kDeviceCpu),
                      IdentityNKernel);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("NoOp").Device(kDeviceCpu), NoOpKernel);

}  // namespace
}  // namespace dflow
