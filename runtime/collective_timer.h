// Deadlines of the collectives: one process-wide thread that runs a callback
// when its time comes, so members waiting for their group never hold a pool
// thread (the pool has one thread per core, and a blocked thread there can
// deadlock the very members being waited for).
//
// Callbacks run on the timer's thread and must be short: the collective
// executor's only hands the failed members' callbacks to the pool.
#ifndef DFLOW_RUNTIME_COLLECTIVE_TIMER_H_
#define DFLOW_RUNTIME_COLLECTIVE_TIMER_H_

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <thread>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/time/time.h"

namespace dflow {

class CollectiveTimer {
 public:
  using Id = uint64_t;

  // The process's timer; its thread starts on first use and is never
  // stopped (it sleeps while nothing is scheduled).
  static CollectiveTimer* Global();

  // Runs `fn` on the timer's thread at `when` (at once if that has passed),
  // unless cancelled first.
  Id Schedule(absl::Time when, std::function<void()> fn);
  // Drops a scheduled callback; a no-op if it already ran or is running.
  void Cancel(Id id);
  // Callbacks scheduled and not yet run (for tests).
  int pending() const;

 private:
  CollectiveTimer();
  void Loop();

  // std::mutex, not absl::Mutex: see runtime/variables.h.
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::pair<absl::Time, Id>, std::function<void()>> queue_;  // mu_
  absl::flat_hash_map<Id, absl::Time> when_;                          // mu_
  Id next_id_ = 1;                                                    // mu_
  std::thread thread_;
};

}  // namespace dflow

#endif  // DFLOW_RUNTIME_COLLECTIVE_TIMER_H_
