// The key-value store a task hosts for the cross-process collective groups
// it leads (WorkerService StoreSet/StoreGet): the other tasks of a group
// write their Gloo addresses here and read each other's
// (distributed/gloo_collectives.h). A key is written once per group
// incarnation; reads wait for keys not written yet, up to a deadline.
#ifndef DFLOW_DISTRIBUTED_COLLECTIVE_STORE_H_
#define DFLOW_DISTRIBUTED_COLLECTIVE_STORE_H_

#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace dflow {

class CollectiveStore {
 public:
  // Writes (or overwrites) `key`.
  void Set(const std::string& key, std::string value);

  // The values of `keys`, in order, once all are written. DeadlineExceeded
  // naming the missing keys at `deadline`; Cancelled when `cancelled`
  // (polled) turns true.
  absl::StatusOr<std::vector<std::string>> Get(
      const std::vector<std::string>& keys, absl::Time deadline,
      const std::function<bool()>& cancelled);

  // Entries held (for tests).
  size_t size() const;

 private:
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::string, std::string> values_;  // mu_
};

}  // namespace dflow

#endif  // DFLOW_DISTRIBUTED_COLLECTIVE_STORE_H_
