#include "kernels/cpu/slicing_ops_util.h"

#include <algorithm>
#include <string>
#include <type_traits>

#include "absl/container/inlined_vector.h"

namespace dflow {
namespace slicing {
namespace {

using array_kernels::CopyData;

// ParallelFor's cost is about cycles per element: a copied element is ~1
// for numbers (memcpy) and much more for strings.
template <typename T>
int64_t CopyCost() {
  return std::is_same_v<T, std::string> ? 50 : 1;
}

// Copies between a dense block (`dense`, sizes' element count, row-major)
// and the strided box of `strided` (a tensor of `dims`) that
// begin/strides/sizes select: dense <- box for a gather, box <- dense for a
// scatter. The box's positions are distinct (strides are non-zero), so the
// parallel ranges never write one element twice.
template <typename T, bool kScatter>
void StridedWalk(T* strided, absl::Span<const int64_t> dims,
                 absl::Span<const int64_t> begin,
                 absl::Span<const int64_t> strides,
                 absl::Span<const int64_t> sizes, T* dense, ThreadPool* pool) {
  const auto copy = [](T* box, T* block, int64_t n) {
    if constexpr (kScatter) {
      std::copy_n(block, n, box);
    } else {
      std::copy_n(box, n, block);
    }
  };
  const int rank = static_cast<int>(dims.size());
  if (rank == 0) {
    copy(strided, dense, 1);
    return;
  }
  IndexVec box_strides(rank);
  int64_t stride = 1;
  for (int i = rank - 1; i >= 0; --i) {
    box_strides[i] = stride;
    stride *= dims[i];
  }
  // Trailing dimensions taken whole form one contiguous block per position
  // of the others.
  int t = rank;
  while (t > 0 && begin[t - 1] == 0 && strides[t - 1] == 1 &&
         sizes[t - 1] == dims[t - 1]) {
    --t;
  }
  if (t == 0) {  // the whole tensor
    copy(strided, dense, box_strides[0] * dims[0]);
    return;
  }
  const int64_t block = t == rank ? 1 : box_strides[t - 1];
  const int last = t - 1;
  const int64_t n_last = sizes[last];
  const int64_t step_last = strides[last] * box_strides[last];
  int64_t outer = 1;
  for (int i = 0; i < last; ++i) outer *= sizes[i];
  const int64_t per_outer = n_last * block;
  pool->ParallelFor(
      outer, per_outer * CopyCost<T>(), [&](int64_t lo, int64_t hi) {
        for (int64_t o = lo; o < hi; ++o) {
          int64_t off = begin[last] * box_strides[last];
          int64_t rest = o;
          for (int i = last - 1; i >= 0; --i) {
            const int64_t idx = rest % sizes[i];
            rest /= sizes[i];
            off += (begin[i] + idx * strides[i]) * box_strides[i];
          }
          T* flat = dense + o * per_outer;
          if (strides[last] == 1) {
            copy(strided + off, flat, per_outer);
          } else if (block == 1) {
            for (int64_t j = 0; j < n_last; ++j) {
              if constexpr (kScatter) {
                strided[off + j * step_last] = flat[j];
              } else {
                flat[j] = strided[off + j * step_last];
              }
            }
          } else {
            for (int64_t j = 0; j < n_last; ++j) {
              copy(strided + off + j * step_last, flat + j * block, block);
            }
          }
        }
      });
}

// Walks the joined tensor (rows of sum(chunks) elements) in parallel
// ranges, copying each maximal run that lies in one piece: joined <- pieces
// for ConcatRows, pieces <- joined for SplitRows.
template <typename T, bool kConcat>
void JoinWalk(T* joined, absl::Span<T* const> pieces,
              absl::Span<const int64_t> chunks, int64_t rows,
              ThreadPool* pool) {
  IndexVec cum(chunks.size() + 1, 0);
  for (size_t j = 0; j < chunks.size(); ++j) cum[j + 1] = cum[j] + chunks[j];
  const int64_t row_size = cum.back();
  const int64_t total = rows * row_size;
  if (total == 0) return;
  pool->ParallelFor(total, CopyCost<T>(), [&](int64_t lo, int64_t hi) {
    int64_t pos = lo;
    while (pos < hi) {
      const int64_t r = pos / row_size;
      const int64_t c = pos % row_size;
      // The piece holding column c: the last j with cum[j] <= c (empty
      // pieces share their cum value with the next one and are skipped).
      const size_t j = static_cast<size_t>(
          std::upper_bound(cum.begin(), cum.end(), c) - cum.begin() - 1);
      const int64_t within = c - cum[j];
      const int64_t n = std::min(hi - pos, chunks[j] - within);
      T* piece = pieces[j] + r * chunks[j] + within;
      if constexpr (kConcat) {
        std::copy_n(piece, n, joined + pos);
      } else {
        std::copy_n(joined + pos, n, piece);
      }
      pos += n;
    }
  });
}

}  // namespace

absl::StatusOr<Tensor> SharedRange(const Tensor& in, int64_t offset,
                                   const TensorShape& shape) {
  absl::StatusOr<Tensor> flat = in.Reshaped(TensorShape({in.NumElements()}));
  if (!flat.ok()) return flat.status();
  absl::StatusOr<Tensor> piece =
      flat->SliceChecked(offset, offset + shape.num_elements());
  if (!piece.ok()) return piece.status();
  return piece->Reshaped(shape);
}

bool ContiguousBox(absl::Span<const int64_t> in_dims,
                   absl::Span<const int64_t> begin,
                   absl::Span<const int64_t> strides,
                   absl::Span<const int64_t> sizes, int64_t* offset) {
  const int rank = static_cast<int>(in_dims.size());
  int k = 0;
  while (k < rank && sizes[k] == 1) ++k;
  if (k < rank) {
    if (sizes[k] == 0 || strides[k] != 1) return false;
    for (int i = k + 1; i < rank; ++i) {
      if (begin[i] != 0 || sizes[i] != in_dims[i] ||
          (strides[i] != 1 && sizes[i] > 1)) {
        return false;
      }
    }
  }
  int64_t off = 0, stride = 1;
  for (int i = rank - 1; i >= 0; --i) {
    off += begin[i] * stride;
    stride *= in_dims[i];
  }
  *offset = off;
  return true;
}

void StridedGather(const Tensor& in, absl::Span<const int64_t> begin,
                   absl::Span<const int64_t> strides,
                   absl::Span<const int64_t> sizes, Tensor* out,
                   ThreadPool* pool) {
  if (out->NumElements() == 0) return;
  array_kernels::VisitCopyType(in.dtype(), [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    // Read-only: StridedWalk<kScatter = false> only reads `strided`.
    StridedWalk<T, false>(const_cast<T*>(CopyData<T>(in)), in.shape().dims(),
                          begin, strides, sizes, CopyData<T>(out), pool);
  });
}

void StridedScatter(const Tensor& in, absl::Span<const int64_t> begin,
                    absl::Span<const int64_t> strides,
                    absl::Span<const int64_t> sizes, Tensor* out,
                    ThreadPool* pool) {
  if (in.NumElements() == 0) return;
  array_kernels::VisitCopyType(out->dtype(), [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    // Read-only: StridedWalk<kScatter = true> only reads `dense`.
    StridedWalk<T, true>(CopyData<T>(out), out->shape().dims(), begin, strides,
                         sizes, const_cast<T*>(CopyData<T>(in)), pool);
  });
}

void FillZeros(Tensor* t, ThreadPool* pool) {
  array_kernels::VisitCopyType(t->dtype(), [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    T* data = CopyData<T>(t);
    pool->ParallelFor(
        t->NumElements(), CopyCost<T>(),
        [&](int64_t lo, int64_t hi) { std::fill(data + lo, data + hi, T{}); });
  });
}

void ConcatRows(absl::Span<const Tensor> inputs,
                absl::Span<const int64_t> chunks, int64_t rows, Tensor* out,
                ThreadPool* pool) {
  array_kernels::VisitCopyType(out->dtype(), [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    absl::InlinedVector<T*, 8> pieces;
    for (const Tensor& t : inputs) {
      // Read-only: JoinWalk<kConcat = true> only reads the pieces.
      pieces.push_back(const_cast<T*>(CopyData<T>(t)));
    }
    JoinWalk<T, true>(CopyData<T>(out), pieces, chunks, rows, pool);
  });
}

void SplitRows(const Tensor& in, int64_t rows, absl::Span<const int64_t> chunks,
               absl::Span<Tensor* const> outs, ThreadPool* pool) {
  array_kernels::VisitCopyType(in.dtype(), [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    absl::InlinedVector<T*, 8> pieces;
    for (Tensor* t : outs) pieces.push_back(CopyData<T>(t));
    // Read-only: JoinWalk<kConcat = false> only reads `joined`.
    JoinWalk<T, false>(const_cast<T*>(CopyData<T>(in)), pieces, chunks, rows,
                       pool);
  });
}

}  // namespace slicing
}  // namespace dflow
