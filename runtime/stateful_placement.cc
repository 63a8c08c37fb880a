#include "runtime/stateful_placement.h"

#include <vector>

namespace dflow {

bool IsSharedStatefulNode(const Node& node) {
  return node.IsStateful() && !node.name().empty() && node.name()[0] != '_';
}

absl::StatusOr<PrunedGraph> PruneToRunnableNodes(const Graph& graph) {
  // Nodes that cannot run: stand-ins for ops dflow lacks and everything
  // downstream of them (a step reaching them fails before placement).
  std::vector<bool> blocked(graph.num_node_ids(), false);
  std::vector<const Node*> stack;
  for (const Node* n : graph.nodes()) {
    if (n->IsUnsupported()) {
      blocked[n->id()] = true;
      stack.push_back(n);
    }
  }
  while (!stack.empty()) {
    const Node* n = stack.back();
    stack.pop_back();
    for (const Edge* e : n->out_edges()) {
      if (!blocked[e->dst->id()]) {
        blocked[e->dst->id()] = true;
        stack.push_back(e->dst);
      }
    }
  }
  PruneRequest request;
  for (const Node* n : graph.nodes()) {
    if (!blocked[n->id()]) request.targets.push_back(n->name());
  }
  return PruneGraph(graph, request);
}

void StatefulPlacement::Learn(Graph* whole,
                              absl::Span<const PlacementDevice> devices,
                              const KernelQuery& kernels,
                              const PlacerOptions& options) {
  PlacerOptions whole_options = options;
  whole_options.pruned_subgraph = true;  // colocation with a blocked node
  if (!PlaceGraph(whole, devices, kernels, whole_options).ok()) return;
  for (const Node* n : whole->nodes()) {
    if (IsSharedStatefulNode(*n) && !n->assigned_device().empty()) {
      devices_.emplace(n->name(), n->assigned_device());
    }
  }
}

void StatefulPlacement::Pin(Graph* graph) const {
  if (devices_.empty()) return;
  for (Node* n : graph->nodes()) {
    if (!IsSharedStatefulNode(*n)) continue;
    auto it = devices_.find(n->name());
    if (it != devices_.end()) n->set_assigned_device(it->second);
  }
}

}  // namespace dflow
