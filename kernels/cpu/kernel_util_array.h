// Helpers for the kernels that move elements without computing on them
// (constants, identities, shape ops, transpose, slicing): the dtype lists
// they register for, reading index inputs (shapes, axes, permutations)
// given as int32 or int64 tensors, and dispatch on element *size* so one
// instantiation serves every dtype of that width.
#ifndef DFLOW_KERNELS_CPU_KERNEL_UTIL_ARRAY_H_
#define DFLOW_KERNELS_CPU_KERNEL_UTIL_ARRAY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "graph/tensor.h"
#include "graph/types.h"

namespace dflow {
namespace array_kernels {

// Index vectors (shapes, begins, permutations) are short: keep them inline.
using IndexVec = absl::InlinedVector<int64_t, 8>;

// Every dtype a Tensor can hold except the quantized and float8 ones: the
// numbers, bool, string and complex types. What data-movement kernels
// (Identity, Reshape, ConcatV2, ...) register for.
const std::vector<DataType>& AllTensorTypes();
// AllTensorTypes() plus DT_RESOURCE and DT_VARIANT: Identity and friends
// also pass variable handles and TensorLists along.
const std::vector<DataType>& AllTypesAndResource();

// The int64 values of a rank-0 or rank-1 int32/int64 tensor (int8/int16 are
// accepted too for SplitV's `size_splits` and StridedSlice's indices).
// `what` names the input in errors ("input 'perm'").
absl::Status ReadIndexVector(const Tensor& t, absl::string_view what,
                             IndexVec* out);
// The value of a scalar (or one-element vector) integer tensor.
absl::Status ReadIndexScalar(const Tensor& t, absl::string_view what,
                             int64_t* out);

// Maps `axis` in [-rank, rank) to [0, rank), or fails naming the shape.
// `what` names the argument ("axis", "split_dim").
absl::Status CanonicalAxis(int64_t axis, int rank, const TensorShape& shape,
                           absl::string_view what, int* out);

// Reshape's output shape: `input` reshaped to the int vector `sizes_t`,
// where one size may be -1 (inferred from the others; zero sizes are left
// out of the inference, so [0,4] -> [-1,0] gives [4,0]). InvalidArgument
// naming the requested shape when sizes are bad or the element counts
// differ. Shared by the CPU and GPU Reshape kernels.
absl::StatusOr<TensorShape> ReshapeTarget(const TensorShape& input,
                                          const Tensor& sizes_t);

// Product of dims [begin, end) of `shape` (1 for an empty range).
int64_t DimProduct(const TensorShape& shape, int begin, int end);

// A 16-byte trivially copyable element (complex128 moves as this).
struct alignas(8) Bytes16 {
  uint64_t lo;
  uint64_t hi;
};

// Calls visit(static_cast<T*>(nullptr)) with T the type kernels move
// elements of `dtype` as: uint8_t, uint16_t, uint32_t, uint64_t or Bytes16
// by element size, std::string for strings. Returns false for dtypes a
// Tensor cannot hold.
template <typename Visitor>
bool VisitCopyType(DataType dtype, Visitor&& visit) {
  if (StorageDataType(dtype) == DT_STRING) {
    visit(static_cast<std::string*>(nullptr));
    return true;
  }
  switch (DataTypeSize(StorageDataType(dtype))) {
    case 1:
      visit(static_cast<uint8_t*>(nullptr));
      return true;
    case 2:
      visit(static_cast<uint16_t*>(nullptr));
      return true;
    case 4:
      visit(static_cast<uint32_t*>(nullptr));
      return true;
    case 8:
      visit(static_cast<uint64_t*>(nullptr));
      return true;
    case 16:
      visit(static_cast<Bytes16*>(nullptr));
      return true;
    default:
      return false;
  }
}

// Elements of a tensor as the copy type T chosen by VisitCopyType.
template <typename T>
const T* CopyData(const Tensor& t) {
  return static_cast<const T*>(t.raw_data());
}
template <typename T>
T* CopyData(Tensor* t) {
  return static_cast<T*>(t->raw_data());
}

}  // namespace array_kernels
}  // namespace dflow

#endif  // DFLOW_KERNELS_CPU_KERNEL_UTIL_ARRAY_H_
