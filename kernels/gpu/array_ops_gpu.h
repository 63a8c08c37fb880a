// Element-moving launchers for the GPU array ops (kernels/gpu/
// array_move_kernels_gpu.cc): one strided copy that every data-movement op
// reduces to (Transpose, Slice, ConcatV2, Pack, Tile, Pad's interior), and
// fills of one value (Fill, OnesLike, Pad's border). They move bytes by
// element width (1, 2, 4, 8 or 16 bytes), so every dtype of that width
// shares one kernel.
//
// The plans are plain host code, tested without a GPU; the launchers are
// array_ops_gpu.cu.cc (nvcc) and exist only in CUDA builds: every caller
// is under DFLOW_HAVE_CUDA.
#ifndef DFLOW_KERNELS_GPU_ARRAY_OPS_GPU_H_
#define DFLOW_KERNELS_GPU_ARRAY_OPS_GPU_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace dflow {

inline constexpr int kGpuCopyMaxRank = 8;

// dst[dst_offset + sum_d i_d * dst_strides[d]] =
//   src[src_offset + sum_d (src_mod[d] > 0 ? i_d % src_mod[d] : i_d) *
//       src_strides[d]]
// for every index (i_0, ..., i_{rank-1}) of `dims` (row-major). Strides and
// offsets count elements; src strides may be negative (StridedSlice).
// src_mod repeats the source along a dimension (Tile).
struct GpuStridedCopy {
  int rank = 0;  // 0: one element
  int64_t dims[kGpuCopyMaxRank] = {};
  int64_t src_strides[kGpuCopyMaxRank] = {};
  int64_t dst_strides[kGpuCopyMaxRank] = {};
  int64_t src_mod[kGpuCopyMaxRank] = {};
  int64_t src_offset = 0;
  int64_t dst_offset = 0;
  int64_t num_elements = 0;
};

// The plan for the copy above, with dimensions of size 1 dropped and
// neighbours that step alike in source and destination merged (a
// contiguous copy becomes rank 1). InvalidArgument when more than
// kGpuCopyMaxRank dimensions remain, naming `what`.
absl::StatusOr<GpuStridedCopy> MakeGpuStridedCopy(
    absl::Span<const int64_t> dims, absl::Span<const int64_t> src_strides,
    absl::Span<const int64_t> dst_strides, int64_t src_offset,
    int64_t dst_offset, absl::Span<const int64_t> src_mod, const char* what);

// Row-major element strides of `dims`.
std::vector<int64_t> RowMajorStrides(absl::Span<const int64_t> dims);

// The same copy on the host, element by element: the int32 kernels whose
// arguments all live in host memory run it, and tests check plans with it
// (the GPU kernel maps indices the same way).
void HostStridedCopy(int elem_size, const GpuStridedCopy& copy,
                     const void* src, void* dst);

// The launch (on `stream`, a cudaStream_t). elem_size: 1, 2, 4, 8 or 16.
// The pointers are device memory (the element type's alignment).
absl::Status LaunchGpuStridedCopy(int elem_size, const GpuStridedCopy& copy,
                                  const void* src, void* dst, void* stream);

// dst[i] = *value for i < n; `value` points to device memory.
absl::Status LaunchGpuFillFromDevice(int elem_size, const void* value,
                                     void* dst, int64_t n, void* stream);

// dst[i] = the element whose bytes are `value` (host memory, elem_size
// bytes) for i < n.
absl::Status LaunchGpuFillValue(int elem_size, const void* value, void* dst,
                                int64_t n, void* stream);

}  // namespace dflow

#endif  // DFLOW_KERNELS_GPU_ARRAY_OPS_GPU_H_
