#include "kernels/gpu/matmul_gpu.h"

#include <algorithm>
#include <cstdint>
#include <limits>

#include "absl/strings/str_cat.h"
#include "kernels/gpu/blas_handles.h"
#include "runtime/gpu/cuda_status.h"
#include "runtime/gpu/gpu_math_mode.h"

namespace dflow {

namespace {

bool CublasMultiplies(DataType dtype) {
  switch (dtype) {
    case DT_FLOAT:
    case DT_DOUBLE:
    case DT_HALF:
    case DT_BFLOAT16:
    case DT_COMPLEX64:
    case DT_COMPLEX128:
      return true;
    default:
      return false;
  }
}

}  // namespace

// One process-wide setting, shared with SessionOptions::gpu_allow_tf32
// (runtime/gpu/gpu_math_mode.h).
void SetGpuTensorFloat32(bool enabled) { SetGpuTensorFloat32Allowed(enabled); }

bool GpuTensorFloat32Enabled() { return GpuTensorFloat32Allowed(); }

absl::StatusOr<ColumnMajorGemm> PlanMatMul(const GpuMatMulParams& p) {
  if (!CublasMultiplies(p.dtype)) {
    return absl::UnimplementedError(absl::StrCat(
        "MatMul on GPU takes float, double, half, bfloat16, complex64 or "
        "complex128, not ",
        DataTypeName(p.dtype), ": place it on CPU"));
  }
  constexpr int64_t kMax = std::numeric_limits<int32_t>::max();
  if (p.m < 0 || p.n < 0 || p.k < 0 || p.m > kMax || p.n > kMax || p.k > kMax) {
    return absl::InvalidArgumentError(absl::StrCat(
        "MatMul on GPU of [", p.m, ", ", p.k, "] x [", p.k, ", ", p.n,
        "]: every dimension must be in [0, 2^31) for cuBLAS"));
  }
  ColumnMajorGemm g;
  // c^T [n, m] = op(b)^T [n, k] * op(a)^T [k, m], column-major. A packed
  // row-major [r, c] matrix is a column-major [c, r] one with ld c: b as
  // stored is op(b)^T exactly when b is not transposed, likewise a.
  g.rows = p.n;
  g.cols = p.m;
  g.depth = p.k;
  g.transpose_first = p.transpose_b;
  g.ld_first = std::max<int64_t>(1, p.transpose_b ? p.k : p.n);
  g.transpose_second = p.transpose_a;
  g.ld_second = std::max<int64_t>(1, p.transpose_a ? p.m : p.k);
  g.ld_out = std::max<int64_t>(1, p.n);
  return g;
}

#if DFLOW_HAVE_CUBLAS

absl::Status LaunchMatMul(int ordinal, void* stream, const GpuMatMulParams& p,
                          const void* a, const void* b, void* c) {
  absl::StatusOr<ColumnMajorGemm> plan = PlanMatMul(p);
  if (!plan.ok()) return plan.status();
  const ColumnMajorGemm& g = *plan;
  if (p.m == 0 || p.n == 0) return absl::OkStatus();
  if (p.k == 0) {
    // An empty sum: zeros (cuBLAS would not promise to write C).
    DFLOW_CUDA_RETURN_IF_ERROR(cudaSetDevice(ordinal), "cudaSetDevice");
    return CudaStatus(
        cudaMemsetAsync(c, 0,
                        static_cast<size_t>(p.m * p.n * DataTypeSize(p.dtype)),
                        static_cast<cudaStream_t>(stream)),
        "cudaMemsetAsync (MatMul with k = 0)");
  }

  cudaDataType_t type = CUDA_R_32F;
  cublasComputeType_t compute = CUBLAS_COMPUTE_32F;
  // Scaling factors in the compute type's precision (complex: (1, 0)).
  const float one_f[2] = {1, 0}, zero_f[2] = {0, 0};
  const double one_d[2] = {1, 0}, zero_d[2] = {0, 0};
  bool double_scalars = false;
  const bool tf32 = GpuTensorFloat32Enabled();
  switch (p.dtype) {
    case DT_FLOAT:
      type = CUDA_R_32F;
      compute = tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
      break;
    case DT_HALF:
      type = CUDA_R_16F;
      break;
    case DT_BFLOAT16:
      type = CUDA_R_16BF;
      break;
    case DT_COMPLEX64:
      type = CUDA_C_32F;
      compute = tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
      break;
    case DT_DOUBLE:
      type = CUDA_R_64F;
      compute = CUBLAS_COMPUTE_64F;
      double_scalars = true;
      break;
    case DT_COMPLEX128:
      type = CUDA_C_64F;
      compute = CUBLAS_COMPUTE_64F;
      double_scalars = true;
      break;
    default:
      return absl::InternalError("MatMul: unplanned dtype");  // PlanMatMul
  }
  const void* alpha = double_scalars ? static_cast<const void*>(one_d) : one_f;
  const void* beta = double_scalars ? static_cast<const void*>(zero_d) : zero_f;
  return BlasHandles::Global()->With(
      ordinal, stream, [&](const BlasContext& blas) -> absl::Status {
        const cublasStatus_t status = cublasGemmEx(
            blas.handle, g.transpose_first ? CUBLAS_OP_T : CUBLAS_OP_N,
            g.transpose_second ? CUBLAS_OP_T : CUBLAS_OP_N,
            static_cast<int>(g.rows), static_cast<int>(g.cols),
            static_cast<int>(g.depth), alpha, b, type,
            static_cast<int>(g.ld_first), a, type,
            static_cast<int>(g.ld_second), beta, c, type,
            static_cast<int>(g.ld_out), compute, CUBLAS_GEMM_DEFAULT);
        if (status == CUBLAS_STATUS_SUCCESS) return absl::OkStatus();
        return CublasStatus(
            status,
            absl::StrCat("cublasGemmEx (MatMul ", DataTypeName(p.dtype), " [",
                         p.m, ", ", p.k, "] x [", p.k, ", ", p.n,
                         "], transpose_a=", p.transpose_a ? "true" : "false",
                         ", transpose_b=", p.transpose_b ? "true" : "false",
                         ")"));
      });
}

#else  // !DFLOW_HAVE_CUBLAS

absl::Status LaunchMatMul(int /*ordinal*/, void* /*stream*/,
                          const GpuMatMulParams& p, const void* /*a*/,
                          const void* /*b*/, void* /*c*/) {
  absl::StatusOr<ColumnMajorGemm> plan = PlanMatMul(p);
  if (!plan.ok()) return plan.status();
  return BuiltWithoutCudaError("MatMul on GPU");
}

#endif  // DFLOW_HAVE_CUBLAS

}  // namespace dflow
