// MatMul on a GPU through cuBLAS: c = op(a) * op(b) for row-major a and b,
// op transposing when transpose_a / transpose_b is set (as the CPU kernel,
// kernels/cpu/matmul.cc; complex operands are transposed, not conjugated).
//
// cuBLAS is column-major; a row-major [r, c] matrix is the column-major
// [c, r] matrix with the same bytes, its transpose. So c = op(a) op(b)
// becomes c^T = op(b)^T op(a)^T: one column-major GEMM with the operands
// swapped and no copies (PlanMatMul says which; it is host arithmetic and
// tested without a GPU).
//
// Precision: float runs at full float precision by default; TF32 tensor
// cores (10-bit mantissa inputs, float accumulation, ~8x the speed on an
// H100) only after SetGpuTensorFloat32(true), as TensorFlow's
// tf.config.experimental.enable_tensor_float_32_execution. half and
// bfloat16 accumulate in float, as the CPU kernel does. The choice is made
// per call through cublasGemmEx's compute type, so handles are shared
// between callers whatever they ask for.
#ifndef DFLOW_KERNELS_GPU_MATMUL_GPU_H_
#define DFLOW_KERNELS_GPU_MATMUL_GPU_H_

#include <cstdint>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "graph/types.h"

namespace dflow {

// Process-wide: whether float products on GPUs may use TF32 tensor cores
// (cuBLAS MatMul and cuDNN convolutions). Off unless set.
void SetGpuTensorFloat32(bool enabled);
bool GpuTensorFloat32Enabled();

// One product: c [m, n] = op(a) op(b) with op(a) [m, k] and op(b) [k, n].
struct GpuMatMulParams {
  DataType dtype = DT_FLOAT;
  int64_t m = 0, n = 0, k = 0;
  bool transpose_a = false;
  bool transpose_b = false;
};

// The column-major GEMM computing the row-major product:
//   out [rows, cols] (leading dimension ld_out) =
//     op1(first) [rows, depth] * op2(second) [depth, cols]
// where first is b's bytes and second is a's (see the file comment).
struct ColumnMajorGemm {
  bool transpose_first = false;   // CUBLAS_OP_T for b
  bool transpose_second = false;  // CUBLAS_OP_T for a
  int64_t rows = 0, cols = 0, depth = 0;
  int64_t ld_first = 1, ld_second = 1, ld_out = 1;
};

// Validates `p` (sizes >= 0 and within cuBLAS's int range, a dtype cuBLAS
// multiplies: float, double, half, bfloat16, complex64, complex128) and
// returns the GEMM to run.
absl::StatusOr<ColumnMajorGemm> PlanMatMul(const GpuMatMulParams& p);

// Enqueues c = op(a) op(b) on `stream` (a cudaStream_t of GPU `ordinal`);
// a, b and c are device memory of that GPU, packed row-major, c not
// overlapping a or b. With k == 0, c is zeros. Returns without waiting for
// the GPU.
absl::Status LaunchMatMul(int ordinal, void* stream, const GpuMatMulParams& p,
                          const void* a, const void* b, void* c);

}  // namespace dflow

#endif  // DFLOW_KERNELS_GPU_MATMUL_GPU_H_
