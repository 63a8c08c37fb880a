// Which library computes a float matrix product on this host: oneDNN or
// OpenBLAS.
//
// Why two: OpenBLAS picks its kernels by CPU *model*. On a CPU it does not
// know (Debian's 0.3.21 on Intel model 207, Sapphire Rapids) it falls back
// to its generic "Prescott" SSE kernel, 4-6x slower, and says nothing.
// oneDNN (what TensorFlow uses) picks its JIT kernels by CPU *features*
// (AVX2, AVX-512, AMX), so it is fast on any x86-64 host. But OpenBLAS,
// when it does know the CPU, is faster on small and narrow products.
// Measured on AMD EPYC Zen 4 (AVX-512), one thread, GFLOP/s, OpenBLAS
// Cooperlake kernel / oneDNN 2.6.3 avx512_core_bf16:
//   100x500x784 (seed MLP layer 1)   98 / 108    1024^3          95 / 106
//   128x384x2304 (CIFAR fc 384)      88 / 115    64x4096x1600    77 /  88
//   100x10x500 (seed MLP logits)     70 /  48    500x10x100 (T)  86 /  50
//   100x16x500                      113 /  83    100x32x500      93 / 115
//   32x32x32                        104 /  76    8x8x8           17 /   3
// With OPENBLAS_CORETYPE=Prescott (what the unknown Intel CPU got) OpenBLAS
// ran the same products at 20-39 GFLOP/s and oneDNN (ONEDNN_MAX_CPU_ISA=
// AVX2) at 62-110. Hence the rule: oneDNN, except products of at most 64^3
// multiply-adds or at most 16 output columns, which go to OpenBLAS only
// when OpenBLAS runs a kernel written for this CPU's vector width.
// Double and complex products always use OpenBLAS (oneDNN has no such GEMM).
//
// DFLOW_GEMM=openblas or DFLOW_GEMM=onednn forces one library for every
// float product (for measurements). The choice depends only on the shape
// and the host, so a given product gives the same bits on every run.
#ifndef DFLOW_KERNELS_CPU_KERNEL_UTIL_GEMM_LIBRARY_H_
#define DFLOW_KERNELS_CPU_KERNEL_UTIL_GEMM_LIBRARY_H_

#include <cstdint>
#include <string>

namespace dflow {

enum class GemmLibrary { kOpenBlas, kOneDnn };

// The library for a float product op(A)[m, k] * op(B)[k, n] (see above).
GemmLibrary ChooseFloatGemmLibrary(int64_t m, int64_t n, int64_t k);

// One line for logs naming each library, its version and the kernel it
// runs on this host, e.g. "float GEMM: oneDNN 2.6.3 (JIT avx512_core_bf16);
// products <= 64^3 or <= 16 columns: OpenBLAS 0.3.21 (Cooperlake)".
std::string DescribeGemmLibraries();

// oneDNN's CPU runtime here is OpenMP: a call uses as many threads as
// omp_get_max_threads() says for the calling thread. dflow splits work over
// its own pool (kernel_util_blas.h), so every thread that calls oneDNN
// (GEMM, convolutions) first asks for one; the setting is per thread.
void UseOneOpenMpThreadOnThisThread();

// C = alpha * op(A) * op(B) + beta * C, row-major, on the calling thread
// only, by `library`. Sizes must already be checked (kernel_util_blas.cc).
void SingleThreadedSgemm(GemmLibrary library, bool transpose_a,
                         bool transpose_b, int m, int n, int k, float alpha,
                         const float* a, int lda, const float* b, int ldb,
                         float beta, float* c, int ldc);

}  // namespace dflow

#endif  // DFLOW_KERNELS_CPU_KERNEL_UTIL_GEMM_LIBRARY_H_
