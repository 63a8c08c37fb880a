// dflow's CPU kernels are compiled for x86-64-v3 (AVX2, FMA, BMI2; see
// kernels/cpu/BUILD). On an older CPU their first vector instruction would
// kill the process with SIGILL, somewhere in a kernel's static
// registration or its first step. This check runs first instead (a
// constructor of priority 101 runs before every ordinary static
// initializer of the program or shared library) and says what to do.
// Compiled for plain x86-64 so that it can itself run anywhere.
#include <unistd.h>

#include <cstdio>

namespace {

#if defined(DFLOW_KERNELS_NEED_X86_64_V3) && defined(__x86_64__)
__attribute__((constructor(101))) void RefuseCpusWithoutX8664V3() {
  __builtin_cpu_init();  // needed before static initialization
  // The features x86-64-v3 added that compilers use (GCC 12 also knows
  // "x86-64-v3" itself here, clang 14, the fuzz build's compiler, does not).
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
      __builtin_cpu_supports("bmi") && __builtin_cpu_supports("bmi2")) {
    return;
  }
  std::fprintf(stderr,
               "dflow: this CPU lacks AVX2/FMA/BMI2 (x86-64-v3), which this "
               "build of dflow's CPU kernels uses. Rebuild them for plain "
               "x86-64: bazel build --define dflow_cpu=x86-64 ...\n");
  _exit(1);
}
#endif

}  // namespace
