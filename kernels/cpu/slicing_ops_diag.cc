// CPU kernels for Diag and DiagPart. Flattened, the diagonal's n elements
// sit at i * (n + 1) of the [n, n] square: Diag writes them into zeros,
// DiagPart reads them back.
#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "graph/tensor.h"
#include "kernels/cpu/kernel_util_array.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

class DiagOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    OP_REQUIRES(ctx, in.shape().rank() >= 1,
                absl::InvalidArgumentError(absl::StrCat(
                    "Diag needs a diagonal of rank >= 1, got shape ",
                    in.shape().ToString())));
    TensorShape shape = in.shape();
    for (int64_t d : in.shape().dims()) shape.AddDim(d);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    const int64_t n = in.NumElements();
    array_kernels::VisitCopyType(in.dtype(), [&](auto* tag) {
      using T = std::remove_pointer_t<decltype(tag)>;
      T* o = array_kernels::CopyData<T>(out);
      std::fill_n(o, n * n, T{});
      const T* x = array_kernels::CopyData<T>(in);
      for (int64_t i = 0; i < n; ++i) o[i * (n + 1)] = x[i];
    });
  }
};

class DiagPartOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    const TensorShape& s = in.shape();
    const int half = s.rank() / 2;
    bool square = s.rank() >= 2 && s.rank() % 2 == 0;
    for (int d = 0; square && d < half; ++d) {
      square = s.dim(d) == s.dim(d + half);
    }
    OP_REQUIRES(ctx, square,
                absl::InvalidArgumentError(absl::StrCat(
                    "DiagPart needs an input shaped [d..., d...] (even rank, "
                    "halves equal), got ",
                    s.ToString())));
    TensorShape shape;
    for (int d = 0; d < half; ++d) shape.AddDim(s.dim(d));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    const int64_t n = out->NumElements();
    array_kernels::VisitCopyType(in.dtype(), [&](auto* tag) {
      using T = std::remove_pointer_t<decltype(tag)>;
      T* o = array_kernels::CopyData<T>(out);
      const T* x = array_kernels::CopyData<T>(in);
      for (int64_t i = 0; i < n; ++i) o[i] = x[i * (n + 1)];
    });
  }
};

DFLOW_REGISTER_KERNEL(KernelDefBuilder("Diag")
                          .Device(kDeviceCpu)
                          .TypeConstraint("T", {DT_BFLOAT16, DT_HALF, DT_FLOAT,
                                                DT_DOUBLE, DT_INT32, DT_INT64,
                                                DT_COMPLEX64, DT_COMPLEX128}),
                      DiagOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("DiagPart")
                          .Device(kDeviceCpu)
                          .TypeConstraint("T", {DT_BFLOAT16, DT_HALF, DT_FLOAT,
                                                DT_DOUBLE, DT_INT32, DT_INT64,
                                                DT_COMPLEX64, DT_COMPLEX128}),
                      DiagPartOp);

}  // namespace
}  // namespace dflow
