"""Runs a test once per float GEMM kernel path (kernel_util_gemm_library.h).

N towers must equal one device bit for bit on every host, whichever BLAS
kernels its CPU gets. These variants force the kernel families of other hosts
on this one: OpenBLAS's generic Prescott kernel (what Debian's 0.3.21 runs on
an unknown Intel CPU), its Haswell/Zen kernel (AVX2 hosts; dflow must notice
that its rows depend on their position and use oneDNN), its SkylakeX kernel,
and oneDNN limited to AVX2 and to AVX-512. Each variant's test checks that
the forced kernels are the ones running (DescribeGemmLibraries) and skips on
a CPU that cannot run them (tests/kernels/gemm_variant.h).
"""

GEMM_VARIANTS = {
    "openblas_prescott": {"DFLOW_GEMM": "openblas", "OPENBLAS_CORETYPE": "Prescott"},
    "openblas_skylakex": {"DFLOW_GEMM": "openblas", "OPENBLAS_CORETYPE": "SkylakeX"},
    "openblas_haswell": {"OPENBLAS_CORETYPE": "Haswell"},
    "onednn_avx2": {"DFLOW_GEMM": "onednn", "ONEDNN_MAX_CPU_ISA": "AVX2"},
    "onednn_avx512": {"DFLOW_GEMM": "onednn", "ONEDNN_MAX_CPU_ISA": "AVX512_CORE"},
}

def gemm_variant_tests(name, lib, args = [], size = "small"):
    """One cc_test `<name>_<variant>` per GEMM_VARIANTS entry.

    Args:
      name: prefix of the tests' names.
      lib: a testonly cc_library (alwayslink) holding the test cases.
      args: arguments for every variant (e.g. a --gtest_filter).
      size: the tests' size.
    """
    for variant, env in GEMM_VARIANTS.items():
        native.cc_test(
            name = name + "_" + variant,
            args = args,
            env = env,
            size = size,
            deps = [lib],
        )
