// A session's compiled plans, one per run signature (RunSignatureKey in
// runtime/session.h): what Session and ClusterSession keep between steps.
// Compiling happens outside the lock, so two threads may compile one
// signature at once; the first plan stored is the one kept and returned
// to both.
#ifndef DFLOW_RUNTIME_PLAN_CACHE_H_
#define DFLOW_RUNTIME_PLAN_CACHE_H_

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"

namespace dflow {

template <typename Plan>
class PlanCache {
 public:
  using Compile = std::function<absl::StatusOr<std::shared_ptr<const Plan>>()>;

  // The plan of `key`, compiled by `compile` on first use.
  absl::StatusOr<std::shared_ptr<const Plan>> Get(const std::string& key,
                                                  const Compile& compile) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = plans_.find(key);
      if (it != plans_.end()) return it->second;
    }
    absl::StatusOr<std::shared_ptr<const Plan>> plan = compile();
    if (!plan.ok()) return plan.status();
    std::lock_guard<std::mutex> lock(mu_);
    return plans_.emplace(key, *std::move(plan)).first->second;
  }

  // Every plan held.
  std::vector<std::shared_ptr<const Plan>> All() const {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<std::shared_ptr<const Plan>> out;
    for (const auto& [key, plan] : plans_) out.push_back(plan);
    return out;
  }

  int size() const {
    std::lock_guard<std::mutex> lock(mu_);
    return static_cast<int>(plans_.size());
  }

 private:
  // std::mutex, not absl::Mutex: see runtime/variables.h.
  mutable std::mutex mu_;
  absl::flat_hash_map<std::string, std::shared_ptr<const Plan>> plans_;  // mu_
};

}  // namespace dflow

#endif  // DFLOW_RUNTIME_PLAN_CACHE_H_
