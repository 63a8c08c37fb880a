// The host side of random_ops_gpu.h: names, and in builds without CUDA the
// launchers' stubs (answering Unavailable).
#include "absl/strings/str_cat.h"
#include "kernels/gpu/random_ops_gpu.h"
#include "runtime/gpu/cuda_status.h"

namespace dflow {

const char* GpuRandomDistributionName(GpuRandomDistribution d) {
  switch (d) {
    case GpuRandomDistribution::kUniform:
      return "RandomUniform";
    case GpuRandomDistribution::kNormal:
      return "RandomStandardNormal";
    case GpuRandomDistribution::kTruncatedNormal:
      return "TruncatedNormal";
  }
  return "unknown distribution";
}

#if !DFLOW_HAVE_CUDA
absl::Status LaunchRandom(GpuRandomDistribution dist, GpuType,
                          const gpu_random::Philox&, void*, int64_t,
                          cudaStream_t) {
  return BuiltWithoutCudaError(
      absl::StrCat("the GPU kernel of ", GpuRandomDistributionName(dist)));
}

absl::Status LaunchBoxMullerTableCheck(float*, cudaStream_t) {
  return BuiltWithoutCudaError("the GPU random tables' check");
}
#endif  // !DFLOW_HAVE_CUDA

}  // namespace dflow
