#include "distributed/collective_groups.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "distributed/worker_channels.h"
#include "graph/attr_value_util.h"
#include "runtime/collective_executor.h"

namespace dflow {

absl::Status AnnotateCollectiveGroups(Graph* graph,
                                      const std::string& session) {
  struct Group {
    std::vector<Node*> nodes;
    std::set<std::string> devices;
    std::set<int64_t> sizes;
  };
  std::map<int64_t, Group> groups;
  for (Node* node : graph->nodes()) {
    int64_t key = 0;
    int64_t size = 0;
    int64_t instance = 0;
    if (node->FindAttr("group_key") == nullptr ||
        node->FindAttr("group_size") == nullptr ||
        node->FindAttr("instance_key") == nullptr ||
        !node->GetAttr("group_key", &key).ok() ||
        !node->GetAttr("group_size", &size).ok() ||
        !node->GetAttr("instance_key", &instance).ok()) {
      continue;
    }
    Group& g = groups[key];
    g.nodes.push_back(node);
    g.devices.insert(node->assigned_device());
    g.sizes.insert(size);
  }
  for (auto& [key, g] : groups) {
    std::set<std::string> tasks;
    for (const std::string& d : g.devices) tasks.insert(TaskOfDevice(d));
    if (tasks.size() < 2) continue;
    std::vector<std::string> names;
    for (const Node* n : g.nodes) names.push_back(n->name());
    std::vector<std::string> devices(g.devices.begin(), g.devices.end());
    std::sort(devices.begin(), devices.end(), DeviceRankLess);
    if (g.sizes.size() != 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "collective group ", key, " (nodes ", absl::StrJoin(names, ", "),
          "): the nodes disagree on group_size (", absl::StrJoin(g.sizes, ", "),
          ")"));
    }
    const int64_t size = *g.sizes.begin();
    if (static_cast<int64_t>(devices.size()) != size) {
      return absl::InvalidArgumentError(absl::StrCat(
          "collective group ", key, " spans tasks ", absl::StrJoin(tasks, ", "),
          " with group_size ", size, " but its ", "nodes (",
          absl::StrJoin(names, ", "), ") are on ", devices.size(), " devices (",
          absl::StrJoin(devices, ", "),
          "); a group across tasks needs all its members in the graph, one "
          "per device"));
    }
    for (Node* n : g.nodes) {
      n->SetAttr("_group_devices", MakeAttr(absl::MakeConstSpan(devices)));
      n->SetAttr("_group_session", MakeAttr(session));
    }
  }
  return absl::OkStatus();
}

}  // namespace dflow
