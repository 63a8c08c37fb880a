// Tests of the choice between oneDNN and OpenBLAS for float products
// (kernels/cpu/kernel_util_gemm_library.h) and of Gemm through each.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kernels/cpu/kernel_util_blas.h"
#include "kernels/cpu/kernel_util_gemm_library.h"
#include "runtime/device.h"
#include "runtime/thread_pool.h"

namespace dflow {
namespace {

using ::testing::HasSubstr;

bool Forced() { return std::getenv("DFLOW_GEMM") != nullptr; }

std::vector<float> Values(int64_t n, uint32_t seed) {
  std::vector<float> v(n);
  uint32_t x = seed * 2654435761u + 1;
  for (float& f : v) {
    x = x * 1664525u + 1013904223u;
    f = static_cast<float>(x >> 8) / static_cast<float>(1 << 24) - 0.5f;
  }
  return v;
}

// op(A) * op(B) in double, row-major, with leading dimensions.
std::vector<double> Reference(const std::vector<float>& a, int64_t lda,
                              const std::vector<float>& b, int64_t ldb,
                              int64_t m, int64_t n, int64_t k, bool ta,
                              bool tb) {
  std::vector<double> c(m * n, 0.0);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (int64_t l = 0; l < k; ++l) {
        const double x = ta ? a[l * lda + i] : a[i * lda + l];
        const double y = tb ? b[j * ldb + l] : b[l * ldb + j];
        s += x * y;
      }
      c[i * n + j] = s;
    }
  }
  return c;
}

TEST(GemmLibraryTest, LargeProductsUseOneDnn) {
  if (Forced()) GTEST_SKIP() << "DFLOW_GEMM is set";
  // Whatever OpenBLAS knows of this CPU, wide products go to oneDNN. The
  // choice sees n and k only: every call is one kGemmRowPanel-row panel.
  EXPECT_EQ(ChooseFloatGemmLibrary(500, 784, false), GemmLibrary::kOneDnn);
  EXPECT_EQ(ChooseFloatGemmLibrary(1024, 1024, false), GemmLibrary::kOneDnn);
  EXPECT_EQ(ChooseFloatGemmLibrary(784, 20, false), GemmLibrary::kOneDnn);
  // Small and narrow ones go to OpenBLAS exactly when the log says so.
  const bool openblas_for_small =
      absl::StrContains(DescribeGemmLibraries(), "products <= 64^3");
  const GemmLibrary small =
      openblas_for_small ? GemmLibrary::kOpenBlas : GemmLibrary::kOneDnn;
  EXPECT_EQ(ChooseFloatGemmLibrary(10, 500, false), small);
  EXPECT_EQ(ChooseFloatGemmLibrary(32, 32, false), small);
  EXPECT_EQ(ChooseFloatGemmLibrary(200, 100, false), GemmLibrary::kOneDnn);
  // A * B^T with fewer than 128 columns (an LSTM's input gradient) too.
  EXPECT_EQ(ChooseFloatGemmLibrary(96, 256, true), small);
  EXPECT_EQ(ChooseFloatGemmLibrary(96, 256, false), GemmLibrary::kOneDnn);
  EXPECT_EQ(ChooseFloatGemmLibrary(128, 256, true), GemmLibrary::kOneDnn);
  // OpenBLAS is used only where its rows ignore their position.
  if (openblas_for_small) {
    EXPECT_TRUE(RowResultsIgnorePosition(GemmLibrary::kOpenBlas));
  }
}

TEST(GemmLibraryTest, DescriptionNamesTheIsaAndReachesTheDeviceLog) {
  const std::string description = DescribeGemmLibraries();
  EXPECT_THAT(description, HasSubstr("float GEMM: "));
  EXPECT_THAT(description, HasSubstr("(JIT "));
  EXPECT_THAT(description, HasSubstr("OpenBLAS "));
  // The kernels registered it, so log_device_placement prints it.
  EXPECT_EQ(CpuMathDescription(), description);
  DeviceSet none;
  EXPECT_THAT(DeviceMappingString(none),
              HasSubstr("CPU math: " + description + "\n"));
}

// Both libraries, every transpose, alpha/beta and padded leading
// dimensions, on shapes around the small/narrow boundary.
TEST(GemmLibraryTest, BothLibrariesComputeTheSameProduct) {
  struct Shape {
    int m, n, k;
  };
  for (const Shape& s : {Shape{7, 5, 3}, Shape{100, 10, 50}, Shape{33, 17, 65},
                         Shape{64, 80, 70}}) {
    for (int t = 0; t < 4; ++t) {
      const bool ta = t & 1, tb = t & 2;
      const int lda = (ta ? s.m : s.k) + 3, ldb = (tb ? s.k : s.n) + 2;
      const int ldc = s.n + 1;
      const std::vector<float> a = Values((ta ? s.k : s.m) * lda, 1 + t);
      const std::vector<float> b = Values((tb ? s.n : s.k) * ldb, 7 + t);
      const std::vector<float> c0 = Values(s.m * ldc, 13);
      const std::vector<double> product =
          Reference(a, lda, b, ldb, s.m, s.n, s.k, ta, tb);
      for (GemmLibrary library :
           {GemmLibrary::kOpenBlas, GemmLibrary::kOneDnn}) {
        std::vector<float> c = c0;
        SingleThreadedSgemm(library, ta, tb, s.m, s.n, s.k, -0.5f, a.data(),
                            lda, b.data(), ldb, 2.0f, c.data(), ldc);
        for (int i = 0; i < s.m; ++i) {
          for (int j = 0; j < ldc; ++j) {
            const float before = c0[i * ldc + j];
            if (j >= s.n) {
              // Padding of C is never written.
              ASSERT_EQ(c[i * ldc + j], before);
              continue;
            }
            const double want = 2.0 * before - 0.5 * product[i * s.n + j];
            ASSERT_NEAR(c[i * ldc + j], want, 1e-5 * (1 + std::abs(want)))
                << "library " << static_cast<int>(library) << " shape " << s.m
                << "x" << s.n << "x" << s.k << " ta " << ta << " tb " << tb
                << " at " << i << "," << j;
          }
        }
      }
    }
  }
}

// The same product on the same pool gives the same bits every time, split
// over threads or not (the library is chosen on the whole product).
TEST(GemmLibraryTest, RepeatedProductsAreBitIdentical) {
  ThreadPool pool(2);
  const int64_t m = 300, n = 200, k = 150;
  const std::vector<float> a = Values(m * k, 3), b = Values(k * n, 4);
  std::vector<float> first(m * n), again(m * n);
  for (ThreadPool* p : {&pool, static_cast<ThreadPool*>(nullptr)}) {
    ASSERT_TRUE(Gemm<float>(p, false, false, m, n, k, a.data(), k, b.data(), n,
                            0.0f, first.data(), n)
                    .ok());
    for (int r = 0; r < 3; ++r) {
      ASSERT_TRUE(Gemm<float>(p, false, false, m, n, k, a.data(), k, b.data(),
                              n, 0.0f, again.data(), n)
                      .ok());
      ASSERT_EQ(
          std::memcmp(first.data(), again.data(), first.size() * sizeof(float)),
          0);
    }
  }
}

}  // namespace
}  // namespace dflow
