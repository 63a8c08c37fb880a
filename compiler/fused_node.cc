#include "compiler/fused_node.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"

namespace dflow {

bool FusesOn(const PassContext& ctx, PassResult* result) {
  if (ctx.device_type == "CPU") return true;
  result->what = absl::StrCat("no fused kernel on ", ctx.device_type.empty()
                                                         ? "an unplaced graph"
                                                         : ctx.device_type);
  return false;
}

bool RunOnOneDevice(const Node* a, const Node* b) {
  if (!a->assigned_device().empty() || !b->assigned_device().empty()) {
    return a->assigned_device() == b->assigned_device();
  }
  return a->requested_device() == b->requested_device();
}

absl::StatusOr<Node*> ReplaceWithFusedNode(
    Graph* graph, const std::vector<Node*>& members, Node* last, NodeDef def,
    const std::vector<std::pair<Node*, int>>& inputs) {
  const absl::flat_hash_set<Node*> group(members.begin(), members.end());
  std::vector<Node*> control_in;
  absl::flat_hash_set<Node*> seen;
  for (Node* m : members) {
    for (const Edge* e : m->in_edges()) {
      if (e->IsControl() && !group.contains(e->src) &&
          seen.insert(e->src).second) {
        control_in.push_back(e->src);
      }
    }
  }
  std::vector<std::pair<Node*, int>> data_out;
  std::vector<Node*> control_out;
  for (const Edge* e : last->out_edges()) {
    if (e->IsControl()) {
      control_out.push_back(e->dst);
    } else {
      data_out.push_back({e->dst, e->dst_input});
    }
  }
  const std::string assigned = last->assigned_device();
  for (Node* m : members) graph->RemoveNode(m);
  absl::StatusOr<Node*> fused = graph->AddNode(std::move(def));
  if (!fused.ok()) return fused.status();
  (*fused)->set_assigned_device(assigned);
  for (size_t i = 0; i < inputs.size(); ++i) {
    absl::StatusOr<const Edge*> e = graph->AddEdge(
        inputs[i].first, inputs[i].second, *fused, static_cast<int>(i));
    if (!e.ok()) return e.status();
  }
  for (Node* src : control_in) graph->AddControlEdge(src, *fused);
  for (Node* dst : control_out) graph->AddControlEdge(*fused, dst);
  for (const auto& [dst, slot] : data_out) {
    absl::StatusOr<const Edge*> e = graph->AddEdge(*fused, 0, dst, slot);
    if (!e.ok()) return e.status();
  }
  // Later passes (memory planning) read static shapes.
  graph->InferShapesForNode(*fused).IgnoreError();
  return *fused;
}

}  // namespace dflow
