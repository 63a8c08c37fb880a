// GPU kernel definitions: the collective ops (graph/ops/collective_ops.h),
// as TensorFlow's collective_ops.cc registers them on GPUs. The keys are
// attrs here, not tensors, so no argument is in host memory. NCCL reduces
// these dtypes in device memory (int32 included: a collective is not shape
// arithmetic); the NCCL implementations come with the GPU work, under these
// definitions. On fake GPUs the CPU ring runs them. _FusedCollectiveAllReduce
// is tensor fusion's (compiler/tensor_fusion.h): its packing and unpacking
// are device copies, its all-reduce one NCCL call.
#include "kernels/gpu/kernel_defs_util.h"

namespace dflow {
namespace gpu_kernel_defs {
namespace {

const bool kRegistered = [] {
  const Types types = {DT_FLOAT, DT_DOUBLE, DT_INT32, DT_INT64};
  for (const char* op :
       {"CollectiveAllReduce", "CollectiveAllGather", "CollectiveBroadcastSend",
        "CollectiveBroadcastRecv", "_FusedCollectiveAllReduce"}) {
    Define(Gpu(op).TypeConstraint("T", types));
  }
  return true;
}();

}  // namespace
}  // namespace gpu_kernel_defs
}  // namespace dflow
