// CumulativeLogsumexp on the CPU (tf.math.cumulative_logsumexp): the
// running log(sum(exp(x))) along one axis, from the start or (reverse) the
// end, each element included or (exclusive) not, for float and double.
//
// Each step combines the running value `acc` with the next element `x` as
// TensorFlow's reducer does: with lo = min(acc, x), hi = max(acc, x),
// acc = hi + log1p(exp(lo - hi)), and acc = hi when hi is -inf (nothing
// accumulated yet: avoids -inf - -inf). The exclusive scan starts from
// -inf, log(0).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "absl/strings/str_cat.h"
#include "kernels/cpu/kernel_util.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

template <typename T>
T LogAddExp(T acc, T x) {
  const T lo = std::min(acc, x);
  const T hi = std::max(acc, x);
  if (hi < std::numeric_limits<T>::lowest()) return hi;
  return std::log1p(std::exp(lo - hi)) + hi;
}

template <typename T>
class CumulativeLogsumexpOp : public OpKernel {
 public:
  explicit CumulativeLogsumexpOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("exclusive", &exclusive_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("reverse", &reverse_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    const Tensor& axis_t = ctx->input(1);
    OP_REQUIRES(ctx, axis_t.shape().rank() == 0,
                absl::InvalidArgumentError(absl::StrCat(
                    "axis must be a scalar, not ", axis_t.shape().ToString())));
    const int64_t axis = axis_t.dtype() == DT_INT32
                             ? int64_t{*axis_t.data<int32_t>()}
                             : *axis_t.data<int64_t>();
    const TensorShape& shape = in.shape();
    const int rank = shape.rank();
    OP_REQUIRES(
        ctx, axis >= -rank && axis < rank,
        absl::InvalidArgumentError(absl::StrCat(
            "Expected scan axis in the range [", -rank, ", ", rank,
            "), but got ", axis, " (input shape ", shape.ToString(), ")")));
    const int a = static_cast<int>(axis < 0 ? axis + rank : axis);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    if (out->NumElements() == 0) return;
    int64_t outer = 1, inner = 1;
    for (int i = 0; i < rank; ++i) {
      if (i < a) outer *= shape.dim(i);
      if (i > a) inner *= shape.dim(i);
    }
    const int64_t n = shape.dim(a);
    const T* x = in.data<T>();
    T* y = out->data<T>();
    const bool exclusive = exclusive_, reverse = reverse_;
    // One unit of work: the scan of one (outer, inner) column.
    ParallelForShards(
        ctx, outer * inner, 40 * n, [=](int64_t begin, int64_t end) {
          for (int64_t u = begin; u < end; ++u) {
            const int64_t base = (u / inner) * n * inner + u % inner;
            T acc = -std::numeric_limits<T>::infinity();
            for (int64_t k = 0; k < n; ++k) {
              const int64_t at = base + (reverse ? n - 1 - k : k) * inner;
              if (exclusive) y[at] = acc;
              acc = LogAddExp(acc, x[at]);
              if (!exclusive) y[at] = acc;
            }
          }
        });
  }

 private:
  bool exclusive_ = false;
  bool reverse_ = false;
};

DFLOW_REGISTER_KERNEL(KernelDefBuilder("CumulativeLogsumexp")
                          .Device(kDeviceCpu)
                          .TypeConstraint<float>("T")
                          .TypeConstraint("Tidx", {DT_INT32, DT_INT64}),
                      CumulativeLogsumexpOp<float>);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("CumulativeLogsumexp")
                          .Device(kDeviceCpu)
                          .TypeConstraint<double>("T")
                          .TypeConstraint("Tidx", {DT_INT32, DT_INT64}),
                      CumulativeLogsumexpOp<double>);

}  // namespace
}  // namespace dflow
