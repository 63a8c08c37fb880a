#include "compiler/colocation_graph.h"

#include <numeric>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "graph/node_def_util.h"
#include "graph/ops/control_flow_ops.h"
#include "graph/types.h"

namespace dflow {
namespace {

constexpr absl::string_view kColocationPrefix = "loc:@";

// Union-find over node ids; the root of a set is its smallest id, which
// keeps group order independent of the order unions happen in.
class DisjointSets {
 public:
  explicit DisjointSets(int n) : parent_(n) {
    std::iota(parent_.begin(), parent_.end(), 0);
  }
  int Find(int x) {
    while (parent_[x] != x) {
      parent_[x] = parent_[parent_[x]];
      x = parent_[x];
    }
    return x;
  }
  void Union(int a, int b) {
    a = Find(a);
    b = Find(b);
    if (a == b) return;
    if (b < a) std::swap(a, b);
    parent_[b] = a;
  }

 private:
  std::vector<int> parent_;
};

// A loop Merge: one of its data inputs is a NextIteration.
bool IsLoopMerge(const Node& node) {
  if (!IsMergeOp(node.op())) return false;
  for (const Edge* e : node.in_edges()) {
    if (!e->IsControl() && IsNextIterationOp(e->src->op())) return true;
  }
  return false;
}

// The node a loop primitive must share a device with, as TensorFlow
// colocates them: the nodes that carry one loop variable (its Enter, Merge,
// Switch, NextIteration and Exit) stay together. For a NextIteration this
// is required, not only cheaper: its value reaches the Merge in the next
// iteration, and a transfer inside a loop meets its receiver in the same
// iteration (compiler/partition.h). Null for other nodes.
const Node* LoopVariablePeer(const Node& node) {
  const std::string& op = node.op();
  if (IsNextIterationOp(op) || op == "Enter") {
    // (A RefEnter is tied to its variable by the reference rule.)
    for (const Edge* e : node.out_edges()) {
      if (!e->IsControl() && IsLoopMerge(*e->dst)) return e->dst;
    }
  } else if (IsSwitchOp(op) || IsExitOp(op)) {
    for (const Edge* e : node.in_edges()) {
      if (e->IsControl() || e->dst_input != 0) continue;
      if (IsExitOp(op) ? IsSwitchOp(e->src->op()) : IsLoopMerge(*e->src)) {
        return e->src;
      }
    }
  }
  return nullptr;
}

}  // namespace

absl::StatusOr<std::vector<ColocationGroup>> BuildColocationGroups(
    const Graph& graph, bool skip_missing_targets) {
  DisjointSets sets(graph.num_node_ids());
  // Links in node id order, attached to their group once groups are known.
  std::vector<std::pair<int, std::string>> links;
  for (Node* node : graph.nodes()) {
    std::vector<std::string> classes;
    if (node->FindAttr("_class") != nullptr &&
        node->GetAttr("_class", &classes).ok()) {
      for (const std::string& entry : classes) {
        absl::string_view target = entry;
        if (!absl::ConsumePrefix(&target, kColocationPrefix)) continue;
        Node* other = graph.FindNode(target);
        if (other == nullptr && skip_missing_targets) continue;
        if (other == nullptr) {
          return absl::InvalidArgumentError(absl::StrCat(
              NodeLabel(node->name(), node->op()), " is colocated with node '",
              target, "' (_class attr '", entry,
              "'), but the graph has no node '", target,
              "'; remove the colocation or keep '", target,
              "' in the graph (was it pruned or renamed?)"));
        }
        if (other == node) continue;
        sets.Union(node->id(), other->id());
        links.emplace_back(node->id(), absl::StrCat("'", node->name(),
                                                    "' has _class ", entry));
      }
    }
    if (const Node* with = LoopVariablePeer(*node)) {
      sets.Union(node->id(), with->id());
      links.emplace_back(
          node->id(),
          absl::StrCat("'", node->name(), "' (", node->op(),
                       ") carries the loop variable of '", with->name(), "'"));
    }
    for (const Edge* edge : node->in_edges()) {
      if (edge->IsControl()) continue;
      DataType type = node->input_type(edge->dst_input);
      std::string link;
      if (IsRefType(type)) {
        link = absl::StrCat("'", node->name(), "' takes a reference to '",
                            edge->src->name(), "'");
      } else if (type == DT_RESOURCE) {
        link = absl::StrCat("'", node->name(), "' uses resource '",
                            edge->src->name(), "'");
      } else {
        continue;
      }
      sets.Union(node->id(), edge->src->id());
      links.emplace_back(node->id(), std::move(link));
    }
  }

  std::vector<ColocationGroup> groups;
  std::vector<int> group_of_root(graph.num_node_ids(), -1);
  for (Node* node : graph.nodes()) {
    int root = sets.Find(node->id());
    if (group_of_root[root] < 0) {
      group_of_root[root] = static_cast<int>(groups.size());
      groups.emplace_back();
    }
    groups[group_of_root[root]].members.push_back(node);
  }
  for (auto& [id, link] : links) {
    groups[group_of_root[sets.Find(id)]].links.push_back(std::move(link));
  }
  return groups;
}

}  // namespace dflow
