// CPU kernels of the TF1 conditional primitives. They never copy: a Switch
// forwards its data to one output (the executor makes the other dead), a
// Merge forwards its first live input (the executor runs it once every
// input arrived, or, in a graph with loops, on its first live input; only
// ever with one live). Reference and
// resource values pass as the variable itself: a RefSwitch of a variable
// hands the variable on, so an Assign behind it writes the variable.
#include "kernels/cpu/control_flow_ops.h"

#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/tensor.h"
#include "graph/types.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

// Output `out` becomes input `in`, as a variable for reference and resource
// values, else as the same tensor.
void ForwardInput(OpKernelContext* ctx, int in, int out) {
  if (Var* var = ctx->input_var(in)) {
    if (IsRefType(ctx->kernel().input_type(in)) ||
        ctx->kernel().input_type(in) == DT_RESOURCE) {
      ctx->set_output_var(out, var);
      return;
    }
  }
  ctx->set_output(out, ctx->input(in));
}

class SwitchOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& pred = ctx->input(1);
    OP_REQUIRES(
        ctx, pred.dtype() == DT_BOOL && pred.NumElements() == 1,
        absl::InvalidArgumentError(absl::StrCat(
            "pred must be a bool scalar, got a ", DataTypeName(pred.dtype()),
            " tensor of shape ", pred.shape().ToString())));
    // The output not set is dead.
    ForwardInput(ctx, 0, pred.data<bool>()[0] ? 1 : 0);
  }
  bool IsExpensive() const override { return false; }
};

// Case's N-way Switch: the data to output `index`, the last output for an
// index out of range (Case's default branch); the others are dead.
class SwitchNOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& index = ctx->input(1);
    OP_REQUIRES(ctx, index.dtype() == DT_INT32 && index.NumElements() == 1,
                absl::InvalidArgumentError(absl::StrCat(
                    "output_index must be an int32 scalar, got a ",
                    DataTypeName(index.dtype()), " tensor of shape ",
                    index.shape().ToString())));
    const int n = num_outputs();
    int32_t i = index.data<int32_t>()[0];
    if (i < 0 || i >= n) i = n - 1;
    ForwardInput(ctx, 0, i);
  }
  bool IsExpensive() const override { return false; }
};

class MergeOp : public OpKernel {
 public:
  explicit MergeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    // value_index, made once: a loop's Merge runs every iteration, and an
    // allocation per run was a tenth of a scalar loop's kernel time. Shared
    // read-only like a Const's value (never forwarded in place: it is
    // never the only reference).
    for (int i = 0; i < num_inputs(); ++i) {
      value_index_.push_back(Tensor::Scalar<int32_t>(i));
    }
  }
  void Compute(OpKernelContext* ctx) override {
    for (int i = 0; i < ctx->num_inputs(); ++i) {
      // The executor leaves a dead input empty (no tensor, no variable).
      if (ctx->input_var(i) == nullptr && ctx->input(i).dtype() == DT_INVALID) {
        continue;
      }
      ForwardInput(ctx, i, 0);
      ctx->set_output(1, value_index_[i]);
      return;
    }
    // The executor runs a Merge only with a live input.
    ctx->SetStatus(absl::InternalError("Merge ran with every input dead"));
  }
  bool IsExpensive() const override { return false; }

 private:
  std::vector<Tensor> value_index_;  // by input
};

// TensorFlow's truth value (the If kernel's): a scalar is true when
// non-zero, a string scalar when non-empty, any other tensor when it has
// elements.
class ToBoolOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& t = ctx->input(0);
    bool value = t.NumElements() > 0;
    if (t.shape().rank() == 0) {
      bool known = false;
      VisitStorageType(t.dtype(), [&](auto* tag) {
        using T = std::remove_pointer_t<decltype(tag)>;
        if constexpr (std::is_same_v<T, std::string>) {
          value = !t.data<T>()[0].empty();
          known = true;
        } else if constexpr (std::is_same_v<T, bool>) {
          value = t.data<T>()[0];
          known = true;
        } else if constexpr (std::is_arithmetic_v<T>) {
          value = t.data<T>()[0] != T(0);
          known = true;
        } else if constexpr (std::is_same_v<T, float16> ||
                             std::is_same_v<T, bfloat16>) {
          value = t.data<T>()[0].ToFloat() != 0.0f;
          known = true;
        }
      });
      OP_REQUIRES(ctx, known,
                  absl::InvalidArgumentError(
                      absl::StrCat("cannot take the truth value of a ",
                                   DataTypeName(t.dtype()), " scalar")));
    }
    ctx->set_output(0, Tensor::Scalar<bool>(value));
  }
  bool IsExpensive() const override { return false; }
};

DFLOW_REGISTER_KERNEL(KernelDefBuilder("_ToBool").Device(kDeviceCpu), ToBoolOp);

// Enter, Exit, NextIteration, LoopCond: the value passes unchanged (a
// reference as the variable itself); which frame and iteration it reaches
// is the executor's business (runtime/executor_frames.h).
class ForwardOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override { ForwardInput(ctx, 0, 0); }
  bool IsExpensive() const override { return false; }
};

class ControlTriggerOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext*) override {}
  bool IsExpensive() const override { return false; }
};

DFLOW_REGISTER_KERNEL(KernelDefBuilder("Enter").Device(kDeviceCpu), ForwardOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("RefEnter").Device(kDeviceCpu),
                      ForwardOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("Exit").Device(kDeviceCpu), ForwardOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("RefExit").Device(kDeviceCpu),
                      ForwardOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("NextIteration").Device(kDeviceCpu),
                      ForwardOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("RefNextIteration").Device(kDeviceCpu),
                      ForwardOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("LoopCond").Device(kDeviceCpu),
                      ForwardOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("ControlTrigger").Device(kDeviceCpu),
                      ControlTriggerOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("Switch").Device(kDeviceCpu), SwitchOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("RefSwitch").Device(kDeviceCpu),
                      SwitchOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("_SwitchN").Device(kDeviceCpu),
                      SwitchNOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("Merge").Device(kDeviceCpu), MergeOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("RefMerge").Device(kDeviceCpu), MergeOp);

template <typename K>
KernelFactory Factory() {
  return [](OpKernelConstruction* ctx) -> std::unique_ptr<OpKernel> {
    return std::make_unique<K>(ctx);
  };
}

}  // namespace

KernelFactory ControlFlowKernelFactory(absl::string_view op) {
  if (op == "Switch") return Factory<SwitchOp>();
  if (op == "Merge") return Factory<MergeOp>();
  if (op == "Enter" || op == "Exit" || op == "NextIteration" ||
      op == "LoopCond") {
    return Factory<ForwardOp>();
  }
  if (op == "ControlTrigger") return Factory<ControlTriggerOp>();
  return nullptr;
}

}  // namespace dflow
