// Helpers shared by the index-op kernels (index_ops_*.cc): integer inputs
// of either width, TensorFlow's "indices[1,2]" positions, copying
// elements of any dtype, and the index tuples of the N-d ops (GatherNd,
// ScatterNd, TensorScatter*) with their bad_indices_policy.
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
#include "runtime/op_kernel.h"

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

// Whether bad indices are errors (TensorFlow's "", "DEFAULT", "ERROR") or
// ignored ("IGNORE"); another value fails the kernel's construction.
inline bool ReadIgnoreBadIndices(OpKernelConstruction* ctx) {
  std::string policy;
  ctx->SetStatus(ctx->GetAttr("bad_indices_policy", &policy));
  if (!ctx->status().ok()) return false;
  if (policy == "IGNORE") return true;
  if (!policy.empty() && policy != "DEFAULT" && policy != "ERROR") {
    ctx->SetStatus(absl::InvalidArgumentError(absl::StrCat(
        "bad_indices_policy must be '', 'DEFAULT', 'ERROR' or 'IGNORE', not '",
        policy, "'")));
  }
  return false;
}

// The flat offset (in slices of the trailing dims) of index tuple `t` of
// `indices` ([N, r] flattened) into `dims`, or -1 when out of range;
// `tuple` gets its values for the error message.
inline int64_t TupleOffset(const Tensor& indices, int64_t t, int64_t r,
                           const TensorShape& dims,
                           std::vector<int64_t>* tuple) {
  int64_t offset = 0;
  bool ok = true;
  tuple->resize(r);
  for (int64_t j = 0; j < r; ++j) {
    const int64_t v = IntAt(indices, t * r + j);
    (*tuple)[j] = v;
    const int64_t size = dims.dim(static_cast<int>(j));
    if (v < 0 || v >= size) ok = false;
    offset = offset * size + v;
  }
  return ok ? offset : -1;
}

// "indices[1] = [5, 0]".
inline std::string TupleText(const TensorShape& indices_shape, int64_t t,
                             const std::vector<int64_t>& tuple) {
  TensorShape batch(indices_shape.dims().subspan(0, indices_shape.rank() - 1));
  return absl::StrCat("indices", Position(batch, t), " = [",
                      absl::StrJoin(tuple, ", "), "]");
}

}  // namespace index_ops
}  // namespace dflow

#endif  // DFLOW_KERNELS_CPU_INDEX_OPS_COMMON_H_
