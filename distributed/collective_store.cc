#include "distributed/collective_store.h"

#include <chrono>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace dflow {

void CollectiveStore::Set(const std::string& key, std::string value) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    values_[key] = std::move(value);
  }
  cv_.notify_all();
}

absl::StatusOr<std::vector<std::string>> CollectiveStore::Get(
    const std::vector<std::string>& keys, absl::Time deadline,
    const std::function<bool()>& cancelled) {
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    std::vector<std::string> missing;
    for (const std::string& k : keys) {
      if (values_.find(k) == values_.end()) missing.push_back(k);
    }
    if (missing.empty()) break;
    if (absl::Now() >= deadline) {
      return absl::DeadlineExceededError(absl::StrCat(
          "the collective store has no value for ",
          absl::StrJoin(missing, ", "),
          " yet: a task of the group did not reach the collective"));
    }
    if (cancelled && cancelled()) {
      return absl::CancelledError("the caller gave up waiting");
    }
    // Short waits: the caller's cancellation is polled, not signalled.
    cv_.wait_for(lock, std::chrono::milliseconds(20));
  }
  std::vector<std::string> out;
  out.reserve(keys.size());
  for (const std::string& k : keys) out.push_back(values_[k]);
  return out;
}

size_t CollectiveStore::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return values_.size();
}

}  // namespace dflow
