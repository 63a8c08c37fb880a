#include "runtime/call_frame.h"

#include "absl/strings/str_cat.h"
#include "graph/op_registry.h"
#include "runtime/kernel_registry.h"

namespace dflow {

absl::Status CallFrame::SetRetval(int i, Tensor value) {
  std::lock_guard<std::mutex> lock(mu_);
  if (i < 0 || i >= static_cast<int>(retvals_.size())) {
    return absl::InternalError(
        absl::StrCat("retval index ", i, " out of range"));
  }
  retvals_[i] = std::move(value);
  set_[i] = true;
  return absl::OkStatus();
}

absl::Status CallFrame::TakeRetvals(std::vector<Tensor>* out) {
  std::lock_guard<std::mutex> lock(mu_);
  for (size_t i = 0; i < set_.size(); ++i) {
    if (!set_[i]) {
      return absl::InternalError(
          absl::StrCat("fetch ", i, " was not produced by the step"));
    }
  }
  *out = std::move(retvals_);
  return absl::OkStatus();
}

namespace {

// _Arg and _Retval are declared by pruning, which makes them
// (compiler/prune.cc); these are their kernels.
class ArgOp : public OpKernel {
 public:
  explicit ArgOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("index", &index_));
  }
  void Compute(OpKernelContext* ctx) override {
    CallFrame* frame = ctx->call_frame();
    OP_REQUIRES(ctx, frame != nullptr && index_ < frame->num_args(),
                absl::InternalError("feed index out of range"));
    if (Var* var = frame->arg_var(index_); var != nullptr) {
      ctx->set_output_var(0, var);
      return;
    }
    ctx->set_output(0, frame->arg(index_));
  }
  bool IsExpensive() const override { return false; }

 private:
  int index_ = 0;
};

class RetvalOp : public OpKernel {
 public:
  explicit RetvalOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("index", &index_));
  }
  void Compute(OpKernelContext* ctx) override {
    CallFrame* frame = ctx->call_frame();
    OP_REQUIRES(ctx, frame != nullptr,
                absl::InternalError("fetch without a call frame"));
    OP_REQUIRES_OK(ctx, frame->SetRetval(index_, ctx->input(0)));
  }
  bool IsExpensive() const override { return false; }

 private:
  int index_ = 0;
};

// Feeds and fetches of any dtype, on any device type that exists.
DFLOW_REGISTER_KERNEL(KernelDefBuilder(kArgOp).Device(kDeviceCpu), ArgOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder(kRetvalOp).Device(kDeviceCpu), RetvalOp);

}  // namespace
}  // namespace dflow
