// A row of a float product gets the same bits whatever product it is part
// of: the number of rows, its position, the thread count, alpha/beta and
// leading dimensions do not change it (kernel_util_gemm_library.h says how
// Gemm makes that so). N towers equal one device because of it. The BUILD
// file runs this test once per GEMM kernel variant (gemm_variants.bzl); the
// first test checks that the variant's kernels really are the ones running.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kernels/cpu/kernel_util_blas.h"
#include "kernels/cpu/kernel_util_gemm_library.h"
#include "runtime/thread_pool.h"
#include "tests/kernels/gemm_variant.h"

namespace dflow {
namespace {

using ::testing::HasSubstr;

class GemmRowsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string why = UnsupportedGemmVariant();
    if (!why.empty()) GTEST_SKIP() << why;
  }
};

std::vector<float> Values(int64_t n, uint32_t seed) {
  std::vector<float> v(n);
  uint32_t x = seed * 2654435761u + 1;
  for (float& f : v) {
    x = x * 1664525u + 1013904223u;
    f = static_cast<float>(x >> 8) / 8388608.0f - 1.0f;
  }
  return v;
}

TEST_F(GemmRowsTest, TheVariantsKernelsRun) {
  // A variant whose environment were ignored would test the default path
  // again and pass for nothing.
  const std::string description = DescribeGemmLibraries();
  if (const char* core = std::getenv("OPENBLAS_CORETYPE")) {
    EXPECT_THAT(absl::AsciiStrToLower(description),
                HasSubstr("(" + absl::AsciiStrToLower(core) + ")"));
  }
  if (const char* isa = std::getenv("ONEDNN_MAX_CPU_ISA")) {
    EXPECT_THAT(description,
                HasSubstr("(JIT " + absl::AsciiStrToLower(isa) + ")"));
  }
  if (const char* forced = std::getenv("DFLOW_GEMM")) {
    EXPECT_THAT(description, HasSubstr(std::string("DFLOW_GEMM=") + forced));
  }
}

TEST_F(GemmRowsTest, TheLibrariesInUseIgnoreARowsPosition) {
  // oneDNN's JIT kernels passed on every ISA tried; OpenBLAS is used only
  // where it passes (forced, it is the variant's own claim to check).
  const char* forced = std::getenv("DFLOW_GEMM");
  if (forced == nullptr || absl::EqualsIgnoreCase(forced, "onednn")) {
    EXPECT_TRUE(RowResultsIgnorePosition(GemmLibrary::kOneDnn));
  }
  if (forced != nullptr && absl::EqualsIgnoreCase(forced, "openblas")) {
    EXPECT_TRUE(RowResultsIgnorePosition(GemmLibrary::kOpenBlas));
  }
  // The probe finds the one kernel family measured to differ: OpenBLAS's
  // Haswell kernel (also Zen's) computes rows 0-5 and 6-11 of a 12-row tile
  // differently, and then small products must not go to OpenBLAS.
  const char* core = std::getenv("OPENBLAS_CORETYPE");
  if (core != nullptr && (absl::EqualsIgnoreCase(core, "Haswell") ||
                          absl::EqualsIgnoreCase(core, "Zen"))) {
    EXPECT_FALSE(RowResultsIgnorePosition(GemmLibrary::kOpenBlas));
    if (forced == nullptr) {
      EXPECT_EQ(ChooseFloatGemmLibrary(8, 12, false), GemmLibrary::kOneDnn);
      EXPECT_EQ(ChooseFloatGemmLibrary(10, 500, false), GemmLibrary::kOneDnn);
    }
  }
}

// Rows [off, off + m) of a 150-row product, computed on their own, equal
// the same rows of the whole product, bit for bit, for shapes on both
// sides of every threshold (OpenBLAS/oneDNN, narrow, one column, GEMV-like
// single rows, wide B^T (oneDNN avx2 once gave those position-dependent
// rows), B^T with fewer than 128 columns (OpenBLAS), op(B) large enough for
// oneDNN to pack it once (1040x1024: parts of one panel are not packed, so
// packed and unpacked panels must agree), every transposition, 1-3 threads,
// and alpha/beta with padded leading dimensions.
TEST_F(GemmRowsTest, RowsDoNotDependOnTheProductTheyArePartOf) {
  constexpr int64_t kRows = 150;
  struct Shape {
    int64_t n, k;
  };
  struct Part {
    int64_t m, off;
  };
  const Part parts[] = {{1, 0},   {1, 37}, {2, 8},   {3, 5},
                        {4, 4},   {5, 50}, {7, 50},  {8, 16},
                        {16, 16}, {17, 8}, {32, 1},  {48, 48},
                        {49, 33}, {64, 3}, {75, 75}, {100, 50}};
  ThreadPool pool2(2), pool3(3);
  ThreadPool* pools[] = {nullptr, &pool2, &pool3};
  for (const Shape& s : {Shape{8, 12}, Shape{5, 8}, Shape{1, 7}, Shape{10, 500},
                         Shape{32, 32}, Shape{100, 100}, Shape{500, 784},
                         Shape{400, 20}, Shape{2304, 64}, Shape{96, 256},
                         Shape{1040, 1024}}) {
    for (int t = 0; t < 4; ++t) {
      const bool ta = t & 1, tb = t & 2;
      const int64_t lda = (ta ? kRows : s.k) + 1;
      const int64_t ldb = (tb ? s.k : s.n) + 3;
      const int64_t ldc = s.n + 2;
      const std::vector<float> a = Values((ta ? s.k : kRows) * lda, 1 + t);
      const std::vector<float> b = Values((tb ? s.n : s.k) * ldb, 5 + t);
      const std::vector<float> c0 = Values(kRows * ldc, 9);
      for (float beta : {0.0f, 1.5f}) {
        const float alpha = beta == 0.0f ? 1.0f : -0.75f;
        std::vector<float> whole = c0;
        ASSERT_TRUE(ScaledGemm<float>(&pool2, ta, tb, kRows, s.n, s.k, alpha,
                                      a.data(), lda, b.data(), ldb, beta,
                                      whole.data(), ldc)
                        .ok());
        for (ThreadPool* pool : pools) {
          for (const Part& p : parts) {
            // op(A)'s rows off..: rows of A, or its columns when transposed.
            const float* a_part =
                ta ? a.data() + p.off : a.data() + p.off * lda;
            std::vector<float> c(c0.begin() + p.off * ldc,
                                 c0.begin() + (p.off + p.m) * ldc);
            ASSERT_TRUE(ScaledGemm<float>(pool, ta, tb, p.m, s.n, s.k, alpha,
                                          a_part, lda, b.data(), ldb, beta,
                                          c.data(), ldc)
                            .ok());
            ASSERT_EQ(std::memcmp(c.data(), whole.data() + p.off * ldc,
                                  sizeof(float) * c.size()),
                      0)
                << "rows " << p.off << ".." << p.off + p.m - 1 << " of ["
                << kRows << "," << s.k << "]x[" << s.k << "," << s.n << "] ta "
                << ta << " tb " << tb << " beta " << beta << " threads "
                << (pool == nullptr ? 1 : pool->num_threads());
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace dflow
