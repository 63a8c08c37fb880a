// Shared by the variable kernels of both devices (kernels/cpu/state_ops.cc,
// kernels/gpu/state_kernels_gpu.cc): finding the Var a node names, the
// checks of an assignment or update, and the two kernels that are the same
// on every device because they only move Tensor handles: Assign (the
// variable takes the assigned tensor itself, wherever it lives) and
// ReadVariableOp (a snapshot sharing the variable's buffer).
#ifndef DFLOW_KERNELS_CPU_KERNEL_UTIL_STATE_H_
#define DFLOW_KERNELS_CPU_KERNEL_UTIL_STATE_H_

#include <atomic>
#include <string>

#include "absl/status/status.h"
#include "graph/tensor.h"
#include "graph/tensor_shape.h"
#include "graph/types.h"
#include "runtime/op_kernel.h"
#include "runtime/variables.h"

namespace dflow {
namespace state_kernels {

// The Var a VariableV2/VarHandleOp node names (its container and
// shared_name attrs, runtime/variables.h), looked up once per kernel and
// session.
class VariableLookup {
 public:
  explicit VariableLookup(OpKernelConstruction* ctx);
  // The Var, or null with the context's status set.
  Var* Get(OpKernelContext* ctx);

 private:
  std::string key_;
  DataType dtype_ = DT_INVALID;
  TensorShape shape_;
  std::atomic<Var*> cached_{nullptr};
  std::atomic<VariableStore*> store_{nullptr};
};

// Whether `value` may be assigned to `var`: its dtype, and with
// validate_shape its shape against the declared one.
absl::Status CheckValueFits(const Var& var, const Tensor& value,
                            bool validate_shape);

// Whether `delta` may update `var` in place (AssignAdd/AssignSub): the
// variable holds a value of delta's shape. Call with var->mu() held.
absl::Status CheckUpdate(Var* var, const Tensor& delta);

// How an update treats the buffer a variable's value lives in, as
// TensorFlow does for each kind of variable:
// - A reference variable (VariableV2; the ref forms of the update ops) is
//   updated in place, so every snapshot its readers took sees the update:
//   `v/read` consumed after a training update (an ExponentialMovingAverage
//   ordered after it) reads the new weights. Its buffer is its own
//   (TensorBuffer::is_reference_variable_value); a value it still shares
//   with something else (a Const it was restored from) is copied once.
// - A resource variable is copied on write when anyone else holds the
//   buffer, so a value once read never changes under its reader.
// Whether `value` must be copied to a fresh buffer before the update (call
// with the variable's mutex held). A reference variable's unmarked buffer
// that nobody else holds becomes its own here, without a copy.
inline bool NeedsCopyBeforeUpdate(Tensor* value, bool reference) {
  if (!reference) return value->RefCount() > 1;
  if (value->IsReferenceVariableValue()) return false;
  if (value->RefCount() == 1) {
    value->MarkReferenceVariableValue();
    return false;
  }
  return true;
}
// `value` for a holder that keeps it beyond the step (a queue, a staging
// area): a copy when it is a reference variable's own buffer, which later
// updates change in place.
inline Tensor ValueToKeep(const Tensor& value) {
  return value.IsReferenceVariableValue() ? value.DeepCopy() : value;
}
// After the update wrote a fresh buffer: a reference variable's is its own.
inline void AdoptUpdatedValue(Tensor* value, bool reference) {
  if (reference) value->MarkReferenceVariableValue();
}

// Assign (ref) and AssignVariableOp (resource), on any device.
// The variable takes the assigned tensor itself, except a reference
// variable on the host, which keeps a buffer of its own as TensorFlow's
// does: the value is copied into its buffer when that holds as many
// elements (its readers' snapshots see the new value), else the variable
// takes the assigned buffer when nobody else holds it, else a copy. A value
// that is a reference variable's own buffer is copied by the others too
// (a resource variable assigned `v/read` must not change under v's updates).
class AssignKernel : public OpKernel {
 public:
  explicit AssignKernel(OpKernelConstruction* ctx);
  void Compute(OpKernelContext* ctx) override;
  bool IsExpensive() const override { return false; }

 private:
  bool validate_shape_ = true;
  bool is_ref_ = true;
  bool on_host_ = true;
};

// ReadVariableOp, on any device.
class ReadVariableKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override;
  bool IsExpensive() const override { return false; }
};

}  // namespace state_kernels
}  // namespace dflow

#endif  // DFLOW_KERNELS_CPU_KERNEL_UTIL_STATE_H_
