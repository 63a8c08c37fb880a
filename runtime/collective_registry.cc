#include "runtime/collective_registry.h"

#include <mutex>

#include "absl/container/flat_hash_map.h"

namespace dflow {
namespace {

struct Registry {
  // std::mutex, not absl::Mutex: see runtime/variables.h.
  std::mutex mu;
  absl::flat_hash_map<const VariableStore*,
                      std::shared_ptr<CollectiveExecutor>>
      executors;  // mu
};

Registry* GlobalRegistry() {
  static Registry* registry = new Registry;
  return registry;
}

}  // namespace

std::shared_ptr<CollectiveExecutor> CollectiveExecutorForStore(
    const VariableStore* store, ThreadPool* pool) {
  if (store == nullptr) return nullptr;
  Registry* r = GlobalRegistry();
  std::lock_guard<std::mutex> lock(r->mu);
  std::shared_ptr<CollectiveExecutor>& e = r->executors[store];
  if (e == nullptr) e = CollectiveExecutor::Create(pool);
  return e;
}

void ReleaseCollectiveExecutorForStore(const VariableStore* store) {
  std::shared_ptr<CollectiveExecutor> released;
  Registry* r = GlobalRegistry();
  {
    std::lock_guard<std::mutex> lock(r->mu);
    auto it = r->executors.find(store);
    if (it == r->executors.end()) return;
    released = std::move(it->second);
    r->executors.erase(it);
  }
  // Destroyed (and its waiting members failed) outside the registry's lock.
}

}  // namespace dflow
