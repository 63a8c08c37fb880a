// op(B) of a float product packed once by oneDNN, for every kGemmRowPanel-row
// panel computed against it.
//
// Why: dflow computes a float product as calls of exactly kGemmRowPanel rows
// (kernel_util_gemm_library.h: a row's bits must not depend on the batch).
// Each dnnl_sgemm call packs its whole op(B) again, so a 1024^3 product
// packed B 43 times and a 100-row MLP layer five times. oneDNN's
// sgemm_pack / sgemm_compute (what its RNN primitives use) pack op(B) once
// and run each panel against the packed copy. Measured on the 2-core Zen 4,
// one thread, all panels of a product (GFLOP/s, per-panel dnnl_sgemm ->
// packed, packing included):
//   1024^3            avx512 76 -> 105    avx2 (ONEDNN_MAX_CPU_ISA) 74 -> 93
//   100x784x500       avx512 41 -> 105    avx2 59 -> 95   (seed MLP layer 1)
//   784x100x500 (ta)  avx512 36 -> 106    avx2 59 -> 106  (its weight gradient)
//   72x352x1024       avx512 26 -> 103    avx2 41 -> 90   (an LSTM cell)
// and gave the same bits as dnnl_sgemm for every element of those products,
// so the results do not change, only the time.
//
// The three functions are exported by libdnnl (DNNL_API) but declared in no
// installed header; their signatures are the same from oneDNN 2.6 to 3.7
// (src/cpu/gemm/gemm_pack.hpp). Any failure (an older oneDNN, no scratch
// memory) leaves the caller on dnnl_sgemm: Pack and Compute return false.
#ifndef DFLOW_KERNELS_CPU_KERNEL_UTIL_GEMM_PACKED_H_
#define DFLOW_KERNELS_CPU_KERNEL_UTIL_GEMM_PACKED_H_

#include <cstddef>
#include <cstdint>
#include <memory>

namespace dflow {

class OneDnnPackedB {
 public:
  OneDnnPackedB() = default;
  OneDnnPackedB(const OneDnnPackedB&) = delete;
  OneDnnPackedB& operator=(const OneDnnPackedB&) = delete;

  // Packs op(B) [k, n] (B row-major with leading dimension ldb, transposed
  // when tb) for kGemmRowPanel-row panels of op(A) with leading dimension
  // lda (transposed when ta), on the calling thread. False when oneDNN
  // declines; then Compute must not be called.
  bool Pack(bool ta, bool tb, int n, int k, const float* b, int ldb, int lda);

  // C[kGemmRowPanel, n] (leading dimension ldc) = op(A panel) * op(B), with
  // `a_panel` the panel's first row of op(A) and `lda` its leading
  // dimension. Any thread may call it, also concurrently. False when oneDNN
  // fails.
  bool Compute(const float* a_panel, int lda, float* c, int ldc) const;

 private:
  struct AlignedFree {
    void operator()(float* p) const;
  };
  std::unique_ptr<float, AlignedFree> packed_;
  char transb_ = 'N';  // op(A) as oneDNN's column-major B
  int n_ = 0, k_ = 0, ldb_ = 0;
};

}  // namespace dflow

#endif  // DFLOW_KERNELS_CPU_KERNEL_UTIL_GEMM_PACKED_H_
