// How MatrixDiagV3, MatrixDiagPartV3 and MatrixSetDiagV3 lay out a band of
// diagonals: k is one diagonal d or a pair [lo, hi]; diagonal d of a
// rows x cols matrix has DiagonalLength elements, element n being matrix
// element (n, n + d) for d >= 0 and (n - d, n) below, i.e. n = min(i, j).
// A band is stored as [..., hi - lo + 1, max length] (row hi - d holds
// diagonal d), a single diagonal as [..., length]; a diagonal shorter than
// the longest one is padded at the end `align` names.
#ifndef DFLOW_KERNELS_CPU_SLICING_OPS_MATRIX_DIAG_H_
#define DFLOW_KERNELS_CPU_SLICING_OPS_MATRIX_DIAG_H_

#include <algorithm>
#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "graph/tensor.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace matrix_diag {

struct Band {
  int64_t lo = 0;
  int64_t hi = 0;
  int64_t num_diags() const { return hi - lo + 1; }
};

// The band the int32 input `k` names: a scalar, or a vector of 1 or 2.
inline absl::StatusOr<Band> ReadBand(const Tensor& k) {
  if (k.shape().rank() > 1 || k.NumElements() < 1 || k.NumElements() > 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "diag_index must be a scalar or a vector of 1 or 2 elements, got "
        "shape ",
        k.shape().ToString()));
  }
  const int32_t* v = k.data<int32_t>();
  Band band{v[0], k.NumElements() == 2 ? v[1] : v[0]};
  if (band.lo > band.hi) {
    return absl::InvalidArgumentError(
        absl::StrCat("lower_diag_index must not be greater than "
                     "upper_diag_index, got ",
                     band.lo, " > ", band.hi));
  }
  return band;
}

// The band's alignment: V3's align attr; the V1 and V2 ops have none and
// pack LEFT_LEFT (V1 has one diagonal, where alignment does not matter).
inline void ReadAlign(OpKernelConstruction* ctx, std::string* align) {
  if (absl::EndsWith(ctx->node().op(), "V3")) {
    ctx->SetStatus(ctx->GetAttr("align", align));
  } else {
    *align = "LEFT_LEFT";
  }
}

inline int64_t DiagonalLength(int64_t rows, int64_t cols, int64_t d) {
  return std::max<int64_t>(0, std::min(rows + std::min<int64_t>(0, d),
                                       cols - std::max<int64_t>(0, d)));
}

// The longest diagonal of the band in a rows x cols matrix.
inline int64_t MaxDiagonalLength(int64_t rows, int64_t cols, const Band& b) {
  int64_t len = 0;
  for (int64_t d = b.lo; d <= b.hi; ++d) {
    len = std::max(len, DiagonalLength(rows, cols, d));
  }
  return len;
}

// Where diagonal d (of length `len`) starts in its row of `max_len`
// elements: superdiagonals follow align's first word, subdiagonals its
// second ("RIGHT_LEFT", TensorFlow's default, right-aligns d >= 0).
inline int64_t AlignOffset(const std::string& align, int64_t d, int64_t len,
                           int64_t max_len) {
  const bool right = d >= 0 ? absl::StartsWith(align, "RIGHT")
                            : absl::EndsWith(align, "RIGHT");
  return right ? max_len - len : 0;
}

// The error for a band outside the matrices, or OK.
inline absl::Status CheckBandInMatrix(const Band& b, int64_t rows,
                                      int64_t cols) {
  const auto inside = [&](int64_t d) {
    return (d > -rows && d < cols) || d == 0;
  };
  if (!inside(b.lo) || !inside(b.hi)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "diag_index [", b.lo, ", ", b.hi, "] is outside the ", rows, "x", cols,
        " matrices' diagonals, which are in (-", rows, ", ", cols, ")"));
  }
  return absl::OkStatus();
}

}  // namespace matrix_diag
}  // namespace dflow

#endif  // DFLOW_KERNELS_CPU_SLICING_OPS_MATRIX_DIAG_H_
