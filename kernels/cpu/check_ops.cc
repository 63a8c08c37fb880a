// Assert: fails the step with InvalidArgument "assertion failed: [...]"
// when its condition is false, each data tensor summarized as TensorFlow's
// Tensor::SummarizeValue does (kernel_util_summarize.h), so messages match
// TensorFlow's word for word.
#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
#include "graph/tensor.h"
#include "graph/types.h"
#include "kernels/cpu/kernel_util_summarize.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

class AssertOp : public OpKernel {
 public:
  explicit AssertOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("summarize", &summarize_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& cond = ctx->input(0);
    OP_REQUIRES(ctx, cond.shape().rank() == 0,
                absl::InvalidArgumentError(absl::StrCat(
                    "In[0] expected to be a scalar, but has shape ",
                    cond.shape().ToString())));
    if (*reinterpret_cast<const uint8_t*>(cond.data<bool>()) != 0) return;
    std::string msg = "assertion failed: ";
    for (int i = 1; i < ctx->num_inputs(); ++i) {
      absl::StrAppend(&msg, "[", SummarizeTensor(ctx->input(i), summarize_), "]");
      if (i < ctx->num_inputs() - 1) absl::StrAppend(&msg, " ");
    }
    ctx->SetStatus(absl::InvalidArgumentError(msg));
  }

  bool IsExpensive() const override { return false; }

 private:
  int64_t summarize_ = 3;
};

DFLOW_REGISTER_KERNEL(KernelDefBuilder("Assert").Device(kDeviceCpu), AssertOp);

}  // namespace
}  // namespace dflow
