// Loops compiled twice: for x86-64-v3 (AVX2, FMA: every CPU dflow has met,
// AMD and Intel) and for plain x86-64, the copy chosen once per process by
// the CPU it runs on (GCC's target_clones, resolved by the dynamic loader).
// dflow builds for plain x86-64, so a kernel's loops otherwise get 4-wide
// SSE2 only. For loops written in plain C++ (no Eigen: Eigen picks its
// vector width when compiled, and two widths of one Eigen template in one
// binary would break the one-definition rule). Helpers such a function
// calls must be DFLOW_ALWAYS_INLINE so they are compiled into each copy.
#ifndef DFLOW_KERNELS_CPU_KERNEL_UTIL_CPU_CLONES_H_
#define DFLOW_KERNELS_CPU_KERNEL_UTIL_CPU_CLONES_H_

// DFLOW_NO_CPU_CLONES (.bazelrc's tsan config): the loader runs a clone's
// resolver before ThreadSanitizer's runtime is up, and GCC instruments the
// resolver, so every binary linking a clone crashed at load under TSan.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && \
    !defined(DFLOW_NO_CPU_CLONES)
#define DFLOW_CPU_CLONES \
  __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define DFLOW_CPU_CLONES
#endif

#define DFLOW_ALWAYS_INLINE inline __attribute__((always_inline))

#endif  // DFLOW_KERNELS_CPU_KERNEL_UTIL_CPU_CLONES_H_
