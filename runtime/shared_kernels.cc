#include "runtime/shared_kernels.h"

#include <utility>

#include "runtime/kernel_registry.h"
#include "runtime/stateful_placement.h"

namespace dflow {

absl::StatusOr<std::shared_ptr<OpKernel>> SharedKernels::KernelFor(
    const Node& node, Device* device) {
  // Internal nodes (_Arg, _Retval) are graph-specific even though stateful.
  const bool shared = IsSharedStatefulNode(node);
  if (shared) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = stateful_.find(node.name());
    if (it != stateful_.end()) return it->second;
  }
  absl::StatusOr<std::unique_ptr<OpKernel>> kernel =
      KernelRegistry::Global()->CreateKernel(node, device);
  if (!kernel.ok()) return kernel.status();
  std::shared_ptr<OpKernel> result = *std::move(kernel);
  if (!shared) return result;
  std::lock_guard<std::mutex> lock(mu_);
  // A concurrent compile may have made one first: use that one.
  return stateful_.emplace(node.name(), std::move(result)).first->second;
}

}  // namespace dflow
