// StridedSliceAssign and ResourceStridedSliceAssign: `value` written into
// the box of a variable that a strided slice spec selects (Python's
// `v[1:3].assign(x)`, on reference and resource variables), with
// TensorFlow's semantics: the value must have the slice's shape exactly (no
// broadcasting, as TensorFlow), and an empty slice writes nothing. The
// write holds the variable's lock and copies the buffer first when a
// reader's snapshot still holds it, as the scatters do.
#include <algorithm>
#include <cstdint>
#include <mutex>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "graph/tensor.h"
#include "graph/types.h"
#include "kernels/cpu/kernel_util_array.h"
#include "kernels/cpu/kernel_util_state.h"
#include "kernels/cpu/kernel_util_strided_slice.h"
#include "kernels/cpu/slicing_ops_util.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"
#include "runtime/variables.h"

namespace dflow {
namespace {

using strided_slice::ReadMasks;
using strided_slice::ReadStridedBox;
using strided_slice::StridedBox;
using strided_slice::StridedSliceMasks;

class StridedSliceAssignOp : public OpKernel {
 public:
  explicit StridedSliceAssignOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ReadMasks(ctx, &masks_);
    is_ref_ = IsRefType(ctx->node().input_type(0));
  }

  void Compute(OpKernelContext* ctx) override {
    Var* var = ctx->input_var(0);
    OP_REQUIRES(ctx, var != nullptr,
                absl::InternalError("the variable input is not a variable"));
    const Tensor& value = ctx->input(4);
    {
      std::lock_guard<std::mutex> lock(var->mu());
      OP_REQUIRES(ctx, var->initialized(),
                  UninitializedValueError(var->name()));
      Tensor* lhs = var->value();
      OP_REQUIRES(ctx, lhs->dtype() == value.dtype(),
                  absl::InvalidArgumentError(absl::StrCat(
                      "variable '", var->name(), "' holds ",
                      DataTypeName(lhs->dtype()), " but the value is ",
                      DataTypeName(value.dtype()))));
      StridedBox box;
      OP_REQUIRES_OK(ctx,
                     ReadStridedBox(ctx, 1, lhs->shape(), masks_, &box));
      if (box.out_shape.num_elements() == 0) return;  // TensorFlow: a no-op
      OP_REQUIRES(
          ctx, value.shape() == box.out_shape,
          absl::UnimplementedError(absl::StrCat(
              "sliced l-value shape ", box.out_shape.ToString(),
              " of variable '", var->name(), "' (shape ",
              lhs->shape().ToString(), ") does not match r-value shape ",
              value.shape().ToString(),
              "; automatic broadcasting is not implemented (as in "
              "TensorFlow): give the value the slice's shape")));
      if (state_kernels::NeedsCopyBeforeUpdate(lhs, is_ref_)) {
        // Copy on write (kernel_util_state.h).
        Tensor copy;
        OP_REQUIRES_OK(ctx,
                       ctx->allocate_temp(lhs->dtype(), lhs->shape(), &copy));
        array_kernels::VisitCopyType(lhs->dtype(), [&](auto* tag) {
          using T = std::remove_pointer_t<decltype(tag)>;
          std::copy_n(array_kernels::CopyData<T>(*lhs), lhs->NumElements(),
                      array_kernels::CopyData<T>(&copy));
        });
        *lhs = std::move(copy);
        state_kernels::AdoptUpdatedValue(lhs, is_ref_);
      }
      slicing::StridedScatter(value, box.begin, box.strides, box.sizes, lhs,
                              ctx->thread_pool());
    }
    if (is_ref_) ctx->set_output_var(0, var);
  }
  bool IsExpensive() const override { return false; }

 private:
  StridedSliceMasks masks_;
  bool is_ref_ = true;
};

DFLOW_REGISTER_KERNEL(KernelDefBuilder("StridedSliceAssign")
                          .Device(kDeviceCpu)
                          .TypeConstraint("T", array_kernels::AllTensorTypes())
                          .TypeConstraint("Index", {DT_INT32, DT_INT64}),
                      StridedSliceAssignOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("ResourceStridedSliceAssign")
                          .Device(kDeviceCpu)
                          .TypeConstraint("T", array_kernels::AllTensorTypes())
                          .TypeConstraint("Index", {DT_INT32, DT_INT64}),
                      StridedSliceAssignOp);

}  // namespace
}  // namespace dflow
