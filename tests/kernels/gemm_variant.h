// For tests run as GEMM kernel variants (tests/kernels/gemm_variants.bzl):
// whether this CPU can run the OpenBLAS kernel family that
// OPENBLAS_CORETYPE forces. OpenBLAS takes the name as given and would die
// on the first AVX-512 (or AVX2) instruction of a CPU without them, so a
// variant the host cannot run skips instead.
#ifndef DFLOW_TESTS_KERNELS_GEMM_VARIANT_H_
#define DFLOW_TESTS_KERNELS_GEMM_VARIANT_H_

#include <cctype>
#include <cstdlib>
#include <string>

#include "absl/strings/match.h"
#include "gtest/gtest.h"

namespace dflow {

// Empty when the variant can run here, else why not.
inline std::string UnsupportedGemmVariant() {
  // oneDNN caps its ISA at ONEDNN_MAX_CPU_ISA, so an AVX-512 variant on an
  // AVX2 host would run the AVX2 kernels under the AVX-512 name.
  if (const char* isa = std::getenv("ONEDNN_MAX_CPU_ISA")) {
    std::string lower(isa);
    for (char& c : lower) c = static_cast<char>(std::tolower(c));
    if (lower.find("avx512") != std::string::npos &&
        !__builtin_cpu_supports("avx512f")) {
      return std::string("ONEDNN_MAX_CPU_ISA=") + isa + " needs AVX-512";
    }
  }
  const char* core = std::getenv("OPENBLAS_CORETYPE");
  if (core == nullptr) return "";
  for (const char* avx512 : {"SkylakeX", "Cooperlake", "SapphireRapids"}) {
    if (absl::EqualsIgnoreCase(core, avx512) &&
        !__builtin_cpu_supports("avx512f")) {
      return std::string("OPENBLAS_CORETYPE=") + core + " needs AVX-512";
    }
  }
  for (const char* avx2 : {"Haswell", "Zen"}) {
    if (absl::EqualsIgnoreCase(core, avx2) &&
        !(__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))) {
      return std::string("OPENBLAS_CORETYPE=") + core + " needs AVX2 and FMA";
    }
  }
  return "";
}

// Every test of a binary that includes this header skips on a host whose
// CPU cannot run its variant's kernels (a SkylakeX OpenBLAS core on an AVX2
// host dies of an illegal instruction in whichever test multiplies first).
class SkipUnsupportedGemmVariant : public ::testing::Environment {
 public:
  void SetUp() override {
    if (const std::string why = UnsupportedGemmVariant(); !why.empty()) {
      GTEST_SKIP() << why;
    }
  }
};
inline ::testing::Environment* const kSkipUnsupportedGemmVariant =
    ::testing::AddGlobalTestEnvironment(new SkipUnsupportedGemmVariant);

}  // namespace dflow

#endif  // DFLOW_TESTS_KERNELS_GEMM_VARIANT_H_
