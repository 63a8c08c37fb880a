// The GPU implementations of the array and shape ops that move no element:
// Identity, StopGradient, IdentityN and NoOp forward their inputs; Reshape,
// ExpandDims and Squeeze hand out the input's device buffer under another
// shape (nothing is copied, nothing is enqueued); Shape, Size and Rank only
// look at the input's shape and write host-memory outputs (their
// definitions in kernels/gpu/kernel_defs_shape.cc keep them on the host, so
// allocate_output gives host memory). ZerosLike clears a device buffer on
// the compute stream (its int32 definition, a host buffer). Placeholder
// (unfed: the CPU kernel's error), PlaceholderWithDefault (forwards), and
// the host-memory helpers BroadcastGradientArgs, InvertPermutation and
// the int32 Range (computed on the host, as on the CPU).
//
// Reshape, ExpandDims, Squeeze, Shape, Size, Rank and BroadcastGradientArgs
// are the CPU's classes (kernels/cpu/kernel_util_shape.h); the others keep
// the CPU kernels' logic and error messages (kernels/cpu/identity_ops.cc);
// the int32 definitions keep every argument in host memory, so one class
// serves every dtype.
//
// Only built with CUDA (DFLOW_HAVE_CUDA); in other builds this file
// registers nothing and the definitions stay unimplemented.
#include "third_party/cuda/cuda_config.h"

#if DFLOW_HAVE_CUDA

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/tensor.h"
#include "graph/types.h"
#include "kernels/cpu/kernel_util_array.h"
#include "kernels/cpu/kernel_util_identity.h"
#include "kernels/cpu/kernel_util_shape.h"
#include "kernels/gpu/gpu_kernel_util.h"
#include "kernels/gpu/kernel_defs_util.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

using array_kernels::IndexVec;
using gpu_kernel_defs::Complex;
using gpu_kernel_defs::Concat;
using gpu_kernel_defs::DeviceMovable;
using gpu_kernel_defs::GpuFloat;

// --- Identity, StopGradient, IdentityN, NoOp ---

// The CPU's classes (kernel_util_identity.h): a reference input becomes
// the variable's current value, a device tensor on a GPU.
using array_kernels::IdentityKernel;
using array_kernels::IdentityNKernel;
using array_kernels::NoOpKernel;

// --- Host-memory helpers of gradients: BroadcastGradientArgs,
// InvertPermutation (every argument in host memory) ---

class InvertPermutationGpuOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    OP_REQUIRES(
        ctx, x.shape().rank() == 1,
        absl::InvalidArgumentError(absl::StrCat(
            "x must be a vector, but has shape ", x.shape().ToString())));
    IndexVec perm;
    OP_REQUIRES_OK(ctx, array_kernels::ReadIndexVector(x, "x", &perm));
    const int64_t n = static_cast<int64_t>(perm.size());
    IndexVec inverse(perm.size(), -1);
    for (int64_t i = 0; i < n; ++i) {
      const int64_t p = perm[i];
      OP_REQUIRES(
          ctx, p >= 0 && p < n && inverse[p] < 0,
          absl::InvalidArgumentError(absl::StrCat(
              "x [", absl::StrJoin(perm, ","), "] is not a permutation of 0..",
              n - 1, ": ", p < 0 || p >= n ? "entry out of range" : "duplicate",
              " ", p, " at position ", i)));
      inverse[p] = i;
    }
    Tensor* y = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &y));
    for (int64_t i = 0; i < n; ++i) {
      if (y->dtype() == DT_INT64) {
        y->data<int64_t>()[i] = inverse[i];
      } else {
        y->data<int32_t>()[i] = static_cast<int32_t>(inverse[i]);
      }
    }
  }
  bool IsExpensive() const override { return false; }
};

// --- Range (the int32 definition: every argument in host memory) ---

class RangeInt32GpuOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const char* names[] = {"start", "limit", "delta"};
    int32_t v[3];
    for (int i = 0; i < 3; ++i) {
      const Tensor& t = ctx->input(i);
      OP_REQUIRES(ctx, t.NumElements() == 1 && t.shape().rank() <= 1,
                  absl::InvalidArgumentError(
                      absl::StrCat(names[i], " must be a scalar, not shape ",
                                   t.shape().ToString())));
      v[i] = t.data<int32_t>()[0];
    }
    const int32_t start = v[0], limit = v[1], delta = v[2];
    const std::string values = absl::StrCat(
        "start = ", start, ", limit = ", limit, ", delta = ", delta);
    OP_REQUIRES(ctx, delta != 0,
                absl::InvalidArgumentError(
                    absl::StrCat("Range requires delta != 0 (", values, ")")));
    if (delta > 0) {
      OP_REQUIRES(
          ctx, start <= limit,
          absl::InvalidArgumentError(absl::StrCat(
              "Range requires start <= limit when delta > 0 (", values, ")")));
    } else {
      OP_REQUIRES(
          ctx, start >= limit,
          absl::InvalidArgumentError(absl::StrCat(
              "Range requires start >= limit when delta < 0 (", values, ")")));
    }
    // In 64 bits: limit - start may overflow int32.
    const int64_t span = static_cast<int64_t>(limit) - start;
    const int64_t abs_span = span < 0 ? -span : span;
    const int64_t abs_step = delta < 0 ? -static_cast<int64_t>(delta) : delta;
    const int64_t size = (abs_span + abs_step - 1) / abs_step;
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({size}), &out));
    int32_t* data = out->data<int32_t>();
    for (int64_t i = 0; i < size; ++i) {
      data[i] = static_cast<int32_t>(start + i * static_cast<int64_t>(delta));
    }
  }
  bool IsExpensive() const override { return false; }
};

// --- Placeholder, PlaceholderWithDefault ---

// A placeholder that runs was not fed: the CPU kernel's error.
class PlaceholderGpuOp : public OpKernel {
 public:
  explicit PlaceholderGpuOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DataType dtype = DT_INVALID;
    TensorShape shape = TensorShape::Unknown();
    ctx->GetAttr("dtype", &dtype).IgnoreError();
    ctx->GetAttr("shape", &shape).IgnoreError();
    message_ =
        absl::StrCat("placeholder '", ctx->name(), "' of dtype ",
                     DataTypeName(dtype), " and shape ", shape.ToString(),
                     " must be fed: pass it in Session::Run feeds");
  }
  void Compute(OpKernelContext* ctx) override {
    ctx->SetStatus(absl::InvalidArgumentError(message_));
  }
  bool IsExpensive() const override { return false; }

 private:
  std::string message_;
};

// --- ZerosLike: every device type's zero is all-zero bytes ---

class ZerosLikeGpuOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    DFLOW_GPU_KERNEL_PREAMBLE(ctx, gpu);
    const Tensor& x = ctx->input(0);
    Tensor* y = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &y));
    if (y->TotalBytes() == 0) return;
    if (output_in_host_memory(0)) {  // the int32 definition
      std::memset(y->raw_data(), 0, y->TotalBytes());
      return;
    }
    DFLOW_GPU_OP_REQUIRES_CUDA(
        ctx,
        cudaMemsetAsync(y->raw_data(), 0, y->TotalBytes(), GpuStreamOf(ctx)),
        "clearing ZerosLike's output");
  }
};

KernelDefBuilder Gpu(const char* op) {
  KernelDefBuilder b(op);
  b.Device(kDeviceGpu);
  return b;
}

// The device-memory definitions and their int32 twins (every argument in
// host memory).
void RegisterDeviceAndInt32(
    const char* op, const std::vector<std::string>& host,
    const std::vector<std::string>& all_args,
    const std::vector<std::pair<std::string, std::vector<DataType>>>& extra,
    KernelFactory factory) {
  KernelDefBuilder device = Gpu(op);
  device.TypeConstraint("T", DeviceMovable());
  KernelDefBuilder int32 = Gpu(op);
  int32.TypeConstraint("T", {DT_INT32});
  for (const auto& [attr, types] : extra) {
    device.TypeConstraint(attr, types);
    int32.TypeConstraint(attr, types);
  }
  for (const std::string& arg : host) device.HostMemory(arg);
  for (const std::string& arg : all_args) int32.HostMemory(arg);
  KernelRegistry::Global()->RegisterImplementation(device.def(), factory);
  KernelRegistry::Global()->RegisterImplementation(int32.def(), factory);
}

template <typename K>
KernelFactory Factory() {
  return [](OpKernelConstruction* ctx) -> std::unique_ptr<OpKernel> {
    return std::make_unique<K>(ctx);
  };
}

const bool kRegistered = [] {
  KernelRegistry* r = KernelRegistry::Global();
  const std::vector<DataType> idx = {DT_INT32, DT_INT64};
  for (const char* op : {"Identity", "StopGradient"}) {
    r->RegisterImplementation(
        Gpu(op).TypeConstraint("T", DeviceMovable()).def(),
        Factory<IdentityKernel>());
    r->RegisterImplementation(Gpu(op)
                                  .TypeConstraint("T", {DT_INT32})
                                  .HostMemory("input")
                                  .HostMemory("output")
                                  .def(),
                              Factory<IdentityKernel>());
    r->RegisterImplementation(Gpu(op)
                                  .TypeConstraint("T", {DT_STRING, DT_RESOURCE})
                                  .HostMemory("input")
                                  .HostMemory("output")
                                  .def(),
                              Factory<IdentityKernel>());
  }
  r->RegisterImplementation(Gpu("IdentityN").def(), Factory<IdentityNKernel>());
  r->RegisterImplementation(Gpu("NoOp").def(), Factory<NoOpKernel>());

  RegisterDeviceAndInt32("Reshape", {"shape"}, {"tensor", "shape", "output"},
                         {{"Tshape", idx}},
                         Factory<shape_kernels::ReshapeOp>());
  RegisterDeviceAndInt32("ExpandDims", {"dim"}, {"input", "dim", "output"},
                         {{"Tdim", idx}},
                         Factory<shape_kernels::ExpandDimsOp>());
  RegisterDeviceAndInt32("Squeeze", {}, {"input", "output"}, {},
                         Factory<shape_kernels::SqueezeOp>());
  RegisterDeviceAndInt32("Shape", {"output"}, {"input", "output"},
                         {{"out_type", idx}},
                         Factory<shape_kernels::ShapeOp>());
  RegisterDeviceAndInt32("Size", {"output"}, {"input", "output"},
                         {{"out_type", idx}}, Factory<shape_kernels::SizeOp>());
  RegisterDeviceAndInt32("Rank", {"output"}, {"input", "output"}, {},
                         Factory<shape_kernels::RankOp>());

  r->RegisterImplementation(Gpu("BroadcastGradientArgs")
                                .TypeConstraint("T", idx)
                                .HostMemory("s0")
                                .HostMemory("s1")
                                .HostMemory("r0")
                                .HostMemory("r1")
                                .def(),
                            Factory<shape_kernels::BroadcastGradientArgsOp>());
  r->RegisterImplementation(Gpu("InvertPermutation")
                                .TypeConstraint("T", idx)
                                .HostMemory("x")
                                .HostMemory("y")
                                .def(),
                            Factory<InvertPermutationGpuOp>());
  r->RegisterImplementation(Gpu("Range")
                                .TypeConstraint("Tidx", {DT_INT32})
                                .HostMemory("start")
                                .HostMemory("limit")
                                .HostMemory("delta")
                                .HostMemory("output")
                                .def(),
                            Factory<RangeInt32GpuOp>());
  r->RegisterImplementation(Gpu("Placeholder").def(),
                            Factory<PlaceholderGpuOp>());
  r->RegisterImplementation(Gpu("PlaceholderWithDefault")
                                .TypeConstraint("dtype", DeviceMovable())
                                .def(),
                            Factory<IdentityKernel>());
  r->RegisterImplementation(Gpu("PlaceholderWithDefault")
                                .TypeConstraint("dtype", {DT_INT32})
                                .HostMemory("input")
                                .HostMemory("output")
                                .def(),
                            Factory<IdentityKernel>());
  r->RegisterImplementation(
      Gpu("ZerosLike").TypeConstraint("T", {DT_INT32}).HostMemory("y").def(),
      Factory<ZerosLikeGpuOp>());
  // ZerosLike on the device types.
  r->RegisterImplementation(
      Gpu("ZerosLike")
          .TypeConstraint("T",
                          Concat({GpuFloat(), Complex(), {DT_BOOL, DT_INT64}}))
          .def(),
      Factory<ZerosLikeGpuOp>());
  return true;
}();

}  // namespace
}  // namespace dflow

#endif  // DFLOW_HAVE_CUDA
