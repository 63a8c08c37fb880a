// _FusedMatMul (made by compiler/fuse_bias_activation.h): activation(op(a)
// op(b) + bias) with activation "" or "Relu".
//
// The product is the same Gemm call, on the same pool, as MatMul's
// (kernels/cpu/matmul.cc), so it splits the same way and gives the same
// bits; the bias add and the Relu then run as one expression per row in
// one parallel pass over the product, instead of BiasAdd's and Relu's two
// more passes that each read and write all of it. Bias add and Relu are
// exact, so the result equals the unfused kernels' bit for bit.
#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/kernel_util_blas.h"
#include "kernels/cpu/kernel_util_fused.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

template <typename T>
class FusedMatMulOp : public OpKernel {
 public:
  explicit FusedMatMulOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("transpose_a", &transpose_a_));
    ctx->SetStatus(ctx->GetAttr("transpose_b", &transpose_b_));
    relu_ = ReadFusedActivation(ctx);
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    const Tensor& bias = ctx->input(2);
    OP_REQUIRES(ctx, a.shape().rank() == 2 && b.shape().rank() == 2,
                absl::InvalidArgumentError(absl::StrCat(
                    "MatMul needs matrices, got ", a.shape().ToString(),
                    " and ", b.shape().ToString())));
    const int64_t m = a.shape().dim(transpose_a_ ? 1 : 0);
    const int64_t k = a.shape().dim(transpose_a_ ? 0 : 1);
    const int64_t n = b.shape().dim(transpose_b_ ? 0 : 1);
    OP_REQUIRES(ctx, b.shape().dim(transpose_b_ ? 1 : 0) == k,
                absl::InvalidArgumentError(absl::StrCat(
                    "Matrix size-incompatible: In[0]: ", a.shape().ToString(),
                    ", In[1]: ", b.shape().ToString(), " (transpose_a=",
                    transpose_a_, ", transpose_b=", transpose_b_, ")")));
    OP_REQUIRES(ctx, bias.shape().rank() == 1 && bias.shape().dim(0) == n,
                absl::InvalidArgumentError(absl::StrCat(
                    "the bias must be a vector of the product's ", n,
                    " columns, got ", bias.shape().ToString())));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({m, n}), &out));
    if (out->NumElements() == 0) return;
    T* c = out->data<T>();
    const int64_t lda = transpose_a_ ? m : k;
    const int64_t ldb = transpose_b_ ? k : n;
    OP_REQUIRES_OK(
        ctx, Gemm<T>(ctx->thread_pool(), transpose_a_, transpose_b_, m, n, k,
                     a.data<T>(), lda, b.data<T>(), ldb, T(0), c, n));
    AddBiasAndActivate<T>(ctx, c, m, n, bias.data<T>(), relu_);
  }

 private:
  bool transpose_a_ = false;
  bool transpose_b_ = false;
  bool relu_ = false;
};

#define DFLOW_REGISTER_FUSED_MATMUL(T)                   \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("_FusedMatMul") \
                            .Device(kDeviceCpu)          \
                            .TypeConstraint<T>("T"),     \
                        FusedMatMulOp<T>)
DFLOW_REGISTER_FUSED_MATMUL(float);
DFLOW_REGISTER_FUSED_MATMUL(double);
#undef DFLOW_REGISTER_FUSED_MATMUL

}  // namespace
}  // namespace dflow
