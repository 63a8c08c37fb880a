#include "runtime/collective_timer.h"

namespace dflow {

CollectiveTimer* CollectiveTimer::Global() {
  // Never destroyed: a detached sleeper outlives static destruction safely,
  // a joined one would block exit.
  static CollectiveTimer* timer = new CollectiveTimer;
  return timer;
}

CollectiveTimer::CollectiveTimer() {
  thread_ = std::thread([this] { Loop(); });
  thread_.detach();
}

CollectiveTimer::Id CollectiveTimer::Schedule(absl::Time when,
                                              std::function<void()> fn) {
  std::lock_guard<std::mutex> lock(mu_);
  const Id id = next_id_++;
  const bool earliest = queue_.empty() || when < queue_.begin()->first.first;
  queue_.emplace(std::make_pair(when, id), std::move(fn));
  when_.emplace(id, when);
  if (earliest) cv_.notify_one();
  return id;
}

void CollectiveTimer::Cancel(Id id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = when_.find(id);
  if (it == when_.end()) return;
  queue_.erase(std::make_pair(it->second, id));
  when_.erase(it);
}

int CollectiveTimer::pending() const {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int>(queue_.size());
}

void CollectiveTimer::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    if (queue_.empty()) {
      cv_.wait(lock);
      continue;
    }
    const absl::Time when = queue_.begin()->first.first;
    const absl::Time now = absl::Now();
    if (when > now) {
      cv_.wait_until(lock, absl::ToChronoTime(when));
      continue;
    }
    auto it = queue_.begin();
    std::function<void()> fn = std::move(it->second);
    when_.erase(it->first.second);
    queue_.erase(it);
    lock.unlock();
    fn();
    lock.lock();
  }
}

}  // namespace dflow
