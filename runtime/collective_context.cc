#include "runtime/collective_context.h"

namespace dflow {

CollectiveContext::~CollectiveContext() {
  if (aborted_.load(std::memory_order_acquire)) executor_->EndStep(step_id_);
}

void CollectiveContext::Abort(const absl::Status& status) {
  if (aborted_.exchange(true, std::memory_order_acq_rel)) return;
  executor_->AbortStep(step_id_, status);
}

}  // namespace dflow
