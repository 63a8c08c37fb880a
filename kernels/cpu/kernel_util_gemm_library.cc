#include "kernels/cpu/kernel_util_gemm_library.h"

#include <cblas.h>
#include <omp.h>
#include <oneapi/dnnl/dnnl.h>

#include <algorithm>
#include <cstdint>
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

// Products up to this many multiply-adds, or this many output columns, or
// products with B transposed and fewer columns than the second constant,
// are where OpenBLAS beat oneDNN (numbers in the header).
constexpr int64_t kSmallMacs = int64_t{64} * 64 * 64;
constexpr int64_t kNarrowColumns = 16;
constexpr int64_t kNarrowTransposedBColumns = 128;

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

GemmLibrary ChooseFloatGemmLibrary(int64_t n, int64_t k, bool transpose_b) {
  switch (ForcedLibrary()) {
    case Forced::kOpenBlas:
      return GemmLibrary::kOpenBlas;
    case Forced::kOneDnn:
      return GemmLibrary::kOneDnn;
    case Forced::kNone:
      break;
  }
  // Each call is one kGemmRowPanel-row panel, so that is the product size
  // the measurements in the header apply to.
  const bool small_or_narrow = n <= kNarrowColumns ||
                               kGemmRowPanel * n * k <= kSmallMacs ||
                               (transpose_b && n < kNarrowTransposedBColumns);
  return small_or_narrow && OpenBlasHasWideKernels() &&
                 RowResultsIgnorePosition(GemmLibrary::kOpenBlas)
             ? GemmLibrary::kOpenBlas
             : GemmLibrary::kOneDnn;
}

namespace {

// One kGemmRowPanel-row product whose rows of op(A) are all equal: false
// when some row's result differs from the first row's in any bit.
bool SameRowEverywhere(GemmLibrary library, bool ta, bool tb, int n, int k) {
  constexpr int m = kGemmRowPanel;
  std::vector<float> row(k), a(static_cast<size_t>(m) * k);
  std::vector<float> b(static_cast<size_t>(k) * n),
      c(static_cast<size_t>(m) * n);
  uint32_t x = 12345;
  auto next = [&x] {
    x = x * 1664525u + 1013904223u;
    return static_cast<float>(x >> 8) / 8388608.0f - 1.0f;
  };
  for (float& v : row) v = next();
  for (float& v : b) v = next();
  for (int i = 0; i < m; ++i) {
    for (int l = 0; l < k; ++l) a[ta ? l * m + i : i * k + l] = row[l];
  }
  SingleThreadedSgemm(library, ta, tb, m, n, k, 1.0f, a.data(), ta ? m : k,
                      b.data(), tb ? k : n, 0.0f, c.data(), n);
  for (int i = 1; i < m; ++i) {
    if (std::memcmp(c.data(), c.data() + static_cast<size_t>(i) * n,
                    sizeof(float) * n) != 0) {
      return false;
    }
  }
  return true;
}

bool ProbeRowPositions(GemmLibrary library) {
  // Shapes that reach the full-width micro-kernels of both libraries (OpenBLAS
  // Haswell's 12-row tiles showed at 32x32) and a wide one, every
  // transposition.
  struct Shape {
    int n, k;
  };
  for (const Shape& s : {Shape{32, 32}, Shape{40, 24}, Shape{400, 20}}) {
    for (int t = 0; t < 4; ++t) {
      if (!SameRowEverywhere(library, t & 1, t & 2, s.n, s.k)) return false;
    }
  }
  return true;
}

}  // namespace

bool RowResultsIgnorePosition(GemmLibrary library) {
  static const bool openblas = ProbeRowPositions(GemmLibrary::kOpenBlas);
  static const bool onednn = ProbeRowPositions(GemmLibrary::kOneDnn);
  return library == GemmLibrary::kOpenBlas ? openblas : onednn;
}

namespace {

// The vector width every Eigen expression of the kernels was compiled for
// (kernels/cpu/BUILD): fixed at build time, unlike the GEMM's.
const char* ElementwiseIsa() {
#if defined(__AVX512F__)
  return "x86-64-v4 (AVX-512)";
#elif defined(__AVX2__) && defined(__FMA__)
  return "x86-64-v3 (AVX2, FMA)";
#elif defined(__x86_64__)
  return "x86-64 (SSE2)";
#else
  return "this CPU's baseline";
#endif
}

std::string DescribeGemmLibrariesOnly() {
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
  if (!RowResultsIgnorePosition(GemmLibrary::kOpenBlas)) {
    return absl::StrCat("float GEMM: ", onednn, "; ", openblas,
                        " is not used: its rows depend on their position in "
                        "the product");
  }
  return absl::StrCat("float GEMM: ", onednn,
                      "; products <= 64^3, <= ", kNarrowColumns,
                      " columns, or A*B^T with < ", kNarrowTransposedBColumns,
                      " columns: ", openblas);
}

}  // namespace

std::string DescribeGemmLibraries() {
  return absl::StrCat(DescribeGemmLibrariesOnly(),
                      "; element-wise kernels: ", ElementwiseIsa());
}

void SingleThreadedSgemm(GemmLibrary library, bool transpose_a,
                         bool transpose_b, int m, int n, int k, float alpha,
                         const float* a, int lda, const float* b, int ldb,
                         float beta, float* c, int ldc) {
  if (library == GemmLibrary::kOneDnn) {
    UseOneOpenMpThreadOnThisThread();
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
