#include "compiler/remove_unread_values.h"

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/ops/control_flow_ops.h"
#include "graph/types.h"

namespace dflow {
namespace {

// Whether `node` computes only values and every edge leaving it is a
// control edge (there is at least one).
bool ComputesOnlyUnreadValues(const Node* node, const PassContext& ctx) {
  if (node->out_edges().empty()) return false;
  for (const Edge* e : node->out_edges()) {
    if (!e->IsControl()) return false;
  }
  if (node->IsStateful() || node->IsUnsupported()) return false;
  // TensorFlow does not mark the ops that write through a ref input as
  // stateful (Assign, ApplyGradientDescent, ScatterUpdate): an initializer
  // is a NoOp with a control edge from each Assign. Keep any node that
  // takes a ref or a resource.
  for (DataType t : node->input_types()) {
    if (IsRefType(t) || t == DT_RESOURCE) return false;
  }
  // A control edge from a Switch is live whichever branch is taken, so a
  // node reading a Switch output (a tf.cond branch's pivot Identity, whose
  // control edges gate the branch's constants) cannot hand its inputs on.
  for (const Edge* e : node->in_edges()) {
    if (!e->IsControl() && IsSwitchOp(e->src->op())) return false;
  }
  const std::string& op = node->op();
  if (op == "NoOp" || op == "Placeholder" || op == "PlaceholderWithDefault" ||
      IsControlFlowOp(op)) {
    return false;
  }
  // Checks whose only effect is to fail the step on bad values, gated in by
  // a control edge (with tf.control_dependencies([check_numerics(x)])):
  // not stateful in TensorFlow's schema, but removing them would hide the
  // failure they exist for.
  if (op == "CheckNumerics" || op == "CheckNumericsV2" || op == "EnsureShape") {
    return false;
  }
  return !ctx.protected_nodes.contains(node->name());
}

}  // namespace

absl::StatusOr<PassResult> RemoveUnreadValues(const PassContext& ctx,
                                              Graph* graph) {
  absl::StatusOr<std::vector<Node*>> order = graph->TopologicalOrder();
  if (!order.ok()) return order.status();
  // Control edges present, as (source id, destination id), so that moving
  // a removed node's inputs onto its consumers adds each edge once.
  absl::flat_hash_set<std::pair<int, int>> control_edges;
  for (const Node* n : *order) {
    for (const Edge* e : n->in_edges()) {
      if (e->IsControl()) control_edges.insert({e->src->id(), n->id()});
    }
  }
  std::map<std::string, int> removed_ops;
  int removed = 0;
  // Consumers before producers: a producer whose last reader goes is seen
  // after it, with the control edges that replaced its data edge.
  for (auto it = order->rbegin(); it != order->rend(); ++it) {
    Node* node = *it;
    if (!ComputesOnlyUnreadValues(node, ctx)) continue;
    std::vector<Node*> consumers;
    for (const Edge* e : node->out_edges()) consumers.push_back(e->dst);
    std::vector<Node*> sources;
    for (const Edge* e : node->in_edges()) sources.push_back(e->src);
    for (Node* consumer : consumers) {
      for (Node* source : sources) {
        if (source == consumer) continue;
        if (control_edges.insert({source->id(), consumer->id()}).second) {
          graph->AddControlEdge(source, consumer);
        }
      }
    }
    ++removed_ops[node->op()];
    ++removed;
    graph->RemoveNode(node);
  }
  PassResult result;
  result.changes = removed;
  result.what = absl::StrCat(removed, " node", removed == 1 ? "" : "s",
                             " whose values nobody reads");
  if (removed > 0) {
    std::vector<std::string> parts;
    for (const auto& [op, count] : removed_ops) {
      parts.push_back(absl::StrCat(op, " x", count));
    }
    absl::StrAppend(&result.what, " (", absl::StrJoin(parts, ", "), ")");
  }
  return result;
}

}  // namespace dflow
