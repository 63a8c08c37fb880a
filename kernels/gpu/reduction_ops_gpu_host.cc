// The host side of reduction_ops_gpu.h: names, and in builds without CUDA
// the launchers' stubs (answering Unavailable).
#include "absl/strings/str_cat.h"
#include "kernels/gpu/reduction_ops_gpu.h"
#include "runtime/gpu/cuda_status.h"

namespace dflow {

const char* GpuReductionName(GpuReduction op) {
  switch (op) {
    case GpuReduction::kSum:
      return "Sum";
    case GpuReduction::kMean:
      return "Mean";
    case GpuReduction::kProd:
      return "Prod";
    case GpuReduction::kMax:
      return "Max";
    case GpuReduction::kMin:
      return "Min";
  }
  return "unknown reduction";
}

#if !DFLOW_HAVE_CUDA

int64_t ReduceWorkspaceBytes(const ReducePlan&, GpuType) { return 0; }

absl::Status LaunchReduce(GpuReduction op, GpuType, const ReducePlan&,
                          const void*, void*, void*, int64_t, cudaStream_t) {
  return BuiltWithoutCudaError(
      absl::StrCat("the GPU kernel of ", GpuReductionName(op)));
}

int64_t L2LossWorkspaceBytes(int64_t, GpuType) { return 0; }

absl::Status LaunchL2Loss(GpuType, const void*, int64_t, void*, void*, int64_t,
                          cudaStream_t) {
  return BuiltWithoutCudaError("the GPU kernel of L2Loss");
}

absl::Status LaunchArgMax(GpuType, GpuType, const void*, int64_t, int64_t,
                          int64_t, void*, cudaStream_t) {
  return BuiltWithoutCudaError("the GPU kernel of ArgMax");
}

absl::Status LaunchBiasAdd(GpuType, const void*, const void*, void*, int64_t,
                           int64_t, int64_t, cudaStream_t) {
  return BuiltWithoutCudaError("the GPU kernel of BiasAdd");
}

absl::Status LaunchSoftmax(GpuType, bool log, const void*, void*, int64_t,
                           int64_t, cudaStream_t) {
  return BuiltWithoutCudaError(
      absl::StrCat("the GPU kernel of ", log ? "LogSoftmax" : "Softmax"));
}

absl::Status LaunchSoftmaxXent(GpuType, const XentPlan&, const void*,
                               const void*, void*, void*, cudaStream_t) {
  return BuiltWithoutCudaError(
      "the GPU kernel of SoftmaxCrossEntropyWithLogits");
}

absl::Status LaunchSparseSoftmaxXent(GpuType, GpuType, const void*, const void*,
                                     void*, void*, int64_t, int64_t,
                                     cudaStream_t) {
  return BuiltWithoutCudaError(
      "the GPU kernel of SparseSoftmaxCrossEntropyWithLogits");
}

#endif  // !DFLOW_HAVE_CUDA

}  // namespace dflow
