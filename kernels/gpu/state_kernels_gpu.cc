// The GPU implementations of the variable ops (kernels/gpu/
// kernel_defs_state.cc): VariableV2 and VarHandleOp name a Var of the
// session's VariableStore, as on the CPU; Assign/AssignVariableOp store the
// assigned tensor itself, which on a GPU is a device tensor (the value
// input is in device memory), so a GPU variable's value lives in GPU
// memory; ReadVariableOp hands out a snapshot sharing that buffer.
// AssignAdd/AssignSub (and the resource variants) update the device buffer
// in place with the element-wise Add/Sub launcher on the compute stream,
// copying it first (device to device, same stream) when someone else still
// shares it, as the CPU kernel does.
//
// The lookup, the checks, Assign and ReadVariableOp are the CPU's
// (kernels/cpu/kernel_util_state.h).
//
// Only built with CUDA (DFLOW_HAVE_CUDA); in other builds this file
// registers nothing and the definitions stay unimplemented.
#include "third_party/cuda/cuda_config.h"

#if DFLOW_HAVE_CUDA

#include <cuda_runtime.h>

#include <atomic>
#include <mutex>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/types.h"
#include "kernels/cpu/kernel_util_state.h"
#include "kernels/gpu/cwise_ops_gpu.h"
#include "kernels/gpu/gpu_kernel_util.h"
#include "kernels/gpu/gpu_shape_plans.h"
#include "kernels/gpu/gpu_type_of.h"
#include "kernels/gpu/kernel_defs_util.h"
#include "runtime/gpu/cuda_status.h"
#include "runtime/gpu/gpu_device.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"
#include "runtime/variables.h"

namespace dflow {
namespace {

using gpu_kernel_defs::Concat;
using gpu_kernel_defs::DeviceMovable;
using gpu_kernel_defs::GpuAll;
using gpu_kernel_defs::GpuFloat;

// A value that reached the variable from the host (Saver::Restore writes
// host tensors; so does a CPU kernel assigning it) is copied once into
// this GPU's memory, where the GPU kernels reading the variable need it.
// `known_on_device` is the last buffer this kernel found in device memory:
// a step whose variable still holds it asks CUDA nothing (the check runs
// every step, so it must be cheap).
absl::Status MoveHostValueToDevice(OpKernelContext* ctx, GpuDevice* gpu,
                                   Var* var,
                                   std::atomic<const void*>* known_on_device) {
  std::lock_guard<std::mutex> lock(var->mu());
  Tensor* value = var->value();
  if (!var->initialized() || value->NumElements() == 0) return absl::OkStatus();
  if (value->raw_data() == known_on_device->load(std::memory_order_relaxed)) {
    return absl::OkStatus();
  }
  cudaPointerAttributes attr;
  if (cudaPointerGetAttributes(&attr, value->raw_data()) == cudaSuccess) {
    if (attr.type == cudaMemoryTypeDevice) {
      known_on_device->store(value->raw_data(), std::memory_order_relaxed);
      return absl::OkStatus();
    }
  } else {
    cudaGetLastError();  // host memory CUDA never saw
  }
  absl::StatusOr<Tensor> moved = Tensor::Allocate(
      ctx->device()->allocator(), value->dtype(), value->shape());
  if (!moved.ok()) return moved.status();
  cudaStream_t stream = GpuStreamOf(ctx);
  DFLOW_CUDA_RETURN_IF_ERROR(cudaSetDevice(gpu->physical_ordinal()),
                             "cudaSetDevice");
  DFLOW_CUDA_RETURN_IF_ERROR(
      cudaMemcpyAsync(moved->raw_data(), value->raw_data(), value->TotalBytes(),
                      cudaMemcpyDefault, stream),
      absl::StrCat("copying variable '", var->name(), "' to ", gpu->name()));
  // The host buffer may be freed once the variable lets go of it.
  DFLOW_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream),
                             "cudaStreamSynchronize");
  *value = *std::move(moved);
  known_on_device->store(value->raw_data(), std::memory_order_relaxed);
  return absl::OkStatus();
}

// VariableV2 and VarHandleOp: the Var the node names, its value moved into
// this GPU's memory if it came from the host.
class VariableGpuOp : public OpKernel {
 public:
  explicit VariableGpuOp(OpKernelConstruction* ctx)
      : OpKernel(ctx), lookup_(ctx) {}
  bool IsExpensive() const override { return false; }

  void Compute(OpKernelContext* ctx) override {
    DFLOW_GPU_KERNEL_PREAMBLE(ctx, gpu);
    Var* var = lookup_.Get(ctx);
    if (var == nullptr) return;
    OP_REQUIRES_OK(ctx,
                   MoveHostValueToDevice(ctx, gpu, var, &known_on_device_));
    ctx->set_output_var(0, var);
  }

 private:
  state_kernels::VariableLookup lookup_;
  std::atomic<const void*> known_on_device_{nullptr};
};

// AssignAdd/AssignSub (ref) and AssignAdd/SubVariableOp (resource).
template <bool kAdd>
class AssignUpdateGpuOp : public OpKernel {
 public:
  explicit AssignUpdateGpuOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    is_ref_ = IsRefType(ctx->node().input_type(0));
  }
  void Compute(OpKernelContext* ctx) override {
    DFLOW_GPU_KERNEL_PREAMBLE(ctx, gpu);
    Var* var = ctx->input_var(0);
    OP_REQUIRES(ctx, var != nullptr,
                absl::InternalError("the variable input is not a variable"));
    const Tensor& delta = ctx->input(1);
    const std::optional<GpuType> type = GpuTypeOf(delta.dtype());
    OP_REQUIRES(ctx, type.has_value(),
                absl::UnimplementedError(absl::StrCat(
                    type_string(), " has no GPU implementation for ",
                    DataTypeName(delta.dtype()))));
    {
      std::lock_guard<std::mutex> lock(var->mu());
      OP_REQUIRES_OK(ctx, state_kernels::CheckUpdate(var, delta));
      Tensor* value = var->value();
      if (value->NumElements() == 0) {
        if (is_ref_) ctx->set_output_var(0, var);
        return;
      }
      if (value->RefCount() > 1) {
        // Copy on write: someone else still reads the old value. Same
        // stream as every kernel of this GPU, so readers queued before see
        // the old buffer and the update below sees the copy.
        Tensor copy;
        OP_REQUIRES_OK(
            ctx, ctx->allocate_temp(value->dtype(), value->shape(), &copy));
        DFLOW_GPU_OP_REQUIRES_CUDA(
            ctx,
            cudaMemcpyAsync(copy.raw_data(), value->raw_data(),
                            value->TotalBytes(), cudaMemcpyDeviceToDevice,
                            GpuStreamOf(ctx)),
            absl::StrCat("copying variable '", var->name(),
                         "' before updating it"));
        *value = std::move(copy);
      }
      const std::vector<int64_t> dims(value->shape().dims().begin(),
                                      value->shape().dims().end());
      std::vector<int64_t> out_shape;
      absl::StatusOr<BroadcastPlan> plan =
          MakeBroadcastPlan({dims, dims}, &out_shape);
      OP_REQUIRES_OK(ctx, plan.status());
      OP_REQUIRES_OK(
          ctx, LaunchBinary(kAdd ? GpuBinaryOp::kAdd : GpuBinaryOp::kSub, *type,
                            *plan, value->raw_data(), delta.raw_data(),
                            value->raw_data(), GpuStreamOf(ctx)));
    }
    if (is_ref_) ctx->set_output_var(0, var);
  }
  bool IsExpensive() const override { return false; }

 private:
  bool is_ref_ = true;
};

// The element-wise Add/Sub launcher's types (floating and int64).
const std::vector<DataType>& UpdateTypes() {
  static const auto* types =
      new std::vector<DataType>(Concat({GpuFloat(), {DT_INT64}}));
  return *types;
}

DFLOW_REGISTER_GPU_KERNEL(KernelDefBuilder("VariableV2")
                              .Device(kDeviceGpu)
                              .TypeConstraint("dtype",
                                              Concat({GpuAll(), {DT_INT64}})),
                          VariableGpuOp);
DFLOW_REGISTER_GPU_KERNEL(KernelDefBuilder("Assign")
                              .Device(kDeviceGpu)
                              .TypeConstraint("T",
                                              Concat({GpuAll(), {DT_INT64}})),
                          state_kernels::AssignKernel);
DFLOW_REGISTER_GPU_KERNEL(KernelDefBuilder("AssignAdd")
                              .Device(kDeviceGpu)
                              .TypeConstraint("T", UpdateTypes()),
                          AssignUpdateGpuOp<true>);
DFLOW_REGISTER_GPU_KERNEL(KernelDefBuilder("AssignSub")
                              .Device(kDeviceGpu)
                              .TypeConstraint("T", UpdateTypes()),
                          AssignUpdateGpuOp<false>);

DFLOW_REGISTER_GPU_KERNEL(KernelDefBuilder("VarHandleOp")
                              .Device(kDeviceGpu)
                              .TypeConstraint("dtype", Concat({DeviceMovable(),
                                                               {DT_INT32}}))
                              .HostMemory("resource"),
                          VariableGpuOp);
DFLOW_REGISTER_GPU_KERNEL(KernelDefBuilder("ReadVariableOp")
                              .Device(kDeviceGpu)
                              .TypeConstraint("dtype", Concat({DeviceMovable(),
                                                               {DT_INT32}}))
                              .HostMemory("resource"),
                          state_kernels::ReadVariableKernel);
DFLOW_REGISTER_GPU_KERNEL(KernelDefBuilder("AssignVariableOp")
                              .Device(kDeviceGpu)
                              .TypeConstraint("dtype", Concat({DeviceMovable(),
                                                               {DT_INT32}}))
                              .HostMemory("resource"),
                          state_kernels::AssignKernel);
DFLOW_REGISTER_GPU_KERNEL(KernelDefBuilder("AssignAddVariableOp")
                              .Device(kDeviceGpu)
                              .TypeConstraint("dtype", UpdateTypes())
                              .HostMemory("resource"),
                          AssignUpdateGpuOp<true>);
DFLOW_REGISTER_GPU_KERNEL(KernelDefBuilder("AssignSubVariableOp")
                              .Device(kDeviceGpu)
                              .TypeConstraint("dtype", UpdateTypes())
                              .HostMemory("resource"),
                          AssignUpdateGpuOp<false>);

}  // namespace
}  // namespace dflow

#endif  // DFLOW_HAVE_CUDA
