#include "kernels/cpu/kernel_util_state.h"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <string>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "runtime/device.h"
#include "runtime/kernel_registry.h"

namespace dflow {
namespace state_kernels {

VariableLookup::VariableLookup(OpKernelConstruction* ctx) {
  std::string container, shared_name;
  ctx->GetAttr("container", &container).IgnoreError();
  ctx->GetAttr("shared_name", &shared_name).IgnoreError();
  key_ = VariableKey(ctx->name(), container, shared_name);
  ctx->SetStatus(ctx->GetAttr("dtype", &dtype_));
  ctx->SetStatus(ctx->GetAttr("shape", &shape_));
}

Var* VariableLookup::Get(OpKernelContext* ctx) {
  Var* cached = cached_.load(std::memory_order_acquire);
  if (cached != nullptr &&
      store_.load(std::memory_order_acquire) == ctx->variables()) {
    return cached;
  }
  absl::StatusOr<Var*> var =
      ctx->variables()->LookupOrCreate(key_, dtype_, shape_);
  if (!var.ok()) {
    ctx->SetStatus(var.status());
    return nullptr;
  }
  store_.store(ctx->variables(), std::memory_order_release);
  cached_.store(*var, std::memory_order_release);
  return *var;
}

absl::Status CheckValueFits(const Var& var, const Tensor& value,
                            bool validate_shape) {
  if (value.dtype() != var.dtype()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot assign a ", DataTypeName(value.dtype()), " value to variable '",
        var.name(), "' of dtype ", DataTypeName(var.dtype())));
  }
  if (validate_shape && !var.declared_shape().IsCompatibleWith(value.shape())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot assign a value of shape ", value.shape().ToString(),
        " to variable '", var.name(), "' of shape ",
        var.declared_shape().ToString(),
        " (validate_shape is on; turn it off to change the shape)"));
  }
  return absl::OkStatus();
}

absl::Status CheckUpdate(Var* var, const Tensor& delta) {
  if (!var->initialized()) return UninitializedValueError(var->name());
  const Tensor& value = *var->value();
  if (value.shape() != delta.shape()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "variable '", var->name(), "' has shape ", value.shape().ToString(),
        " but the update has shape ", delta.shape().ToString()));
  }
  return absl::OkStatus();
}

namespace {

// `from`'s elements into `to`'s buffer (same dtype and element count).
void CopyElementsInto(const Tensor& from, Tensor* to) {
  if (from.dtype() == DT_STRING) {
    std::copy_n(from.data<std::string>(), from.NumElements(),
                to->data<std::string>());
  } else if (from.NumElements() > 0) {
    // memmove: assigning a variable its own value copies onto itself.
    std::memmove(to->raw_data(), from.raw_data(), from.TotalBytes());
  }
}

}  // namespace

AssignKernel::AssignKernel(OpKernelConstruction* ctx) : OpKernel(ctx) {
  if (ctx->node().FindAttr("validate_shape") != nullptr) {
    ctx->SetStatus(ctx->GetAttr("validate_shape", &validate_shape_));
  }
  is_ref_ = IsRefType(ctx->node().input_type(0));
  on_host_ = ctx->device()->kernel_device_type() == kDeviceCpu;
}

void AssignKernel::Compute(OpKernelContext* ctx) {
  Var* var = ctx->input_var(0);
  OP_REQUIRES(ctx, var != nullptr,
              absl::InternalError("the variable input is not a variable"));
  // Whether the executor handed this kernel the only hold on the value
  // (asked before `value` below adds its own).
  const bool exclusive = ctx->input_held_only_here(1);
  Tensor value = ctx->input(1);
  OP_REQUIRES_OK(ctx, CheckValueFits(*var, value, validate_shape_));
  {
    std::lock_guard<std::mutex> lock(var->mu());
    Tensor* old = var->value();
    const bool fits_old = on_host_ && is_ref_ &&
                          old->IsReferenceVariableValue() &&
                          old->dtype() == value.dtype() &&
                          old->NumElements() == value.NumElements();
    if (fits_old && !(exclusive && old->RefCount() == 1)) {
      // Into the buffer the readers' snapshots share (TensorFlow's first
      // choice), viewed with the assigned shape (validate_shape=false may
      // give as many elements another shape).
      if (old->shape() != value.shape()) *old = *old->Reshaped(value.shape());
      CopyElementsInto(value, old);
    } else if (!on_host_ || (exclusive && !value.IsReferenceVariableValue())) {
      // (On a GPU the variable shares the assigned tensor: its updates copy
      // on write there.)
      if (on_host_ && is_ref_) value.MarkReferenceVariableValue();
      *old = std::move(value);
    } else if (is_ref_ || value.IsReferenceVariableValue()) {
      Tensor copy = value.DeepCopy(ctx->device()->allocator());
      OP_REQUIRES(ctx, copy.IsInitialized() || !value.IsInitialized(),
                  absl::ResourceExhaustedError(absl::StrCat(
                      "cannot allocate ", value.TotalBytes(),
                      " bytes for the value of variable '", var->name(), "'")));
      if (is_ref_) copy.MarkReferenceVariableValue();
      *old = std::move(copy);
    } else {
      *old = std::move(value);
    }
  }
  if (is_ref_) ctx->set_output_var(0, var);
}

void ReadVariableKernel::Compute(OpKernelContext* ctx) {
  Var* var = ctx->input_var(0);
  OP_REQUIRES(ctx, var != nullptr,
              absl::InternalError("the resource input is not a variable"));
  Tensor value = var->Read();
  OP_REQUIRES(ctx, value.dtype() == var->dtype(),
              UninitializedValueError(var->name()));
  OP_REQUIRES(
      ctx, value.dtype() == output_type(0),
      absl::InvalidArgumentError(absl::StrCat(
          "variable '", var->name(), "' holds ", DataTypeName(value.dtype()),
          ", read as ", DataTypeName(output_type(0)))));
  ctx->set_output(0, std::move(value));
}

}  // namespace state_kernels
}  // namespace dflow
