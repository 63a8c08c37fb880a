// The GPU implementations of the collective ops and of tensor fusion's
// _FusedCollectiveAllReduce, registered under kernels/gpu/
// kernel_defs_collective.cc's definitions.
//
// The kernel classes are the CPU kernels' (kernels/cpu/collective_ops_base.h):
// a member builds its request with its device's kernel device type ("GPU")
// and its device, so the executor hands complete groups to the GPU backend
// (runtime/gpu/gpu_collective.h: NCCL, or a device-memory ring for virtual
// GPUs sharing a physical GPU), which starts after the work already on every
// member's compute stream and makes the compute streams wait for its end.
// Outputs come from the device's allocator (device memory). The fused
// all-reduce packs its inputs into one buffer and unpacks the result with
// device-to-device copies on the compute stream, so the pack is ordered
// before the collective and the unpack before the consumers' kernels.
//
// Only built with CUDA (DFLOW_HAVE_CUDA); in other builds this file
// registers nothing and the definitions stay unimplemented.
#include "third_party/cuda/cuda_config.h"

#if DFLOW_HAVE_CUDA

#include <cuda_runtime.h>

#include <cstddef>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "graph/types.h"
#include "kernels/cpu/collective_ops_base.h"
#include "kernels/gpu/gpu_kernel_util.h"
#include "runtime/gpu/cuda_status.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

using collective_kernels::CollectiveOpOf;

// A collective kernel of a GpuDevice: the request, output allocation and
// phases are the shared ones; this only refuses to run off a GPU (the
// backend needs the device's streams).
template <CollectiveKind kKind>
class CollectiveGpuOp : public CollectiveOpOf<kKind> {
 public:
  explicit CollectiveGpuOp(OpKernelConstruction* ctx)
      : CollectiveOpOf<kKind>(ctx) {}

  void ComputeAsync(OpKernelContext* ctx,
                    AsyncOpKernel::DoneCallback done) override {
    if (GpuDeviceOf(ctx) == nullptr) {
      ctx->SetStatus(NotOnGpuError(*this, ctx->device()));
      done();
      return;
    }
    CollectiveOpOf<kKind>::ComputeAsync(ctx, std::move(done));
  }
};

class FusedAllReduceGpuOp : public collective_kernels::FusedAllReduceOp {
 public:
  explicit FusedAllReduceGpuOp(OpKernelConstruction* ctx)
      : FusedAllReduceOp(ctx) {}

  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    if (GpuDeviceOf(ctx) == nullptr) {
      ctx->SetStatus(NotOnGpuError(*this, ctx->device()));
      done();
      return;
    }
    FusedAllReduceOp::ComputeAsync(ctx, std::move(done));
  }

 protected:
  // Enqueued on the compute stream: the pack runs after the inputs'
  // producers and before the collective (which waits for the compute
  // stream); the unpack after the collective (the compute stream waits for
  // it) and before the outputs' consumers. The "pack"/"unpack" phases
  // therefore time the enqueueing, not the copies.
  absl::Status CopyBytes(OpKernelContext* ctx, void* dst, const void* src,
                         size_t bytes) const override {
    return CudaStatus(cudaMemcpyAsync(dst, src, bytes,
                                      cudaMemcpyDeviceToDevice,
                                      GpuStreamOf(ctx)),
                      "copying a part of the fused all-reduce's buffer");
  }
};

// The definitions' dtypes, all implemented.
const std::vector<DataType>& Types() {
  static const auto* types =
      new std::vector<DataType>{DT_FLOAT, DT_DOUBLE, DT_INT32, DT_INT64};
  return *types;
}

DFLOW_REGISTER_GPU_KERNEL(KernelDefBuilder("CollectiveAllReduce")
                              .Device(kDeviceGpu)
                              .TypeConstraint("T", Types()),
                          CollectiveGpuOp<CollectiveKind::kAllReduce>);
DFLOW_REGISTER_GPU_KERNEL(KernelDefBuilder("CollectiveAllGather")
                              .Device(kDeviceGpu)
                              .TypeConstraint("T", Types()),
                          CollectiveGpuOp<CollectiveKind::kAllGather>);
DFLOW_REGISTER_GPU_KERNEL(KernelDefBuilder("CollectiveBroadcastSend")
                              .Device(kDeviceGpu)
                              .TypeConstraint("T", Types()),
                          CollectiveGpuOp<CollectiveKind::kBroadcastSend>);
DFLOW_REGISTER_GPU_KERNEL(KernelDefBuilder("CollectiveBroadcastRecv")
                              .Device(kDeviceGpu)
                              .TypeConstraint("T", Types()),
                          CollectiveGpuOp<CollectiveKind::kBroadcastRecv>);
DFLOW_REGISTER_GPU_KERNEL(KernelDefBuilder("_FusedCollectiveAllReduce")
                              .Device(kDeviceGpu)
                              .TypeConstraint("T", Types()),
                          FusedAllReduceGpuOp);

}  // namespace
}  // namespace dflow

#endif  // DFLOW_HAVE_CUDA
