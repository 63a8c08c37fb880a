// Variables: VariableV2 and the Assign family (reference variables), and
// VarHandleOp, ReadVariableOp and the Assign*VariableOp family (resource
// variables). Both kinds name a Var in the session's VariableStore.
//
// Values are shared, not copied: Assign stores the assigned tensor itself.
// Updates in place (AssignAdd/Sub) copy first when the buffer is shared with
// anyone else (a reader's snapshot, the Const that initialized it), so a
// value once read never changes under its reader. The lookup, the checks,
// Assign and ReadVariableOp are shared with the GPU kernels
// (kernel_util_state.h).

#include "absl/strings/str_cat.h"
#include "graph/types.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/kernel_util_state.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"
#include "runtime/variables.h"

namespace dflow {
namespace {

// VariableV2 (ref) and VarHandleOp (resource): the Var the node names.
class VariableOp : public OpKernel {
 public:
  explicit VariableOp(OpKernelConstruction* ctx)
      : OpKernel(ctx), lookup_(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    Var* var = lookup_.Get(ctx);
    if (var != nullptr) ctx->set_output_var(0, var);
  }
  bool IsExpensive() const override { return false; }

 private:
  state_kernels::VariableLookup lookup_;
};

// dst (+|-)= delta over raw pointers, so the loop vectorizes (the checked
// flat<T>() accessors kept it scalar: an EMA's AssignSub of a 784x500
// variable took 211 us of seed 001's step), split over the pool when large.
template <typename T, bool kAdd>
void Update(OpKernelContext* ctx, Tensor* dst, const Tensor& delta) {
  T* d = dst->data<T>();
  const T* x = delta.data<T>();
  ParallelForElements(ctx, dst->NumElements(), /*cost_per_element=*/1,
                      [d, x](int64_t begin, int64_t end) {
                        for (int64_t i = begin; i < end; ++i) {
                          d[i] = kAdd ? d[i] + x[i] : d[i] - x[i];
                        }
                      });
}

// AssignAdd/AssignSub (ref) and AssignAdd/SubVariableOp (resource).
template <typename T, bool kAdd>
class AssignUpdateOp : public OpKernel {
 public:
  explicit AssignUpdateOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    is_ref_ = IsRefType(ctx->node().input_type(0));
  }
  void Compute(OpKernelContext* ctx) override {
    Var* var = ctx->input_var(0);
    OP_REQUIRES(ctx, var != nullptr,
                absl::InternalError("the variable input is not a variable"));
    const Tensor& delta = ctx->input(1);
    {
      std::lock_guard<std::mutex> lock(var->mu());
      OP_REQUIRES_OK(ctx, state_kernels::CheckUpdate(var, delta));
      Tensor* value = var->value();
      if (state_kernels::NeedsCopyBeforeUpdate(value, is_ref_)) {
        // Copy on write (kernel_util_state.h).
        Tensor copy;
        OP_REQUIRES_OK(
            ctx, ctx->allocate_temp(value->dtype(), value->shape(), &copy));
        std::copy(value->flat<T>().begin(), value->flat<T>().end(),
                  copy.flat<T>().begin());
        *value = std::move(copy);
        state_kernels::AdoptUpdatedValue(value, is_ref_);
      }
      Update<T, kAdd>(ctx, value, delta);
    }
    if (is_ref_) ctx->set_output_var(0, var);
  }
  // Expensive (the default) for the executor's sampling: it runs small
  // updates inline once it has timed them, and hands large ones to the pool.

 private:
  bool is_ref_ = true;
};

// VariableShape: the resource variable's value's shape, as out_type.
class VariableShapeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    Var* var = ctx->input_var(0);
    OP_REQUIRES(ctx, var != nullptr,
                absl::InternalError("the resource input is not a variable"));
    TensorShape shape;
    {
      std::lock_guard<std::mutex> lock(var->mu());
      OP_REQUIRES(ctx, var->initialized(),
                  UninitializedValueError(var->name()));
      shape = var->value()->shape();
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx,
                   ctx->allocate_output(0, TensorShape({shape.rank()}), &out));
    for (int d = 0; d < shape.rank(); ++d) {
      if (output_type(0) == DT_INT64) {
        out->data<int64_t>()[d] = shape.dim(d);
      } else {
        out->data<int32_t>()[d] = static_cast<int32_t>(shape.dim(d));
      }
    }
  }
  bool IsExpensive() const override { return false; }
};

// IsVariableInitialized (ref) and VarIsInitializedOp (resource): reads no
// value, so never fails on an uninitialized variable.
class IsInitializedOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    Var* var = ctx->input_var(0);
    OP_REQUIRES(ctx, var != nullptr,
                absl::InternalError("the variable input is not a variable"));
    bool initialized;
    {
      std::lock_guard<std::mutex> lock(var->mu());
      initialized = var->initialized();
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(), &out));
    *out->data<bool>() = initialized;
  }
  bool IsExpensive() const override { return false; }
};

// CountUpTo (ref) and ResourceCountUpTo: the old value out, the variable
// one higher, until the limit (TensorFlow's "Reached limit of N", an
// OutOfRange: a queue runner's enqueue that meets it closes its queue).
template <typename T>
class CountUpToOp : public OpKernel {
 public:
  explicit CountUpToOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("limit", &limit_));
    is_ref_ = IsRefType(ctx->node().input_type(0));
  }
  void Compute(OpKernelContext* ctx) override {
    Var* var = ctx->input_var(0);
    OP_REQUIRES(ctx, var != nullptr,
                absl::InternalError("the variable input is not a variable"));
    T before;
    {
      std::lock_guard<std::mutex> lock(var->mu());
      Tensor* value = var->value();
      OP_REQUIRES(ctx, var->initialized(),
                  UninitializedValueError(var->name()));
      OP_REQUIRES(ctx, value->dtype() == DataTypeToEnum<T>::value,
                  absl::InvalidArgumentError(absl::StrCat(
                      "variable '", var->name(), "' holds ",
                      DataTypeName(value->dtype()), ", counted as ",
                      DataTypeName(DataTypeToEnum<T>::value))));
      OP_REQUIRES(
          ctx, value->shape().rank() == 0,
          absl::InvalidArgumentError(absl::StrCat("variable '", var->name(),
                                                  "' must be a scalar to count "
                                                  "up, but has shape ",
                                                  value->shape().ToString())));
      before = *value->data<T>();
      OP_REQUIRES(
          ctx, before < limit_,
          absl::OutOfRangeError(absl::StrCat(
              "Reached limit of ", limit_, " (variable '", var->name(), "')")));
      if (state_kernels::NeedsCopyBeforeUpdate(value, is_ref_)) {
        // Copy on write (kernel_util_state.h).
        Tensor copy;
        OP_REQUIRES_OK(
            ctx, ctx->allocate_temp(value->dtype(), TensorShape(), &copy));
        *value = std::move(copy);
        state_kernels::AdoptUpdatedValue(value, is_ref_);
      }
      *value->data<T>() = before + 1;
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(), &out));
    *out->data<T>() = before;
  }
  bool IsExpensive() const override { return false; }

 private:
  int64_t limit_ = 0;
  bool is_ref_ = true;
};

const std::vector<DataType> kAllTypes = {
    DT_FLOAT, DT_DOUBLE, DT_HALF,      DT_BFLOAT16,  DT_INT8,   DT_INT16,
    DT_INT32, DT_INT64,  DT_UINT8,     DT_UINT16,    DT_UINT32, DT_UINT64,
    DT_BOOL,  DT_STRING, DT_COMPLEX64, DT_COMPLEX128};

DFLOW_REGISTER_KERNEL(KernelDefBuilder("VariableV2")
                          .Device(kDeviceCpu)
                          .TypeConstraint("dtype", kAllTypes),
                      VariableOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("VarHandleOp")
                          .Device(kDeviceCpu)
                          .TypeConstraint("dtype", kAllTypes),
                      VariableOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("Assign")
                          .Device(kDeviceCpu)
                          .TypeConstraint("T", kAllTypes),
                      state_kernels::AssignKernel);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("AssignVariableOp")
                          .Device(kDeviceCpu)
                          .TypeConstraint("dtype", kAllTypes),
                      state_kernels::AssignKernel);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("ReadVariableOp")
                          .Device(kDeviceCpu)
                          .TypeConstraint("dtype", kAllTypes),
                      state_kernels::ReadVariableKernel);

DFLOW_REGISTER_KERNEL(KernelDefBuilder("IsVariableInitialized")
                          .Device(kDeviceCpu)
                          .TypeConstraint("dtype", kAllTypes),
                      IsInitializedOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("VarIsInitializedOp").Device(kDeviceCpu),
                      IsInitializedOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("VariableShape").Device(kDeviceCpu),
                      VariableShapeOp);

#define DFLOW_REGISTER_COUNT_UP_TO(T)                                          \
  DFLOW_REGISTER_KERNEL(                                                       \
      KernelDefBuilder("CountUpTo").Device(kDeviceCpu).TypeConstraint<T>("T"), \
      CountUpToOp<T>);                                                         \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("ResourceCountUpTo")                  \
                            .Device(kDeviceCpu)                                \
                            .TypeConstraint<T>("T"),                           \
                        CountUpToOp<T>)

DFLOW_REGISTER_COUNT_UP_TO(int32_t);
DFLOW_REGISTER_COUNT_UP_TO(int64_t);

#define DFLOW_REGISTER_ASSIGN_UPDATE(T)                                        \
  DFLOW_REGISTER_KERNEL(                                                       \
      KernelDefBuilder("AssignAdd").Device(kDeviceCpu).TypeConstraint<T>("T"), \
      AssignUpdateOp<T, true>);                                                \
  DFLOW_REGISTER_KERNEL(                                                       \
      KernelDefBuilder("AssignSub").Device(kDeviceCpu).TypeConstraint<T>("T"), \
      AssignUpdateOp<T, false>);                                               \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("AssignAddVariableOp")                \
                            .Device(kDeviceCpu)                                \
                            .TypeConstraint<T>("dtype"),                       \
                        AssignUpdateOp<T, true>);                              \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("AssignSubVariableOp")                \
                            .Device(kDeviceCpu)                                \
                            .TypeConstraint<T>("dtype"),                       \
                        AssignUpdateOp<T, false>)

DFLOW_REGISTER_ASSIGN_UPDATE(float);
DFLOW_REGISTER_ASSIGN_UPDATE(double);
DFLOW_REGISTER_ASSIGN_UPDATE(int32_t);
DFLOW_REGISTER_ASSIGN_UPDATE(int64_t);

}  // namespace
}  // namespace dflow
