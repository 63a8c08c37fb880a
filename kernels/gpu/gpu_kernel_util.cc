#include "kernels/gpu/gpu_kernel_util.h"

#include "absl/strings/str_cat.h"

namespace dflow {

GpuDevice* GpuDeviceOf(OpKernelContext* ctx) {
  return dynamic_cast<GpuDevice*>(ctx->device());
}

GpuDevice* GpuDeviceOf(OpKernelConstruction* ctx) {
  return dynamic_cast<GpuDevice*>(ctx->device());
}

void* GpuComputeStreamOf(OpKernelContext* ctx) {
  GpuDevice* gpu = GpuDeviceOf(ctx);
  if (gpu == nullptr || gpu->streams() == nullptr) return nullptr;
  return gpu->streams()->compute_stream();
}

GpuLaunchConfig GpuLaunchConfigFor(OpKernelContext* ctx, int64_t n,
                                   int threads_per_block) {
  GpuDevice* gpu = GpuDeviceOf(ctx);
  return GpuLaunchConfigFor(
      n, gpu == nullptr ? 0 : gpu->gpu_info().multiprocessors,
      threads_per_block);
}

absl::Status NotOnGpuError(const OpKernel& kernel, const Device* device) {
  return absl::FailedPreconditionError(absl::StrCat(
      "the GPU kernel for ", kernel.type_string(), " was asked to compute on ",
      device == nullptr ? "no device" : device->name(),
      ", which is not a CUDA GPU device (a bug in kernel selection: report "
      "it)"));
}

}  // namespace dflow
