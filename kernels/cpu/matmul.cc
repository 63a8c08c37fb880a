// MatMul on the CPU: product = op(a) * op(b) for rank-2 a and b, where op
// transposes when transpose_a / transpose_b is set.
//
//   float, double, complex64, complex128  OpenBLAS (kernel_util_blas.h)
//   half, bfloat16                        widened to float, sgemm, rounded
//                                         back (float accumulation, as
//                                         TensorFlow's CPU kernel gets from
//                                         Eigen's contraction, but at BLAS
//                                         speed)
//   int8..int64, uint8..uint64            plain loops in unsigned arithmetic:
//                                         overflow wraps (two's complement)
//                                         without undefined behaviour
//
// Why OpenBLAS, single-threaded, split over dflow's pool. Measured with
// bench/matmul_bench.cc on the 2-core development machine (AMD EPYC,
// AVX2+FMA; default -O2 build without -march), best of 5, GFLOP/s:
//
//                           OpenBLAS OpenBLAS   dflow   dflow  Eigen
//                           1 thread own 2 thr 1 thread 2 thr 1 thread
//   1024x1024 . 1024x1024      88.9    128.9     89.1   163.8    31.4
//   100x784 . 784x500          86.0    115.0     84.8   119.1    30.9
//   100x500 . 500x10           41.5     19.2     40.7    40.7    25.1
//   (784x100)^T . 100x500      78.7     87.7     79.4   124.6    30.8
//   100x500 . (784x500)^T      83.9    107.8     84.5   128.5    30.8
//
// Eigen compiles to SSE2 here (no -march), so OpenBLAS, which picks its
// AVX2 kernels at run time, is ~3x faster on one thread. OpenBLAS's own
// threads scale worse than two one-thread calls on halves of C (1.45x vs
// 1.84x at 1024^3) and halve the speed of small products (100x500x10);
// they would also compete with dflow's workers for the same cores. So BLAS
// runs single-threaded and kernel_util_blas.h splits large products into
// blocks of rows or columns of C over dflow's pool; small ones (< 2^20
// multiply-adds) stay one call. Where every worker is busy with other
// kernels the caller runs all blocks itself, at one thread's speed.
#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "graph/tensor.h"
#include "graph/types.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/kernel_util_blas.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

// The sizes of one product, validated.
struct MatMulDims {
  int64_t m = 0;
  int64_t n = 0;
  int64_t k = 0;
};

absl::Status CheckShapes(const Tensor& a, const Tensor& b, bool transpose_a,
                         bool transpose_b, MatMulDims* dims) {
  if (a.shape().rank() != 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "In[0] is not a matrix. Instead it has shape ", a.shape().ToString()));
  }
  if (b.shape().rank() != 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "In[1] is not a matrix. Instead it has shape ", b.shape().ToString()));
  }
  const int64_t a_k = a.shape().dim(transpose_a ? 0 : 1);
  const int64_t b_k = b.shape().dim(transpose_b ? 1 : 0);
  if (a_k != b_k) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Matrix size-incompatible: In[0]: ", a.shape().ToString(), ", In[1]: ",
        b.shape().ToString(), " (transpose_a=", transpose_a ? "true" : "false",
        ", transpose_b=", transpose_b ? "true" : "false", ": inner dimensions ",
        a_k, " vs. ", b_k, ")"));
  }
  dims->m = a.shape().dim(transpose_a ? 1 : 0);
  dims->k = a_k;
  dims->n = b.shape().dim(transpose_b ? 0 : 1);
  return absl::OkStatus();
}

// Integer products: wrap-around arithmetic in an unsigned type at least as
// wide as int, so no promotion to signed int can overflow.
template <typename T>
void IntegerMatMul(OpKernelContext* ctx, const T* a, const T* b, T* c,
                   const MatMulDims& d, bool transpose_a, bool transpose_b) {
  using Acc = std::conditional_t<sizeof(T) <= 4, uint32_t, uint64_t>;
  const int64_t m = d.m;
  const int64_t n = d.n;
  const int64_t k = d.k;
  auto a_at = [&](int64_t i, int64_t kk) {
    return static_cast<Acc>(transpose_a ? a[kk * m + i] : a[i * k + kk]);
  };
  ParallelForShards(ctx, m, 2 * n * k + 1, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      T* c_row = c + i * n;
      if (transpose_b) {
        // B is [n, k]: each output is a dot product of contiguous rows.
        for (int64_t j = 0; j < n; ++j) {
          const T* b_row = b + j * k;
          Acc sum = 0;
          for (int64_t kk = 0; kk < k; ++kk) {
            sum += a_at(i, kk) * static_cast<Acc>(b_row[kk]);
          }
          c_row[j] = static_cast<T>(sum);
        }
      } else {
        std::fill(c_row, c_row + n, T(0));
        for (int64_t kk = 0; kk < k; ++kk) {
          const Acc aik = a_at(i, kk);
          const T* b_row = b + kk * n;
          for (int64_t j = 0; j < n; ++j) {
            c_row[j] = static_cast<T>(static_cast<Acc>(c_row[j]) +
                                      aik * static_cast<Acc>(b_row[j]));
          }
        }
      }
    }
  });
}

// n elements of a 2-byte float type to float, and back (round to nearest
// even), sharded over the pool.
template <typename T>
void Widen(OpKernelContext* ctx, const T* in, float* out, int64_t n) {
  const auto* src = reinterpret_cast<const EigenElement<T>*>(in);
  ParallelForShards(ctx, n, 2, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) out[i] = static_cast<float>(src[i]);
  });
}
template <typename T>
void Narrow(OpKernelContext* ctx, const float* in, T* out, int64_t n) {
  auto* dst = reinterpret_cast<EigenElement<T>*>(out);
  ParallelForShards(ctx, n, 4, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      dst[i] = static_cast<EigenElement<T>>(in[i]);
    }
  });
}

template <typename T>
class MatMulOp : public OpKernel {
 public:
  explicit MatMulOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("transpose_a", &transpose_a_));
    ctx->SetStatus(ctx->GetAttr("transpose_b", &transpose_b_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    MatMulDims d;
    OP_REQUIRES_OK(ctx, CheckShapes(a, b, transpose_a_, transpose_b_, &d));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({d.m, d.n}), &out));
    if (out->NumElements() == 0) return;
    if constexpr (std::is_integral_v<T>) {
      IntegerMatMul<T>(ctx, a.data<T>(), b.data<T>(), out->data<T>(), d,
                       transpose_a_, transpose_b_);
    } else if constexpr (std::is_same_v<T, float16> ||
                         std::is_same_v<T, bfloat16>) {
      Tensor fa, fb, fc;
      OP_REQUIRES_OK(ctx, ctx->allocate_temp(DT_FLOAT, a.shape(), &fa));
      OP_REQUIRES_OK(ctx, ctx->allocate_temp(DT_FLOAT, b.shape(), &fb));
      OP_REQUIRES_OK(ctx, ctx->allocate_temp(DT_FLOAT, out->shape(), &fc));
      Widen(ctx, a.data<T>(), fa.data<float>(), a.NumElements());
      Widen(ctx, b.data<T>(), fb.data<float>(), b.NumElements());
      OP_REQUIRES_OK(ctx,
                     Product<float>(ctx, fa.data<float>(), fb.data<float>(),
                                    fc.data<float>(), d));
      Narrow(ctx, fc.data<float>(), out->data<T>(), out->NumElements());
    } else {
      OP_REQUIRES_OK(
          ctx, Product<T>(ctx, a.data<T>(), b.data<T>(), out->data<T>(), d));
    }
  }

 private:
  template <typename U>
  absl::Status Product(OpKernelContext* ctx, const U* a, const U* b, U* c,
                       const MatMulDims& d) const {
    // Stored row widths: a is [m, k] or [k, m], b is [k, n] or [n, k].
    const int64_t lda = transpose_a_ ? d.m : d.k;
    const int64_t ldb = transpose_b_ ? d.k : d.n;
    return Gemm<U>(ctx->thread_pool(), transpose_a_, transpose_b_, d.m, d.n,
                   d.k, a, lda, b, ldb, U(0), c, d.n);
  }

  bool transpose_a_ = false;
  bool transpose_b_ = false;
};

#define DFLOW_REGISTER_MATMUL(T)                                            \
  DFLOW_REGISTER_KERNEL(                                                    \
      KernelDefBuilder("MatMul").Device(kDeviceCpu).TypeConstraint<T>("T"), \
      MatMulOp<T>)

DFLOW_REGISTER_MATMUL(float);
DFLOW_REGISTER_MATMUL(double);
DFLOW_REGISTER_MATMUL(float16);
DFLOW_REGISTER_MATMUL(bfloat16);
DFLOW_REGISTER_MATMUL(complex64);
DFLOW_REGISTER_MATMUL(complex128);
DFLOW_REGISTER_MATMUL(int8_t);
DFLOW_REGISTER_MATMUL(int16_t);
DFLOW_REGISTER_MATMUL(int32_t);
DFLOW_REGISTER_MATMUL(int64_t);
DFLOW_REGISTER_MATMUL(uint8_t);
DFLOW_REGISTER_MATMUL(uint16_t);
DFLOW_REGISTER_MATMUL(uint32_t);
DFLOW_REGISTER_MATMUL(uint64_t);

#undef DFLOW_REGISTER_MATMUL

}  // namespace
}  // namespace dflow
