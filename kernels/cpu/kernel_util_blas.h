// Matrix products for CPU kernels (MatMul, and convolutions lowered to
// GEMM): a BLAS run single-threaded, with the product split into blocks of
// rows or columns of C that dflow's own thread pool computes. Float
// products run on oneDNN or OpenBLAS by shape and host, always as panels of
// kGemmRowPanel rows, whole panels per thread, so that a row's bits do not
// depend on the batch it is in nor on the thread count
// (kernel_util_gemm_library.h); double and complex ones on OpenBLAS.
//
// Why not let the BLAS thread itself: dflow runs one pool sized to the
// cores for inter-op and intra-op work (runtime/thread_pool.h). OpenBLAS's
// pthread build keeps a second pool of the same size; a MatMul running on
// one dflow worker while another kernel runs on the other would then put
// 2 + 1 busy threads on 2 cores, and OpenBLAS's threads spin while they
// wait. So BLAS is set to one thread (once, process-wide) and the blocks
// of one product go through ThreadPool::ParallelFor, which lets the caller
// do every block itself when the other workers are busy. Numbers measured
// on the 2-core development machine are in kernels/cpu/matmul.cc.
#ifndef DFLOW_KERNELS_CPU_KERNEL_UTIL_BLAS_H_
#define DFLOW_KERNELS_CPU_KERNEL_UTIL_BLAS_H_

#include <cstdint>

#include "absl/status/status.h"
#include "graph/types.h"
#include "runtime/thread_pool.h"

namespace dflow {

// The largest dimension or leading dimension BLAS can index (its `int`).
inline constexpr int64_t kMaxBlasDim = 0x7fffffff;

// Sets OpenBLAS to one thread, once per process; Gemm calls it (and sets
// oneDNN to one thread per calling thread). Code that calls BLAS directly
// from dflow's pool should call it too.
void UseSingleThreadedBlas();

// C = op(A) * op(B) + beta * C in row-major storage, where op(A) is [m, k]
// and op(B) is [k, n]: A is stored [m, k] (or [k, m] when transpose_a) with
// rows lda elements apart, B is stored [k, n] (or [n, k] when transpose_b)
// with rows ldb apart, C is [m, n] with rows ldc apart. With beta == 0 C is
// only written (NaNs in it do not propagate). Any of m, n, k may be 0.
// T is float, double, complex64 or complex128. `pool` may be null (one
// thread). Fails, without touching C, when a dimension or leading dimension
// exceeds kMaxBlasDim or a leading dimension is smaller than its row.
template <typename T>
absl::Status Gemm(ThreadPool* pool, bool transpose_a, bool transpose_b,
                  int64_t m, int64_t n, int64_t k, const T* a, int64_t lda,
                  const T* b, int64_t ldb, T beta, T* c, int64_t ldc);

// C = alpha * op(A) * op(B) + beta * C, otherwise as Gemm (which is
// ScaledGemm with alpha 1). Fused updates use it: W -= lr * X^T G is
// alpha = -lr, beta = 1 on W itself.
template <typename T>
absl::Status ScaledGemm(ThreadPool* pool, bool transpose_a, bool transpose_b,
                        int64_t m, int64_t n, int64_t k, T alpha, const T* a,
                        int64_t lda, const T* b, int64_t ldb, T beta, T* c,
                        int64_t ldc);

// How Gemm splits a double or complex product of this size over
// `num_threads` threads (float products split by whole row panels):
// `blocks` pieces (1: one BLAS call on the caller) along the rows of C
// (split_rows) or its columns. Exposed for tests and benchmarks.
struct GemmSplit {
  int blocks = 1;
  bool split_rows = true;
};
GemmSplit ChooseGemmSplit(int num_threads, int64_t m, int64_t n, int64_t k);

}  // namespace dflow

#endif  // DFLOW_KERNELS_CPU_KERNEL_UTIL_BLAS_H_
