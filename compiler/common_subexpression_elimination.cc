#include "compiler/common_subexpression_elimination.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/hash/hash.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "graph/ops/control_flow_ops.h"
#include "graph/tensor.h"
#include "graph/types.h"

namespace dflow {
namespace {

// Consts up to this size are compared by value whatever their encoding.
constexpr int64_t kMaxCanonicalConstBytes = 1 << 20;

bool IsRefOrResource(DataType t) { return IsRefType(t) || t == DT_RESOURCE; }

// Whether `node` may be merged with an equal one at all.
bool Mergeable(const Node* node) {
  // Two reads of one resource variable with the same control inputs are
  // unordered against each other, so a write between them would be a race
  // whose outcomes include "both saw the same value": one read is enough.
  // (Towers that share a batch and their weights read each weight once.)
  if (node->op() == "ReadVariableOp") return true;
  if (node->IsStateful()) return false;
  // Switch, Merge, Enter, Exit, NextIteration...: each is its own place in
  // a conditional or a loop (two Enters of one value are two loop
  // variables), whatever its inputs.
  if (IsControlFlowOp(node->op())) return false;
  // Each placeholder is a distinct value fed by name, whatever its attrs.
  if (node->op() == "Placeholder" || node->op() == "PlaceholderWithDefault") {
    return false;
  }
  for (DataType t : node->input_types()) {
    if (IsRefOrResource(t)) return false;
  }
  for (DataType t : node->output_types()) {
    if (IsRefOrResource(t)) return false;
  }
  // A value input fed by a ref output reads the variable when the node
  // runs: two such reads are two moments, not one value.
  for (const Edge* e : node->in_edges()) {
    if (!e->IsControl() &&
        IsRefOrResource(e->src->output_type(e->src_output))) {
      return false;
    }
  }
  return true;
}

// Appends `value` serialized with map entries in a fixed order (protobuf's
// default order of a map is unspecified), length-prefixed so that no two
// attr lists run into each other.
void AppendAttr(const AttrValue& value, std::string* key) {
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream stream(&bytes);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    value.SerializeToCodedStream(&coded);
  }
  absl::StrAppend(key, bytes.size(), ":", bytes);
}

// Where a node runs, for comparing two nodes. Before placement: the device
// asked for and the one assigned (if any). On a placed partition every node
// runs on the partition's device, so what was asked (towers asking for
// /gpu:0 and /gpu:1, both placed on the CPU) no longer tells them apart.
std::string DeviceKey(const Node* node, bool placed) {
  if (placed) return node->assigned_device();
  return absl::StrCat(node->requested_device().size(), ":",
                      node->requested_device(), node->assigned_device());
}

// Attrs that only steer placement (colocation groups) do not make two
// placed nodes different computations.
bool ComparedAttr(const std::string& name, bool placed) {
  return !placed || name != "_class";
}

// What makes two nodes the same computation, with inputs named by their
// equivalence class (so a consumer of a merged node matches a consumer of
// its keeper before any edge moves).
std::string Key(const Node* node, const std::vector<int>& class_of,
                bool placed) {
  std::string key;
  const std::string device = DeviceKey(node, placed);
  absl::StrAppend(&key, node->op().size(), ":", node->op(), device.size(), ":",
                  device, "|");
  std::vector<const std::string*> names;
  names.reserve(node->def().attr().size());
  for (const auto& [name, value] : node->def().attr()) {
    if (ComparedAttr(name, placed)) names.push_back(&name);
  }
  std::sort(names.begin(), names.end(),
            [](const std::string* a, const std::string* b) { return *a < *b; });
  for (const std::string* name : names) {
    absl::StrAppend(&key, name->size(), ":", *name);
    const AttrValue& value = node->def().attr().at(*name);
    // A Const's value in one encoding: float_val [2] and the bytes of 2.0f
    // in tensor_content are the same constant.
    // (Only small ones: a few values may stand for a huge tensor, which
    // is not expanded at compile time just to compare it.)
    if (node->op() == "Const" && *name == "value" && value.has_tensor() &&
        Tensor::ProtoBytes(value.tensor()) >= 0 &&
        Tensor::ProtoBytes(value.tensor()) <= kMaxCanonicalConstBytes) {
      if (absl::StatusOr<Tensor> t = Tensor::FromProto(value.tensor());
          t.ok()) {
        AttrValue canonical;
        t->ToProto(canonical.mutable_tensor(), /*use_tensor_content=*/true);
        AppendAttr(canonical, &key);
        continue;
      }
    }
    AppendAttr(value, &key);
  }
  absl::StrAppend(&key, "|");
  for (int i = 0; i < node->num_inputs(); ++i) {
    const Edge* e = node->input_edge(i);
    if (e == nullptr) {
      absl::StrAppend(&key, "-,");
    } else {
      absl::StrAppend(&key, class_of[e->src->id()], ":", e->src_output, ",");
    }
  }
  absl::StrAppend(&key, "|");
  std::vector<int> control;
  for (const Edge* e : node->in_edges()) {
    if (e->IsControl()) control.push_back(class_of[e->src->id()]);
  }
  std::sort(control.begin(), control.end());
  control.erase(std::unique(control.begin(), control.end()), control.end());
  for (int c : control) absl::StrAppend(&key, c, ",");
  return key;
}

// A cheap stand-in for Key: what it says except the attr values (attr
// names only). Nodes that differ here differ in Key, so Key, which
// serializes every attr, is only built for nodes that share this with
// another (equal inputs and op: the candidates for merging).
size_t CandidateHash(const Node* node, const std::vector<int>& class_of,
                     bool placed) {
  size_t names = 0;  // order-independent: a map's order is unspecified
  for (const auto& [name, value] : node->def().attr()) {
    if (ComparedAttr(name, placed)) names += absl::Hash<std::string>{}(name);
  }
  std::vector<int> control;
  for (const Edge* e : node->in_edges()) {
    if (e->IsControl()) control.push_back(class_of[e->src->id()]);
  }
  std::sort(control.begin(), control.end());
  control.erase(std::unique(control.begin(), control.end()), control.end());
  std::vector<std::pair<int, int>> inputs;
  inputs.reserve(node->num_inputs());
  for (int i = 0; i < node->num_inputs(); ++i) {
    const Edge* e = node->input_edge(i);
    inputs.emplace_back(e == nullptr ? -1 : class_of[e->src->id()],
                        e == nullptr ? 0 : e->src_output);
  }
  return absl::HashOf(node->op(), DeviceKey(node, placed), names, inputs,
                      control);
}

struct EquivalenceClass {
  Node* first;   // the member whose key the class was registered with
  Node* keeper;  // the member that stays
  bool has_protected = false;
};

}  // namespace

absl::StatusOr<PassResult> EliminateCommonSubexpressions(const PassContext& ctx,
                                                         Graph* graph) {
  absl::StatusOr<std::vector<Node*>> order = graph->TopologicalOrder();
  if (!order.ok()) return order.status();
  const bool placed = !ctx.device.empty();

  // Phase 1: classes. A node's key names its inputs' classes, so the walk
  // in topological order finds whole equal subgraphs in one pass, without
  // moving an edge; keys are hashed and compared in full only on a hash
  // hit (a Const's key holds its whole value).
  std::vector<int> class_of(graph->num_node_ids(), -1);
  std::vector<EquivalenceClass> classes;
  classes.reserve(order->size());
  // Nodes by CandidateHash. A bucket's first member has its Key built only when
  // a second member arrives; from then on the bucket finds classes by Key.
  struct Bucket {
    int unkeyed = -1;  // the class of a member whose Key is not built yet
    absl::flat_hash_map<std::string, int> by_key;
  };
  absl::flat_hash_map<size_t, Bucket> buckets;
  for (Node* node : *order) {
    const bool is_protected = ctx.protected_nodes.contains(node->name());
    int joined = -1;
    Bucket* bucket = nullptr;
    std::string key;
    if (Mergeable(node)) {
      bucket = &buckets[CandidateHash(node, class_of, placed)];
      if (bucket->unkeyed >= 0 || !bucket->by_key.empty()) {
        if (bucket->unkeyed >= 0) {
          // Key only reads the classes of the member's inputs, assigned
          // before it was visited: building it now gives what it gave then.
          bucket->by_key.emplace(
              Key(classes[bucket->unkeyed].first, class_of, placed),
              bucket->unkeyed);
          bucket->unkeyed = -1;
        }
        key = Key(node, class_of, placed);
        auto it = bucket->by_key.find(key);
        if (it != bucket->by_key.end()) joined = it->second;
      }
      // Two targets both keep their names: the second starts a class of
      // its own (later equal nodes join the first).
      if (joined >= 0 && is_protected && classes[joined].has_protected) {
        class_of[node->id()] = static_cast<int>(classes.size());
        classes.push_back({node, node, true});
        continue;
      }
    }
    if (joined < 0) {
      const int c = static_cast<int>(classes.size());
      class_of[node->id()] = c;
      classes.push_back({node, node, is_protected});
      if (bucket != nullptr) {
        if (key.empty()) {
          bucket->unkeyed = c;
        } else {
          bucket->by_key.emplace(std::move(key), c);
        }
      }
      continue;
    }
    class_of[node->id()] = joined;
    EquivalenceClass& cls = classes[joined];
    if (is_protected) {
      cls.keeper = node;
      cls.has_protected = true;
    } else if (!cls.has_protected && node->id() < cls.keeper->id()) {
      cls.keeper = node;
    }
  }

  // Phase 2: every other member hands its consumers to its class's keeper.
  // Members of one class have equal depth from the graph's sources, so no
  // keeper is a consumer of a member of its own class: no cycle appears.
  // Consumers go first (reverse topological order): a merged node is
  // removed while its inputs are still its own class's members, not a
  // keeper that gathered thousands of consumers (removing an edge costs
  // the source's out-degree: a shared Const would make it quadratic).
  int merged = 0;
  for (auto it = order->rbegin(); it != order->rend(); ++it) {
    Node* node = *it;
    Node* keeper = classes[class_of[node->id()]].keeper;
    if (keeper == node) continue;
    const std::vector<const Edge*> out(node->out_edges().begin(),
                                       node->out_edges().end());
    for (const Edge* e : out) {
      Node* dst = e->dst;
      if (e->IsControl()) {
        graph->RemoveEdge(e);
        graph->AddControlEdge(keeper, dst);
        continue;
      }
      const int slot = e->src_output;
      const int input = e->dst_input;
      if (absl::Status s = graph->UpdateEdge(keeper, slot, dst, input);
          !s.ok()) {
        return absl::Status(
            s.code(),
            absl::StrCat("merging '", node->name(), "' (", node->op(),
                         ") into '", keeper->name(), "': ", s.message()));
      }
    }
    graph->RemoveNode(node);
    ++merged;
  }

  PassResult result;
  result.changes = merged;
  result.what =
      absl::StrCat(merged, merged == 1 ? " node" : " nodes", " merged");
  return result;
}

}  // namespace dflow
