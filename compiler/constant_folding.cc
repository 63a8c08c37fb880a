#include "compiler/constant_folding.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "compiler/kernel_query.h"
#include "graph/attr_value_util.h"
#include "graph/node_def_util.h"
#include "graph/ops/control_flow_ops.h"
#include "graph/tensor.h"
#include "graph/tensor_shape.h"
#include "graph/types.h"

namespace dflow {
namespace {

constexpr char kConstOp[] = "Const";

bool IsRefOrResource(DataType t) { return IsRefType(t) || t == DT_RESOURCE; }

// Whether `node` may never be replaced by constants, whatever its inputs.
bool NeverFolded(const Node& node, const PassContext& ctx) {
  if (node.op() == kConstOp || node.IsStateful()) return true;
  // Their outputs may be dead: not values a Const could stand for.
  if (IsControlFlowOp(node.op())) return true;
  // A Placeholder that reaches this pass was not fed: running it is an
  // error the step must still report. PlaceholderWithDefault may be fed in
  // graphs that were not pruned for one signature.
  if (node.op() == "Placeholder" || node.op() == "PlaceholderWithDefault") {
    return true;
  }
  if (ctx.protected_nodes.contains(node.name())) return true;
  // Nothing to gain from a node without outputs (NoOp) or consumers.
  if (node.num_outputs() == 0 || node.out_edges().empty()) return true;
  for (DataType t : node.input_types()) {
    if (IsRefOrResource(t)) return true;
  }
  for (DataType t : node.output_types()) {
    // A Const can hold only what a Tensor holds (no variants).
    if (IsRefOrResource(t) || !Tensor::IsSupportedDataType(t)) return true;
  }
  return false;
}

// What a tensor adds to the graph as a Const: its elements' bytes, with
// strings counted by their characters.
int64_t ConstantBytes(const Tensor& t) {
  if (t.dtype() != DT_STRING) return static_cast<int64_t>(t.TotalBytes());
  int64_t bytes = 0;
  for (const std::string& s : t.flat<std::string>()) {
    bytes += static_cast<int64_t>(s.size()) + 1;
  }
  return bytes;
}

// A vector of `dims` as `dtype` (int32 or int64); nullopt when a value does
// not fit int32 (the kernel would fail at run time: leave it that way).
std::optional<Tensor> IndexTensor(const std::vector<int64_t>& dims,
                                  DataType dtype, bool scalar) {
  const TensorShape shape =
      scalar ? TensorShape() : TensorShape({static_cast<int64_t>(dims.size())});
  if (dtype == DT_INT64) return Tensor::FromVector(dims, shape);
  if (dtype != DT_INT32) return std::nullopt;
  std::vector<int32_t> narrow;
  narrow.reserve(dims.size());
  for (int64_t d : dims) {
    if (d > std::numeric_limits<int32_t>::max()) return std::nullopt;
    narrow.push_back(static_cast<int32_t>(d));
  }
  return Tensor::FromVector(narrow, shape);
}

// The outputs of a Shape, Size, Rank or ShapeN node computed from the
// static shapes of its inputs, when those are known enough; nullopt
// otherwise (or for any other op).
std::optional<std::vector<Tensor>> ValuesFromStaticShapes(const Node& node) {
  const std::string& op = node.op();
  if (op != "Shape" && op != "Size" && op != "Rank" && op != "ShapeN") {
    return std::nullopt;
  }
  std::vector<Tensor> values;
  for (int i = 0; i < node.num_inputs(); ++i) {
    const Edge* e = node.input_edge(i);
    if (e == nullptr) return std::nullopt;
    const TensorShape& shape = e->src->output_shape(e->src_output);
    std::optional<Tensor> value;
    if (op == "Rank") {
      // The rank alone is enough: [?,784] has rank 2 whatever is fed.
      if (shape.unknown_rank()) return std::nullopt;
      value = IndexTensor({shape.rank()}, DT_INT32, /*scalar=*/true);
    } else {
      if (!shape.IsFullyDefined()) return std::nullopt;
      DataType out_type = DT_INT32;
      if (!node.GetAttr("out_type", &out_type).ok()) return std::nullopt;
      if (op == "Size") {
        if (shape.num_elements() < 0) return std::nullopt;
        value = IndexTensor({shape.num_elements()}, out_type, /*scalar=*/true);
      } else {
        value = IndexTensor(
            std::vector<int64_t>(shape.dims().begin(), shape.dims().end()),
            out_type, /*scalar=*/false);
      }
    }
    if (!value.has_value() || !value->IsInitialized()) return std::nullopt;
    values.push_back(*std::move(value));
  }
  return values;
}

// Nodes in id order, each once: what a Const must wait for.
class NodeSet {
 public:
  void Insert(Node* n) {
    if (seen_.insert(n->id()).second) nodes_.push_back(n);
  }
  void InsertAll(const NodeSet& other) {
    for (Node* n : other.nodes_) Insert(n);
  }
  std::vector<Node*> Sorted() const {
    std::vector<Node*> sorted = nodes_;
    std::sort(sorted.begin(), sorted.end(),
              [](Node* a, Node* b) { return a->id() < b->id(); });
    return sorted;
  }

 private:
  absl::flat_hash_set<int> seen_;
  std::vector<Node*> nodes_;
};

// A name for a new node: `base`, else `base_1`, `base_2`, ...
std::string UniqueName(const Graph& graph, const std::string& base) {
  if (graph.FindNode(base) == nullptr) return base;
  for (int i = 1;; ++i) {
    std::string name = absl::StrCat(base, "_", i);
    if (graph.FindNode(name) == nullptr) return name;
  }
}

// Whether some output's statically known size is over the limit: such a
// node is not even evaluated (Fill([100000, 100000]) would take 40 GB to
// compute at compile time just to be thrown away).
// Consts larger than this (or than the folding limit, if larger) are not
// decoded: nothing computed from one could be folded cheaply.
constexpr int64_t kMaxDecodedConst = 64 << 20;

bool KnownToBeTooBig(const Node& node, int64_t max_bytes) {
  for (int k = 0; k < node.num_outputs(); ++k) {
    const TensorShape& shape = node.output_shape(k);
    const int element = DataTypeSize(node.output_type(k));
    if (element == 0 || !shape.IsFullyDefined()) continue;
    const int64_t n = shape.num_elements();
    if (n < 0 || n > max_bytes / element) return true;
  }
  return false;
}

// Device types with a Const kernel for each dtype, asked once: a folded
// node's Consts must be placeable wherever the node was (the placer runs
// after this pass; a GPU has no string Const, for one).
class ConstPlacement {
 public:
  ConstPlacement(const KernelQuery* kernels, const OpRegistry* registry)
      : kernels_(kernels), scratch_(registry) {}

  // True without a KernelQuery (nothing to check against).
  bool Covers(const Node& node) {
    if (kernels_ == nullptr) return true;
    const std::vector<std::string> needed =
        kernels_->SupportedDeviceTypes(node);
    for (DataType t : node.output_types()) {
      const absl::flat_hash_set<std::string>& have = TypesFor(t);
      for (const std::string& type : needed) {
        if (!have.contains(type)) return false;
      }
    }
    return true;
  }

 private:
  const absl::flat_hash_set<std::string>& TypesFor(DataType dtype) {
    auto it = by_dtype_.find(dtype);
    if (it != by_dtype_.end()) return it->second;
    absl::flat_hash_set<std::string>& types = by_dtype_[dtype];
    NodeDef def;
    def.set_name(absl::StrCat("const_", by_dtype_.size()));
    def.set_op(kConstOp);
    TensorShape empty({0});
    (*def.mutable_attr())["value"] = MakeAttr(Tensor(dtype, empty));
    (*def.mutable_attr())["dtype"] = MakeAttr(dtype);
    absl::StatusOr<Node*> probe = scratch_.AddNode(std::move(def));
    if (probe.ok()) {
      for (std::string& t : kernels_->SupportedDeviceTypes(**probe)) {
        types.insert(std::move(t));
      }
    }
    return types;
  }

  const KernelQuery* kernels_;
  Graph scratch_;
  absl::flat_hash_map<DataType, absl::flat_hash_set<std::string>> by_dtype_;
};

absl::Status Broken(const Node& node, absl::string_view what) {
  return absl::FailedPreconditionError(
      absl::StrCat(NodeLabel(node.def()), " ", what,
                   ": constant folding needs a well-formed graph (was it "
                   "edited after import?)"));
}

}  // namespace

absl::StatusOr<PassResult> FoldConstants(const PassContext& ctx, Graph* graph) {
  PassResult result;
  const ConstantEvaluator* evaluator = ctx.options->evaluator;
  if (evaluator == nullptr) {
    result.what = "no evaluator";
    return result;
  }
  const int64_t max_bytes = ctx.options->constant_folding.max_constant_bytes;
  // Static shapes for Shape/Size/Rank; a failure only means those fold when
  // their input is constant (stale shapes from before are not trusted).
  const bool shapes_known = graph->InferShapes().ok();

  absl::StatusOr<std::vector<Node*>> order = graph->TopologicalOrder();
  if (!order.ok()) return order.status();

  const int num_ids = graph->num_node_ids();
  // value[id]: the outputs of a Const or folded node.
  std::vector<std::optional<std::vector<Tensor>>> value(num_ids);
  std::vector<char> folded(num_ids, 0);
  int skipped_size = 0;
  int not_evaluated = 0;
  int not_placeable = 0;
  ConstPlacement placement(ctx.options->kernels, graph->registry());

  for (Node* node : *order) {
    if (node->op() == kConstOp) {
      const AttrValue* attr = node->FindAttr("value");
      if (attr == nullptr || !attr->has_tensor()) {
        return Broken(*node, "has no attr 'value'");
      }
      // An unreadable Const fails at run time; it just does not fold, nor
      // does a huge one (a few values may stand for a huge tensor: it is
      // expanded at run time, in its device's memory and under its limit,
      // not here).
      const int64_t bytes = Tensor::ProtoBytes(attr->tensor());
      if (bytes < 0 || bytes > std::max<int64_t>(max_bytes, kMaxDecodedConst)) {
        continue;
      }
      absl::StatusOr<Tensor> t = Tensor::FromProto(attr->tensor());
      if (t.ok()) value[node->id()] = std::vector<Tensor>{*std::move(t)};
      continue;
    }
    if (NeverFolded(*node, ctx)) continue;
    std::vector<Tensor> inputs;
    inputs.reserve(node->num_inputs());
    bool all_constant = true;
    for (int i = 0; i < node->num_inputs(); ++i) {
      const Edge* e = node->input_edge(i);
      if (e == nullptr) {
        return Broken(*node,
                      absl::StrCat("has data input ", i, " unconnected"));
      }
      const auto& src = value[e->src->id()];
      if (!src.has_value()) {
        all_constant = false;
        break;
      }
      inputs.push_back((*src)[e->src_output]);
    }
    if (!all_constant && (!shapes_known || !ValuesFromStaticShapes(*node))) {
      continue;
    }
    // Asked before computing anything: what cannot be placed is not folded.
    if (!placement.Covers(*node)) {
      ++not_placeable;
      continue;
    }
    std::vector<Tensor> outputs;
    if (all_constant) {
      if (shapes_known && KnownToBeTooBig(*node, max_bytes)) {
        ++skipped_size;
        continue;
      }
      absl::StatusOr<std::vector<Tensor>> evaluated =
          evaluator->Evaluate(*node, inputs);
      if (!evaluated.ok()) {
        ++not_evaluated;
        continue;
      }
      outputs = *std::move(evaluated);
    } else {
      outputs = *ValuesFromStaticShapes(*node);
    }
    // An evaluator that answers something else than the node declares is
    // not trusted with this node.
    bool well_typed = static_cast<int>(outputs.size()) == node->num_outputs();
    for (int k = 0; well_typed && k < node->num_outputs(); ++k) {
      well_typed = outputs[k].IsInitialized() &&
                   outputs[k].dtype() == node->output_type(k);
    }
    if (!well_typed) {
      ++not_evaluated;
      continue;
    }
    bool too_big = false;
    for (const Tensor& t : outputs) too_big |= ConstantBytes(t) > max_bytes;
    if (too_big) {
      ++skipped_size;
      continue;
    }
    value[node->id()] = std::move(outputs);
    folded[node->id()] = 1;
  }

  // What each Const or folded node must still come after: the non-folded
  // nodes it waited for, directly or through folded nodes and Consts. A
  // folded control source is replaced by what it waited for (its Const
  // would wait for exactly that). The non-constant input of a folded Shape
  // is kept too: its errors and effects still happen before the consumers
  // (a fed _Arg has neither, and is left out).
  std::vector<NodeSet> deps(num_ids);
  std::vector<Node*> folded_nodes;
  for (Node* node : *order) {
    if (!value[node->id()].has_value()) continue;
    if (folded[node->id()]) folded_nodes.push_back(node);
    NodeSet& d = deps[node->id()];
    for (const Edge* e : node->in_edges()) {
      Node* src = e->src;
      if (value[src->id()].has_value() &&
          (folded[src->id()] || !e->IsControl())) {
        d.InsertAll(deps[src->id()]);
      } else if (e->IsControl() || src->op() != "_Arg") {
        d.Insert(src);
      }
    }
  }
  if (folded_nodes.empty()) {
    result.what = absl::StrCat("0 nodes folded (", skipped_size,
                               " skipped over the size limit, ", not_evaluated,
                               " not evaluable)");
    return result;
  }

  // Consts that only folded nodes read lose their consumers below.
  std::vector<Node*> const_inputs;
  {
    absl::flat_hash_set<int> seen;
    for (Node* node : folded_nodes) {
      for (const Edge* e : node->in_edges()) {
        if (e->src->op() == kConstOp && !folded[e->src->id()] &&
            seen.insert(e->src->id()).second) {
          const_inputs.push_back(e->src);
        }
      }
    }
  }

  int constants = 0;
  for (Node* node : folded_nodes) {
    const int id = node->id();  // `node` is freed once removed
    struct Consumer {
      Node* dst;
      int dst_input;   // kControlSlot for a control edge
      int src_output;  // kControlSlot for a control edge
    };
    std::vector<Consumer> consumers;
    std::vector<char> needed(node->num_outputs(), 0);
    bool any_needed = false;
    for (const Edge* e : node->out_edges()) {
      if (folded[e->dst->id()]) continue;  // removed as well
      consumers.push_back({e->dst, e->dst_input, e->src_output});
      if (!e->IsControl()) {
        needed[e->src_output] = 1;
        any_needed = true;
      }
    }
    const std::vector<Node*> waits_for = deps[id].Sorted();
    if (!any_needed) {
      // No value leaves the folded subgraph here: a node that waited for
      // this one now waits for what it waited for.
      for (const Consumer& c : consumers) {
        for (Node* d : waits_for) graph->AddControlEdge(d, c.dst);
      }
      continue;  // removed below
    }
    const std::string name = node->name();
    const std::string requested_device = node->requested_device();
    const std::string assigned_device = node->assigned_device();
    const AttrValue* colocation = node->FindAttr("_class");
    const std::optional<AttrValue> class_attr =
        colocation == nullptr ? std::nullopt
                              : std::optional<AttrValue>(*colocation);
    const bool single = node->num_outputs() == 1;
    const std::vector<Tensor> outputs = *value[id];
    // A single-output node's Const takes its name, so it goes first.
    if (single) graph->RemoveNode(node);
    std::vector<Node*> replacement(outputs.size(), nullptr);
    for (size_t k = 0; k < outputs.size(); ++k) {
      if (!needed[k]) continue;
      NodeDef def;
      def.set_name(single
                       ? name
                       : UniqueName(*graph, absl::StrCat(name, "/folded_", k)));
      def.set_op(kConstOp);
      def.set_device(requested_device);
      (*def.mutable_attr())["value"] = MakeAttr(outputs[k]);
      (*def.mutable_attr())["dtype"] = MakeAttr(outputs[k].dtype());
      if (class_attr.has_value()) (*def.mutable_attr())["_class"] = *class_attr;
      absl::StatusOr<Node*> added = graph->AddNode(std::move(def));
      if (!added.ok()) {
        return absl::InternalError(
            absl::StrCat("constant folding could not add the Const for output ",
                         k, " of ", name, ": ", added.status().message()));
      }
      (*added)->set_assigned_device(assigned_device);
      // Ignored on failure: a Const's shape comes from its value.
      (void)graph->InferShapesForNode(*added);
      for (Node* d : waits_for) graph->AddControlEdge(d, *added);
      replacement[k] = *added;
      ++constants;
    }
    Node* first = nullptr;
    for (Node* r : replacement) {
      if (first == nullptr && r != nullptr) first = r;
    }
    if (!single) graph->RemoveNode(node);
    for (const Consumer& c : consumers) {
      if (c.src_output == kControlSlot) {
        graph->AddControlEdge(first, c.dst);
        continue;
      }
      absl::StatusOr<const Edge*> edge =
          graph->AddEdge(replacement[c.src_output], 0, c.dst, c.dst_input);
      if (!edge.ok()) {
        return absl::InternalError(absl::StrCat(
            "constant folding could not connect the Const for ", name, " to ",
            NodeLabel(c.dst->def()), ": ", edge.status().message()));
      }
    }
    folded[id] = 2;  // replaced (and removed)
  }
  // Intermediate folded nodes: every consumer was folded too.
  int removed_consts = 0;
  for (int id = 0; id < num_ids; ++id) {
    if (folded[id] == 1) graph->RemoveNode(graph->node(id));
  }
  for (Node* c : const_inputs) {
    if (c->out_edges().empty() && !ctx.protected_nodes.contains(c->name())) {
      graph->RemoveNode(c);
      ++removed_consts;
    }
  }

  result.changes = static_cast<int>(folded_nodes.size());
  result.what = absl::StrCat(folded_nodes.size(), " nodes folded into ",
                             constants, " constants (", skipped_size,
                             " skipped over the size limit");
  if (not_evaluated > 0) {
    absl::StrAppend(&result.what, ", ", not_evaluated, " not evaluable");
  }
  if (not_placeable > 0) {
    absl::StrAppend(&result.what, ", ", not_placeable,
                    " kept: no Const kernel where they may run");
  }
  if (removed_consts > 0) {
    absl::StrAppend(&result.what, ", ", removed_consts,
                    " unused constants removed");
  }
  absl::StrAppend(&result.what, ")");
  result.figures.emplace_back("constant_folding_skipped_size", skipped_size);
  return result;
}

}  // namespace dflow
