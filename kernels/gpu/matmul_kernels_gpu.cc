// The GPU MatMul kernel: kernels/gpu/kernel_defs_math.cc's definition
// (float, double, half, bfloat16, complex64, complex128), computed by
// LaunchMatMul (matmul_gpu.h: cuBLAS on the device's compute stream) with
// the CPU kernel's checks and messages (kernels/cpu/matmul.cc).
//
// Only built with cuBLAS; other builds register nothing here.
#include "third_party/cuda/cuda_config.h"

#if DFLOW_HAVE_CUBLAS

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "graph/tensor.h"
#include "graph/types.h"
#include "kernels/gpu/gpu_kernel_util.h"
#include "kernels/gpu/matmul_gpu.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

template <typename T>
class MatMulGpuOp : public OpKernel {
 public:
  explicit MatMulGpuOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("transpose_a", &transpose_a_));
    ctx->SetStatus(ctx->GetAttr("transpose_b", &transpose_b_));
  }

  void Compute(OpKernelContext* ctx) override {
    DFLOW_GPU_KERNEL_PREAMBLE(ctx, gpu);
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    GpuMatMulParams p;
    p.dtype = DataTypeToEnum<T>::value;
    p.transpose_a = transpose_a_;
    p.transpose_b = transpose_b_;
    OP_REQUIRES_OK(ctx, CheckShapes(a, b, &p));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({p.m, p.n}), &out));
    if (out->NumElements() == 0) return;
    OP_REQUIRES_OK(
        ctx, LaunchMatMul(gpu->physical_ordinal(), GpuComputeStreamOf(ctx), p,
                          a.raw_data(), b.raw_data(), out->raw_data()));
  }

 private:
  // The CPU kernel's checks, with its words.
  absl::Status CheckShapes(const Tensor& a, const Tensor& b,
                           GpuMatMulParams* p) const {
    if (a.shape().rank() != 2) {
      return absl::InvalidArgumentError(
          absl::StrCat("In[0] is not a matrix. Instead it has shape ",
                       a.shape().ToString()));
    }
    if (b.shape().rank() != 2) {
      return absl::InvalidArgumentError(
          absl::StrCat("In[1] is not a matrix. Instead it has shape ",
                       b.shape().ToString()));
    }
    const int64_t a_k = a.shape().dim(transpose_a_ ? 0 : 1);
    const int64_t b_k = b.shape().dim(transpose_b_ ? 1 : 0);
    if (a_k != b_k) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Matrix size-incompatible: In[0]: ", a.shape().ToString(),
          ", In[1]: ", b.shape().ToString(),
          " (transpose_a=", transpose_a_ ? "true" : "false",
          ", transpose_b=", transpose_b_ ? "true" : "false",
          ": inner dimensions ", a_k, " vs. ", b_k, ")"));
    }
    p->m = a.shape().dim(transpose_a_ ? 1 : 0);
    p->k = a_k;
    p->n = b.shape().dim(transpose_b_ ? 0 : 1);
    return absl::OkStatus();
  }

  bool transpose_a_ = false;
  bool transpose_b_ = false;
};

#define DFLOW_REGISTER_MATMUL_GPU(T)                                        \
  DFLOW_REGISTER_GPU_KERNEL(                                                \
      KernelDefBuilder("MatMul").Device(kDeviceGpu).TypeConstraint<T>("T"), \
      MatMulGpuOp<T>)

DFLOW_REGISTER_MATMUL_GPU(float);
DFLOW_REGISTER_MATMUL_GPU(double);
DFLOW_REGISTER_MATMUL_GPU(float16);
DFLOW_REGISTER_MATMUL_GPU(bfloat16);
DFLOW_REGISTER_MATMUL_GPU(complex64);
DFLOW_REGISTER_MATMUL_GPU(complex128);

#undef DFLOW_REGISTER_MATMUL_GPU

}  // namespace
}  // namespace dflow

#endif  // DFLOW_HAVE_CUBLAS
