// Helpers the tf.sparse kernels (kernels/cpu/sparse_ops*.cc) share: the
// checks of a SparseTensor's three parts and the row-major comparison of
// two index rows. Errors are InvalidArguments; the executor prefixes them
// with the node and the op.
#ifndef DFLOW_KERNELS_CPU_SPARSE_OPS_UTIL_H_
#define DFLOW_KERNELS_CPU_SPARSE_OPS_UTIL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/tensor.h"

namespace dflow {
namespace sparse_util {

// "[1, 2]": row i of an [N, R] index matrix.
inline std::string IndexText(const int64_t* idx, int64_t i, int64_t r) {
  std::vector<int64_t> v(idx + i * r, idx + (i + 1) * r);
  return absl::StrCat("[", absl::StrJoin(v, ", "), "]");
}

// -1, 0 or 1: row i of a against row j of b, lexicographically.
inline int CompareRows(const int64_t* a, int64_t i, const int64_t* b,
                       int64_t j, int64_t r) {
  for (int64_t d = 0; d < r; ++d) {
    if (a[i * r + d] < b[j * r + d]) return -1;
    if (a[i * r + d] > b[j * r + d]) return 1;
  }
  return 0;
}

// indices [N, R], values [N] and dense_shape [R]; `what` names the tensor
// in messages ("a", "input", ...).
inline absl::Status CheckSparse(const Tensor& indices, const Tensor& values,
                                const Tensor& shape, const std::string& what) {
  if (indices.shape().rank() != 2 || values.shape().rank() != 1 ||
      shape.shape().rank() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, ": indices must be a matrix, values and dense_shape vectors, "
              "but have shapes ",
        indices.shape().ToString(), ", ", values.shape().ToString(), " and ",
        shape.shape().ToString()));
  }
  if (indices.shape().dim(0) != values.shape().dim(0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, ": indices ", indices.shape().ToString(), " and values ",
        values.shape().ToString(), " must have one row per value"));
  }
  if (indices.shape().dim(1) != shape.shape().dim(0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, ": indices ", indices.shape().ToString(),
        " must have one column per dimension of dense_shape ",
        shape.shape().ToString()));
  }
  return absl::OkStatus();
}

// Every dim of the dense_shape is >= 0 and every index inside it.
inline absl::Status CheckBounds(const Tensor& indices, const Tensor& shape,
                                const std::string& what) {
  const int64_t n = indices.shape().dim(0), r = indices.shape().dim(1);
  const int64_t* dims = shape.data<int64_t>();
  for (int64_t d = 0; d < r; ++d) {
    if (dims[d] < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          what, ": dense_shape[", d, "] = ", dims[d], " is negative"));
    }
  }
  const int64_t* idx = indices.data<int64_t>();
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t d = 0; d < r; ++d) {
      const int64_t v = idx[i * r + d];
      if (v < 0 || v >= dims[d]) {
        return absl::InvalidArgumentError(absl::StrCat(
            what, ": indices[", i, "] = ", IndexText(idx, i, r),
            " is out of bounds of dense_shape [",
            absl::StrJoin(dims, dims + r, ", "), "]"));
      }
    }
  }
  return absl::OkStatus();
}

// CheckSparse and CheckBounds.
inline absl::Status CheckSparseInBounds(const Tensor& indices,
                                        const Tensor& values,
                                        const Tensor& shape,
                                        const std::string& what) {
  absl::Status s = CheckSparse(indices, values, shape, what);
  if (!s.ok()) return s;
  return CheckBounds(indices, shape, what);
}

// Indices in strictly increasing row-major order (no repeats).
inline absl::Status CheckOrdered(const Tensor& indices,
                                 const std::string& what) {
  const int64_t n = indices.shape().dim(0), r = indices.shape().dim(1);
  const int64_t* idx = indices.data<int64_t>();
  for (int64_t i = 1; i < n; ++i) {
    const int c = CompareRows(idx, i - 1, idx, i, r);
    if (c >= 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          what, ": indices[", i, "] = ", IndexText(idx, i, r), " is ",
          c == 0 ? "repeated" : "out of order",
          "; sort the indices (tf.sparse.reorder)"));
    }
  }
  return absl::OkStatus();
}

// The same dense_shape vector.
inline bool SameShape(const Tensor& a, const Tensor& b) {
  if (a.NumElements() != b.NumElements()) return false;
  for (int64_t i = 0; i < a.NumElements(); ++i) {
    if (a.data<int64_t>()[i] != b.data<int64_t>()[i]) return false;
  }
  return true;
}

inline std::string ShapeText(const Tensor& shape) {
  const int64_t* d = shape.data<int64_t>();
  return absl::StrCat("[", absl::StrJoin(d, d + shape.NumElements(), ", "),
                      "]");
}

}  // namespace sparse_util
}  // namespace dflow

#endif  // DFLOW_KERNELS_CPU_SPARSE_OPS_UTIL_H_
