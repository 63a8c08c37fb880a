#include "kernels/cpu/kernel_util_strided_slice.h"

#include <cstdint>
#include <string>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/types/span.h"

namespace dflow {
namespace strided_slice {
namespace {

std::string Ints(absl::Span<const int64_t> v) {
  return absl::StrCat("[", absl::StrJoin(v, ","), "]");
}

}  // namespace

// TensorFlow's semantics: the spec is "sparse" (it may hold one ellipsis,
// standing for as many whole dimensions as needed, and new axes); it is
// first expanded to one entry per input dimension, then each entry's
// begin/end are made canonical (negative from the end, clamped, masks).
absl::Status BuildStridedBox(const TensorShape& shape, const IndexVec& sb,
                             const IndexVec& se, const IndexVec& ss,
                             const StridedSliceMasks& m, StridedBox* box) {
  const int rank = shape.rank();
  const int n = static_cast<int>(sb.size());
  const auto spec = [&] {
    return absl::StrCat("begin = ", Ints(sb), ", end = ", Ints(se),
                        ", strides = ", Ints(ss), " on shape ",
                        shape.ToString());
  };
  if (n > 63) {
    return absl::InvalidArgumentError(absl::StrCat(
        "a slice spec has at most 63 entries, got ", n, " (", spec(), ")"));
  }
  const uint64_t ellipsis_mask = static_cast<uint64_t>(m.ellipsis);
  if ((ellipsis_mask & (ellipsis_mask - 1)) != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("ellipsis_mask ", m.ellipsis,
                     " marks more than one ellipsis (", spec(), ")"));
  }
  // New axes after the ellipsis do not consume input dimensions.
  int sparse_dims = n;
  int new_axes_after_ellipsis = 0;
  bool ellipsis_seen = false;
  for (int i = 0; i < n; ++i) {
    const uint64_t bit = uint64_t{1} << i;
    if (ellipsis_seen && (m.new_axis & bit) != 0) ++new_axes_after_ellipsis;
    if ((ellipsis_mask & bit) != 0) ellipsis_seen = true;
  }
  uint64_t ellipsis = ellipsis_mask;
  if (!ellipsis_seen) {
    // An implied ellipsis at the end: unmentioned dimensions are taken
    // whole.
    ellipsis |= uint64_t{1} << n;
    ++sparse_dims;
  }

  // Dense spec: one entry per input dimension.
  IndexVec begin(rank, 0), end(rank, 0), strides(rank, 1);
  absl::InlinedVector<bool, 8> begin_masked(rank, true), end_masked(rank, true),
      shrink(rank, false);
  IndexVec gather;  // output dim -> dense dim, kNewAxis or kShrunk
  int full = 0;
  for (int i = 0; i < sparse_dims; ++i) {
    const uint64_t bit = uint64_t{1} << i;
    if ((ellipsis & bit) != 0) {
      const int next = std::min(
          rank - (sparse_dims - i) + 1 + new_axes_after_ellipsis, rank);
      for (; full < next; ++full) gather.push_back(full);
    } else if ((static_cast<uint64_t>(m.new_axis) & bit) != 0) {
      gather.push_back(kNewAxis);
    } else {
      if (full == rank) {
        return absl::InvalidArgumentError(absl::StrCat(
            "the slice spec indexes more dimensions than the input's ", rank,
            " (", spec(), ")"));
      }
      begin[full] = sb[i];
      end[full] = se[i];
      strides[full] = ss[i];
      begin_masked[full] = (static_cast<uint64_t>(m.begin) & bit) != 0;
      end_masked[full] = (static_cast<uint64_t>(m.end) & bit) != 0;
      if ((static_cast<uint64_t>(m.shrink) & bit) != 0) {
        shrink[full] = true;
        gather.push_back(kShrunk);
      } else {
        gather.push_back(full);
      }
      ++full;
    }
  }

  box->begin.resize(rank);
  box->strides.resize(rank);
  box->sizes.resize(rank);
  box->identity = true;
  for (int i = 0; i < rank; ++i) {
    const int64_t dim = shape.dim(i);
    const int64_t stride = strides[i];
    if (stride == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("the stride for dimension ", i,
                       " is 0; strides must be non-zero (", spec(), ")"));
    }
    int64_t b = 0, e = 0;
    if (shrink[i]) {
      if (stride < 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            "dimension ", i, " is indexed (shrink_axis_mask) with stride ",
            stride, "; indexing needs a positive stride (", spec(), ")"));
      }
      b = begin[i] < 0 ? dim + begin[i] : begin[i];
      if (b < 0 || b >= dim) {
        return absl::InvalidArgumentError(
            absl::StrCat("index ", begin[i], " is out of range for dimension ",
                         i, " of size ", dim, " (", spec(), ")"));
      }
      e = b + 1;
    } else {
      // Valid positions: [0, dim] going forward, [-1, dim - 1] backward
      // (-1 meaning "before the first element").
      const int64_t lo = stride > 0 ? 0 : -1;
      const int64_t hi = stride > 0 ? dim : dim - 1;
      const auto canonical = [&](int64_t x, bool masked, bool is_begin) {
        if (masked) return (stride > 0) == is_begin ? lo : hi;
        const int64_t fwd = x < 0 ? dim + x : x;
        return fwd < lo ? lo : (fwd > hi ? hi : fwd);
      };
      b = canonical(begin[i], begin_masked[i], true);
      e = canonical(end[i], end_masked[i], false);
    }
    const int64_t interval = e - b;
    int64_t size = 0;
    if (interval != 0 && (interval < 0) == (stride < 0)) {
      size = interval / stride + (interval % stride != 0 ? 1 : 0);
    }
    box->begin[i] = b;
    box->strides[i] = stride;
    box->sizes[i] = size;
    box->identity = box->identity && stride == 1 && b == 0 && e == dim;
  }
  box->out_shape = TensorShape();
  for (int64_t g : gather) {
    if (g >= 0) {
      box->out_shape.AddDim(box->sizes[g]);
    } else if (g == kNewAxis) {
      box->out_shape.AddDim(1);
    }
  }
  return absl::OkStatus();
}

// The five mask attrs of StridedSlice and StridedSliceGrad.
void ReadMasks(OpKernelConstruction* ctx, StridedSliceMasks* masks) {
  for (auto [name, field] :
       {std::pair<const char*, int64_t*>{"begin_mask", &masks->begin},
        {"end_mask", &masks->end},
        {"ellipsis_mask", &masks->ellipsis},
        {"new_axis_mask", &masks->new_axis},
        {"shrink_axis_mask", &masks->shrink}}) {
    absl::Status s = ctx->GetAttr(name, field);
    if (!s.ok()) {
      ctx->SetStatus(s);
      return;
    }
  }
}

// Reads begin/end/strides (inputs first..first+2) and builds the box they
// select in `shape`.
absl::Status ReadStridedBox(OpKernelContext* ctx, int first,
                            const TensorShape& shape,
                            const StridedSliceMasks& masks, StridedBox* box) {
  const Tensor& b = ctx->input(first);
  const Tensor& e = ctx->input(first + 1);
  const Tensor& s = ctx->input(first + 2);
  if (b.shape().rank() != 1 || b.shape() != e.shape() ||
      b.shape() != s.shape()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "begin, end and strides must be vectors of one length, but have "
        "shapes ",
        b.shape().ToString(), ", ", e.shape().ToString(), " and ",
        s.shape().ToString()));
  }
  IndexVec begin, end, strides;
  for (auto [t, what, out] :
       {std::tuple<const Tensor*, const char*, IndexVec*>{&b, "begin", &begin},
        {&e, "end", &end},
        {&s, "strides", &strides}}) {
    absl::Status status = array_kernels::ReadIndexVector(*t, what, out);
    if (!status.ok()) return status;
  }
  return BuildStridedBox(shape, begin, end, strides, masks, box);
}

}  // namespace strided_slice
}  // namespace dflow
