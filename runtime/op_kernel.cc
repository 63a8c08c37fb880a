#include "runtime/op_kernel.h"

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"

namespace dflow {

OpKernel::OpKernel(OpKernelConstruction* ctx)
    : name_(ctx->node().name()),
      op_(ctx->node().op()),
      input_types_(ctx->node().input_types()),
      output_types_(ctx->node().output_types()) {}

void AsyncOpKernel::Compute(OpKernelContext* ctx) {
  absl::Notification done;
  ComputeAsync(ctx, [&done] { done.Notify(); });
  done.WaitForNotification();
}

OpKernelContext::OpKernelContext(const Params& params)
    : params_(params), outputs_(params.kernel->num_outputs()) {}

const Tensor& OpKernelContext::input(int i) const {
  const TensorValue& v = params_.inputs[i];
  if (v.var == nullptr) return v.tensor;
  // A reference read as a value (by a Ref or a plain input of the base
  // type) is the variable's value when the consumer runs, as in TensorFlow.
  if (BaseType(params_.kernel->input_type(i)) != DT_RESOURCE) {
    if (ref_values_ == nullptr) ref_values_.reset(new Tensor[num_inputs()]);
    Tensor& snapshot = ref_values_[i];
    if (!snapshot.IsInitialized()) snapshot = v.var->Read();
    return snapshot;
  }
  return v.tensor;
}

absl::Status OpKernelContext::allocate_output(int i, const TensorShape& shape,
                                              Tensor** out) {
  absl::StatusOr<Tensor> t =
      Tensor::Allocate(allocator(), params_.kernel->output_type(i), shape);
  if (!t.ok()) {
    absl::Status s = absl::Status(
        t.status().code(),
        absl::StrCat("allocating output ", i, " of shape ", shape.ToString(),
                     " on ", device()->name(), ": ", t.status().message()));
    SetStatus(s);
    return s;
  }
  outputs_[i].tensor = *std::move(t);
  *out = &outputs_[i].tensor;
  return absl::OkStatus();
}

void OpKernelContext::set_output(int i, Tensor t) {
  outputs_[i].tensor = std::move(t);
}

void OpKernelContext::set_output_var(int i, Var* var) { outputs_[i].var = var; }

void OpKernelContext::RecordPhase(std::string name, absl::Time start,
                                  absl::Time end) {
  if (!params_.record_phases) return;
  std::lock_guard<std::mutex> lock(phases_mu_);
  phases_.push_back(Phase{std::move(name), start, end});
}

void OpKernelContext::RecordStatsDetail(std::string key, std::string value) {
  if (!params_.record_phases) return;
  std::lock_guard<std::mutex> lock(phases_mu_);
  step_details_.emplace_back(std::move(key), std::move(value));
}

std::vector<OpKernelContext::Phase> OpKernelContext::TakePhases() {
  std::lock_guard<std::mutex> lock(phases_mu_);
  return std::move(phases_);
}

OpKernel::StatsDetails OpKernelContext::TakeStatsDetails() {
  std::lock_guard<std::mutex> lock(phases_mu_);
  return std::move(step_details_);
}

absl::Status OpKernelContext::allocate_temp(DataType dtype,
                                            const TensorShape& shape,
                                            Tensor* out) {
  absl::StatusOr<Tensor> t = Tensor::Allocate(allocator(), dtype, shape);
  if (!t.ok()) {
    SetStatus(t.status());
    return t.status();
  }
  *out = *std::move(t);
  return absl::OkStatus();
}

}  // namespace dflow
