#include "runtime/collective_roster.h"

namespace dflow {

CollectiveRoster* CollectiveRoster::Global() {
  static CollectiveRoster* roster = new CollectiveRoster;
  return roster;
}

void CollectiveRoster::Declare(int64_t group_key, int64_t instance_key,
                               const std::string& device,
                               const std::string& node) {
  std::lock_guard<std::mutex> lock(mu_);
  ++count_[Key(group_key, instance_key, device, node)];
}

void CollectiveRoster::Withdraw(int64_t group_key, int64_t instance_key,
                                const std::string& device,
                                const std::string& node) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = count_.find(Key(group_key, instance_key, device, node));
  if (it == count_.end()) return;
  if (--it->second == 0) count_.erase(it);
}

std::vector<CollectiveRoster::Member> CollectiveRoster::Declared(
    int64_t group_key, int64_t instance_key) const {
  std::vector<Member> out;
  std::lock_guard<std::mutex> lock(mu_);
  // Keys sort by (group, instance, device, node): the instance's members
  // are one contiguous run, already in device order.
  for (auto it = count_.lower_bound(Key(group_key, instance_key, "", ""));
       it != count_.end() && std::get<0>(it->first) == group_key &&
       std::get<1>(it->first) == instance_key;
       ++it) {
    out.push_back(Member{std::get<2>(it->first), std::get<3>(it->first)});
  }
  return out;
}

}  // namespace dflow
