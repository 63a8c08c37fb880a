// The host side of training_ops_gpu.h: names, and in builds without CUDA
// the launcher's stub (answering Unavailable).
#include "absl/strings/str_cat.h"
#include "kernels/gpu/training_ops_gpu.h"
#include "runtime/gpu/cuda_status.h"

namespace dflow {

const char* GpuOptimizerName(GpuOptimizer opt) {
  switch (opt) {
    case GpuOptimizer::kGradientDescent:
      return "ApplyGradientDescent";
    case GpuOptimizer::kMomentum:
      return "ApplyMomentum";
    case GpuOptimizer::kAdam:
      return "ApplyAdam";
  }
  return "unknown optimizer";
}

#if !DFLOW_HAVE_CUDA
absl::Status LaunchApply(GpuOptimizer opt, GpuType, const GpuApplyOperands&,
                         cudaStream_t) {
  return BuiltWithoutCudaError(
      absl::StrCat("the GPU kernel of ", GpuOptimizerName(opt)));
}
#endif  // !DFLOW_HAVE_CUDA

}  // namespace dflow
