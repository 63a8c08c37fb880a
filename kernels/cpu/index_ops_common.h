// Helpers shared by the index-op kernels (index_ops_*.cc): integer inputs
// of either width, TensorFlow's "indices[1,2]" positions, and copying
// elements of any dtype.
#ifndef DFLOW_KERNELS_CPU_INDEX_OPS_COMMON_H_
#define DFLOW_KERNELS_CPU_INDEX_OPS_COMMON_H_

#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/tensor.h"
#include "graph/tensor_shape.h"

namespace dflow {
namespace index_ops {

// Element i of an integer tensor (int16, int32, int64, uint8), widened.
inline int64_t IntAt(const Tensor& t, int64_t i) {
  switch (t.dtype()) {
    case DT_INT32:
      return t.data<int32_t>()[i];
    case DT_INT64:
      return t.data<int64_t>()[i];
    case DT_INT16:
      return t.data<int16_t>()[i];
    case DT_UINT8:
      return t.data<uint8_t>()[i];
    default:
      return 0;
  }
}

// The single value of an integer scalar input `what`, or an error.
inline absl::Status IntScalar(const Tensor& t, const char* what,
                              int64_t* out) {
  if (t.shape().rank() != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, " must be a scalar, but has shape ", t.shape().ToString()));
  }
  *out = IntAt(t, 0);
  return absl::OkStatus();
}

// "[1,2]": the position of flat element `i` in `shape`, as TensorFlow
// writes it in index errors.
inline std::string Position(const TensorShape& shape, int64_t i) {
  std::vector<int64_t> index(shape.rank());
  for (int d = shape.rank() - 1; d >= 0; --d) {
    if (shape.dim(d) > 0) {
      index[d] = i % shape.dim(d);
      i /= shape.dim(d);
    }
  }
  return absl::StrCat("[", absl::StrJoin(index, ","), "]");
}

// Copies n elements (T trivially copyable: memcpy; else assignment).
template <typename T>
inline void CopyElements(const T* from, int64_t n, T* to) {
  if constexpr (std::is_trivially_copyable_v<T>) {
    if (n > 0) std::memcpy(to, from, static_cast<size_t>(n) * sizeof(T));
  } else {
    for (int64_t i = 0; i < n; ++i) to[i] = from[i];
  }
}

// dims [begin, end) of `s` multiplied.
inline int64_t Product(const TensorShape& s, int begin, int end) {
  int64_t p = 1;
  for (int i = begin; i < end; ++i) p *= s.dim(i);
  return p;
}

}  // namespace index_ops
}  // namespace dflow

#endif  // DFLOW_KERNELS_CPU_INDEX_OPS_COMMON_H_
