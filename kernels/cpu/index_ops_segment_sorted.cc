// SegmentSum, SegmentMean, SegmentMax, SegmentMin and SegmentProd: data's
// rows reduced by a vector of sorted segment ids, as TensorFlow 2.21's CPU
// kernels. The output has max(id) + 1 rows; a row no id names holds 0 (1
// for SegmentProd), as in TensorFlow. Ids that decrease or are negative
// are an InvalidArgument naming the position.
#include <algorithm>
#include <cstdint>

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

// The reduction of a sorted segment op: a fold, the value of an empty
// segment, and whether the result is divided by the row count (Mean).
template <typename Fold, int kEmptyValue, bool kMean>
struct SortedReduction {
  using Reducer = Fold;
  static constexpr int empty_value = kEmptyValue;
  static constexpr bool mean = kMean;
};

template <typename T, typename Reduction>
class SegmentReductionOp : public OpKernel {
 public:
  explicit SegmentReductionOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& data = ctx->input(0);
    const Tensor& ids = ctx->input(1);
    const TensorShape& ds = data.shape();
    OP_REQUIRES(ctx, ids.shape().rank() == 1,
                absl::InvalidArgumentError(absl::StrCat(
                    "segment_ids should be a vector, but has shape ",
                    ids.shape().ToString())));
    OP_REQUIRES(
        ctx, ds.rank() >= 1,
        absl::InvalidArgumentError(absl::StrCat(
            "data must be at least a vector, but has shape ", ds.ToString())));
    const int64_t n = ids.NumElements();
    OP_REQUIRES(ctx, n == ds.dim(0),
                absl::InvalidArgumentError(absl::StrCat(
                    "segment_ids should be the same size as dimension 0 of "
                    "data, but segment_ids has shape ",
                    ids.shape().ToString(), " and data ", ds.ToString())));
    for (int64_t i = 0; i < n; ++i) {
      const int64_t id = IntAt(ids, i);
      OP_REQUIRES(ctx, id >= 0,
                  absl::InvalidArgumentError(absl::StrCat(
                      "segment_ids[", i, "] = ", id, " is negative")));
      OP_REQUIRES(
          ctx, i == 0 || id >= IntAt(ids, i - 1),
          absl::InvalidArgumentError(absl::StrCat(
              "segment ids are not increasing: segment_ids[", i, "] = ", id,
              " < segment_ids[", i - 1, "] = ", IntAt(ids, i - 1))));
    }
    const int64_t rows = n == 0 ? 0 : IntAt(ids, n - 1) + 1;
    TensorShape out_shape({rows});
    for (int i = 1; i < ds.rank(); ++i) out_shape.AddDim(ds.dim(i));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    const int64_t inner = Product(ds, 1, ds.rank());
    T* o = out->data<T>();
    std::fill(o, o + out->NumElements(), T(Reduction::empty_value));
    const T* d = data.data<T>();
    using Reducer = typename Reduction::Reducer;
    // One segment is a run of equal ids: its rows fold into the first.
    // Segments are independent: shard them by their first row.
    ParallelForShards(ctx, n, inner, [&](int64_t i0, int64_t i1) {
      // A shard owns the runs that start inside it.
      int64_t i = i0;
      while (i > 0 && i < n && IntAt(ids, i) == IntAt(ids, i - 1)) ++i;
      while (i < i1) {
        const int64_t id = IntAt(ids, i);
        T* dst = o + id * inner;
        index_ops::CopyElements(d + i * inner, inner, dst);
        int64_t end = i + 1;
        for (; end < n && IntAt(ids, end) == id; ++end) {
          Reducer::Fold(d + end * inner, inner, dst);
        }
        if constexpr (Reduction::mean) {
          const T count = static_cast<T>(end - i);
          for (int64_t c = 0; c < inner; ++c) dst[c] /= count;
        }
        i = end;
      }
    });
  }
};

namespace sr = segment_reducers;
#define DFLOW_REGISTER_SORTED_SEGMENT(op, T, ...)                     \
  DFLOW_REGISTER_KERNEL(                                              \
      KernelDefBuilder(op).Device(kDeviceCpu).TypeConstraint<T>("T"), \
      SegmentReductionOp<T, SortedReduction<__VA_ARGS__>>)
#define DFLOW_REGISTER_SORTED_SEGMENTS(T)                              \
  DFLOW_REGISTER_SORTED_SEGMENT("SegmentSum", T, sr::Sum, 0, false);   \
  DFLOW_REGISTER_SORTED_SEGMENT("SegmentMean", T, sr::Sum, 0, true);   \
  DFLOW_REGISTER_SORTED_SEGMENT("SegmentProd", T, sr::Prod, 1, false); \
  DFLOW_REGISTER_SORTED_SEGMENT("SegmentMax", T, sr::Max, 0, false);   \
  DFLOW_REGISTER_SORTED_SEGMENT("SegmentMin", T, sr::Min, 0, false)
DFLOW_REGISTER_SORTED_SEGMENTS(float);
DFLOW_REGISTER_SORTED_SEGMENTS(double);
DFLOW_REGISTER_SORTED_SEGMENTS(int32_t);
DFLOW_REGISTER_SORTED_SEGMENTS(int64_t);

}  // namespace
}  // namespace dflow
