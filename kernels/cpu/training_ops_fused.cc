// _FusedMatMulApplyGradientDescent (made by compiler/fuse_matmul_update.h):
// var -= alpha * op(a) op(b) as one GEMM into the variable's buffer
// (alpha = -learning rate, beta = 1), copying the buffer first when the
// other update kernels would (kernel_util_state.h).
#include "absl/strings/str_cat.h"
#include "graph/types.h"
#include "kernels/cpu/kernel_util_blas.h"
#include "kernels/cpu/kernel_util_state.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

template <typename T>
class FusedMatMulApplyGradientDescentOp : public OpKernel {
 public:
  explicit FusedMatMulApplyGradientDescentOp(OpKernelConstruction* ctx)
      : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("transpose_a", &transpose_a_));
    ctx->SetStatus(ctx->GetAttr("transpose_b", &transpose_b_));
    is_ref_ = IsRefType(ctx->node().input_type(0));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& alpha = ctx->input(1);
    const Tensor& a = ctx->input(2);
    const Tensor& b = ctx->input(3);
    OP_REQUIRES(ctx, alpha.shape().rank() == 0,
                absl::InvalidArgumentError(absl::StrCat(
                    "'alpha' must be a scalar but has shape ",
                    alpha.shape().ToString())));
    OP_REQUIRES(ctx, a.shape().rank() == 2 && b.shape().rank() == 2,
                absl::InvalidArgumentError(absl::StrCat(
                    "the gradient's MatMul needs matrices, got ",
                    a.shape().ToString(), " and ", b.shape().ToString())));
    const int64_t m = a.shape().dim(transpose_a_ ? 1 : 0);
    const int64_t k = a.shape().dim(transpose_a_ ? 0 : 1);
    const int64_t n = b.shape().dim(transpose_b_ ? 0 : 1);
    OP_REQUIRES(ctx, b.shape().dim(transpose_b_ ? 1 : 0) == k,
                absl::InvalidArgumentError(absl::StrCat(
                    "the gradient's MatMul has inner dimensions ", k, " and ",
                    b.shape().dim(transpose_b_ ? 1 : 0), " (a ",
                    a.shape().ToString(), ", b ", b.shape().ToString(), ")")));
    Var* var = ctx->input_var(0);
    OP_REQUIRES(ctx, var != nullptr,
                absl::InternalError("input 'var' is not a variable"));
    std::lock_guard<std::mutex> lock(var->mu());
    OP_REQUIRES(ctx, var->initialized(), UninitializedValueError(var->name()));
    Tensor* value = var->value();
    OP_REQUIRES(ctx, value->shape() == TensorShape({m, n}),
                absl::InvalidArgumentError(absl::StrCat(
                    "variable '", var->name(), "' has shape ",
                    value->shape().ToString(), " but its gradient is [", m,
                    ",", n, "]")));
    Tensor fresh;
    T* c = value->data<T>();
    if (state_kernels::NeedsCopyBeforeUpdate(value, is_ref_)) {
      // Copy on write (kernel_util_state.h).
      OP_REQUIRES_OK(ctx, ctx->allocate_temp(value->dtype(), value->shape(),
                                             &fresh));
      std::copy_n(value->data<T>(), value->NumElements(), fresh.data<T>());
      c = fresh.data<T>();
    }
    const int64_t lda = transpose_a_ ? m : k;
    const int64_t ldb = transpose_b_ ? k : n;
    OP_REQUIRES_OK(ctx, ScaledGemm<T>(ctx->thread_pool(), transpose_a_,
                                      transpose_b_, m, n, k,
                                      -*alpha.data<T>(), a.data<T>(), lda,
                                      b.data<T>(), ldb, T(1), c, n));
    if (fresh.IsInitialized()) {
      *value = std::move(fresh);
      state_kernels::AdoptUpdatedValue(value, is_ref_);
    }
    ctx->set_output_var(0, var);
  }

 private:
  bool transpose_a_ = false;
  bool transpose_b_ = false;
  bool is_ref_ = true;
};

#define DFLOW_REGISTER_FUSED_SGD(T)                                     \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("_FusedMatMulApplyGradientDescent") \
                            .Device(kDeviceCpu)                         \
                            .TypeConstraint<T>("T"),                    \
                        FusedMatMulApplyGradientDescentOp<T>)
DFLOW_REGISTER_FUSED_SGD(float);
DFLOW_REGISTER_FUSED_SGD(double);
#undef DFLOW_REGISTER_FUSED_SGD

}  // namespace
}  // namespace dflow
