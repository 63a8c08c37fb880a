// What a step hands its collective kernels (OpKernelContext::Params::
// collective_context): the session's CollectiveExecutor, tied to the step.
//
// The session makes one per step that may run collectives, passes it to
// every partition's executor, calls Abort() with the step's first error
// (or its cancellation, or its timeout) so that members waiting for peers
// that will never come fail at once, and destroys it once every kernel of
// the step returned, which lets the executor forget the step.
//
//   auto collectives = std::make_shared<CollectiveContext>(executor, step_id);
//   args.collective_context = collectives.get();  // keep `collectives` alive
//   ... on the first error: collectives->Abort(status);
#ifndef DFLOW_RUNTIME_COLLECTIVE_CONTEXT_H_
#define DFLOW_RUNTIME_COLLECTIVE_CONTEXT_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <utility>

#include "absl/status/status.h"
#include "runtime/collective_executor.h"

namespace dflow {

class CollectiveContext {
 public:
  CollectiveContext(std::shared_ptr<CollectiveExecutor> executor,
                    int64_t step_id)
      : executor_(std::move(executor)), step_id_(step_id) {}
  ~CollectiveContext();
  CollectiveContext(const CollectiveContext&) = delete;
  CollectiveContext& operator=(const CollectiveContext&) = delete;

  CollectiveExecutor* executor() const { return executor_.get(); }
  const std::shared_ptr<CollectiveExecutor>& shared_executor() const {
    return executor_;
  }
  int64_t step_id() const { return step_id_; }

  // Fails the step's waiting collective members, and those arriving later,
  // with `status` (its code; the message prefixed with the instance).
  // Idempotent: the first status is kept.
  void Abort(const absl::Status& status);

 private:
  const std::shared_ptr<CollectiveExecutor> executor_;
  const int64_t step_id_;
  std::atomic<bool> aborted_{false};
};

}  // namespace dflow

#endif  // DFLOW_RUNTIME_COLLECTIVE_CONTEXT_H_
