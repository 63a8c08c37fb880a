// UnsortedSegmentSum (output[ids[i]] += data[i]; negative ids dropped, as
// in TensorFlow), its Max, Min and Prod siblings (same walk, another fold;
// segment_reducers), and DynamicStitch / ParallelDynamicStitch
// (merged[indices[m][i]] = data[m][i]; later entries win; rows no index
// names are zero).
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/cpu/index_ops_common.h"
#include "kernels/cpu/index_ops_segment_reducers.h"
#include "kernels/cpu/kernel_util.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

using index_ops::CopyElements;
using index_ops::IntAt;
using index_ops::Position;
using index_ops::Product;

template <typename T, typename Reducer>
class UnsortedSegmentReductionOp : public OpKernel {
 public:
  explicit UnsortedSegmentReductionOp(OpKernelConstruction* ctx)
      : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& data = ctx->input(0);
    const Tensor& ids = ctx->input(1);
    int64_t segments = 0;
    OP_REQUIRES_OK(ctx, index_ops::IntScalar(ctx->input(2), "num_segments",
                                             &segments));
    OP_REQUIRES(ctx, segments >= 0,
                absl::InvalidArgumentError(absl::StrCat(
                    "num_segments must be non-negative, got ", segments)));
    const TensorShape& ds = data.shape();
    const TensorShape& is = ids.shape();
    bool prefix = is.rank() <= ds.rank();
    for (int i = 0; prefix && i < is.rank(); ++i) prefix = is.dim(i) == ds.dim(i);
    OP_REQUIRES(ctx, prefix,
                absl::InvalidArgumentError(absl::StrCat(
                    "data.shape = ", ds.ToString(),
                    " does not start with segment_ids.shape = ",
                    is.ToString())));
    TensorShape out_shape({segments});
    for (int i = is.rank(); i < ds.rank(); ++i) out_shape.AddDim(ds.dim(i));
    const int64_t inner = Product(ds, is.rank(), ds.rank());
    const int64_t n = ids.NumElements();
    for (int64_t i = 0; i < n; ++i) {
      const int64_t id = IntAt(ids, i);
      OP_REQUIRES(ctx, id < segments,
                  absl::InvalidArgumentError(absl::StrCat(
                      "segment_ids", Position(is, i), " = ", id,
                      " is out of range [0, ", segments, ")")));
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    T* o = out->data<T>();
    std::fill(o, o + out->NumElements(), Reducer::template Identity<T>());
    const T* d = data.data<T>();
    // Columns are independent: shard them, keeping the fold order over i
    // fixed (deterministic).
    ParallelForShards(ctx, inner, n, [&](int64_t c0, int64_t c1) {
      for (int64_t i = 0; i < n; ++i) {
        const int64_t id = IntAt(ids, i);
        if (id < 0) continue;
        Reducer::Fold(d + i * inner + c0, c1 - c0, o + id * inner + c0);
      }
    });
  }
};

template <typename T>
class DynamicStitchOp : public OpKernel {
 public:
  explicit DynamicStitchOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const int n = ctx->num_inputs() / 2;
    int64_t max_index = -1;
    for (int m = 0; m < n; ++m) {
      const Tensor& ind = ctx->input(m);
      for (int64_t i = 0; i < ind.NumElements(); ++i) {
        const int64_t v = IntAt(ind, i);
        OP_REQUIRES(ctx, v >= 0,
                    absl::InvalidArgumentError(absl::StrCat(
                        "indices[", m, "]", Position(ind.shape(), i), " = ", v,
                        " is negative")));
        max_index = std::max(max_index, v);
      }
    }
    // The element shape: data[m].shape minus indices[m].shape, one for all.
    TensorShape element;
    bool have_element = false;
    for (int m = 0; m < n; ++m) {
      const TensorShape& is = ctx->input(m).shape();
      const TensorShape& ds = ctx->input(n + m).shape();
      bool prefix = is.rank() <= ds.rank();
      for (int i = 0; prefix && i < is.rank(); ++i) {
        prefix = is.dim(i) == ds.dim(i);
      }
      OP_REQUIRES(ctx, prefix,
                  absl::InvalidArgumentError(absl::StrCat(
                      "data[", m, "].shape = ", ds.ToString(),
                      " does not start with indices[", m,
                      "].shape = ", is.ToString())));
      TensorShape e(std::vector<int64_t>{});
      for (int i = is.rank(); i < ds.rank(); ++i) e.AddDim(ds.dim(i));
      if (!have_element) {
        element = e;
        have_element = true;
      }
      OP_REQUIRES(ctx, e == element,
                  absl::InvalidArgumentError(absl::StrCat(
                      "Need data[0].shape[", ctx->input(0).shape().rank(),
                      ":] = data[", m, "].shape[", is.rank(),
                      ":], got data[0] elements of shape ",
                      element.ToString(), " and data[", m, "] of shape ",
                      e.ToString())));
    }
    TensorShape out_shape({max_index + 1});
    for (int i = 0; i < element.rank(); ++i) out_shape.AddDim(element.dim(i));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    const int64_t inner = element.num_elements();
    T* o = out->data<T>();
    std::fill(o, o + out->NumElements(), T());
    for (int m = 0; m < n; ++m) {
      const Tensor& ind = ctx->input(m);
      const T* d = ctx->input(n + m).data<T>();
      for (int64_t i = 0; i < ind.NumElements(); ++i) {
        CopyElements(d + i * inner, inner, o + IntAt(ind, i) * inner);
      }
    }
  }
};

#define DFLOW_REGISTER_UNSORTED_SEGMENT(op, Reducer, T)                        \
  DFLOW_REGISTER_KERNEL(                                                      \
      KernelDefBuilder(op).Device(kDeviceCpu).TypeConstraint<T>("T"),         \
      UnsortedSegmentReductionOp<T, segment_reducers::Reducer>)
#define DFLOW_REGISTER_UNSORTED_SEGMENTS(T)                              \
  DFLOW_REGISTER_UNSORTED_SEGMENT("UnsortedSegmentSum", Sum, T);         \
  DFLOW_REGISTER_UNSORTED_SEGMENT("UnsortedSegmentProd", Prod, T);       \
  DFLOW_REGISTER_UNSORTED_SEGMENT("UnsortedSegmentMax", Max, T);         \
  DFLOW_REGISTER_UNSORTED_SEGMENT("UnsortedSegmentMin", Min, T)
DFLOW_REGISTER_UNSORTED_SEGMENTS(float);
DFLOW_REGISTER_UNSORTED_SEGMENTS(double);
DFLOW_REGISTER_UNSORTED_SEGMENTS(int32_t);
DFLOW_REGISTER_UNSORTED_SEGMENTS(int64_t);
// Complex numbers have sums and products, not maxima (as in TensorFlow).
DFLOW_REGISTER_UNSORTED_SEGMENT("UnsortedSegmentSum", Sum, complex64);
DFLOW_REGISTER_UNSORTED_SEGMENT("UnsortedSegmentSum", Sum, complex128);
DFLOW_REGISTER_UNSORTED_SEGMENT("UnsortedSegmentProd", Prod, complex64);
DFLOW_REGISTER_UNSORTED_SEGMENT("UnsortedSegmentProd", Prod, complex128);

// ParallelDynamicStitch may take any of a duplicate index's values: the
// sequential kernel's (the last one) is one of them.
#define DFLOW_REGISTER_STITCH(T)                                           \
  DFLOW_REGISTER_KERNEL(                                                   \
      KernelDefBuilder("DynamicStitch").Device(kDeviceCpu).TypeConstraint< \
          T>("T"),                                                         \
      DynamicStitchOp<T>);                                                 \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("ParallelDynamicStitch")          \
                            .Device(kDeviceCpu)                            \
                            .TypeConstraint<T>("T"),                       \
                        DynamicStitchOp<T>)
DFLOW_REGISTER_STITCH(float16);
DFLOW_REGISTER_STITCH(bfloat16);
DFLOW_REGISTER_STITCH(float);
DFLOW_REGISTER_STITCH(double);
DFLOW_REGISTER_STITCH(uint8_t);
DFLOW_REGISTER_STITCH(int32_t);
DFLOW_REGISTER_STITCH(int64_t);
DFLOW_REGISTER_STITCH(bool);
DFLOW_REGISTER_STITCH(std::string);
DFLOW_REGISTER_STITCH(complex64);
DFLOW_REGISTER_STITCH(complex128);

}  // namespace
}  // namespace dflow
