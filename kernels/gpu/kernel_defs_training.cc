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

  // Adagrad and RMSProp: TensorFlow's GPU list for them lacks bfloat16.
  // Definitions only (no CUDA implementation yet): a session with real GPUs
  // runs them on the CPU under soft placement.
  const Types adagrad_types = {DT_HALF, DT_FLOAT, DT_DOUBLE, DT_COMPLEX64,
                               DT_COMPLEX128};
  for (const char* op : {"ApplyAdagrad", "ApplyAdagradV2", "ApplyRMSProp",
                         "ApplyCenteredRMSProp"}) {
    Define(Gpu(op).TypeConstraint("T", adagrad_types));
  }
  Define(Gpu("ResourceApplyAdagrad")
             .TypeConstraint("T", adagrad_types)
             .HostMemory("var")
             .HostMemory("accum"));
  Define(Gpu("ResourceApplyAdagradV2")
             .TypeConstraint("T", adagrad_types)
             .HostMemory("var")
             .HostMemory("accum"));
  Define(Gpu("ResourceApplyRMSProp")
             .TypeConstraint("T", adagrad_types)
             .HostMemory("var")
             .HostMemory("ms")
             .HostMemory("mom"));
  Define(Gpu("ResourceApplyCenteredRMSProp")
             .TypeConstraint("T", adagrad_types)
             .HostMemory("var")
             .HostMemory("mg")
             .HostMemory("ms")
             .HostMemory("mom"));
  // Of the sparse updates TensorFlow runs only Adagrad on GPUs.
  const Types sparse_types = {DT_HALF, DT_FLOAT, DT_DOUBLE};
  Define(Gpu("SparseApplyAdagrad")
             .TypeConstraint("T", sparse_types)
             .TypeConstraint("Tindices", {DT_INT32, DT_INT64}));
  Define(Gpu("ResourceSparseApplyAdagrad")
             .TypeConstraint("T", sparse_types)
             .TypeConstraint("Tindices", {DT_INT32, DT_INT64})
             .HostMemory("var")
             .HostMemory("accum"));
  return true;
}();

}  // namespace
}  // namespace gpu_kernel_defs
}  // namespace dflow
