#include "graph/gradients/grad_registry.h"

#include <algorithm>

namespace dflow {

GradRegistry* GradRegistry::Global() {
  static GradRegistry* const registry = new GradRegistry;
  return registry;
}

bool GradRegistry::Register(absl::string_view op, GradFunc fn) {
  gradients_[std::string(op)] = std::move(fn);
  return true;
}

bool GradRegistry::RegisterNoGradient(absl::string_view op) {
  no_gradient_[std::string(op)] = true;
  return true;
}

GradRegistry::Kind GradRegistry::Lookup(absl::string_view op,
                                        const GradFunc** fn) const {
  auto it = gradients_.find(op);
  if (it != gradients_.end()) {
    *fn = &it->second;
    return Kind::kGradient;
  }
  *fn = nullptr;
  return no_gradient_.contains(op) ? Kind::kNoGradient : Kind::kUnknown;
}

std::vector<std::string> GradRegistry::RegisteredOps() const {
  std::vector<std::string> ops;
  for (const auto& [op, fn] : gradients_) ops.push_back(op);
  for (const auto& [op, unused] : no_gradient_) ops.push_back(op);
  std::sort(ops.begin(), ops.end());
  return ops;
}

}  // namespace dflow
