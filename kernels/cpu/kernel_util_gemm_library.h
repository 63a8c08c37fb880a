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
// A * B^T with fewer than 128 columns is the third case: oneDNN 2.6's
// panels of it ran at 15-56 GFLOP/s, OpenBLAS Cooperlake's at 43-103 (24-row
// panels of a 96-row product, one thread; n x k, oneDNN / OpenBLAS):
//   32x64   44 /  72    96x256  43 /  75    96x1024  15 / 46
//   128x64  91 /  72    128x256 84 /  76    128x1024 47 / 44
// (an LSTM's input gradient, dgates[64,256] * W[96,256]^T, took 56 us of
// its backward step instead of 35). A * B and A^T * B with those n and k
// ran at 74-116 on both, so only B^T changes the choice.
// Double and complex products always use OpenBLAS (oneDNN has no such GEMM).
//
// DFLOW_GEMM=openblas or DFLOW_GEMM=onednn forces one library for every
// float product (for measurements). The choice depends only on n, k and the
// host, never on the number of rows m, so a given row gives the same bits
// on every run and in every batch it is part of (see kGemmRowPanel).
//
// Rows that do not depend on the batch. N towers must compute the same
// bits as one device for the rows they share, but both libraries compute a
// row differently depending on the number of rows m: OpenBLAS and oneDNN
// switch kernels for small products and for m == 1 (GEMV), and treat the
// rows left over after their register tiles (4-12 rows) with other code.
// Measured here on 96-row products: most row subsets of 1-100 rows gave
// other bits than the same rows of the whole product, on both libraries and
// every kernel family tried. So Gemm (kernel_util_blas.h) computes every
// float product as calls of exactly kGemmRowPanel rows (the last one
// zero-padded): every call then takes the same path for given n and k.
// That leaves the row's position inside the panel: OpenBLAS's Haswell/Zen
// kernel computes rows 0-5 and 6-11 of each 12-row tile with different
// instruction sequences, giving other bits for the same row. oneDNN's JIT
// kernels (sse41, avx, avx2, avx512_core) and OpenBLAS's Prescott, Sandy
// Bridge, SkylakeX and Cooperlake kernels did not; RowResultsIgnorePosition
// checks a library once per process, and OpenBLAS is used only where it
// passes. 24 is a multiple of every register-tile height seen (6, 8, 12,
// 24), so no panel has a partial tile; 32 failed on oneDNN avx2 (6-row
// tiles); 24 and 48 passed on every variant. An earlier rule computed
// A * B^T with m <= 64 as (B * A^T)^T on oneDNN (faster for few rows); on
// 24-row panels that puts the rows in oneDNN avx2's 16-wide column tiles,
// where they depend on their position (gemm_rows_test_onednn_avx2 failed),
// and without it 24-row panels ran faster overall than 48-row ones with it
// (100x500x784 tb 73 vs 62 GFLOP/s; 32x384x2304 tb 35 vs 58), so it went. The
// cost is the padding (a batch of 100 computes 120 rows) and repacking op(B)
// once per panel (except where oneDNN packs a large op(B) once per product:
// kernel_util_gemm_packed.h). bench/matmul_bench, dflow's MatMul, GFLOP/s 1 thread / 2
// threads, before (one call per product, blocks split by thread) -> 24-row
// panels, on the 2-core Zen 4 while loaded (raised priority):
//   1024^3          102 / 153  ->  98 / 149
//   100x784x500     105 / 122  ->  87 /  92    (seed MLP layer 1)
//   100x500x10       67 /  67  ->  52 /  52    (seed MLP logits)
//   784x100x500 ta  105 / 136  -> 103 / 132
//   100x500x784 tb   99 / 115  ->  73 /  77
//   32x2304x384     110 / 115  ->  70 /  89    (CIFAR-10 local3, a tower)
//   2304x32x384 ta  101 / 113  ->  86 / 112
//   32x384x2304 tb   96 / 114  ->  35 /  45
#ifndef DFLOW_KERNELS_CPU_KERNEL_UTIL_GEMM_LIBRARY_H_
#define DFLOW_KERNELS_CPU_KERNEL_UTIL_GEMM_LIBRARY_H_

#include <cstdint>
#include <string>

namespace dflow {

enum class GemmLibrary { kOpenBlas, kOneDnn };

// Every float product is computed as calls of exactly this many rows.
inline constexpr int kGemmRowPanel = 24;

// The library for the row panels of a float product op(A)[m, k] *
// op(B)[k, n] (see above). Independent of m by design.
GemmLibrary ChooseFloatGemmLibrary(int64_t n, int64_t k, bool transpose_b);

// Whether `library` gives a row of a kGemmRowPanel-row product the same
// bits wherever the row sits in the panel, on this host: a few probe
// products with identical rows, computed once per process and library.
bool RowResultsIgnorePosition(GemmLibrary library);

// One line for logs naming each library, its version and the kernel it
// runs on this host, e.g. "float GEMM: oneDNN 2.6.3 (JIT avx512_core_bf16);
// products <= 64^3, <= 16 columns, or A*B^T with < 128 columns: OpenBLAS
// 0.3.21 (Cooperlake); element-wise kernels: x86-64-v3 (AVX2, FMA)"; it
// says when a library was set aside because its rows depend on their
// position.
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
