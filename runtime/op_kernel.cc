#include "runtime/op_kernel.h"

#include <atomic>
#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "graph/node_def_util.h"

namespace dflow {

OpKernel::OpKernel(OpKernelConstruction* ctx)
    : name_(ctx->node().name()),
      op_(ctx->node().op()),
      input_types_(ctx->node().input_types()),
      output_types_(ctx->node().output_types()),
      host_memory_outputs_(ctx->host_memory_outputs()) {}

void AsyncOpKernel::Compute(OpKernelContext* ctx) {
  // Shared with the callback: the waiter may return while Notify() is
  // still releasing its lock on another thread.
  auto done = std::make_shared<absl::Notification>();
  ComputeAsync(ctx, [done] { done->Notify(); });
  done->WaitForNotification();
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

absl::Status OpKernelContext::AllocationError(const absl::Status& failed,
                                              Allocator* allocator,
                                              DataType dtype,
                                              const TensorShape& shape,
                                              absl::string_view what) const {
  if (failed.code() == absl::StatusCode::kResourceExhausted) {
    const int64_t bytes =
        shape.num_elements() * static_cast<int64_t>(DataTypeSize(dtype));
    absl::Status explained = allocator->OutOfMemoryError(
        NodeLabel(params_.kernel->name(), params_.kernel->type_string()),
        bytes);
    if (!explained.ok()) {
      // The allocator's message names the node already; the executor adds
      // the node in front again, which keeps every kernel error alike.
      return absl::Status(explained.code(),
                          absl::StrCat(what, " of shape ", shape.ToString(),
                                       ": ", explained.message()));
    }
  }
  return absl::Status(failed.code(),
                      absl::StrCat(what, " of shape ", shape.ToString(), " on ",
                                   device()->name(), ": ", failed.message()));
}

bool OpKernelContext::input_held_only_here(int i) const {
  const TensorValue& v = params_.inputs[i];
  if (v.var != nullptr || !v.tensor.IsInitialized() ||
      v.tensor.RefCount() != 1) {
    return false;
  }
  // RefCount() is a relaxed load; the fence orders the reads other holders
  // made before dropping their reference (acq_rel) before the caller's
  // writes to the buffer.
  std::atomic_thread_fence(std::memory_order_acquire);
  return true;
}

bool OpKernelContext::ForwardInput(int k, int i, DataType dtype,
                                   const TensorShape& shape, Tensor** out) {
  // A host-memory output of a device kernel lives elsewhere than its inputs.
  if (k < 0 || k >= num_inputs() || params_.kernel->output_in_host_memory(i)) {
    return false;
  }
  const Tensor& in = params_.inputs[k].tensor;
  if (in.dtype() != dtype || in.NumElements() == 0 || !shape.IsFullyDefined() ||
      in.NumElements() != shape.num_elements() || !input_held_only_here(k)) {
    return false;
  }
  if (in.shape() == shape) {  // most element-wise kernels: no view to make
    outputs_[i].tensor = in;
  } else {
    absl::StatusOr<Tensor> view = in.Reshaped(shape);
    if (!view.ok()) return false;
    outputs_[i].tensor = *std::move(view);
  }
  *out = &outputs_[i].tensor;
  return true;
}

absl::Status OpKernelContext::allocate_output(int i, const TensorShape& shape,
                                              Tensor** out) {
  const DataType dtype = params_.kernel->output_type(i);
  if (params_.forward_inputs != nullptr &&
      i < static_cast<int>(params_.forward_inputs->size()) &&
      ForwardInput((*params_.forward_inputs)[i], i, dtype, shape, out)) {
    return absl::OkStatus();
  }
  Allocator* allocator = params_.kernel->output_in_host_memory(i)
                             ? host_allocator()
                             : this->allocator();
  absl::StatusOr<Tensor> t = Tensor::Allocate(allocator, dtype, shape);
  if (!t.ok()) {
    absl::Status s = AllocationError(t.status(), allocator, dtype, shape,
                                     absl::StrCat("allocating output ", i));
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
    absl::Status s = t.status();
    // Only out of memory is reworded: other errors (a bad dtype or shape)
    // keep the message kernels and tests know.
    if (s.code() == absl::StatusCode::kResourceExhausted) {
      s = AllocationError(s, allocator(), dtype, shape,
                          absl::StrCat("allocating a temporary ",
                                       DataTypeName(dtype), " tensor"));
    }
    SetStatus(s);
    return s;
  }
  *out = *std::move(t);
  return absl::OkStatus();
}

}  // namespace dflow
