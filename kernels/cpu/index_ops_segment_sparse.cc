// SparseSegmentSum, SparseSegmentMean, SparseSegmentSqrtN (and their
// WithNumSegments forms): output[segment_ids[k]] gathers data[indices[k]]
// by sorted segment ids, summed, averaged or divided by sqrt(count); and
// their gradients SparseSegment{Sum,Mean,SqrtN}Grad, which scatter the
// scaled rows of grad back to output_dim0 rows at indices. As TensorFlow
// 2.21's CPU kernels; every bad index or id is an InvalidArgument naming
// its position and value.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "kernels/cpu/index_ops_common.h"
#include "kernels/cpu/index_ops_segment_reducers.h"
#include "kernels/cpu/kernel_util.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

using index_ops::IntAt;
using index_ops::Product;

enum class Combiner { kSum, kMean, kSqrtN };

// What a segment of `count` rows is multiplied by.
template <typename T>
T Scale(Combiner combiner, int64_t count) {
  switch (combiner) {
    case Combiner::kMean:
      return T(1) / static_cast<T>(count);
    case Combiner::kSqrtN:
      return T(1) / static_cast<T>(std::sqrt(static_cast<double>(count)));
    default:
      return T(1);
  }
}

// indices and segment_ids: vectors of one length.
absl::Status CheckIndexVectors(const Tensor& indices, const Tensor& ids) {
  if (indices.shape().rank() != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("indices should be a vector, but has shape ",
                     indices.shape().ToString()));
  }
  if (ids.shape().rank() != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("segment_ids should be a vector, but has shape ",
                     ids.shape().ToString()));
  }
  if (indices.NumElements() != ids.NumElements()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "segment_ids and indices should have the same size, but have ",
        ids.NumElements(), " and ", indices.NumElements()));
  }
  return absl::OkStatus();
}

template <typename T, Combiner kCombiner, bool kHasNumSegments>
class SparseSegmentReductionOp : public OpKernel {
 public:
  explicit SparseSegmentReductionOp(OpKernelConstruction* ctx)
      : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& data = ctx->input(0);
    const Tensor& indices = ctx->input(1);
    const Tensor& ids = ctx->input(2);
    const TensorShape& ds = data.shape();
    OP_REQUIRES(
        ctx, ds.rank() >= 1,
        absl::InvalidArgumentError(absl::StrCat(
            "data must be at least a vector, but has shape ", ds.ToString())));
    OP_REQUIRES_OK(ctx, CheckIndexVectors(indices, ids));
    const int64_t n = ids.NumElements();
    // Order first: an unsorted id would otherwise read as out of range of
    // the row count the last id implies.
    for (int64_t k = 1; k < n; ++k) {
      OP_REQUIRES(ctx, IntAt(ids, k) >= IntAt(ids, k - 1),
                  absl::InvalidArgumentError(absl::StrCat(
                      "segment ids are not increasing: segment_ids[", k,
                      "] = ", IntAt(ids, k), " < segment_ids[", k - 1,
                      "] = ", IntAt(ids, k - 1))));
    }
    int64_t rows = n == 0 ? 0 : IntAt(ids, n - 1) + 1;
    if constexpr (kHasNumSegments) {
      OP_REQUIRES_OK(
          ctx, index_ops::IntScalar(ctx->input(3), "num_segments", &rows));
      OP_REQUIRES(ctx, rows >= 0,
                  absl::InvalidArgumentError(absl::StrCat(
                      "num_segments must be non-negative, got ", rows)));
    }
    const int64_t data_rows = ds.dim(0);
    for (int64_t k = 0; k < n; ++k) {
      const int64_t id = IntAt(ids, k);
      OP_REQUIRES(ctx, id >= 0 && id < rows,
                  absl::InvalidArgumentError(
                      absl::StrCat("segment_ids[", k, "] = ", id,
                                   " is out of range [0, ", rows, ")")));
      const int64_t index = IntAt(indices, k);
      OP_REQUIRES(ctx, index >= 0 && index < data_rows,
                  absl::InvalidArgumentError(absl::StrCat(
                      "indices[", k, "] = ", index, " is out of range [0, ",
                      data_rows, ") (the rows of data)")));
    }
    TensorShape out_shape({rows});
    for (int i = 1; i < ds.rank(); ++i) out_shape.AddDim(ds.dim(i));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    const int64_t inner = Product(ds, 1, ds.rank());
    T* o = out->data<T>();
    std::fill(o, o + out->NumElements(), T(0));
    const T* d = data.data<T>();
    // A segment is a run of equal ids; a shard of [0, n) owns the runs
    // that start inside it, so no two shards write one row.
    ParallelForShards(ctx, n, inner, [&](int64_t k0, int64_t k1) {
      int64_t k = k0;
      while (k > 0 && k < n && IntAt(ids, k) == IntAt(ids, k - 1)) ++k;
      while (k < k1) {
        const int64_t id = IntAt(ids, k);
        T* dst = o + id * inner;
        int64_t end = k;
        for (; end < n && IntAt(ids, end) == id; ++end) {
          segment_reducers::Sum::Fold(d + IntAt(indices, end) * inner, inner,
                                      dst);
        }
        if constexpr (kCombiner != Combiner::kSum) {
          const T scale = Scale<T>(kCombiner, end - k);
          for (int64_t c = 0; c < inner; ++c) dst[c] *= scale;
        }
        k = end;
      }
    });
  }
};

template <typename T, Combiner kCombiner>
class SparseSegmentGradOp : public OpKernel {
 public:
  explicit SparseSegmentGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& grad = ctx->input(0);
    const Tensor& indices = ctx->input(1);
    const Tensor& ids = ctx->input(2);
    const TensorShape& gs = grad.shape();
    OP_REQUIRES(
        ctx, gs.rank() >= 1,
        absl::InvalidArgumentError(absl::StrCat(
            "grad must be at least a vector, but has shape ", gs.ToString())));
    OP_REQUIRES_OK(ctx, CheckIndexVectors(indices, ids));
    int64_t rows = 0;
    OP_REQUIRES_OK(ctx,
                   index_ops::IntScalar(ctx->input(3), "output_dim0", &rows));
    OP_REQUIRES(ctx, rows >= 0,
                absl::InvalidArgumentError(absl::StrCat(
                    "output_dim0 must be non-negative, got ", rows)));
    const int64_t n = ids.NumElements();
    const int64_t segments = gs.dim(0);
    std::vector<int64_t> counts(segments, 0);
    for (int64_t k = 0; k < n; ++k) {
      const int64_t id = IntAt(ids, k);
      OP_REQUIRES(ctx, id >= 0 && id < segments,
                  absl::InvalidArgumentError(absl::StrCat(
                      "segment_ids[", k, "] = ", id, " is out of range [0, ",
                      segments, ") (the rows of grad)")));
      const int64_t index = IntAt(indices, k);
      OP_REQUIRES(ctx, index >= 0 && index < rows,
                  absl::InvalidArgumentError(absl::StrCat(
                      "indices[", k, "] = ", index, " is out of range [0, ",
                      rows, ") (output_dim0)")));
      ++counts[id];
    }
    TensorShape out_shape({rows});
    for (int i = 1; i < gs.rank(); ++i) out_shape.AddDim(gs.dim(i));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    const int64_t inner = Product(gs, 1, gs.rank());
    T* o = out->data<T>();
    std::fill(o, o + out->NumElements(), T(0));
    const T* g = grad.data<T>();
    // Indices may repeat: shard the columns, keeping the order over k.
    ParallelForShards(ctx, inner, n, [&](int64_t c0, int64_t c1) {
      for (int64_t k = 0; k < n; ++k) {
        const int64_t id = IntAt(ids, k);
        const T scale = Scale<T>(kCombiner, counts[id]);
        const T* src = g + id * inner;
        T* dst = o + IntAt(indices, k) * inner;
        for (int64_t c = c0; c < c1; ++c) dst[c] += src[c] * scale;
      }
    });
  }
};

#define DFLOW_REGISTER_SPARSE_SEGMENT(op, T, ...)                     \
  DFLOW_REGISTER_KERNEL(                                              \
      KernelDefBuilder(op).Device(kDeviceCpu).TypeConstraint<T>("T"), \
      __VA_ARGS__)
#define DFLOW_REGISTER_SPARSE_SUM(T)                       \
  DFLOW_REGISTER_SPARSE_SEGMENT(                           \
      "SparseSegmentSum", T,                               \
      SparseSegmentReductionOp<T, Combiner::kSum, false>); \
  DFLOW_REGISTER_SPARSE_SEGMENT(                           \
      "SparseSegmentSumWithNumSegments", T,                \
      SparseSegmentReductionOp<T, Combiner::kSum, true>)
#define DFLOW_REGISTER_SPARSE_FLOAT(T)                                    \
  DFLOW_REGISTER_SPARSE_SUM(T);                                           \
  DFLOW_REGISTER_SPARSE_SEGMENT(                                          \
      "SparseSegmentMean", T,                                             \
      SparseSegmentReductionOp<T, Combiner::kMean, false>);               \
  DFLOW_REGISTER_SPARSE_SEGMENT(                                          \
      "SparseSegmentMeanWithNumSegments", T,                              \
      SparseSegmentReductionOp<T, Combiner::kMean, true>);                \
  DFLOW_REGISTER_SPARSE_SEGMENT(                                          \
      "SparseSegmentSqrtN", T,                                            \
      SparseSegmentReductionOp<T, Combiner::kSqrtN, false>);              \
  DFLOW_REGISTER_SPARSE_SEGMENT(                                          \
      "SparseSegmentSqrtNWithNumSegments", T,                             \
      SparseSegmentReductionOp<T, Combiner::kSqrtN, true>);               \
  DFLOW_REGISTER_SPARSE_SEGMENT("SparseSegmentSumGrad", T,                \
                                SparseSegmentGradOp<T, Combiner::kSum>);  \
  DFLOW_REGISTER_SPARSE_SEGMENT("SparseSegmentMeanGrad", T,               \
                                SparseSegmentGradOp<T, Combiner::kMean>); \
  DFLOW_REGISTER_SPARSE_SEGMENT("SparseSegmentSqrtNGrad", T,              \
                                SparseSegmentGradOp<T, Combiner::kSqrtN>)
DFLOW_REGISTER_SPARSE_FLOAT(float);
DFLOW_REGISTER_SPARSE_FLOAT(double);
DFLOW_REGISTER_SPARSE_SUM(int32_t);
DFLOW_REGISTER_SPARSE_SUM(int64_t);

}  // namespace
}  // namespace dflow
