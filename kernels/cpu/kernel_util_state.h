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

// Assign (ref) and AssignVariableOp (resource), on any device.
class AssignKernel : public OpKernel {
 public:
  explicit AssignKernel(OpKernelConstruction* ctx);
  void Compute(OpKernelContext* ctx) override;
  bool IsExpensive() const override { return false; }

 private:
  bool validate_shape_ = true;
  bool is_ref_ = true;
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
