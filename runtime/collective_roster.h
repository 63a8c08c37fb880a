// Who is expected in a collective instance: every collective kernel alive in
// the process declares its (group_key, instance_key, device, node) when it is
// built and withdraws it when destroyed.
//
// Group membership itself is decided at run time (the group of an instance
// is whoever arrives with its keys), so the roster is only read to explain a
// timeout: a member that never arrives is usually a node the run left out
// or a partition that failed, and naming its device and node turns "1 member
// missing" into something a user can act on. Kernels of several live
// sessions with the same keys all count; a device is listed as missing only
// when no member from it arrived.
#ifndef DFLOW_RUNTIME_COLLECTIVE_ROSTER_H_
#define DFLOW_RUNTIME_COLLECTIVE_ROSTER_H_

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace dflow {

class CollectiveRoster {
 public:
  struct Member {
    std::string device;
    std::string node;
  };

  static CollectiveRoster* Global();

  void Declare(int64_t group_key, int64_t instance_key,
               const std::string& device, const std::string& node);
  // Undoes one Declare with the same arguments.
  void Withdraw(int64_t group_key, int64_t instance_key,
                const std::string& device, const std::string& node);
  // The distinct members declared for the instance, sorted by device.
  std::vector<Member> Declared(int64_t group_key, int64_t instance_key) const;

 private:
  using Key = std::tuple<int64_t, int64_t, std::string, std::string>;
  // std::mutex, not absl::Mutex: see runtime/variables.h.
  mutable std::mutex mu_;
  std::map<Key, int> count_;  // mu_; kernels declaring each member
};

}  // namespace dflow

#endif  // DFLOW_RUNTIME_COLLECTIVE_ROSTER_H_
