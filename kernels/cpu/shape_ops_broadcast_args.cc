// BroadcastArgs on the CPU: the shape two shape vectors broadcast to
// (NumPy's rules: aligned at the end, a missing dimension counts as 1, a 1
// takes the other's size, otherwise the sizes must be equal), as
// TensorFlow 2.21's BCast computes it. Incompatible shapes are an
// InvalidArgument naming both.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/tensor.h"
#include "graph/types.h"
#include "kernels/cpu/kernel_util_array.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

template <typename T>
class BroadcastArgsOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    OP_REQUIRES(ctx, a.shape().rank() == 1 && b.shape().rank() == 1,
                absl::InvalidArgumentError(absl::StrCat(
                    "s0 and s1 must be vectors, but have shapes ",
                    a.shape().ToString(), " and ", b.shape().ToString())));
    const T* av = a.data<T>();
    const T* bv = b.data<T>();
    const int64_t na = a.NumElements(), nb = b.NumElements();
    const int64_t n = std::max(na, nb);
    std::vector<int64_t> result(n);
    for (int64_t i = 0; i < n; ++i) {
      const int64_t ia = i - (n - na), ib = i - (n - nb);
      const int64_t da = ia >= 0 ? static_cast<int64_t>(av[ia]) : 1;
      const int64_t db = ib >= 0 ? static_cast<int64_t>(bv[ib]) : 1;
      if (da == db || db == 1) {
        result[i] = da;
      } else if (da == 1) {
        result[i] = db;
      } else {
        ctx->SetStatus(absl::InvalidArgumentError(absl::StrCat(
            "Incompatible shapes: [", absl::StrJoin(av, av + na, ","),
            "] vs. [", absl::StrJoin(bv, bv + nb, ","), "]: dimension ", da,
            " vs. ", db, " (sizes must be equal or 1)")));
        return;
      }
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({n}), &out));
    T* o = out->data<T>();
    for (int64_t i = 0; i < n; ++i) o[i] = static_cast<T>(result[i]);
  }
  bool IsExpensive() const override { return false; }
};

DFLOW_REGISTER_KERNEL(KernelDefBuilder("BroadcastArgs")
                          .Device(kDeviceCpu)
                          .TypeConstraint<int32_t>("T"),
                      BroadcastArgsOp<int32_t>);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("BroadcastArgs")
                          .Device(kDeviceCpu)
                          .TypeConstraint<int64_t>("T"),
                      BroadcastArgsOp<int64_t>);

}  // namespace
}  // namespace dflow
