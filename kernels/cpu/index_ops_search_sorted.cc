// CPU kernels for LowerBound and UpperBound (tf.searchsorted): each row of
// values searched in the same row of sorted_inputs by binary search
// (std::lower_bound / std::upper_bound); rows split over the pool. And
// Bucketize: std::upper_bound of each element in the float boundaries, the
// element compared as TensorFlow's kernel compares it (T against float).
#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/tensor.h"
#include "kernels/cpu/kernel_util.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

template <typename T, typename Out, bool kUpper>
class SearchSortedOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& sorted = ctx->input(0);
    const Tensor& values = ctx->input(1);
    const TensorShape& ss = sorted.shape();
    const TensorShape& vs = values.shape();
    bool ok = ss.rank() >= 1 && ss.rank() == vs.rank();
    for (int d = 0; ok && d + 1 < ss.rank(); ++d) ok = ss.dim(d) == vs.dim(d);
    OP_REQUIRES(
        ctx, ok,
        absl::InvalidArgumentError(absl::StrCat(
            "sorted_inputs ", ss.ToString(), " and values ", vs.ToString(),
            " must have one rank >= 1 and equal leading dimensions "
            "(rows)")));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, vs, &out));
    const int64_t n = ss.dim(ss.rank() - 1);
    const int64_t m = vs.dim(vs.rank() - 1);
    const int64_t rows = m == 0 ? 0 : values.NumElements() / m;
    OP_REQUIRES(ctx, n <= std::numeric_limits<Out>::max(),
                absl::InvalidArgumentError(absl::StrCat(
                    "sorted rows of ", n,
                    " elements do not fit out_type int32; use int64")));
    const T* s = sorted.data<T>();
    const T* v = values.data<T>();
    Out* o = out->data<Out>();
    ParallelForShards(ctx, rows, m * 20, [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        const T* row = s + r * n;
        for (int64_t j = 0; j < m; ++j) {
          const T& x = v[r * m + j];
          const T* at = kUpper ? std::upper_bound(row, row + n, x)
                               : std::lower_bound(row, row + n, x);
          o[r * m + j] = static_cast<Out>(at - row);
        }
      }
    });
  }
};

template <typename T>
class BucketizeOp : public OpKernel {
 public:
  explicit BucketizeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("boundaries", &boundaries_));
    if (!std::is_sorted(boundaries_.begin(), boundaries_.end())) {
      ctx->SetStatus(absl::InvalidArgumentError(
          "boundaries must be sorted ascending (tf.raw_ops.Bucketize); sort "
          "them, e.g. sorted(boundaries)"));
    }
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    const T* x = in.data<T>();
    int32_t* o = out->data<int32_t>();
    const std::vector<float>& b = boundaries_;
    ParallelForShards(ctx, in.NumElements(), 20, [&](int64_t i0, int64_t i1) {
      for (int64_t i = i0; i < i1; ++i) {
        o[i] = static_cast<int32_t>(std::upper_bound(b.begin(), b.end(), x[i]) -
                                    b.begin());
      }
    });
  }

 private:
  std::vector<float> boundaries_;
};

#define DFLOW_REGISTER_SEARCH(T)                                  \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("LowerBound")            \
                            .Device(kDeviceCpu)                   \
                            .TypeConstraint<T>("T")               \
                            .TypeConstraint<int32_t>("out_type"), \
                        SearchSortedOp<T, int32_t, false>);       \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("LowerBound")            \
                            .Device(kDeviceCpu)                   \
                            .TypeConstraint<T>("T")               \
                            .TypeConstraint<int64_t>("out_type"), \
                        SearchSortedOp<T, int64_t, false>);       \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("UpperBound")            \
                            .Device(kDeviceCpu)                   \
                            .TypeConstraint<T>("T")               \
                            .TypeConstraint<int32_t>("out_type"), \
                        SearchSortedOp<T, int32_t, true>);        \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("UpperBound")            \
                            .Device(kDeviceCpu)                   \
                            .TypeConstraint<T>("T")               \
                            .TypeConstraint<int64_t>("out_type"), \
                        SearchSortedOp<T, int64_t, true>)

DFLOW_REGISTER_SEARCH(float);
DFLOW_REGISTER_SEARCH(double);
DFLOW_REGISTER_SEARCH(int32_t);
DFLOW_REGISTER_SEARCH(int64_t);
DFLOW_REGISTER_KERNEL(
    KernelDefBuilder("Bucketize").Device(kDeviceCpu).TypeConstraint<float>("T"),
    BucketizeOp<float>);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("Bucketize")
                          .Device(kDeviceCpu)
                          .TypeConstraint<double>("T"),
                      BucketizeOp<double>);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("Bucketize")
                          .Device(kDeviceCpu)
                          .TypeConstraint<int32_t>("T"),
                      BucketizeOp<int32_t>);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("Bucketize")
                          .Device(kDeviceCpu)
                          .TypeConstraint<int64_t>("T"),
                      BucketizeOp<int64_t>);

#undef DFLOW_REGISTER_SEARCH

}  // namespace
}  // namespace dflow
