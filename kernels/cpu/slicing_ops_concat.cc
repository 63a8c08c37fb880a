// CPU kernels that join tensors: ConcatV2 (along an existing axis) and Pack
// (along a new one). Both view every input as [rows, chunk] and copy row by
// row (slicing::ConcatRows). ConcatOffset computes, from shapes only, where
// each input of a ConcatV2 starts in its output (for its gradient).
#include <cstdint>
#include <limits>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/tensor.h"
#include "graph/types.h"
#include "kernels/cpu/kernel_util_array.h"
#include "kernels/cpu/kernel_util_concat.h"
#include "kernels/cpu/slicing_ops_util.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

using array_kernels::DimProduct;
using array_kernels::IndexVec;

using array_kernels::SameExceptAxis;

class ConcatV2Op : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const int n = ctx->num_inputs() - 1;
    absl::InlinedVector<Tensor, 8> values;
    values.reserve(n);
    for (int i = 0; i < n; ++i) values.push_back(ctx->input(i));
    const TensorShape& first = values[0].shape();
    const int rank = first.rank();
    OP_REQUIRES(ctx, rank > 0,
                absl::InvalidArgumentError(
                    "cannot concatenate scalars (input 0 has shape []); use "
                    "Pack to stack them into a vector"));
    int64_t axis_value = 0;
    OP_REQUIRES_OK(ctx, array_kernels::ReadIndexScalar(ctx->input(n), "axis",
                                                       &axis_value));
    int axis = 0;
    OP_REQUIRES_OK(ctx, array_kernels::CanonicalAxis(axis_value, rank, first,
                                                     "axis", &axis));
    TensorShape out_shape = first;
    int64_t axis_size = 0;
    int nonempty = 0, last_nonempty = 0;
    for (int i = 0; i < n; ++i) {
      const TensorShape& s = values[i].shape();
      OP_REQUIRES(ctx, SameExceptAxis(first, s, axis),
                  absl::InvalidArgumentError(absl::StrCat(
                      "input ", i, " has shape ", s.ToString(),
                      " but input 0 has shape ", first.ToString(),
                      "; ConcatV2 inputs must match in every dimension but ",
                      axis, " (the concat axis)")));
      axis_size += s.dim(axis);
      if (values[i].NumElements() > 0) {
        ++nonempty;
        last_nonempty = i;
      }
    }
    out_shape.set_dim(axis, axis_size);
    if (nonempty == 1 && values[last_nonempty].shape() == out_shape) {
      // Every other input is empty: the result is that input, uncopied.
      ctx->set_output(0, values[last_nonempty]);
      return;
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out->NumElements() == 0) return;
    const int64_t rows = DimProduct(first, 0, axis);
    IndexVec chunks(n);
    for (int i = 0; i < n; ++i) {
      chunks[i] = DimProduct(values[i].shape(), axis, rank);
    }
    slicing::ConcatRows(values, chunks, rows, out, ctx->thread_pool());
  }
};

class PackOp : public OpKernel {
 public:
  explicit PackOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    absl::Status s = ctx->GetAttr("axis", &axis_);
    if (!s.ok()) ctx->SetStatus(s);
  }

  void Compute(OpKernelContext* ctx) override {
    const int n = ctx->num_inputs();
    absl::InlinedVector<Tensor, 8> values;
    values.reserve(n);
    for (int i = 0; i < n; ++i) values.push_back(ctx->input(i));
    const TensorShape& first = values[0].shape();
    const int rank = first.rank();
    OP_REQUIRES(ctx, axis_ >= -(rank + 1) && axis_ <= rank,
                absl::InvalidArgumentError(
                    absl::StrCat("axis ", axis_,
                                 " is out of range for stacking tensors of "
                                 "shape ",
                                 first.ToString(), ": it must be in [",
                                 -(rank + 1), ", ", rank, "]")));
    const int axis = static_cast<int>(axis_ < 0 ? axis_ + rank + 1 : axis_);
    for (int i = 1; i < n; ++i) {
      OP_REQUIRES(ctx, values[i].shape() == first,
                  absl::InvalidArgumentError(absl::StrCat(
                      "input ", i, " has shape ", values[i].shape().ToString(),
                      " but input 0 has shape ", first.ToString(),
                      "; Pack inputs must all have the same shape")));
    }
    TensorShape out_shape = first;
    out_shape.InsertDim(axis, n);
    if (n == 1) {
      absl::StatusOr<Tensor> view = values[0].Reshaped(out_shape);
      OP_REQUIRES_OK(ctx, view.status());
      ctx->set_output(0, *std::move(view));
      return;
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out->NumElements() == 0) return;
    const int64_t rows = DimProduct(first, 0, axis);
    IndexVec chunks(n, DimProduct(first, axis, rank));
    slicing::ConcatRows(values, chunks, rows, out, ctx->thread_pool());
  }

 private:
  int64_t axis_ = 0;
};


DFLOW_REGISTER_KERNEL(KernelDefBuilder("ConcatOffset")
                          .Device(kDeviceCpu)
                          .TypeConstraint("shape_type", {DT_INT32, DT_INT64}),
                      array_kernels::ConcatOffsetKernel);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("ConcatV2")
                          .Device(kDeviceCpu)
                          .TypeConstraint("T", array_kernels::AllTensorTypes())
                          .TypeConstraint("Tidx", {DT_INT32, DT_INT64}),
                      ConcatV2Op);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("Pack")
                          .Device(kDeviceCpu)
                          .TypeConstraint("T", array_kernels::AllTensorTypes()),
                      PackOp);

}  // namespace
}  // namespace dflow
