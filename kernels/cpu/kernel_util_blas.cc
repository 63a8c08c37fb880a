#include "kernels/cpu/kernel_util_blas.h"

#include <cblas.h>

#include <algorithm>
#include <complex>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <type_traits>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/strings/str_cat.h"
#include "kernels/cpu/kernel_util_gemm_library.h"
#include "kernels/cpu/kernel_util_gemm_packed.h"

namespace dflow {

namespace {

// Below this many multiply-adds a product runs as one BLAS call: the
// thread hand-off and repacking the shared operand cost more than a second
// core saves (the seed MLP's 100x500x10 layer, 0.5M, ran at 42 GFLOP/s as
// one call and 23 split in two).
constexpr int64_t kMinParallelMacs = int64_t{1} << 20;
// oneDNN packs op(B) once per product from this many elements (k * n) on:
// 1024^3 went from 53 to 102 GFLOP/s on AVX2 (ONEDNN_MAX_CPU_ISA=AVX2, one
// thread; AVX-512 90-100 -> 99-103), while products with op(B) of 0.4-0.9M
// elements (the seed MLP's, CIFAR-10's fully connected layers) measured
// 5-45% slower packed.
constexpr int64_t kMinPackedElements = int64_t{1} << 20;
// Each block keeps at least this many rows (columns) of C, so BLAS still
// runs its full-width micro-kernels.
constexpr int64_t kMinBlockRows = 32;
constexpr int64_t kMinBlockCols = 64;
// Block boundaries fall on multiples of these (OpenBLAS's register tiles).
constexpr int64_t kRowAlign = 8;
constexpr int64_t kColAlign = 16;

// One single-threaded OpenBLAS call; sizes were checked by Gemm. Row-major
// throughout. (Float products go through RowPanelSgemm instead.)
void Call(bool ta, bool tb, int m, int n, int k, double alpha, const double* a,
          int lda, const double* b, int ldb, double beta, double* c, int ldc) {
  cblas_dgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans,
              tb ? CblasTrans : CblasNoTrans, m, n, k, alpha, a, lda, b, ldb,
              beta, c, ldc);
}
template <typename R>
void CallComplex(bool ta, bool tb, int m, int n, int k, std::complex<R> alpha,
                 const std::complex<R>* a, int lda, const std::complex<R>* b,
                 int ldb, std::complex<R> beta, std::complex<R>* c, int ldc) {
  // OpenBLAS's complex entry points take the scalars and arrays as void*.
  if constexpr (sizeof(R) == sizeof(float)) {
    cblas_cgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans,
                tb ? CblasTrans : CblasNoTrans, m, n, k, &alpha, a, lda, b, ldb,
                &beta, c, ldc);
  } else {
    cblas_zgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans,
                tb ? CblasTrans : CblasNoTrans, m, n, k, &alpha, a, lda, b, ldb,
                &beta, c, ldc);
  }
}
void Call(bool ta, bool tb, int m, int n, int k, complex64 alpha,
          const complex64* a, int lda, const complex64* b, int ldb,
          complex64 beta, complex64* c, int ldc) {
  CallComplex(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
void Call(bool ta, bool tb, int m, int n, int k, complex128 alpha,
          const complex128* a, int lda, const complex128* b, int ldb,
          complex128 beta, complex128* c, int ldc) {
  CallComplex(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

// Start of block i of `blocks` over [0, size), on multiples of `align`.
int64_t BlockStart(int64_t i, int64_t blocks, int64_t size, int64_t align) {
  if (i >= blocks) return size;
  const int64_t raw = size * i / blocks;
  return std::min(size, (raw + align / 2) / align * align);
}

// Computes a whole kGemmRowPanel-row panel, alpha * op(A panel) * op(B)
// with beta 0, from the panel's first row of op(A) and its leading
// dimension, into C with leading dimension ldc.
using PanelProduct =
    absl::FunctionRef<void(const float* a_panel, int lda, float* c, int ldc)>;

// One kGemmRowPanel-row panel of a float product: rows r0..r0+rows-1 of C
// (n columns). A short last panel is computed as a full one on a
// zero-padded copy, so every call has the same shape
// (kernel_util_gemm_library.h says why). The library always computes
// alpha * op(A) * op(B) alone (beta 0): oneDNN's one-column product with
// beta != 0 gave rows 8-9 of a panel other bits than rows 0-1; beta * C is
// added here, the same way for every row.
void SgemmPanel(PanelProduct product, bool ta, int64_t r0, int rows, int n,
                int k, const float* a, int lda, float beta, float* c,
                int ldc) {
  constexpr int p = kGemmRowPanel;
  // Rows r0.. of op(A): rows of A, or columns when A is transposed.
  const float* a_panel = ta ? a + r0 : a + r0 * lda;
  float* c_panel = c + r0 * ldc;
  if (rows == p && beta == 0.0f) {
    product(a_panel, lda, c_panel, ldc);
    return;
  }
  // Reused across calls on this thread: a product's last panel is common.
  thread_local std::vector<float> padded_a, panel_c;
  panel_c.resize(static_cast<size_t>(p) * n);
  if (rows == p) {
    product(a_panel, lda, panel_c.data(), n);
  } else {
    padded_a.assign(static_cast<size_t>(p) * k, 0.0f);
    for (int i = 0; i < rows; ++i) {
      if (ta) {  // op(A)'s row i is column i of A: stored [k, p] in the copy
        for (int l = 0; l < k; ++l) {
          padded_a[static_cast<size_t>(l) * p + i] =
              a_panel[static_cast<int64_t>(l) * lda + i];
        }
      } else {
        std::memcpy(padded_a.data() + static_cast<size_t>(i) * k,
                    a_panel + static_cast<int64_t>(i) * lda, sizeof(float) * k);
      }
    }
    product(padded_a.data(), ta ? p : k, panel_c.data(), n);
  }
  for (int i = 0; i < rows; ++i) {
    float* out = c_panel + static_cast<int64_t>(i) * ldc;
    const float* in = panel_c.data() + static_cast<size_t>(i) * n;
    if (beta == 0.0f) {  // C is only written: NaNs in it do not propagate
      std::memcpy(out, in, sizeof(float) * n);
    } else {
      for (int j = 0; j < n; ++j) out[j] = in[j] + beta * out[j];
    }
  }
}

// Column chunks of a float product with n columns, about 256 columns each,
// boundaries on multiples of 16: a function of n alone, so a column is
// computed by the same call shape whatever m, the thread count or the rows
// around it (the bits stay independent of the batch). Why: oneDNN's
// A * B^T ran far faster on 256-column chunks of B (CIFAR-10's local3
// input gradient, 32x384 * (2304x384)^T: 37 -> 55 GFLOP/s at one thread;
// its step 138 -> 134 ms); other shapes in bench/matmul_bench within noise.
int64_t GemmColumnChunks(int64_t n) {
  constexpr int64_t kChunkColumns = 256;
  return std::max<int64_t>(1, n / kChunkColumns);
}

// A chunk of op(B)'s columns packed by oneDNN once, by the first panel
// that needs it (kernel_util_gemm_packed.h).
struct PackedChunk {
  std::once_flag once;
  OneDnnPackedB b;
  bool ok = false;
};

// A float product as kGemmRowPanel-row panels times GemmColumnChunks column
// chunks, each claimed on its own by a thread of the pool: a row's bits
// depend on neither m nor the number of threads.
void RowPanelSgemm(ThreadPool* pool, bool ta, bool tb, int64_t m, int n, int k,
                   float alpha, const float* a, int lda, const float* b,
                   int ldb, float beta, float* c, int ldc) {
  const GemmLibrary library = ChooseFloatGemmLibrary(n, k, tb);
  const int64_t panels = (m + kGemmRowPanel - 1) / kGemmRowPanel;
  const int64_t chunks = GemmColumnChunks(n);
  // oneDNN packs a large op(B) once for all panels (kernel_util_gemm_packed.h;
  // packing takes no alpha, so only products without one). Smaller ones
  // measured as fast or faster without: packing is one thread's work that
  // the panels wait for (seed MLP layer 1, 100x784x500 on 2 threads: 145
  // -> 80 GFLOP/s packed).
  const bool pack = library == GemmLibrary::kOneDnn && alpha == 1.0f &&
                    panels > 1 && int64_t{n} * k >= kMinPackedElements;
  std::unique_ptr<PackedChunk[]> packs(pack ? new PackedChunk[chunks] : nullptr);
  auto run = [&](int64_t unit) {
    const int64_t panel = unit / chunks, chunk = unit % chunks;
    const int64_t r0 = panel * kGemmRowPanel;
    const int rows = static_cast<int>(std::min<int64_t>(kGemmRowPanel, m - r0));
    const int64_t j0 = BlockStart(chunk, chunks, n, kColAlign);
    const int nc = static_cast<int>(BlockStart(chunk + 1, chunks, n, kColAlign) - j0);
    // Columns j0.. of op(B): columns of B, or rows when B is transposed.
    const float* b_chunk = tb ? b + j0 * ldb : b + j0;
    auto by_library = [&](const float* a_panel, int panel_lda, float* out,
                          int out_ld) {
      SingleThreadedSgemm(library, ta, tb, kGemmRowPanel, nc, k, alpha,
                          a_panel, panel_lda, b_chunk, ldb, 0.0f, out, out_ld);
    };
    if (pack) {
      PackedChunk& packed = packs[chunk];
      std::call_once(packed.once, [&] {
        packed.ok = packed.b.Pack(ta, tb, nc, k, b_chunk, ldb, lda);
      });
      if (packed.ok) {
        SgemmPanel(
            [&](const float* a_panel, int panel_lda, float* out, int out_ld) {
              if (!packed.b.Compute(a_panel, panel_lda, out, out_ld)) {
                by_library(a_panel, panel_lda, out, out_ld);
              }
            },
            ta, r0, rows, nc, k, a, lda, beta, c + j0, ldc);
        return;
      }
    }
    SgemmPanel(by_library, ta, r0, rows, nc, k, a, lda, beta, c + j0, ldc);
  };
  const int64_t units = panels * chunks;
  // m * n * k < kMinParallelMacs, without overflow.
  const bool small = m * n < (kMinParallelMacs + k - 1) / k;
  if (small || pool == nullptr || pool->num_threads() <= 1 || units <= 1) {
    for (int64_t u = 0; u < units; ++u) run(u);
    return;
  }
  // Units are claimed one by one: with fixed shares, a share whose thread
  // was still busy with another kernel (seed 001's moving averages beside
  // its first MatMul) finished a whole share late while the caller waited.
  pool->ParallelForEach(units, run);
}

}  // namespace

void UseSingleThreadedBlas() {
  static std::once_flag once;
  std::call_once(once, [] { openblas_set_num_threads(1); });
}

GemmSplit ChooseGemmSplit(int num_threads, int64_t m, int64_t n, int64_t k) {
  GemmSplit split;
  if (num_threads <= 1 || m <= 0 || n <= 0 || k <= 0) return split;
  // m * n * k < kMinParallelMacs, without overflow.
  if (m * n < (kMinParallelMacs + k - 1) / k) return split;
  // Split the longer side of C, so each block repacks the smaller share of
  // the other operand. Measured (GFLOP/s, 1 thread -> rows / columns split
  // in 2): 784x100x500 80 -> 113 / 87; 100x500x784 85 -> 116 / 127;
  // 1024^3 89 -> 161 / 150.
  const int64_t by_rows = std::min<int64_t>(num_threads, m / kMinBlockRows);
  const int64_t by_cols = std::min<int64_t>(num_threads, n / kMinBlockCols);
  if (by_rows <= 1 && by_cols <= 1) return split;
  split.split_rows = by_rows > 1 && (m >= n || by_cols <= 1);
  split.blocks = static_cast<int>(split.split_rows ? by_rows : by_cols);
  return split;
}

template <typename T>
absl::Status Gemm(ThreadPool* pool, bool transpose_a, bool transpose_b,
                  int64_t m, int64_t n, int64_t k, const T* a, int64_t lda,
                  const T* b, int64_t ldb, T beta, T* c, int64_t ldc) {
  return ScaledGemm<T>(pool, transpose_a, transpose_b, m, n, k, T(1), a, lda, b,
                       ldb, beta, c, ldc);
}

template <typename T>
absl::Status ScaledGemm(ThreadPool* pool, bool transpose_a, bool transpose_b,
                        int64_t m, int64_t n, int64_t k, T alpha, const T* a,
                        int64_t lda, const T* b, int64_t ldb, T beta, T* c,
                        int64_t ldc) {
  // Stored widths of A's and B's rows.
  const int64_t a_cols = transpose_a ? m : k;
  const int64_t b_cols = transpose_b ? k : n;
  if (m < 0 || n < 0 || k < 0 || std::max({m, n, k}) > kMaxBlasDim ||
      std::max({lda, ldb, ldc}) > kMaxBlasDim || lda < a_cols || ldb < b_cols ||
      ldc < n) {
    return absl::InvalidArgumentError(
        absl::StrCat("matrix product of [", m, ",", k, "] and [", k, ",", n,
                     "] (leading dimensions ", lda, ", ", ldb, ", ", ldc,
                     ") is outside what BLAS can index (dimensions up to ",
                     kMaxBlasDim, ")"));
  }
  if (m == 0 || n == 0) return absl::OkStatus();
  if (k == 0) {
    // BLAS rejects lda == 0; the product of empty sums is 0.
    for (int64_t i = 0; i < m; ++i) {
      T* row = c + i * ldc;
      for (int64_t j = 0; j < n; ++j)
        row[j] = beta == T(0) ? T(0) : beta * row[j];
    }
    return absl::OkStatus();
  }
  UseSingleThreadedBlas();
  // BLAS wants leading dimensions >= 1 even for a single row.
  const int ilda = static_cast<int>(std::max<int64_t>(lda, 1));
  const int ildb = static_cast<int>(std::max<int64_t>(ldb, 1));
  const int ildc = static_cast<int>(std::max<int64_t>(ldc, 1));
  if constexpr (std::is_same_v<T, float>) {
    RowPanelSgemm(pool, transpose_a, transpose_b, m, static_cast<int>(n),
                  static_cast<int>(k), alpha, a, ilda, b, ildb, beta, c, ildc);
    return absl::OkStatus();
  } else {
    // Double and complex products: OpenBLAS, split by ChooseGemmSplit (their
    // rows may depend on m; only float products are promised otherwise).
    const GemmSplit split =
        ChooseGemmSplit(pool == nullptr ? 1 : pool->num_threads(), m, n, k);
    if (split.blocks <= 1) {
      Call(transpose_a, transpose_b, static_cast<int>(m), static_cast<int>(n),
           static_cast<int>(k), alpha, a, ilda, b, ildb, beta, c, ildc);
      return absl::OkStatus();
    }
    const int64_t blocks = split.blocks;
    auto block = [&](int64_t first, int64_t last) {
      for (int64_t i = first; i < last; ++i) {
        if (split.split_rows) {
          const int64_t r0 = BlockStart(i, blocks, m, kRowAlign);
          const int64_t r1 = BlockStart(i + 1, blocks, m, kRowAlign);
          if (r0 >= r1) continue;
          // Rows r0.. of op(A): rows of A, or columns when A is transposed.
          const T* a_block = transpose_a ? a + r0 : a + r0 * lda;
          Call(transpose_a, transpose_b, static_cast<int>(r1 - r0),
               static_cast<int>(n), static_cast<int>(k), alpha, a_block, ilda,
               b, ildb, beta, c + r0 * ldc, ildc);
        } else {
          const int64_t c0 = BlockStart(i, blocks, n, kColAlign);
          const int64_t c1 = BlockStart(i + 1, blocks, n, kColAlign);
          if (c0 >= c1) continue;
          // Columns c0.. of op(B): columns of B, or rows when B is transposed.
          const T* b_block = transpose_b ? b + c0 * ldb : b + c0;
          Call(transpose_a, transpose_b, static_cast<int>(m),
               static_cast<int>(c1 - c0), static_cast<int>(k), alpha, a, ilda,
               b_block, ildb, beta, c + c0, ildc);
        }
      }
    };
    // One unit per block, each priced far above ParallelFor's threshold so
    // every block may go to its own thread.
    pool->ParallelFor(blocks, int64_t{1} << 40, block);
    return absl::OkStatus();
  }
}

#define DFLOW_INSTANTIATE_GEMM(T)                                              \
  template absl::Status Gemm<T>(ThreadPool*, bool, bool, int64_t, int64_t,     \
                                int64_t, const T*, int64_t, const T*, int64_t, \
                                T, T*, int64_t);                               \
  template absl::Status ScaledGemm<T>(ThreadPool*, bool, bool, int64_t,        \
                                      int64_t, int64_t, T, const T*, int64_t,  \
                                      const T*, int64_t, T, T*, int64_t)
DFLOW_INSTANTIATE_GEMM(float);
DFLOW_INSTANTIATE_GEMM(double);
DFLOW_INSTANTIATE_GEMM(complex64);
DFLOW_INSTANTIATE_GEMM(complex128);
#undef DFLOW_INSTANTIATE_GEMM

}  // namespace dflow
