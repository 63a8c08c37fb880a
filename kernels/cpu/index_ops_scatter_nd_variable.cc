// ScatterNdUpdate, ScatterNdAdd, ScatterNdSub and their Resource* forms:
// the slices of a variable at the index tuples of `indices` ([..., r]) are
// replaced by, added to or subtracted from the slices of `updates` (shape
// indices.shape[:-1] + var.shape[r:]), in place, in tuple order (a
// repeated tuple of Update keeps its last slice).
//
// Every tuple is checked before anything is written, so a bad one is an
// InvalidArgument naming it and the variable's shape and leaves the
// variable as it was (unless bad_indices_policy is "IGNORE": its update is
// dropped). The update holds the variable's lock and copies the buffer
// first when a reader's snapshot still holds it, as the row scatters do
// (state_ops_scatter.cc).
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/types.h"
#include "kernels/cpu/index_ops_common.h"
#include "kernels/cpu/kernel_util_state.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"
#include "runtime/variables.h"

namespace dflow {
namespace {

using index_ops::Product;
using index_ops::TupleOffset;
using index_ops::TupleText;

enum class NdKind { kUpdate, kAdd, kSub };

template <typename T, NdKind K>
void Fold(const T* src, int64_t n, T* dst) {
  for (int64_t c = 0; c < n; ++c) {
    if constexpr (K == NdKind::kAdd) {
      dst[c] += src[c];
    } else if constexpr (K == NdKind::kSub) {
      dst[c] -= src[c];
    } else {
      dst[c] = src[c];
    }
  }
}

template <typename T, NdKind K>
class ScatterNdVariableOp : public OpKernel {
 public:
  explicit ScatterNdVariableOp(OpKernelConstruction* ctx)
      : OpKernel(ctx), ignore_bad_(index_ops::ReadIgnoreBadIndices(ctx)) {
    is_ref_ = IsRefType(ctx->node().input_type(0));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& indices = ctx->input(1);
    const Tensor& updates = ctx->input(2);
    Var* var = ctx->input_var(0);
    OP_REQUIRES(ctx, var != nullptr,
                absl::InternalError("the variable input is not a variable"));
    OP_REQUIRES(
        ctx, var->dtype() == DataTypeToEnum<T>::value,
        absl::InvalidArgumentError(absl::StrCat(
            "variable '", var->name(), "' holds ", DataTypeName(var->dtype()),
            " but the updates are ", DataTypeName(DataTypeToEnum<T>::value))));
    const TensorShape& is = indices.shape();
    OP_REQUIRES(ctx, is.rank() >= 1,
                absl::InvalidArgumentError(absl::StrCat(
                    "indices must be at least a vector, but has shape ",
                    is.ToString())));
    {
      std::lock_guard<std::mutex> lock(var->mu());
      OP_REQUIRES(ctx, var->initialized(),
                  UninitializedValueError(var->name()));
      Tensor* value = var->value();
      const TensorShape vs = value->shape();
      const int64_t r = is.dim(is.rank() - 1);
      OP_REQUIRES(ctx, r <= vs.rank(),
                  absl::InvalidArgumentError(
                      absl::StrCat("indices.shape[-1] = ", r,
                                   " must be at most the rank of variable '",
                                   var->name(), "' ", vs.ToString())));
      TensorShape want(is.dims().subspan(0, is.rank() - 1));
      for (int i = static_cast<int>(r); i < vs.rank(); ++i) {
        want.AddDim(vs.dim(i));
      }
      OP_REQUIRES(ctx, updates.shape() == want,
                  absl::InvalidArgumentError(absl::StrCat(
                      "updates ", updates.shape().ToString(),
                      " must have shape indices.shape[:-1] + "
                      "var.shape[indices.shape[-1]:] = ",
                      want.ToString(), " (indices ", is.ToString(),
                      ", variable '", var->name(), "' ", vs.ToString(), ")")));
      const int64_t n = Product(is, 0, is.rank() - 1);
      const int64_t slice = Product(vs, static_cast<int>(r), vs.rank());
      // Every tuple's offset first: nothing changes when one is bad.
      std::vector<int64_t> offsets(n);
      std::vector<int64_t> tuple;
      for (int64_t t = 0; t < n; ++t) {
        offsets[t] = TupleOffset(indices, t, r, vs, &tuple);
        OP_REQUIRES(ctx, offsets[t] >= 0 || ignore_bad_,
                    absl::InvalidArgumentError(absl::StrCat(
                        TupleText(is, t, tuple), " does not index into ",
                        "variable '", var->name(), "' of shape ", vs.ToString(),
                        ": each index must be in [0, dim)")));
      }
      if (state_kernels::NeedsCopyBeforeUpdate(value, is_ref_)) {
        // Copy on write (kernel_util_state.h).
        Tensor copy;
        OP_REQUIRES_OK(ctx, ctx->allocate_temp(value->dtype(), vs, &copy));
        index_ops::CopyElements(value->data<T>(), value->NumElements(),
                                copy.data<T>());
        *value = std::move(copy);
        state_kernels::AdoptUpdatedValue(value, is_ref_);
      }
      T* dst = value->data<T>();
      const T* src = updates.data<T>();
      for (int64_t t = 0; t < n; ++t) {
        if (offsets[t] < 0) continue;  // IGNORE
        Fold<T, K>(src + t * slice, slice, dst + offsets[t] * slice);
      }
    }
    if (is_ref_) ctx->set_output_var(0, var);
  }
  bool IsExpensive() const override { return false; }

 private:
  const bool ignore_bad_;
  bool is_ref_ = true;
};

#define DFLOW_REGISTER_SCATTER_ND(op, kind, T)                        \
  DFLOW_REGISTER_KERNEL(                                              \
      KernelDefBuilder(op).Device(kDeviceCpu).TypeConstraint<T>("T"), \
      ScatterNdVariableOp<T, kind>);                                  \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("Resource" op)               \
                            .Device(kDeviceCpu)                       \
                            .TypeConstraint<T>("T"),                  \
                        ScatterNdVariableOp<T, kind>)

#define DFLOW_REGISTER_SCATTER_ND_ALL(T)                            \
  DFLOW_REGISTER_SCATTER_ND("ScatterNdUpdate", NdKind::kUpdate, T); \
  DFLOW_REGISTER_SCATTER_ND("ScatterNdAdd", NdKind::kAdd, T);       \
  DFLOW_REGISTER_SCATTER_ND("ScatterNdSub", NdKind::kSub, T)

DFLOW_REGISTER_SCATTER_ND_ALL(float);
DFLOW_REGISTER_SCATTER_ND_ALL(double);
DFLOW_REGISTER_SCATTER_ND_ALL(int32_t);
DFLOW_REGISTER_SCATTER_ND_ALL(int64_t);
DFLOW_REGISTER_SCATTER_ND("ScatterNdUpdate", NdKind::kUpdate, bool);

}  // namespace
}  // namespace dflow
