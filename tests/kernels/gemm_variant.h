// For tests run as GEMM kernel variants (tests/kernels/gemm_variants.bzl):
// whether this CPU can run the OpenBLAS kernel family that
// OPENBLAS_CORETYPE forces. OpenBLAS takes the name as given and would die
// on the first AVX-512 (or AVX2) instruction of a CPU without them, so a
// variant the host cannot run skips instead.
#ifndef DFLOW_TESTS_KERNELS_GEMM_VARIANT_H_
#define DFLOW_TESTS_KERNELS_GEMM_VARIANT_H_

#include <cstdlib>
#include <string>

#include "absl/strings/match.h"

namespace dflow {

// Empty when the variant can run here, else why not.
inline std::string UnsupportedGemmVariant() {
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

}  // namespace dflow

#endif  // DFLOW_TESTS_KERNELS_GEMM_VARIANT_H_
