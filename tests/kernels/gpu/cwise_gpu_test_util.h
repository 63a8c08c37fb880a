// Helpers for the tests of the element-wise, reduction, softmax, optimizer
// and random launchers against the CPU kernels: per-dtype tolerances, a
// comparison that reads NaN as equal to NaN, and running a CPU kernel on
// one node. The GPU side uses GpuLauncherTest (gpu_launcher_test_util.h):
// outputs are poisoned (NaN words) before every launch, so an element a
// launcher leaves unwritten fails the comparison.
#ifndef DFLOW_TESTS_KERNELS_GPU_CWISE_GPU_TEST_UTIL_H_
#define DFLOW_TESTS_KERNELS_GPU_CWISE_GPU_TEST_UTIL_H_

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/tensor.h"
#include "graph/types.h"
#include "gtest/gtest.h"
#include "kernels/gpu/gpu_type_of.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/kernels/math_kernel_test_util.h"

namespace dflow {
namespace testing_gpu {

struct Tolerance {
  double rtol;
  double atol;
};

// Elementary functions differ by a few ulp between the devices' libraries;
// 2-byte floats by one rounding of the result.
inline Tolerance ToleranceFor(DataType dtype) {
  switch (dtype) {
    case DT_FLOAT:
      return {2e-6, 1e-7};
    case DT_DOUBLE:
      return {1e-13, 1e-15};
    case DT_HALF:
      return {2e-3, 1e-4};
    case DT_BFLOAT16:
      return {1.6e-2, 1e-3};
    default:
      return {0, 0};  // integers and bool: exact
  }
}

inline GpuType Gpu(DataType dtype) { return *GpuTypeOf(dtype); }

// Elements of got and want (same dtype and count) agree within `tol`; NaN
// matches NaN and infinities match themselves.
inline void ExpectAllClose(const Tensor& got, const Tensor& want, Tolerance tol,
                           const std::string& what) {
  ASSERT_EQ(got.NumElements(), want.NumElements()) << what;
  const std::vector<double> g = testing_math::AsDoubles(got);
  const std::vector<double> w = testing_math::AsDoubles(want);
  int failures = 0;
  for (size_t i = 0; i < g.size(); ++i) {
    bool ok;
    if (std::isnan(w[i]) || std::isnan(g[i])) {
      ok = std::isnan(w[i]) && std::isnan(g[i]);
    } else if (std::isinf(w[i]) || std::isinf(g[i])) {
      ok = g[i] == w[i];
    } else {
      ok = std::fabs(g[i] - w[i]) <= tol.atol + tol.rtol * std::fabs(w[i]);
    }
    if (!ok && ++failures <= 5) {
      ADD_FAILURE() << what << ": element " << i << " is " << g[i]
                    << " on the GPU, " << w[i] << " expected (of " << g.size()
                    << ")";
    }
  }
  EXPECT_EQ(failures, 0) << what << ": " << failures << " elements differ";
}

// Exactly equal bytes (reproducibility, bit-exact formulas).
inline void ExpectBitwiseEqual(const Tensor& got, const Tensor& want,
                               const std::string& what) {
  ASSERT_EQ(got.NumElements(), want.NumElements()) << what;
  const size_t bytes = static_cast<size_t>(got.NumElements()) *
                       static_cast<size_t>(DataTypeSize(got.dtype()));
  EXPECT_EQ(std::memcmp(got.raw_data(), want.raw_data(), bytes), 0) << what;
}

// The CPU kernel's output `index` of `node` for `inputs`.
inline Tensor CpuOutput(const Node* node, const std::vector<Tensor>& inputs,
                        int index = 0) {
  absl::StatusOr<std::vector<Tensor>> out = RunKernel(node, inputs);
  EXPECT_TRUE(out.ok()) << out.status();
  if (!out.ok()) return Tensor();
  return (*out)[index];
}

inline std::string ShapeName(const TensorShape& s) { return s.ToString(); }

}  // namespace testing_gpu
}  // namespace dflow

#endif  // DFLOW_TESTS_KERNELS_GPU_CWISE_GPU_TEST_UTIL_H_
