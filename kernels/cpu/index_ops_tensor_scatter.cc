// TensorScatterUpdate, TensorScatterAdd, TensorScatterSub, TensorScatterMax
// and TensorScatterMin: a copy of `tensor` whose slices at the index tuples
// of `indices` ([..., r]) are replaced by, added to, subtracted from, or
// maxed / mined with the slices of `updates` (shape indices.shape[:-1] +
// tensor.shape[r:]), as TensorFlow 2.21's CPU kernels. Tuples apply in
// order, so a repeated tuple of Update keeps its last slice. A tuple
// outside tensor is an InvalidArgument naming it, unless
// bad_indices_policy is "IGNORE" (the update is dropped).
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/types.h"
#include "kernels/cpu/index_ops_common.h"
#include "kernels/cpu/index_ops_segment_reducers.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

using index_ops::Product;
using index_ops::TupleOffset;
using index_ops::TupleText;

struct Assign {
  template <typename T>
  static void Fold(const T* src, int64_t n, T* dst) {
    index_ops::CopyElements(src, n, dst);
  }
};

struct Subtract {
  template <typename T>
  static void Fold(const T* src, int64_t n, T* dst) {
    for (int64_t c = 0; c < n; ++c) dst[c] -= src[c];
  }
};

template <typename T, typename Update>
class TensorScatterOp : public OpKernel {
 public:
  explicit TensorScatterOp(OpKernelConstruction* ctx)
      : OpKernel(ctx), ignore_bad_(index_ops::ReadIgnoreBadIndices(ctx)) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& tensor = ctx->input(0);
    const Tensor& indices = ctx->input(1);
    const Tensor& updates = ctx->input(2);
    const TensorShape& ts = tensor.shape();
    const TensorShape& is = indices.shape();
    const TensorShape& us = updates.shape();
    OP_REQUIRES(ctx,
                indices.dtype() == DT_INT32 || indices.dtype() == DT_INT64 ||
                    indices.dtype() == DT_INT16,
                absl::InvalidArgumentError(absl::StrCat(
                    "indices of type ", DataTypeName(indices.dtype()),
                    " are not supported on CPU; use int32 or int64")));
    OP_REQUIRES(ctx, is.rank() >= 1,
                absl::InvalidArgumentError(absl::StrCat(
                    "indices must be at least a vector, but has shape ",
                    is.ToString())));
    const int64_t r = is.dim(is.rank() - 1);
    OP_REQUIRES(ctx, r <= ts.rank(),
                absl::InvalidArgumentError(absl::StrCat(
                    "indices.shape[-1] must be <= the rank of tensor, but "
                    "saw indices shape: ",
                    is.ToString(), " and tensor shape: ", ts.ToString())));
    TensorShape want(is.dims().subspan(0, is.rank() - 1));
    for (int i = static_cast<int>(r); i < ts.rank(); ++i) {
      want.AddDim(ts.dim(i));
    }
    OP_REQUIRES(ctx, us == want,
                absl::InvalidArgumentError(absl::StrCat(
                    "updates must have shape indices.shape[:-1] + "
                    "tensor.shape[indices.shape[-1]:] = ",
                    want.ToString(), ", but has shape ", us.ToString(),
                    " (indices shape ", is.ToString(), ", tensor shape ",
                    ts.ToString(), ")")));
    const int64_t n = Product(is, 0, is.rank() - 1);
    const int64_t slice = Product(ts, static_cast<int>(r), ts.rank());
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, ts, &out));
    T* dst = out->data<T>();
    index_ops::CopyElements(tensor.data<T>(), tensor.NumElements(), dst);
    const T* src = updates.data<T>();
    std::vector<int64_t> tuple;
    for (int64_t t = 0; t < n; ++t) {
      const int64_t at = TupleOffset(indices, t, r, ts, &tuple);
      if (at < 0) {
        OP_REQUIRES(ctx, ignore_bad_,
                    absl::InvalidArgumentError(absl::StrCat(
                        TupleText(is, t, tuple), " does not index into shape ",
                        ts.ToString(), ": each index must be in [0, dim)")));
        continue;
      }
      Update::Fold(src + t * slice, slice, dst + at * slice);
    }
  }

 private:
  const bool ignore_bad_;
};

#define DFLOW_REGISTER_TENSOR_SCATTER(op, Update, T)                  \
  DFLOW_REGISTER_KERNEL(                                              \
      KernelDefBuilder(op).Device(kDeviceCpu).TypeConstraint<T>("T"), \
      TensorScatterOp<T, Update>)
#define DFLOW_REGISTER_TENSOR_SCATTER_MATH(T)                                  \
  DFLOW_REGISTER_TENSOR_SCATTER("TensorScatterAdd", segment_reducers::Sum, T); \
  DFLOW_REGISTER_TENSOR_SCATTER("TensorScatterSub", Subtract, T);              \
  DFLOW_REGISTER_TENSOR_SCATTER("TensorScatterMax", segment_reducers::Max, T); \
  DFLOW_REGISTER_TENSOR_SCATTER("TensorScatterMin", segment_reducers::Min, T)
DFLOW_REGISTER_TENSOR_SCATTER_MATH(float);
DFLOW_REGISTER_TENSOR_SCATTER_MATH(double);
DFLOW_REGISTER_TENSOR_SCATTER_MATH(int32_t);
DFLOW_REGISTER_TENSOR_SCATTER_MATH(int64_t);

DFLOW_REGISTER_TENSOR_SCATTER("TensorScatterUpdate", Assign, float16);
DFLOW_REGISTER_TENSOR_SCATTER("TensorScatterUpdate", Assign, bfloat16);
DFLOW_REGISTER_TENSOR_SCATTER("TensorScatterUpdate", Assign, float);
DFLOW_REGISTER_TENSOR_SCATTER("TensorScatterUpdate", Assign, double);
DFLOW_REGISTER_TENSOR_SCATTER("TensorScatterUpdate", Assign, uint8_t);
DFLOW_REGISTER_TENSOR_SCATTER("TensorScatterUpdate", Assign, int32_t);
DFLOW_REGISTER_TENSOR_SCATTER("TensorScatterUpdate", Assign, int64_t);
DFLOW_REGISTER_TENSOR_SCATTER("TensorScatterUpdate", Assign, bool);
DFLOW_REGISTER_TENSOR_SCATTER("TensorScatterUpdate", Assign, std::string);
// Complex numbers: updates, sums and differences (no order for max/min).
DFLOW_REGISTER_TENSOR_SCATTER("TensorScatterUpdate", Assign, complex64);
DFLOW_REGISTER_TENSOR_SCATTER("TensorScatterUpdate", Assign, complex128);
DFLOW_REGISTER_TENSOR_SCATTER("TensorScatterAdd", segment_reducers::Sum,
                              complex64);
DFLOW_REGISTER_TENSOR_SCATTER("TensorScatterAdd", segment_reducers::Sum,
                              complex128);
DFLOW_REGISTER_TENSOR_SCATTER("TensorScatterSub", Subtract, complex64);
DFLOW_REGISTER_TENSOR_SCATTER("TensorScatterSub", Subtract, complex128);

}  // namespace
}  // namespace dflow
