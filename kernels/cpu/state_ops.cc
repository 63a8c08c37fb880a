// Variables: VariableV2 and the Assign family (reference variables), and
// VarHandleOp, ReadVariableOp and the Assign*VariableOp family (resource
// variables). Both kinds name a Var in the session's VariableStore.
//
// Values are shared, not copied: Assign stores the assigned tensor itself.
// Updates in place (AssignAdd/Sub) copy first when the buffer is shared with
// anyone else (a reader's snapshot, the Const that initialized it), so a
// value once read never changes under its reader.
#include <atomic>

#include "absl/strings/str_cat.h"
#include "graph/types.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"
#include "runtime/variables.h"

namespace dflow {
namespace {

// The variable a VariableV2/VarHandleOp node names (runtime/variables.h).
std::string VariableKey(OpKernelConstruction* ctx) {
  std::string container, shared_name;
  ctx->GetAttr("container", &container).IgnoreError();
  ctx->GetAttr("shared_name", &shared_name).IgnoreError();
  return ::dflow::VariableKey(ctx->name(), container, shared_name);
}

// Finds (once per kernel and session) the Var the node names.
class VariableOpBase : public OpKernel {
 public:
  explicit VariableOpBase(OpKernelConstruction* ctx)
      : OpKernel(ctx), key_(VariableKey(ctx)) {
    ctx->SetStatus(ctx->GetAttr("dtype", &dtype_));
    ctx->SetStatus(ctx->GetAttr("shape", &shape_));
  }
  bool IsExpensive() const override { return false; }

 protected:
  Var* GetVar(OpKernelContext* ctx) {
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

 private:
  const std::string key_;
  DataType dtype_ = DT_INVALID;
  TensorShape shape_;
  std::atomic<Var*> cached_{nullptr};
  std::atomic<VariableStore*> store_{nullptr};
};

class VariableOp : public VariableOpBase {
 public:
  using VariableOpBase::VariableOpBase;
  void Compute(OpKernelContext* ctx) override {
    Var* var = GetVar(ctx);
    if (var != nullptr) ctx->set_output_var(0, var);
  }
};

class VarHandleOp : public VariableOpBase {
 public:
  using VariableOpBase::VariableOpBase;
  void Compute(OpKernelContext* ctx) override {
    Var* var = GetVar(ctx);
    if (var != nullptr) ctx->set_output_var(0, var);
  }
};

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

// Assign (ref) and AssignVariableOp (resource).
class AssignOp : public OpKernel {
 public:
  explicit AssignOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    if (ctx->node().FindAttr("validate_shape") != nullptr) {
      ctx->SetStatus(ctx->GetAttr("validate_shape", &validate_shape_));
    }
    is_ref_ = IsRefType(ctx->node().input_type(0));
  }
  void Compute(OpKernelContext* ctx) override {
    Var* var = ctx->input_var(0);
    OP_REQUIRES(ctx, var != nullptr,
                absl::InternalError("the variable input is not a variable"));
    Tensor value = ctx->input(1);
    OP_REQUIRES_OK(ctx, CheckValueFits(*var, value, validate_shape_));
    {
      std::lock_guard<std::mutex> lock(var->mu());
      *var->value() = std::move(value);
    }
    if (is_ref_) ctx->set_output_var(0, var);
  }
  bool IsExpensive() const override { return false; }

 private:
  bool validate_shape_ = true;
  bool is_ref_ = true;
};

template <typename T, bool kAdd>
void Update(Tensor* dst, const Tensor& delta) {
  auto d = dst->flat<T>();
  auto x = delta.flat<T>();
  for (size_t i = 0; i < d.size(); ++i) d[i] = kAdd ? d[i] + x[i] : d[i] - x[i];
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
      Tensor* value = var->value();
      OP_REQUIRES(ctx, var->initialized(),
                  UninitializedValueError(var->name()));
      OP_REQUIRES(ctx, value->shape() == delta.shape(),
                  absl::InvalidArgumentError(absl::StrCat(
                      "variable '", var->name(), "' has shape ",
                      value->shape().ToString(), " but the update has shape ",
                      delta.shape().ToString())));
      if (value->RefCount() > 1) {
        // Copy on write: someone else still reads the old value.
        Tensor copy;
        OP_REQUIRES_OK(
            ctx, ctx->allocate_temp(value->dtype(), value->shape(), &copy));
        std::copy(value->flat<T>().begin(), value->flat<T>().end(),
                  copy.flat<T>().begin());
        *value = std::move(copy);
      }
      Update<T, kAdd>(value, delta);
    }
    if (is_ref_) ctx->set_output_var(0, var);
  }
  bool IsExpensive() const override { return false; }

 private:
  bool is_ref_ = true;
};

// Whether a resource variable holds a value (TF1 graphs of resource
// variables build one per variable for is_variable_initialized).
class ReadVariableOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
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
      if (value->RefCount() > 1) {
        // Copy on write: someone else still reads the old value.
        Tensor copy;
        OP_REQUIRES_OK(
            ctx, ctx->allocate_temp(value->dtype(), TensorShape(), &copy));
        *value = std::move(copy);
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
                      VarHandleOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("Assign")
                          .Device(kDeviceCpu)
                          .TypeConstraint("T", kAllTypes),
                      AssignOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("AssignVariableOp")
                          .Device(kDeviceCpu)
                          .TypeConstraint("dtype", kAllTypes),
                      AssignOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("ReadVariableOp")
                          .Device(kDeviceCpu)
                          .TypeConstraint("dtype", kAllTypes),
                      ReadVariableOp);

DFLOW_REGISTER_KERNEL(KernelDefBuilder("IsVariableInitialized")
                          .Device(kDeviceCpu)
                          .TypeConstraint("dtype", kAllTypes),
                      IsInitializedOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("VarIsInitializedOp").Device(kDeviceCpu),
                      IsInitializedOp);

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
