// Element-moving routines shared by the slicing kernels (ConcatV2, Pack,
// Split, SplitV, Unpack, Slice, StridedSlice, StridedSliceGrad, Pad, Tile).
// Each works on any dtype (dispatching on element width, strings by value),
// copies whole contiguous runs with memcpy where it can, and splits large work
// over the device's thread pool.
#ifndef DFLOW_KERNELS_CPU_SLICING_OPS_UTIL_H_
#define DFLOW_KERNELS_CPU_SLICING_OPS_UTIL_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "graph/tensor.h"
#include "kernels/cpu/kernel_util_array.h"
#include "runtime/thread_pool.h"

namespace dflow {
namespace slicing {

using array_kernels::IndexVec;

// Elements [offset, offset + shape.num_elements()) of `in`, in row-major
// order, as a tensor of `shape` sharing `in`'s buffer.
absl::StatusOr<Tensor> SharedRange(const Tensor& in, int64_t offset,
                                   const TensorShape& shape);

// Whether the box of `in_dims` selected by begin/strides/sizes (one entry
// per dimension; sizes >= 0) is one contiguous run of elements; if so
// *offset is its first element. That holds when every dimension before
// some k has size 1, every one after k is taken whole with stride 1, and k
// itself has stride 1 or size <= 1.
bool ContiguousBox(absl::Span<const int64_t> in_dims,
                   absl::Span<const int64_t> begin,
                   absl::Span<const int64_t> strides,
                   absl::Span<const int64_t> sizes, int64_t* offset);

// out[i_0, ..., i_n] = in[begin_0 + i_0 * strides_0, ...] for i_k < sizes_k.
// `out` has sizes' element count (any shape); the indices must be in range
// (callers validate them).
void StridedGather(const Tensor& in, absl::Span<const int64_t> begin,
                   absl::Span<const int64_t> strides,
                   absl::Span<const int64_t> sizes, Tensor* out,
                   ThreadPool* pool);

// The inverse: out[begin_0 + i_0 * strides_0, ...] = in[i_0, ...] for
// i_k < sizes_k (`in` has sizes' element count, any shape); the other
// elements of `out` are left as they are.
void StridedScatter(const Tensor& in, absl::Span<const int64_t> begin,
                    absl::Span<const int64_t> strides,
                    absl::Span<const int64_t> sizes, Tensor* out,
                    ThreadPool* pool);

// Sets every element of `t` to zero (false, "", 0 + 0i).
void FillZeros(Tensor* t, ThreadPool* pool);

// Concatenation of `rows` rows: output row r is, for each input j in order,
// elements [r * chunks[j], (r + 1) * chunks[j]) of inputs[j].
void ConcatRows(absl::Span<const Tensor> inputs,
                absl::Span<const int64_t> chunks, int64_t rows, Tensor* out,
                ThreadPool* pool);

// The inverse: `in` is `rows` rows of sum(chunks) elements, and outs[j]
// takes the j-th run of chunks[j] elements of every row.
void SplitRows(const Tensor& in, int64_t rows, absl::Span<const int64_t> chunks,
               absl::Span<Tensor* const> outs, ThreadPool* pool);

}  // namespace slicing
}  // namespace dflow

#endif  // DFLOW_KERNELS_CPU_SLICING_OPS_UTIL_H_
