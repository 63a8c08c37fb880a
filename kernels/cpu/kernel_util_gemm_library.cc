#include "kernels/cpu/kernel_util_gemm_library.h"

#include <cblas.h>
#include <omp.h>
#include <oneapi/dnnl/dnnl.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "runtime/device.h"

namespace dflow {

namespace {

// Products up to this many multiply-adds, or this many output columns, are
// where OpenBLAS beat oneDNN (numbers in the header).
constexpr int64_t kSmallMacs = int64_t{64} * 64 * 64;
constexpr int64_t kNarrowColumns = 16;

enum class Forced { kNone, kOpenBlas, kOneDnn };

Forced ForcedLibrary() {
  static const Forced forced = [] {
    const char* env = std::getenv("DFLOW_GEMM");
    if (env == nullptr) return Forced::kNone;
    if (absl::EqualsIgnoreCase(env, "openblas")) return Forced::kOpenBlas;
    if (absl::EqualsIgnoreCase(env, "onednn")) return Forced::kOneDnn;
    return Forced::kNone;
  }();
  return forced;
}

// OpenBLAS's kernel family on this host ("Cooperlake", "Haswell",
// "Prescott", ...), from its build configuration string.
std::string OpenBlasCore() { return openblas_get_corename(); }

// OpenBLAS's version ("0.3.21"): the second word of its configuration.
std::string OpenBlasVersion() {
  const std::vector<std::string> words =
      absl::StrSplit(openblas_get_config(), ' ', absl::SkipEmpty());
  return words.size() > 1 ? words[1] : "?";
}

// Whether OpenBLAS runs kernels written for AVX2 or wider on this host, not
// a generic fallback (Prescott, Core2, Nehalem, ... are SSE-only).
bool OpenBlasHasWideKernels() {
  static const bool wide = [] {
    const std::string core = OpenBlasCore();
    for (const char* known :
         {"Haswell", "Zen", "SkylakeX", "Cooperlake", "SapphireRapids"}) {
      if (absl::EqualsIgnoreCase(core, known)) return true;
    }
    return false;
  }();
  return wide;
}

const char* IsaName(dnnl_cpu_isa_t isa) {
  switch (isa) {
    case dnnl_cpu_isa_sse41:
      return "sse41";
    case dnnl_cpu_isa_avx:
      return "avx";
    case dnnl_cpu_isa_avx2:
      return "avx2";
    case dnnl_cpu_isa_avx2_vnni:
      return "avx2_vnni";
    case dnnl_cpu_isa_avx512_mic:
    case dnnl_cpu_isa_avx512_mic_4ops:
      return "avx512_mic";
    case dnnl_cpu_isa_avx512_core:
      return "avx512_core";
    case dnnl_cpu_isa_avx512_core_vnni:
      return "avx512_core_vnni";
    case dnnl_cpu_isa_avx512_core_bf16:
      return "avx512_core_bf16";
    case dnnl_cpu_isa_avx512_core_amx:
      return "avx512_core_amx";
    default:
      return "generic";
  }
}

const bool kRegistered = [] {
  SetCpuMathDescription(&DescribeGemmLibraries);
  return true;
}();

}  // namespace

void UseOneOpenMpThreadOnThisThread() {
  thread_local const bool set = [] {
    omp_set_num_threads(1);
    return true;
  }();
  (void)set;
}

GemmLibrary ChooseFloatGemmLibrary(int64_t m, int64_t n, int64_t k) {
  switch (ForcedLibrary()) {
    case Forced::kOpenBlas:
      return GemmLibrary::kOpenBlas;
    case Forced::kOneDnn:
      return GemmLibrary::kOneDnn;
    case Forced::kNone:
      break;
  }
  const bool small_or_narrow = n <= kNarrowColumns || m * n * k <= kSmallMacs;
  return small_or_narrow && OpenBlasHasWideKernels() ? GemmLibrary::kOpenBlas
                                                     : GemmLibrary::kOneDnn;
}

std::string DescribeGemmLibraries() {
  const dnnl_version_t* v = dnnl_version();
  const std::string onednn =
      absl::StrCat("oneDNN ", v->major, ".", v->minor, ".", v->patch, " (JIT ",
                   IsaName(dnnl_get_effective_cpu_isa()), ")");
  const std::string openblas =
      absl::StrCat("OpenBLAS ", OpenBlasVersion(), " (", OpenBlasCore(), ")");
  switch (ForcedLibrary()) {
    case Forced::kOpenBlas:
      return absl::StrCat("float GEMM: ", openblas, " (DFLOW_GEMM=openblas)");
    case Forced::kOneDnn:
      return absl::StrCat("float GEMM: ", onednn, " (DFLOW_GEMM=onednn)");
    case Forced::kNone:
      break;
  }
  if (!OpenBlasHasWideKernels()) {
    return absl::StrCat("float GEMM: ", onednn, "; ", openblas,
                        " has no kernel for this CPU and is not used for it");
  }
  return absl::StrCat("float GEMM: ", onednn,
                      "; products <= 64^3 or <= ", kNarrowColumns,
                      " columns: ", openblas);
}

namespace {

// oneDNN 2.6's sgemm computes A * B^T with few rows in A at about half its
// speed. The same product transposed, B * A^T, has many rows and runs at
// full speed; transposing it back into C costs little (C is small: few
// rows). One thread of an AMD EPYC Zen 4, us per product [m,k] * [n,k]^T:
//   m x k x n           A * B^T    (B * A^T)^T
//   32 x 384 x 2304       939        535   (CIFAR-10 local3's input gradient)
//   64 x 384 x 2304      1684       1188
//   16 x 1024 x 1024      962        462
//   128 x 1024 x 1024    3057       2632
//   100 x 500 x 784       779        890   (the seed MLP's: kept as it is)
bool TransposeSmallRowsProduct(bool transpose_a, bool transpose_b, int m,
                               int n) {
  return !transpose_a && transpose_b && m <= 64 && n >= 8 * m;
}

// C = alpha * A * B^T + beta * C computed as (alpha * B * A^T)^T on oneDNN.
// False when oneDNN refused (C untouched).
bool OneDnnTransposedProduct(int m, int n, int k, float alpha, const float* a,
                             int lda, const float* b, int ldb, float beta,
                             float* c, int ldc) {
  thread_local std::vector<float> product;
  product.resize(static_cast<size_t>(n) * m);
  if (dnnl_sgemm('N', 'T', n, m, k, alpha, b, ldb, a, lda, 0.0f, product.data(),
                 m) != dnnl_success) {
    return false;
  }
  // In tiles of 16 columns of C: each tile reads 16 whole rows of the
  // product and writes 16 floats to each row of C.
  constexpr int kTile = 16;
  for (int j0 = 0; j0 < n; j0 += kTile) {
    const int j1 = std::min(n, j0 + kTile);
    for (int i = 0; i < m; ++i) {
      float* row = c + static_cast<int64_t>(i) * ldc;
      const float* column = product.data() + i;
      if (beta == 0.0f) {  // C is only written: NaNs in it do not propagate
        for (int j = j0; j < j1; ++j) {
          row[j] = column[static_cast<int64_t>(j) * m];
        }
      } else {
        for (int j = j0; j < j1; ++j) {
          row[j] = column[static_cast<int64_t>(j) * m] + beta * row[j];
        }
      }
    }
  }
  return true;
}

}  // namespace

void SingleThreadedSgemm(GemmLibrary library, bool transpose_a,
                         bool transpose_b, int m, int n, int k, float alpha,
                         const float* a, int lda, const float* b, int ldb,
                         float beta, float* c, int ldc) {
  if (library == GemmLibrary::kOneDnn) {
    UseOneOpenMpThreadOnThisThread();
    if (TransposeSmallRowsProduct(transpose_a, transpose_b, m, n) &&
        OneDnnTransposedProduct(m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)) {
      return;
    }
    // dnnl_sgemm is row-major, like dflow's tensors. Gemm checked the sizes;
    // should oneDNN still refuse (it cannot get scratch memory), OpenBLAS
    // computes the product instead.
    if (dnnl_sgemm(transpose_a ? 'T' : 'N', transpose_b ? 'T' : 'N', m, n, k,
                   alpha, a, lda, b, ldb, beta, c, ldc) == dnnl_success) {
      return;
    }
  }
  cblas_sgemm(CblasRowMajor, transpose_a ? CblasTrans : CblasNoTrans,
              transpose_b ? CblasTrans : CblasNoTrans, m, n, k, alpha, a, lda,
              b, ldb, beta, c, ldc);
}

}  // namespace dflow
