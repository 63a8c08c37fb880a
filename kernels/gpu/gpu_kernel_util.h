// What every GPU kernel class needs: its GpuDevice, the device's compute
// stream, launch geometry, and checks that turn CUDA errors into the
// kernel's status.
//
// A GPU kernel is a kernel class (host code, a .cc or .cu.cc file)
// registered under the existing GPU kernel definition (kernels/gpu/
// kernel_defs_*.cc) with DFLOW_REGISTER_GPU_KERNEL (runtime/
// kernel_registry.h); its work is a launcher taking raw device pointers and
// a cudaStream_t (a .cu.cc file compiled by nvcc):
//
//   class ReluGpuOp : public OpKernel {
//    public:
//     using OpKernel::OpKernel;
//     void Compute(OpKernelContext* ctx) override {
//       DFLOW_GPU_KERNEL_PREAMBLE(ctx, gpu);  // GpuDevice* gpu, or an error
//       const Tensor& x = ctx->input(0);
//       Tensor* y = nullptr;
//       OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &y));
//       OP_REQUIRES_OK(ctx, LaunchRelu(x.flat<float>().data(),
//                                      y->flat<float>().data(),
//                                      x.NumElements(),
//                                      GpuLaunchConfigFor(ctx,
//                                      x.NumElements()), GpuStreamOf(ctx)));
//     }
//   };
//   DFLOW_REGISTER_GPU_KERNEL(
//       KernelDefBuilder("Relu").Device(kDeviceGpu).TypeConstraint<float>("T"),
//       ReluGpuOp);
//
// Kernels enqueue work on the compute stream and return: the executor does
// not wait for the GPU between nodes. Every GPU kernel of a device uses the
// same compute stream, so a kernel sees its inputs' values; copies to and
// from the host (the transfer kernels) wait for the compute stream through
// events. Tensor memory freed on the host while a kernel still uses it is
// safe for the same reason: the next kernel to get that memory runs after
// it on the same stream. Work on another stream (a library's own stream)
// must be ordered against the compute stream by the kernel itself.
//
// Inputs and outputs live in device memory, except the arguments the
// kernel's definition keeps in host memory (OpKernelContext::
// allocate_output puts those outputs in host memory by itself).
#ifndef DFLOW_KERNELS_GPU_GPU_KERNEL_UTIL_H_
#define DFLOW_KERNELS_GPU_GPU_KERNEL_UTIL_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "kernels/gpu/gpu_kernel_util.cu.h"
#include "runtime/gpu/cuda_status.h"
#include "runtime/gpu/gpu_device.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {

// The GpuDevice the kernel computes on; null on any other device (a CPU, a
// fake GPU, a test device).
GpuDevice* GpuDeviceOf(OpKernelContext* ctx);
GpuDevice* GpuDeviceOf(OpKernelConstruction* ctx);

// The device's compute stream as a void* (a cudaStream_t); null off a GPU.
void* GpuComputeStreamOf(OpKernelContext* ctx);
#if DFLOW_HAVE_CUDA
// The same as a cudaStream_t.
inline cudaStream_t GpuStreamOf(OpKernelContext* ctx) {
  return static_cast<cudaStream_t>(GpuComputeStreamOf(ctx));
}
#endif

// GpuLaunchConfigFor(n, the device's multiprocessors, threads_per_block).
GpuLaunchConfig GpuLaunchConfigFor(
    OpKernelContext* ctx, int64_t n,
    int threads_per_block = kGpuDefaultThreadsPerBlock);

// FailedPrecondition for a GPU kernel class computing on a device that is
// not a GpuDevice (the registry never does that: it is a bug to report).
// Like every kernel error, the executor prefixes it with the node.
absl::Status NotOnGpuError(const OpKernel& kernel, const Device* device);

}  // namespace dflow

// Declares `GpuDevice* gpu` for the kernel's device, or sets an error and
// returns from Compute.
#define DFLOW_GPU_KERNEL_PREAMBLE(ctx, gpu)            \
  ::dflow::GpuDevice* gpu = ::dflow::GpuDeviceOf(ctx); \
  OP_REQUIRES((ctx), gpu != nullptr,                   \
              ::dflow::NotOnGpuError((ctx)->kernel(), (ctx)->device()))

#if DFLOW_HAVE_CUDA
// After a <<<...>>> launch in a kernel class: sets the launch error (bad
// configuration, no kernel image for this GPU) as the kernel's status and
// returns from Compute.
#define DFLOW_GPU_LAUNCH_CHECK(ctx, what)                \
  OP_REQUIRES_OK((ctx),                                  \
                 ::dflow::CudaStatus(cudaGetLastError(), \
                                     ::absl::StrCat("launching ", (what))))

// OP_REQUIRES_OK for a CUDA call's result: cudaMemsetAsync, cudaMemcpyAsync.
#define DFLOW_GPU_OP_REQUIRES_CUDA(ctx, expr, what) \
  OP_REQUIRES_OK((ctx), ::dflow::CudaStatus((expr), (what)))
#endif  // DFLOW_HAVE_CUDA

// OP_REQUIRES_OK for asynchronous kernels: on error sets the status, calls
// `done` and returns.
#define DFLOW_OP_REQUIRES_OK_ASYNC(ctx, expr, done) \
  do {                                              \
    const ::absl::Status _s = (expr);               \
    if (!_s.ok()) {                                 \
      (ctx)->SetStatus(_s);                         \
      (done)();                                     \
      return;                                       \
    }                                               \
  } while (0)

#endif  // DFLOW_KERNELS_GPU_GPU_KERNEL_UTIL_H_
