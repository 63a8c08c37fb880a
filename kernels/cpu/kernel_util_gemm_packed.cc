#include "kernels/cpu/kernel_util_gemm_packed.h"

#include <oneapi/dnnl/dnnl.h>

#include <cstdlib>

#include "kernels/cpu/kernel_util_gemm_library.h"

// oneDNN's packed GEMM (src/cpu/gemm/gemm_pack.hpp, exported with DNNL_API
// since 1.x; same signatures through 3.7). Column-major, like BLAS.
namespace dnnl::impl::cpu {
dnnl_status_t sgemm_pack_get_size(const char* identifier, const char* transa,
                                  const char* transb, const dnnl_dim_t* M,
                                  const dnnl_dim_t* N, const dnnl_dim_t* K,
                                  const dnnl_dim_t* lda, const dnnl_dim_t* ldb,
                                  size_t* size, bool* pack);
dnnl_status_t sgemm_pack(const char* identifier, const char* transa,
                         const char* transb, const dnnl_dim_t* M,
                         const dnnl_dim_t* N, const dnnl_dim_t* K,
                         const dnnl_dim_t* lda, const dnnl_dim_t* ldb,
                         const float* src, float* dst);
dnnl_status_t sgemm_compute(const char* transa, const char* transb,
                            const dnnl_dim_t* M, const dnnl_dim_t* N,
                            const dnnl_dim_t* K, const float* A,
                            const dnnl_dim_t* lda, const float* B,
                            const dnnl_dim_t* ldb, const float* beta, float* C,
                            const dnnl_dim_t* ldc);
}  // namespace dnnl::impl::cpu

namespace dflow {

void OneDnnPackedB::AlignedFree::operator()(float* p) const { std::free(p); }

// dflow's row-major C[m, n] = op(A) op(B) is oneDNN's column-major
// C^T[n, m] = op(B)^T op(A)^T: op(B) becomes oneDNN's A (the packed one, M =
// n) and a panel of op(A) its B (N = kGemmRowPanel).
bool OneDnnPackedB::Pack(bool ta, bool tb, int n, int k, const float* b,
                         int ldb, int lda) {
  UseOneOpenMpThreadOnThisThread();  // the packed layout follows the threads
  transb_ = ta ? 'T' : 'N';
  n_ = n;
  k_ = k;
  ldb_ = ldb;
  const char transa = tb ? 'T' : 'N';
  const dnnl_dim_t m = n, panel = kGemmRowPanel, depth = k, ld_a = ldb,
                   ld_b = lda;
  size_t bytes = 0;
  bool needs_pack = true;
  if (dnnl::impl::cpu::sgemm_pack_get_size("A", &transa, &transb_, &m, &panel,
                                           &depth, &ld_a, &ld_b, &bytes,
                                           &needs_pack) != dnnl_success ||
      !needs_pack || bytes == 0) {
    return false;
  }
  constexpr size_t kAlign = 64;  // a cache line, any vector width
  float* p = static_cast<float*>(
      std::aligned_alloc(kAlign, (bytes + kAlign - 1) / kAlign * kAlign));
  if (p == nullptr) return false;
  packed_.reset(p);
  if (dnnl::impl::cpu::sgemm_pack("A", &transa, &transb_, &m, &panel, &depth,
                                  &ld_a, &ld_b, b, p) != dnnl_success) {
    packed_.reset();
    return false;
  }
  return true;
}

bool OneDnnPackedB::Compute(const float* a_panel, int lda, float* c,
                            int ldc) const {
  if (packed_ == nullptr) return false;
  UseOneOpenMpThreadOnThisThread();
  const char packed = 'P';
  const dnnl_dim_t m = n_, panel = kGemmRowPanel, depth = k_, ld_a = ldb_,
                   ld_b = lda, ld_c = ldc;
  const float beta = 0.0f;
  return dnnl::impl::cpu::sgemm_compute(&packed, &transb_, &m, &panel, &depth,
                                        packed_.get(), &ld_a, a_panel, &ld_b,
                                        &beta, c, &ld_c) == dnnl_success;
}

}  // namespace dflow
