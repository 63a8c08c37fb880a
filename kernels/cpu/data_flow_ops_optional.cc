// TensorFlow's Optional ops (graph/ops/data_flow_ops_optional.cc): a
// DT_VARIANT scalar holding a list of tensors, or nothing. TensorFlow 2's
// tf.cond gradients pass the forward branches' intermediates through them.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/tensor.h"
#include "graph/variant.h"
#include "kernels/cpu/data_flow_ops_optional.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {


absl::Status SetOptional(OpKernelContext* ctx,
                         std::shared_ptr<const OptionalValue> value) {
  Tensor* out = nullptr;
  if (absl::Status s = ctx->allocate_output(0, TensorShape({}), &out);
      !s.ok()) {
    return s;
  }
  *out->data<Variant>() = Variant(std::move(value));
  return absl::OkStatus();
}

absl::StatusOr<const OptionalValue*> OptionalInput(OpKernelContext* ctx) {
  const Tensor& t = ctx->input(0);
  const OptionalValue* value =
      t.dtype() == DT_VARIANT && t.shape().rank() == 0 && t.IsInitialized()
          ? t.data<Variant>()->get<OptionalValue>()
          : nullptr;
  if (value == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "input 'optional' must be an Optional (a variant scalar made by "
        "OptionalFromValue or OptionalNone), got a ",
        DataTypeName(t.dtype()), " tensor of shape ", t.shape().ToString()));
  }
  return value;
}

class OptionalFromValueOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    auto value = std::make_shared<OptionalValue>();
    value->has_value = true;
    for (int i = 0; i < ctx->num_inputs(); ++i) {
      value->components.push_back(ctx->input(i));
    }
    OP_REQUIRES_OK(ctx, SetOptional(ctx, std::move(value)));
  }
  bool IsExpensive() const override { return false; }
};

class OptionalNoneOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    OP_REQUIRES_OK(ctx, SetOptional(ctx, std::make_shared<OptionalValue>()));
  }
  bool IsExpensive() const override { return false; }
};

class OptionalHasValueOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<const OptionalValue*> in = OptionalInput(ctx);
    OP_REQUIRES_OK(ctx, in.status());
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({}), &out));
    *out->data<bool>() = (*in)->has_value;
  }
  bool IsExpensive() const override { return false; }
};

class OptionalGetValueOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<const OptionalValue*> in = OptionalInput(ctx);
    OP_REQUIRES_OK(ctx, in.status());
    const OptionalValue& value = **in;
    OP_REQUIRES(ctx, value.has_value,
                absl::InvalidArgumentError(
                    "the optional holds no value (OptionalNone): read it only "
                    "where OptionalHasValue is true"));
    OP_REQUIRES(
        ctx, static_cast<int>(value.components.size()) == num_outputs(),
        absl::InvalidArgumentError(absl::StrCat(
            "the optional holds ", value.components.size(),
            " components but output_types names ", num_outputs())));
    for (int i = 0; i < num_outputs(); ++i) {
      OP_REQUIRES(ctx, value.components[i].dtype() == output_type(i),
                  absl::InvalidArgumentError(absl::StrCat(
                      "component ", i, " is ",
                      DataTypeName(value.components[i].dtype()),
                      " but output_types says ",
                      DataTypeName(output_type(i)))));
      ctx->set_output(i, value.components[i]);
    }
  }
  bool IsExpensive() const override { return false; }
};

DFLOW_REGISTER_KERNEL(KernelDefBuilder("OptionalFromValue").Device(kDeviceCpu),
                      OptionalFromValueOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("OptionalNone").Device(kDeviceCpu),
                      OptionalNoneOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("OptionalHasValue").Device(kDeviceCpu),
                      OptionalHasValueOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("OptionalGetValue").Device(kDeviceCpu),
                      OptionalGetValueOp);

}  // namespace
}  // namespace dflow
