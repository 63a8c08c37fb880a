#include "compiler/tensor_fusion.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "graph/attr_value_util.h"
#include "graph/node_def_util.h"
#include "graph/op_registry.h"
#include "graph/ops/control_flow_ops.h"
#include "graph/shape_inference.h"
#include "graph/tensor.h"

namespace dflow {

// Internal: only this pass creates it, so it is declared here rather than
// with the public collectives in graph/ops/ (TensorFlow's ops: a graph of
// those loads in TensorFlow). The attrs are CollectiveAllReduce's plus N.
DFLOW_REGISTER_OP("_FusedCollectiveAllReduce")
    .Input("input: N * T")
    .Output("data: N * T")
    .Attr("N: int >= 1")
    .Attr("T: {float, double, int32, int64}")
    .Attr("group_size: int >= 1")
    .Attr("group_key: int")
    .Attr("instance_key: int")
    .Attr("reduction: {'sum', 'mean', 'max'} = 'sum'")
    .Attr("communication_hint: {'auto', 'ring', 'nccl'} = 'auto'")
    .Attr("timeout_seconds: float = 60")
    .SetIsStateful()
    .SetShapeFn([](InferenceContext* c) { return c->PassThrough(); })
    .Doc(
        "Packs its N inputs into one buffer, all-reduces it over the group "
        "as one instance, and unpacks the result: output k is the "
        "reduction of every member's input k (made by tensor fusion).");

namespace {

constexpr char kAllReduce[] = "CollectiveAllReduce";

// The collective ops, fused or not: their keys are taken.
bool IsCollective(const std::string& op) {
  return absl::StartsWith(absl::StripPrefix(op, "_Fused"), "Collective");
}

// One all-reduce instance all of whose members can be fused.
struct Candidate {
  int64_t group_key = 0;
  int64_t instance_key = 0;
  std::vector<Node*> members;  // sorted by requested device
  TensorShape shape;
  int64_t bytes = 0;
  // What instances must share to be packed together.
  std::string bucket_key;
};

const Edge* InputOf(const Node* n) { return n->input_edge(0); }

const TensorShape& InputShape(const Node* n) {
  const Edge* e = InputOf(n);
  return e->src->output_shape(e->src_output);
}

int64_t ElementBytes(DataType t) {
  switch (t) {
    case DT_FLOAT:
    case DT_INT32:
      return 4;
    case DT_DOUBLE:
    case DT_INT64:
      return 8;
    default:
      return 0;
  }
}

// The attrs members of one bucket must share, as text (every attr but the
// instance key).
std::string SharedAttrs(const Node* n) {
  std::vector<std::string> parts;
  for (const auto& attr : n->op_def().attr()) {
    if (attr.name() == "instance_key") continue;
    const AttrValue* v = n->FindAttr(attr.name());
    parts.push_back(absl::StrCat(attr.name(), "=",
                                 v == nullptr ? "" : SummarizeAttrValue(*v)));
  }
  return absl::StrJoin(parts, ";");
}

// Checks one (group, instance)'s members; fills `c` when they can be fused.
bool Eligible(const std::vector<Node*>& nodes, int64_t threshold,
              Candidate* c) {
  std::vector<Node*> members = nodes;
  int64_t group_size = 0;
  if (!members[0]->GetAttr("group_size", &group_size).ok() ||
      group_size != static_cast<int64_t>(members.size()) || group_size < 2) {
    return false;
  }
  std::sort(members.begin(), members.end(), [](const Node* a, const Node* b) {
    return a->requested_device() < b->requested_device();
  });
  const std::string attrs = SharedAttrs(members[0]);
  for (size_t i = 0; i < members.size(); ++i) {
    const Node* m = members[i];
    if (InputOf(m) == nullptr || m->requested_device().empty() ||
        (i > 0 &&
         m->requested_device() == members[i - 1]->requested_device())) {
      return false;
    }
    if (!InputShape(m).IsFullyDefined() ||
        InputShape(m) != InputShape(members[0]) || SharedAttrs(m) != attrs) {
      return false;
    }
  }
  DataType dtype = DT_INVALID;
  if (!members[0]->GetAttr("T", &dtype).ok()) return false;
  c->shape = InputShape(members[0]);
  c->bytes = c->shape.num_elements() * ElementBytes(dtype);
  if (c->bytes > threshold || ElementBytes(dtype) == 0) return false;
  c->members = std::move(members);
  std::vector<std::string> devices;
  for (const Node* m : c->members) devices.push_back(m->requested_device());
  c->bucket_key = absl::StrCat(attrs, "|", absl::StrJoin(devices, ","));
  return true;
}

// For each node, the candidates it depends on (transitively), as bits.
class Ancestry {
 public:
  Ancestry(const Graph& graph, const std::vector<Node*>& order,
           const absl::flat_hash_map<const Node*, int>& candidate_of,
           int num_candidates)
      : words_((num_candidates + 63) / 64),
        bits_(static_cast<size_t>(graph.num_node_ids()) * words_, 0) {
    for (const Node* n : order) {
      uint64_t* mine = Row(n);
      for (const Edge* e : n->in_edges()) {
        const uint64_t* theirs = Row(e->src);
        for (int w = 0; w < words_; ++w) mine[w] |= theirs[w];
        auto it = candidate_of.find(e->src);
        if (it != candidate_of.end()) {
          mine[it->second / 64] |= uint64_t{1} << (it->second % 64);
        }
      }
    }
  }
  bool DependsOn(const Node* n, int candidate) const {
    return (Row(n)[candidate / 64] >> (candidate % 64)) & 1;
  }

 private:
  uint64_t* Row(const Node* n) {
    return bits_.data() + static_cast<size_t>(n->id()) * words_;
  }
  const uint64_t* Row(const Node* n) const {
    return bits_.data() + static_cast<size_t>(n->id()) * words_;
  }
  const int words_;
  std::vector<uint64_t> bits_;
};

// A set of candidates (indices), as bits.
class CandidateSet {
 public:
  explicit CandidateSet(int size) : words_((size + 63) / 64, 0) {}
  void Set(int i) { words_[i / 64] |= uint64_t{1} << (i % 64); }
  bool Get(int i) const { return (words_[i / 64] >> (i % 64)) & 1; }
  void Or(const CandidateSet& o) {
    for (size_t w = 0; w < words_.size(); ++w) words_[w] |= o.words_[w];
  }
  void Subtract(const CandidateSet& o) {
    for (size_t w = 0; w < words_.size(); ++w) words_[w] &= ~o.words_[w];
  }
  bool Intersects(const CandidateSet& o) const {
    for (size_t w = 0; w < words_.size(); ++w) {
      if (words_[w] & o.words_[w]) return true;
    }
    return false;
  }
  bool Empty() const {
    for (uint64_t w : words_) {
      if (w != 0) return false;
    }
    return true;
  }
  template <typename F>
  void ForEach(F f) const {
    for (size_t w = 0; w < words_.size(); ++w) {
      for (uint64_t bits = words_[w]; bits != 0; bits &= bits - 1) {
        f(static_cast<int>(w * 64 + __builtin_ctzll(bits)));
      }
    }
  }

 private:
  std::vector<uint64_t> words_;
};

// Builds the rewrite of one bucket.
class BucketRewriter {
 public:
  BucketRewriter(Graph* graph, const std::vector<const Candidate*>& bucket,
                 int64_t new_instance_key)
      : graph_(graph), bucket_(bucket), new_key_(new_instance_key) {
    std::string identity;
    for (const Candidate* c : bucket) {
      absl::StrAppend(&identity, c->instance_key, ":");
      for (const Node* m : c->members)
        absl::StrAppend(&identity, m->name(), ",");
    }
    // The name says what the node fuses: a session shares a stateful
    // kernel by node name across run signatures, so two different fusions
    // must never get one name.
    prefix_ = absl::StrCat("tensor_fusion/group_", bucket[0]->group_key,
                           "_instance_", new_key_, "_",
                           absl::Hex(std::hash<std::string>()(identity)));
  }

  absl::Status Rewrite() {
    const int num_devices = static_cast<int>(bucket_[0]->members.size());
    for (int d = 0; d < num_devices; ++d) {
      if (absl::Status s = RewriteDevice(d); !s.ok()) return s;
    }
    return absl::OkStatus();
  }

 private:
  struct Link {
    Node* node;
    int slot;
  };

  absl::StatusOr<Node*> Add(NodeDef def, const std::vector<Link>& inputs) {
    def.set_device(device_);
    if (!colocation_.attr().empty()) {
      (*def.mutable_attr())["_class"] = colocation_.attr().at("_class");
    }
    absl::StatusOr<Node*> node = graph_->AddNode(std::move(def));
    if (!node.ok()) return node.status();
    for (size_t i = 0; i < inputs.size(); ++i) {
      absl::StatusOr<const Edge*> e = graph_->AddEdge(
          inputs[i].node, inputs[i].slot, *node, static_cast<int>(i));
      if (!e.ok()) return e.status();
    }
    if (absl::Status s = graph_->InferShapesForNode(*node); !s.ok()) return s;
    return *node;
  }

  std::string Unique(const std::string& name) const {
    std::string out = name;
    for (int k = 1; graph_->FindNode(out) != nullptr; ++k) {
      out = absl::StrCat(name, "_", k);
    }
    return out;
  }

  absl::Status RewriteDevice(int d) {
    const Node* first = bucket_[0]->members[d];
    device_ = first->requested_device();
    colocation_.Clear();
    if (const AttrValue* cls = first->FindAttr("_class")) {
      (*colocation_.mutable_attr())["_class"] = *cls;
    }
    DataType dtype = DT_INVALID;
    if (absl::Status s = first->GetAttr("T", &dtype); !s.ok()) return s;
    const std::string base = absl::StrCat(prefix_, "/", d, "/");
    const int k = static_cast<int>(bucket_.size());

    // One fused all-reduce of the members' inputs in bucket order, with the
    // first member's attrs, the new key and every member's control inputs.
    std::vector<Link> inputs;
    std::vector<Node*> control_in;
    for (int j = 0; j < k; ++j) {
      const Node* m = bucket_[j]->members[d];
      const Edge* in = InputOf(m);
      inputs.push_back({in->src, in->src_output});
      for (const Edge* e : m->in_edges()) {
        if (e->IsControl()) control_in.push_back(e->src);
      }
    }
    NodeDef fused_def;
    fused_def.set_name(Unique(base + "all_reduce"));
    fused_def.set_op(kFusedAllReduceOp);
    for (const auto& [name, value] : first->def().attr()) {
      if (name != "_class") (*fused_def.mutable_attr())[name] = value;
    }
    (*fused_def.mutable_attr())["instance_key"] = MakeAttr(new_key_);
    (*fused_def.mutable_attr())["N"] = MakeAttr(static_cast<int64_t>(k));
    absl::StatusOr<Node*> fused = Add(std::move(fused_def), inputs);
    if (!fused.ok()) return fused.status();
    for (Node* src : control_in) graph_->AddControlEdge(src, *fused);

    // Each member's name now an Identity of its output of the fused node,
    // with the member's consumers.
    for (int j = 0; j < k; ++j) {
      Node* m = bucket_[j]->members[d];
      const std::string name = m->name();
      std::vector<Link> data_out;
      std::vector<Node*> control_out;
      for (const Edge* e : m->out_edges()) {
        if (e->IsControl()) {
          control_out.push_back(e->dst);
        } else {
          data_out.push_back({e->dst, e->dst_input});
        }
      }
      graph_->RemoveNode(m);
      NodeDef def;
      def.set_name(name);
      def.set_op("Identity");
      (*def.mutable_attr())["T"] = MakeAttr(dtype);
      absl::StatusOr<Node*> out = Add(std::move(def), {{*fused, j}});
      if (!out.ok()) return out.status();
      for (const Link& l : data_out) {
        absl::StatusOr<const Edge*> e =
            graph_->AddEdge(*out, 0, l.node, l.slot);
        if (!e.ok()) return e.status();
      }
      for (Node* dst : control_out) graph_->AddControlEdge(*out, dst);
    }
    return absl::OkStatus();
  }

  Graph* const graph_;
  const std::vector<const Candidate*>& bucket_;
  const int64_t new_key_;
  std::string prefix_;
  std::string device_;
  NodeDef colocation_;  // holds the members' `_class`, if any
};

}  // namespace

absl::StatusOr<TensorFusionResult> FuseAllReduces(
    Graph* graph, const TensorFusionOptions& options) {
  TensorFusionResult result;
  if (options.threshold_bytes <= 0) return result;

  // Every collective's keys: new instance keys must be unused in their group.
  std::map<std::pair<int64_t, int64_t>, std::vector<Node*>> all_reduces;
  absl::flat_hash_set<std::pair<int64_t, int64_t>> other_collectives;
  absl::flat_hash_map<int64_t, int64_t> max_instance;
  bool shapes_missing = false;
  for (Node* n : graph->nodes()) {
    // All-reduces in different branches or iterations must not share an
    // instance: graphs with control flow keep theirs as they are (nothing
    // has changed yet).
    if (IsControlFlowOp(n->op())) return result;
    if (!IsCollective(n->op())) continue;
    int64_t group = 0, instance = 0;
    if (!n->GetAttr("group_key", &group).ok() ||
        !n->GetAttr("instance_key", &instance).ok()) {
      continue;
    }
    auto [it, inserted] = max_instance.try_emplace(group, instance);
    if (!inserted) it->second = std::max(it->second, instance);
    if (n->op() == kAllReduce) {
      all_reduces[{group, instance}].push_back(n);
      if (InputOf(n) != nullptr && !InputShape(n).IsFullyDefined()) {
        shapes_missing = true;
      }
    } else {
      other_collectives.insert({group, instance});
    }
  }
  if (all_reduces.size() < 2) return result;
  // Best effort: a graph whose shapes cannot all be inferred just has fewer
  // candidates.
  if (shapes_missing) graph->InferShapes().IgnoreError();

  std::vector<Candidate> candidates;
  for (const auto& [key, nodes] : all_reduces) {
    if (other_collectives.contains(key)) continue;
    Candidate c;
    c.group_key = key.first;
    c.instance_key = key.second;
    if (Eligible(nodes, options.threshold_bytes, &c)) {
      candidates.push_back(std::move(c));
    }
  }
  if (candidates.size() < 2) return result;

  absl::StatusOr<std::vector<Node*>> order = graph->TopologicalOrder();
  if (!order.ok()) return order.status();
  absl::flat_hash_map<const Node*, int> candidate_of;
  for (size_t i = 0; i < candidates.size(); ++i) {
    for (const Node* m : candidates[i].members) {
      candidate_of[m] = static_cast<int>(i);
    }
  }
  const int num = static_cast<int>(candidates.size());
  const Ancestry ancestry(*graph, *order, candidate_of, num);
  // dependents[b]: the candidates that depend on b, directly or not.
  std::vector<CandidateSet> dependents(num, CandidateSet(num));
  for (int a = 0; a < num; ++a) {
    for (const Node* m : candidates[a].members) {
      for (int b = 0; b < num; ++b) {
        if (ancestry.DependsOn(m, b)) dependents[b].Set(a);
      }
    }
  }

  // Buckets, in instance-key order within each kind (candidates are sorted
  // by (group, instance) already: all_reduces is an ordered map). Fusing a
  // bucket makes its members one node, which must not close a cycle: a
  // candidate joins the open bucket only if neither reaches the other,
  // also through buckets formed before (whose members are one node too).
  std::vector<int> bucket_of(num, -1);
  std::vector<CandidateSet> bucket_sets;
  // Everything that depends on `from`, with buckets as single nodes.
  auto reach = [&](const CandidateSet& from) {
    CandidateSet reached(num);
    CandidateSet frontier = from;
    while (!frontier.Empty()) {
      CandidateSet next(num);
      frontier.ForEach([&](int x) { next.Or(dependents[x]); });
      CandidateSet expanded = next;
      next.ForEach([&](int x) {
        if (bucket_of[x] >= 0) expanded.Or(bucket_sets[bucket_of[x]]);
      });
      next = std::move(expanded);
      next.Subtract(reached);
      reached.Or(next);
      frontier = std::move(next);
    }
    return reached;
  };
  std::map<std::string, std::vector<int>> by_kind;
  for (int i = 0; i < num; ++i) by_kind[candidates[i].bucket_key].push_back(i);
  std::vector<std::vector<int>> buckets;
  for (const auto& [kind, members] : by_kind) {
    std::vector<int> current;
    CandidateSet current_set(num);
    int64_t bytes = 0;
    auto close = [&] {
      if (current.empty()) return;
      for (int c : current) bucket_of[c] = static_cast<int>(bucket_sets.size());
      bucket_sets.push_back(current_set);
      buckets.push_back(std::move(current));
      current.clear();
      current_set = CandidateSet(num);
      bytes = 0;
    };
    for (int c : members) {
      bool fits = bytes + candidates[c].bytes <= options.threshold_bytes;
      if (fits && !current.empty()) {
        CandidateSet single(num);
        single.Set(c);
        fits = !reach(single).Intersects(current_set) &&
               !reach(current_set).Get(c);
      }
      if (!fits) close();
      current.push_back(c);
      current_set.Set(c);
      bytes += candidates[c].bytes;
    }
    close();
  }

  for (const std::vector<int>& bucket : buckets) {
    if (bucket.size() < 2) continue;
    std::vector<const Candidate*> members;
    for (int c : bucket) members.push_back(&candidates[c]);
    const int64_t group = members[0]->group_key;
    const int64_t new_key = ++max_instance[group];
    BucketRewriter rewriter(graph, members, new_key);
    if (absl::Status s = rewriter.Rewrite(); !s.ok()) {
      return absl::Status(s.code(), absl::StrCat("fusing all-reduces of group ",
                                                 group, " into instance ",
                                                 new_key, ": ", s.message()));
    }
    ++result.buckets;
    result.instances += static_cast<int>(bucket.size());
  }
  return result;
}

}  // namespace dflow
