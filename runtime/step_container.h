// Resources that live for one step: TensorFlow's per-step container
// (ScopedStepContainer). Stacks (StackV2) and TensorArrays (TensorArrayV3)
// are made afresh by their op each run and must die with the run: a while
// loop's gradient pushes one tensor per iteration, so keeping them in the
// session's VariableStore (which lives as long as the session and never
// forgets a name) would leak every step's accumulators.
//
// The executor's step owns one (Executor::Step, FrameStep) and hands it to
// kernels (OpKernelContext::step_container); it is destroyed with the step,
// after its last kernel returned, so a handle a kernel holds never dangles.
// A handle is a Var of dtype DT_RESOURCE, like a queue's, so it flows
// through Identity, Enter, Switch and Merge as any resource does. The
// partitions of one step each have their own: a per-step handle cannot
// cross a _Send/_Recv (neither can any resource handle in dflow).
#ifndef DFLOW_RUNTIME_STEP_CONTAINER_H_
#define DFLOW_RUNTIME_STEP_CONTAINER_H_

#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "runtime/variables.h"

namespace dflow {

class StepContainer {
 public:
  StepContainer() = default;
  StepContainer(const StepContainer&) = delete;
  StepContainer& operator=(const StepContainer&) = delete;

  // A new handle owning `resource` until the step ends. `name` is for
  // errors only: every call makes a distinct Var, whatever its name.
  Var* Add(std::string name, std::unique_ptr<ResourceBase> resource) {
    auto var =
        std::make_unique<Var>(std::move(name), DT_RESOURCE, TensorShape({}));
    // Cannot fail: the creator always succeeds on a fresh Var.
    var->GetOrCreateResource(
           [&]() -> absl::StatusOr<std::unique_ptr<ResourceBase>> {
             return std::move(resource);
           })
        .IgnoreError();
    std::lock_guard<std::mutex> lock(mu_);
    vars_.push_back(std::move(var));
    return vars_.back().get();
  }

  // How many resources this step made (for tests).
  int size() const {
    std::lock_guard<std::mutex> lock(mu_);
    return static_cast<int>(vars_.size());
  }

 private:
  // std::mutex, not absl::Mutex: see runtime/variables.h.
  mutable std::mutex mu_;
  std::vector<std::unique_ptr<Var>> vars_;  // mu_
};

}  // namespace dflow

#endif  // DFLOW_RUNTIME_STEP_CONTAINER_H_
