// CPU kernels of the stack ops (graph/ops/data_flow_ops_stack.cc): the
// accumulators of TF1 while-loop gradients. StackV2 makes a new stack each
// time it runs, owned by the step (runtime/step_container.h), so a loop's
// pushes of one run never meet the pops of the next and nothing outlives
// the run. None of them waits: a pop on an empty stack is an error, as in
// TensorFlow (its gradient graphs order every pop after its push).
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/cpu/kernel_util_array.h"
#include "kernels/cpu/kernel_util_resource.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"
#include "runtime/step_container.h"

namespace dflow {
namespace {

class Stack : public ResourceBase {
 public:
  Stack(std::string name, DataType elem_type, int64_t max_size)
      : name_(std::move(name)), elem_type_(elem_type), max_size_(max_size) {}

  std::string DebugString() const override {
    return absl::StrCat("stack '", name_, "'");
  }

  absl::Status Push(Tensor elem) {
    if (elem.dtype() != elem_type_) {
      return absl::InvalidArgumentError(absl::StrCat(
          "cannot push a ", DataTypeName(elem.dtype()), " onto ", DebugString(),
          " of ", DataTypeName(elem_type_),
          " elements; push the dtype its StackV2's elem_type names"));
    }
    std::lock_guard<std::mutex> lock(mu_);
    if (absl::Status s = CheckOpen(); !s.ok()) return s;
    if (max_size_ >= 0 && static_cast<int64_t>(elems_.size()) >= max_size_) {
      return absl::InvalidArgumentError(absl::StrCat(
          DebugString(), " is full: it holds max_size = ", max_size_,
          " elements; give its StackV2 a larger max_size (or -1)"));
    }
    elems_.push_back(std::move(elem));
    return absl::OkStatus();
  }

  absl::StatusOr<Tensor> Pop() {
    std::lock_guard<std::mutex> lock(mu_);
    if (absl::Status s = CheckOpen(); !s.ok()) return s;
    if (elems_.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          DebugString(),
          " is empty: every pop needs an earlier push in the same run (a "
          "gradient loop pops what its forward loop pushed; run them in one "
          "step and order the pop after the push)"));
    }
    Tensor top = std::move(elems_.back());
    elems_.pop_back();
    return top;
  }

  void Close() {
    std::lock_guard<std::mutex> lock(mu_);
    closed_ = true;
    elems_.clear();  // frees the memory now; the handle lives on
  }

  DataType elem_type() const { return elem_type_; }

 private:
  absl::Status CheckOpen() const {  // mu_ held
    if (!closed_) return absl::OkStatus();
    return absl::FailedPreconditionError(
        absl::StrCat(DebugString(),
                     " was closed (StackCloseV2) earlier in "
                     "this run; use it before closing it"));
  }

  const std::string name_;
  const DataType elem_type_;
  const int64_t max_size_;
  std::mutex mu_;
  bool closed_ = false;        // mu_
  std::vector<Tensor> elems_;  // mu_
};

absl::StatusOr<Stack*> StackOf(OpKernelContext* ctx) {
  Stack* stack = ResourceOfInput<Stack>(ctx, 0);
  if (stack == nullptr) {
    return absl::InvalidArgumentError(
        "input 0 is not the handle of a stack (connect it to a StackV2)");
  }
  return stack;
}

class StackOp : public OpKernel {
 public:
  explicit StackOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("elem_type", &elem_type_));
    ctx->GetAttr("stack_name", &stack_name_).IgnoreError();
    if (stack_name_.empty()) stack_name_ = ctx->name();
  }

  void Compute(OpKernelContext* ctx) override {
    OP_REQUIRES(ctx, ctx->step_container() != nullptr,
                absl::FailedPreconditionError(
                    "StackV2 runs only inside a step (an executor's run), "
                    "which owns the stack"));
    int64_t max_size = 0;
    OP_REQUIRES_OK(ctx, array_kernels::ReadIndexScalar(
                            ctx->input(0), "input 'max_size'", &max_size));
    // A distinct name per stack made: a loop nested in another makes one
    // per outer iteration, and errors should tell them apart.
    const std::string name = absl::StrCat(stack_name_, "_", count_++);
    Var* var = ctx->step_container()->Add(
        name, std::make_unique<Stack>(name, elem_type_, max_size));
    ctx->set_output_var(0, var);
  }
  bool IsExpensive() const override { return false; }

 private:
  DataType elem_type_ = DT_INVALID;
  std::string stack_name_;
  std::atomic<int64_t> count_{0};
};

class StackPushOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<Stack*> stack = StackOf(ctx);
    OP_REQUIRES_OK(ctx, stack.status());
    // The stack shares the tensor's buffer: tensors are immutable once
    // produced, so no copy is needed (swap_memory, a GPU-to-host move in
    // TensorFlow, has nothing to do on a CPU).
    const Tensor& elem = ctx->input(1);
    OP_REQUIRES_OK(ctx, (*stack)->Push(elem));
    ctx->set_output(0, elem);
  }
  bool IsExpensive() const override { return false; }
};

class StackPopOp : public OpKernel {
 public:
  explicit StackPopOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("elem_type", &elem_type_));
  }

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<Stack*> stack = StackOf(ctx);
    OP_REQUIRES_OK(ctx, stack.status());
    OP_REQUIRES(ctx, (*stack)->elem_type() == elem_type_,
                absl::InvalidArgumentError(
                    absl::StrCat("pops ", DataTypeName(elem_type_), " from ",
                                 (*stack)->DebugString(), " of ",
                                 DataTypeName((*stack)->elem_type()),
                                 " elements; set elem_type to the StackV2's")));
    absl::StatusOr<Tensor> elem = (*stack)->Pop();
    OP_REQUIRES_OK(ctx, elem.status());
    ctx->set_output(0, *std::move(elem));
  }
  bool IsExpensive() const override { return false; }

 private:
  DataType elem_type_ = DT_INVALID;
};

class StackCloseOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<Stack*> stack = StackOf(ctx);
    OP_REQUIRES_OK(ctx, stack.status());
    (*stack)->Close();
  }
  bool IsExpensive() const override { return false; }
};

DFLOW_REGISTER_KERNEL(KernelDefBuilder("StackV2").Device(kDeviceCpu), StackOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("StackPushV2").Device(kDeviceCpu),
                      StackPushOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("StackPopV2").Device(kDeviceCpu),
                      StackPopOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("StackCloseV2").Device(kDeviceCpu),
                      StackCloseOp);

}  // namespace
}  // namespace dflow
