// Helpers shared by CPU kernels: Eigen views of dflow Tensors, NumPy
// broadcasting of two shapes, and sharding elementwise work over the
// device's thread pool.
//
// Eigen views. AsEigen<T, N>(tensor) maps a tensor of rank N as a row-major
// Eigen::TensorMap without copying; the const overload (taken for
// `const Tensor&`) maps `const` elements. T may be the dflow storage type or
// its Eigen spelling: float16 and Eigen::half both give an Eigen::half map
// (likewise bfloat16). Maps are Unaligned because Tensor::Slice views and the
// shards of a tensor handed to ParallelFor need not be aligned; unaligned
// loads of aligned data cost nothing on current x86 cores.
//
//   const Tensor& x = ctx->input(0);               // rank 2, checked before
//   auto in = AsEigen<float, 2>(x);               // TensorMap<const float,2>
//   auto out = AsEigenFlat<float>(*output);       // rank 1, all elements
//   auto rows = AsEigenFlatInnerDims<float, 2>(x);  // [prod(d0..dn-2), dn-1]
//
// The rank (and for the fixed-rank forms, the element type) are the
// kernel's promise: they are asserted in debug builds only, so validate
// user-controlled ranks with OP_REQUIRES before mapping.
//
// Threads. Evaluate Eigen expressions on Eigen::DefaultDevice inside
// ParallelForShards (below), never on an Eigen ThreadPoolDevice: Eigen's
// ThreadPoolDevice blocks its caller in a Barrier until queued blocks run,
// so two kernels doing so from the two workers of a 2-thread pool deadlock
// (reproduced). ThreadPool::ParallelFor lets the caller run unclaimed blocks
// itself and cannot deadlock when nested.
#ifndef DFLOW_KERNELS_CPU_KERNEL_UTIL_H_
#define DFLOW_KERNELS_CPU_KERNEL_UTIL_H_

// EIGEN_USE_THREADS must be consistent across translation units that include
// Eigen's Tensor module (it changes its class layouts).
#ifndef EIGEN_USE_THREADS
#define EIGEN_USE_THREADS
#endif

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "absl/container/inlined_vector.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "graph/tensor.h"
#include "graph/tensor_shape.h"
#include "graph/types.h"
#include "runtime/op_kernel.h"
#include "runtime/thread_pool.h"
#include "unsupported/Eigen/CXX11/Tensor"

namespace dflow {

// Largest rank the fixed-rank helpers are meant for (Eigen compiles one
// evaluator per rank, so kernels instantiate only the ranks they need).
inline constexpr int kMaxEigenRank = 8;

// --- Element types. ---

namespace kernel_util_internal {
template <typename T>
struct ElementTypes {
  using Eigen = T;
  using Storage = T;
};
template <>
struct ElementTypes<float16> {
  using Eigen = ::Eigen::half;
  using Storage = float16;
};
template <>
struct ElementTypes<::Eigen::half> {
  using Eigen = ::Eigen::half;
  using Storage = float16;
};
template <>
struct ElementTypes<bfloat16> {
  using Eigen = ::Eigen::bfloat16;
  using Storage = bfloat16;
};
template <>
struct ElementTypes<::Eigen::bfloat16> {
  using Eigen = ::Eigen::bfloat16;
  using Storage = bfloat16;
};
}  // namespace kernel_util_internal

// The Eigen element type for T (float16 -> Eigen::half, bfloat16 ->
// Eigen::bfloat16, anything else unchanged).
template <typename T>
using EigenElement =
    typename kernel_util_internal::ElementTypes<std::remove_const_t<T>>::Eigen;
// The type Tensor::data<>() stores T as (the inverse mapping).
template <typename T>
using StorageElement = typename kernel_util_internal::ElementTypes<
    std::remove_const_t<T>>::Storage;

// Pointers to a tensor's elements as Eigen element types.
template <typename T>
EigenElement<T>* EigenData(Tensor& t) {
  return reinterpret_cast<EigenElement<T>*>(t.data<StorageElement<T>>());
}
template <typename T>
const EigenElement<T>* EigenData(const Tensor& t) {
  return reinterpret_cast<const EigenElement<T>*>(t.data<StorageElement<T>>());
}

// --- Eigen maps. ---

template <typename T, int N>
using EigenTensorMap = Eigen::TensorMap<
    Eigen::Tensor<EigenElement<T>, N, Eigen::RowMajor, Eigen::DenseIndex>,
    Eigen::Unaligned>;
template <typename T, int N>
using ConstEigenTensorMap = Eigen::TensorMap<
    Eigen::Tensor<const EigenElement<T>, N, Eigen::RowMajor, Eigen::DenseIndex>,
    Eigen::Unaligned>;
// A rank-0 map of one element.
template <typename T>
using EigenScalarMap =
    Eigen::TensorMap<Eigen::TensorFixedSize<EigenElement<T>, Eigen::Sizes<>,
                                            Eigen::RowMajor, Eigen::DenseIndex>,
                     Eigen::Unaligned>;
template <typename T>
using ConstEigenScalarMap = Eigen::TensorMap<
    Eigen::TensorFixedSize<const EigenElement<T>, Eigen::Sizes<>,
                           Eigen::RowMajor, Eigen::DenseIndex>,
    Eigen::Unaligned>;

template <int N>
using EigenDims = Eigen::DSizes<Eigen::DenseIndex, N>;

// The N dimensions of `shape`, which must have rank N.
template <int N>
EigenDims<N> ToEigenDims(const TensorShape& shape) {
  assert(shape.rank() == N);
  EigenDims<N> dims;
  for (int i = 0; i < N; ++i) dims[i] = shape.dim(i);
  return dims;
}

// `shape` seen with rank N: the first rank-N+1 dimensions multiplied into
// one (or leading 1s added when the rank is below N).
template <int N>
EigenDims<N> FlatInnerDims(const TensorShape& shape) {
  static_assert(N >= 1, "FlatInnerDims needs N >= 1");
  EigenDims<N> dims;
  const int rank = shape.rank();
  for (int i = 0; i < N; ++i) dims[i] = 1;
  for (int i = 0; i < rank; ++i) {
    const int j = i - (rank - N);
    dims[j < 0 ? 0 : j] *= shape.dim(i);
  }
  return dims;
}

// `shape` seen with rank N: the last rank-N+1 dimensions multiplied into
// one (or trailing 1s added when the rank is below N).
template <int N>
EigenDims<N> FlatOuterDims(const TensorShape& shape) {
  static_assert(N >= 1, "FlatOuterDims needs N >= 1");
  EigenDims<N> dims;
  for (int i = 0; i < N; ++i) dims[i] = 1;
  for (int i = 0; i < shape.rank(); ++i)
    dims[i < N ? i : N - 1] *= shape.dim(i);
  return dims;
}

// Rank-N view; t.rank() must be N.
template <typename T, int N>
EigenTensorMap<T, N> AsEigen(Tensor& t) {
  return EigenTensorMap<T, N>(EigenData<T>(t), ToEigenDims<N>(t.shape()));
}
template <typename T, int N>
ConstEigenTensorMap<T, N> AsEigen(const Tensor& t) {
  return ConstEigenTensorMap<T, N>(EigenData<T>(t), ToEigenDims<N>(t.shape()));
}

// Rank-N view with explicit dimensions whose product is t.NumElements().
template <typename T, int N>
EigenTensorMap<T, N> AsEigenShaped(Tensor& t, const EigenDims<N>& dims) {
  assert(dims.TotalSize() == t.NumElements());
  return EigenTensorMap<T, N>(EigenData<T>(t), dims);
}
template <typename T, int N>
ConstEigenTensorMap<T, N> AsEigenShaped(const Tensor& t,
                                        const EigenDims<N>& dims) {
  assert(dims.TotalSize() == t.NumElements());
  return ConstEigenTensorMap<T, N>(EigenData<T>(t), dims);
}

// All elements as a vector, whatever the rank.
template <typename T>
EigenTensorMap<T, 1> AsEigenFlat(Tensor& t) {
  return EigenTensorMap<T, 1>(EigenData<T>(t), t.NumElements());
}
template <typename T>
ConstEigenTensorMap<T, 1> AsEigenFlat(const Tensor& t) {
  return ConstEigenTensorMap<T, 1>(EigenData<T>(t), t.NumElements());
}

// Rank-1 and rank-2 tensors.
template <typename T>
EigenTensorMap<T, 1> AsEigenVec(Tensor& t) {
  return AsEigen<T, 1>(t);
}
template <typename T>
ConstEigenTensorMap<T, 1> AsEigenVec(const Tensor& t) {
  return AsEigen<T, 1>(t);
}
template <typename T>
EigenTensorMap<T, 2> AsEigenMatrix(Tensor& t) {
  return AsEigen<T, 2>(t);
}
template <typename T>
ConstEigenTensorMap<T, 2> AsEigenMatrix(const Tensor& t) {
  return AsEigen<T, 2>(t);
}

// Any rank, seen as rank N (see FlatInnerDims / FlatOuterDims): e.g.
// AsEigenFlatInnerDims<float, 2> of [8,32,32,3] is [8192,3] (bias add),
// AsEigenFlatOuterDims<float, 2> of [8,32,32,3] is [8,3072] (per example).
template <typename T, int N>
EigenTensorMap<T, N> AsEigenFlatInnerDims(Tensor& t) {
  return EigenTensorMap<T, N>(EigenData<T>(t), FlatInnerDims<N>(t.shape()));
}
template <typename T, int N>
ConstEigenTensorMap<T, N> AsEigenFlatInnerDims(const Tensor& t) {
  return ConstEigenTensorMap<T, N>(EigenData<T>(t),
                                   FlatInnerDims<N>(t.shape()));
}
template <typename T, int N>
EigenTensorMap<T, N> AsEigenFlatOuterDims(Tensor& t) {
  return EigenTensorMap<T, N>(EigenData<T>(t), FlatOuterDims<N>(t.shape()));
}
template <typename T, int N>
ConstEigenTensorMap<T, N> AsEigenFlatOuterDims(const Tensor& t) {
  return ConstEigenTensorMap<T, N>(EigenData<T>(t),
                                   FlatOuterDims<N>(t.shape()));
}

// The single element of a tensor with exactly one element (any rank).
template <typename T>
EigenScalarMap<T> AsEigenScalar(Tensor& t) {
  assert(t.NumElements() == 1);
  return EigenScalarMap<T>(EigenData<T>(t));
}
template <typename T>
ConstEigenScalarMap<T> AsEigenScalar(const Tensor& t) {
  assert(t.NumElements() == 1);
  return ConstEigenScalarMap<T>(EigenData<T>(t));
}

// --- Broadcasting. ---

// How two shapes broadcast under NumPy rules, and the same broadcast in
// collapsed form for evaluation.
//
// Collapsing: the shapes are aligned at their last dimension (the shorter
// one padded with leading 1s); dimensions of size 1 in both are dropped;
// each remaining dimension is "same" (both sizes equal), "x repeats"
// (x has 1) or "y repeats" (y has 1); adjacent dimensions of the same kind
// are merged into one. So [8,32,32,16] + [16] is [8192,16] + [1,16], a
// scalar against anything is rank 1, and equal shapes are one flat
// dimension. The collapsed rank is at least 1 and at most the larger rank.
//
// In collapsed form, for every dimension i:
//   result[i] == x_reshape[i] * x_bcast[i] == y_reshape[i] * y_bcast[i],
// so `x.reshape(x_reshape).broadcast(x_bcast)` (likewise y) has the
// collapsed result shape, whose elements in row-major order are those of
// output_shape.
struct BCast {
  using Dims = absl::InlinedVector<int64_t, 4>;

  // The broadcast shape, rank max(rank(x), rank(y)).
  TensorShape output_shape;
  // Collapsed form; all five have the same length.
  Dims x_reshape;
  Dims x_bcast;
  Dims y_reshape;
  Dims y_bcast;
  Dims result;

  int rank() const { return static_cast<int>(result.size()); }
  // No element of x or y repeats: x, y and the output have the same number
  // of elements and one flat loop computes the op (the shapes may still
  // differ by leading 1s: [1,3] and [3]).
  bool same_elements() const {
    return rank() == 1 && x_bcast[0] == 1 && y_bcast[0] == 1;
  }
};

// Fails with InvalidArgument "Incompatible shapes: [2,3] vs. [4] ..." when
// some aligned dimension pair differs and neither is 1. Both shapes must be
// fully defined (they are the shapes of runtime tensors).
absl::StatusOr<BCast> BroadcastShapes(const TensorShape& x,
                                      const TensorShape& y);

// --- Threads. ---

// Work below this many cycles runs on the calling thread: a hand-off to
// the pool costs more than it saves (about 16k cheap elements).
inline constexpr int64_t kMinParallelCost = 16384;

// Whether n units of cost_per_unit cycles are worth sharding over ctx's
// pool: it has more than one thread and the work is at least
// kMinParallelCost cycles.
inline bool WorthParallel(OpKernelContext* ctx, int64_t n,
                          int64_t cost_per_unit) {
  const ThreadPool* pool = ctx->thread_pool();
  if (pool == nullptr || pool->num_threads() <= 1) return false;
  const int64_t cost = cost_per_unit < 1 ? 1 : cost_per_unit;
  // n * cost >= kMinParallelCost, without overflow.
  return n >= (kMinParallelCost + cost - 1) / cost;
}

// Calls fn(begin, end) over disjoint ranges covering [0, n): on the caller
// when n * cost_per_unit (roughly cycles per unit) is small or the pool has
// one thread, else sharded with ThreadPool::ParallelFor (safe to nest). Does
// not allocate on the inline path.
template <typename Fn>
void ParallelForShards(OpKernelContext* ctx, int64_t n, int64_t cost_per_unit,
                       Fn&& fn) {
  if (n <= 0) return;
  if (!WorthParallel(ctx, n, cost_per_unit)) {
    fn(int64_t{0}, n);
    return;
  }
  ThreadPool* pool = ctx->thread_pool();
  // Captures one pointer, so std::function holds it without allocating.
  auto* f = &fn;
  pool->ParallelFor(n, cost_per_unit,
                    [f](int64_t begin, int64_t end) { (*f)(begin, end); });
}

// Elements a shard of ParallelForElements starts at a multiple of: 64
// bytes of floats, so a float shard starts on a cache line and on a packet
// of any vector width (AVX-512 included).
inline constexpr int64_t kElementShardAlign = 16;

// ParallelForShards over the elements [0, n) of a tensor, with every shard
// starting at a multiple of kElementShardAlign. Eigen computes the elements
// around the aligned packets of a range one by one, on its scalar path,
// which for Exp, Log, Tanh and Sigmoid may give other bits than its packet
// path: with shards at arbitrary offsets an element's bits depended on the
// thread count. Aligned, each element takes the same path however many
// threads split the tensor.
template <typename Fn>
void ParallelForElements(OpKernelContext* ctx, int64_t n,
                         int64_t cost_per_element, Fn&& fn) {
  if (n <= 0) return;
  constexpr int64_t kAlign = kElementShardAlign;
  if (!WorthParallel(ctx, n, cost_per_element)) {
    fn(int64_t{0}, n);
    return;
  }
  ParallelForShards(ctx, (n + kAlign - 1) / kAlign, cost_per_element * kAlign,
                    [&fn, n](int64_t c0, int64_t c1) {
                      fn(c0 * kAlign, std::min(n, c1 * kAlign));
                    });
}

}  // namespace dflow

#endif  // DFLOW_KERNELS_CPU_KERNEL_UTIL_H_
