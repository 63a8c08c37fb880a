// The GPU implementation of Cast (kernels/gpu/kernel_defs_math.cc defines
// one GPU kernel for every pair): bool and the real numeric types through
// LaunchGpuCast (cast_ops_gpu.h), with the CPU kernel's conversions; a cast
// to the same type forwards its input. Complex types and strings fail when
// the kernel is built, naming the pair, as on the CPU for unsupported
// pairs.
//
// Only built with CUDA (DFLOW_HAVE_CUDA); in other builds this file
// registers nothing and the definition stays unimplemented.
#include "third_party/cuda/cuda_config.h"

#if DFLOW_HAVE_CUDA

#include <optional>

#include "absl/strings/str_cat.h"
#include "graph/tensor.h"
#include "graph/types.h"
#include "kernels/gpu/cast_ops_gpu.h"
#include "kernels/gpu/gpu_kernel_util.h"
#include "kernels/gpu/kernel_defs_util.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

std::optional<GpuCastType> CastTypeOf(DataType t) {
  switch (t) {
    case DT_HALF: return GpuCastType::kHalf;
    case DT_BFLOAT16: return GpuCastType::kBfloat16;
    case DT_FLOAT: return GpuCastType::kFloat;
    case DT_DOUBLE: return GpuCastType::kDouble;
    case DT_INT8: return GpuCastType::kInt8;
    case DT_INT16: return GpuCastType::kInt16;
    case DT_INT32: return GpuCastType::kInt32;
    case DT_INT64: return GpuCastType::kInt64;
    case DT_UINT8: return GpuCastType::kUint8;
    case DT_UINT16: return GpuCastType::kUint16;
    case DT_UINT32: return GpuCastType::kUint32;
    case DT_UINT64: return GpuCastType::kUint64;
    case DT_BOOL: return GpuCastType::kBool;
    default: return std::nullopt;
  }
}

class CastGpuOp : public OpKernel {
 public:
  explicit CastGpuOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DataType src = DT_INVALID, dst = DT_INVALID;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("SrcT", &src));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("DstT", &dst));
    if (ctx->node().FindAttr("Truncate") != nullptr) {
      OP_REQUIRES_OK(ctx, ctx->GetAttr("Truncate", &truncate_));
    }
    forward_ = src == dst;
    src_ = CastTypeOf(src);
    dst_ = CastTypeOf(dst);
    OP_REQUIRES(ctx, forward_ || (src_.has_value() && dst_.has_value()),
                absl::UnimplementedError(absl::StrCat(
                    "Cast from ", DataTypeName(src), " to ", DataTypeName(dst),
                    " has no GPU kernel; the GPU Cast handles bool and the "
                    "real numeric types (place this Cast on the CPU)")));
  }

  bool IsExpensive() const override { return !forward_; }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    if (forward_) {
      ctx->set_output(0, x);
      return;
    }
    DFLOW_GPU_KERNEL_PREAMBLE(ctx, gpu);
    Tensor* y = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &y));
    OP_REQUIRES_OK(ctx, LaunchGpuCast(*src_, *dst_, truncate_, x.raw_data(),
                                      y->raw_data(), x.NumElements(),
                                      GpuComputeStreamOf(ctx)));
  }

 private:
  bool truncate_ = false;
  bool forward_ = false;
  std::optional<GpuCastType> src_, dst_;
};

DFLOW_REGISTER_GPU_KERNEL(
    KernelDefBuilder("Cast")
        .Device(kDeviceGpu)
        .TypeConstraint("SrcT", gpu_kernel_defs::GpuCastable())
        .TypeConstraint("DstT", gpu_kernel_defs::GpuCastable()),
    CastGpuOp);

}  // namespace
}  // namespace dflow

#endif  // DFLOW_HAVE_CUDA
