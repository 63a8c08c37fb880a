// gpu_fill.h in builds without CUDA: the kernel (gpu_fill.cu.cc) is not
// compiled there, and every call answers Unavailable.
#include "runtime/gpu/cuda_status.h"
#include "runtime/gpu/gpu_fill.h"

#if !DFLOW_HAVE_CUDA

namespace dflow {

absl::Status FillDeviceWords(void*, uint32_t, int64_t, void*) {
  return BuiltWithoutCudaError("FillDeviceWords");
}

absl::Status PoisonDeviceMemory(void*, size_t, void*) {
  return BuiltWithoutCudaError("PoisonDeviceMemory");
}

}  // namespace dflow

#endif  // !DFLOW_HAVE_CUDA
