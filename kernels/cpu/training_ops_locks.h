// The locks an optimizer update holds while it changes its variables.
//
// OrderedLocks locks each distinct mutex once, in address order: a global
// order, so two updates that share variables never deadlock whatever order
// their inputs name them in (the dense kernels' std::lock never blocks while
// holding a lock, so mixing the two is safe too). The same variable passed
// twice (var and a slot one variable) is legal and locked once.
#ifndef DFLOW_KERNELS_CPU_TRAINING_OPS_LOCKS_H_
#define DFLOW_KERNELS_CPU_TRAINING_OPS_LOCKS_H_

#include <algorithm>
#include <mutex>
#include <utility>
#include <vector>

namespace dflow {

class OrderedLocks {
 public:
  explicit OrderedLocks(std::vector<std::mutex*> mus) : mus_(std::move(mus)) {
    std::sort(mus_.begin(), mus_.end());
    mus_.erase(std::unique(mus_.begin(), mus_.end()), mus_.end());
    for (std::mutex* mu : mus_) mu->lock();
  }
  ~OrderedLocks() {
    for (auto it = mus_.rbegin(); it != mus_.rend(); ++it) (*it)->unlock();
  }
  OrderedLocks(const OrderedLocks&) = delete;
  OrderedLocks& operator=(const OrderedLocks&) = delete;

 private:
  std::vector<std::mutex*> mus_;
};

}  // namespace dflow

#endif  // DFLOW_KERNELS_CPU_TRAINING_OPS_LOCKS_H_
