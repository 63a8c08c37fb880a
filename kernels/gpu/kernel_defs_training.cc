// GPU kernel definitions: optimizer updates (TensorFlow's training_ops.cc).
//
// As in TensorFlow, the scalars (learning rate, momentum, betas, epsilon)
// are device tensors: the GPU functors read them on the device, so an
// optimizer whose learning rate is computed on the GPU needs no copy to the
// host. Only the resource handles of the ResourceApply* ops live in host
// memory (the variable's buffer itself is in device memory).
#include "kernels/gpu/kernel_defs_util.h"

namespace dflow {
namespace gpu_kernel_defs {
namespace {

const bool kRegistered = [] {
  // TensorFlow's GPU list for every optimizer here: half, bfloat16, float,
  // double and the complex types.
  const Types types = Concat({GpuFloat(), Complex()});
  Define(Gpu("ApplyGradientDescent").TypeConstraint("T", types));
  Define(Gpu("ApplyMomentum").TypeConstraint("T", types));
  Define(Gpu("ApplyAdam").TypeConstraint("T", types));
  // Made by compiler/fuse_matmul_update.h from the first one and a MatMul
  // (cuBLAS: one GEMM with beta = 1 into the variable).
  Define(Gpu("_FusedMatMulApplyGradientDescent")
             .TypeConstraint("T", {DT_FLOAT, DT_DOUBLE}));

  Define(Gpu("ResourceApplyGradientDescent")
             .TypeConstraint("T", types)
             .HostMemory("var"));
  Define(Gpu("ResourceApplyMomentum")
             .TypeConstraint("T", types)
             .HostMemory("var")
             .HostMemory("accum"));
  Define(Gpu("ResourceApplyAdam")
             .TypeConstraint("T", types)
             .HostMemory("var")
             .HostMemory("m")
             .HostMemory("v"));
  return true;
}();

}  // namespace
}  // namespace gpu_kernel_defs
}  // namespace dflow
