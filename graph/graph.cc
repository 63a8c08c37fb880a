#include "graph/graph.h"

#include <algorithm>
#include <deque>

#include "absl/memory/memory.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/attr_value_util.h"
#include "graph/device_spec.h"
#include "graph/node_def_util.h"

namespace dflow {

void Node::set_requested_device(absl::string_view device) {
  if (def_->device() != device) MutableDef()->set_device(std::string(device));
}

const AttrValue* Node::FindAttr(absl::string_view name) const {
  return ::dflow::FindAttr(*def_, &reg_->op_def, name);
}

// An attr may change what this node's shape function computes and, for a
// Const, what its consumers' shape functions read: both are re-inferred.
void Node::SetAttr(absl::string_view name, AttrValue value) {
  (*MutableDef()->mutable_attr())[std::string(name)] = std::move(value);
  AttrsChanged();
}

void Node::ClearAttr(absl::string_view name) {
  if (def_->attr().find(std::string(name)) == def_->attr().end()) return;
  MutableDef()->mutable_attr()->erase(std::string(name));
  AttrsChanged();
}

NodeDef* Node::MutableDef() {
  if (def_.use_count() > 1) def_ = std::make_shared<NodeDef>(*def_);
  return def_.get();
}

void Node::AttrsChanged() {
  shapes_current_ = false;
  shapes_trusted_ = false;
  ++shape_version_;
  if (graph_ != nullptr) graph_->NoteShapeInputsChanged();
}

void Node::set_output_shapes(std::vector<TensorShape> shapes) {
  if (shapes == output_shapes_) return;
  output_shapes_ = std::move(shapes);
  ++shape_version_;
  if (graph_ != nullptr) graph_->NoteShapeInputsChanged();
}

void Node::set_output_shape_values(std::vector<TensorShape> values) {
  if (values == output_shape_values_) return;
  output_shape_values_ = std::move(values);
  ++shape_version_;
  if (graph_ != nullptr) graph_->NoteShapeInputsChanged();
}

const Edge* Node::input_edge(int i) const {
  return i >= 0 && i < static_cast<int>(data_in_.size()) ? data_in_[i]
                                                         : nullptr;
}

Graph::Graph(const OpRegistry* registry) : registry_(registry) {
  versions_.set_producer(kGraphDefProducerVersion);
}

void Graph::SetVersionsFrom(const GraphDef& def) {
  has_versions_ = def.has_versions();
  versions_ = def.versions();
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  deprecated_version_ = def.version();
#pragma GCC diagnostic pop
}

Graph::~Graph() = default;

namespace {

// TensorFlow's node-name rule: [A-Za-z0-9.][A-Za-z0-9_.\-/>]*
bool IsValidNodeName(absl::string_view name) {
  if (name.empty()) return false;
  auto first_ok = [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
           (c >= '0' && c <= '9') || c == '.';
  };
  if (!first_ok(name[0])) return false;
  for (char c : name.substr(1)) {
    if (!first_ok(c) && c != '_' && c != '-' && c != '/' && c != '>') {
      return false;
    }
  }
  return true;
}

bool TypesCompatible(DataType src, DataType dst) {
  if (src == dst) return true;
  // A reference output may be read as a value of its base type.
  return IsRefType(src) && !IsRefType(dst) && BaseType(src) == dst;
}

}  // namespace

absl::Status Graph::CheckNameAndDevice(const NodeDef& def) const {
  // Internal ops (_Arg, _Retval, later _Send/_Recv) get "_"-prefixed names
  // that can never clash with user nodes, which may not start with '_'.
  const bool internal = !def.op().empty() && def.op()[0] == '_' &&
                        !def.name().empty() && def.name()[0] == '_' &&
                        IsValidNodeName(def.name().substr(1));
  if (!internal && !IsValidNodeName(def.name())) {
    return absl::InvalidArgumentError(absl::StrCat(
        NodeLabel(def), ": invalid node name '", absl::CEscape(def.name()),
        "'; names start with a letter, digit or '.', then use letters, "
        "digits and _ . - / >"));
  }
  if (auto it = by_name_.find(def.name()); it != by_name_.end()) {
    return absl::AlreadyExistsError(absl::StrCat(
        NodeLabel(def), ": a node named '", def.name(), "' already exists (",
        it->second->op(), "); node names must be unique"));
  }
  if (!def.device().empty()) {
    // Kept verbatim (round trip), but it must be a device spec.
    if (absl::StatusOr<DeviceSpec> spec = DeviceSpec::Parse(def.device());
        !spec.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(NodeLabel(def), ": ", spec.status().message()));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<Node*> Graph::AddNode(NodeDef def) {
  if (absl::Status s = CheckNameAndDevice(def); !s.ok()) return s;
  absl::StatusOr<const OpRegistration*> reg = registry_->LookUp(def.op());
  if (!reg.ok()) {
    return absl::NotFoundError(
        absl::StrCat(NodeLabel(def), ": ", reg.status().message()));
  }
  if (absl::Status s = ValidateAttrs(def, (*reg)->op_def); !s.ok()) return s;
  auto node = absl::WrapUnique(new Node);
  if (absl::Status s = InOutTypesForNode(
          def, (*reg)->op_def, &node->input_types_, &node->output_types_);
      !s.ok()) {
    return s;
  }
  def.clear_input();
  node->id_ = static_cast<int>(nodes_.size());
  node->graph_ = this;
  node->def_ = std::make_shared<NodeDef>(std::move(def));
  node->reg_ = *reg;
  node->data_in_.assign(node->input_types_.size(), nullptr);
  node->output_shapes_.assign(node->output_types_.size(),
                              TensorShape::Unknown());
  node->output_shape_values_.assign(node->output_types_.size(),
                                    TensorShape::Unknown());
  Node* raw = node.get();
  by_name_[raw->name()] = raw;
  nodes_.push_back(std::move(node));
  ++num_nodes_;
  NoteShapeInputsChanged();
  return raw;
}

const absl::Status& Node::unsupported() const {
  static const absl::Status* const kOk = new absl::Status();
  return stand_in_ == nullptr ? *kOk : stand_in_->why;
}

absl::StatusOr<Node*> Graph::AddUnsupportedNode(
    NodeDef def, std::vector<DataType> input_types,
    std::vector<DataType> output_types, absl::Status why) {
  if (why.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        NodeLabel(def), ": a stand-in node needs the reason it cannot run"));
  }
  if (absl::Status s = CheckNameAndDevice(def); !s.ok()) return s;
  auto stand_in = std::make_shared<Node::StandIn>();
  OpDef& op_def = stand_in->registration.op_def;
  op_def.set_name(def.op());
  op_def.set_is_stateful(true);
  for (size_t i = 0; i < input_types.size(); ++i) {
    OpDef::ArgDef* arg = op_def.add_input_arg();
    arg->set_name(absl::StrCat("input_", i));
    arg->set_type(input_types[i]);
  }
  for (size_t i = 0; i < output_types.size(); ++i) {
    OpDef::ArgDef* arg = op_def.add_output_arg();
    arg->set_name(absl::StrCat("output_", i));
    arg->set_type(output_types[i]);
  }
  // Every output shape stays unknown.
  stand_in->registration.shape_fn = [](InferenceContext*) {
    return absl::OkStatus();
  };
  stand_in->why = std::move(why);
  auto node = absl::WrapUnique(new Node);
  node->input_types_ = std::move(input_types);
  node->output_types_ = std::move(output_types);
  def.clear_input();
  node->id_ = static_cast<int>(nodes_.size());
  node->graph_ = this;
  node->def_ = std::make_shared<NodeDef>(std::move(def));
  node->stand_in_ = std::move(stand_in);
  node->reg_ = &node->stand_in_->registration;
  node->data_in_.assign(node->input_types_.size(), nullptr);
  node->output_shapes_.assign(node->output_types_.size(),
                              TensorShape::Unknown());
  node->output_shape_values_.assign(node->output_types_.size(),
                                    TensorShape::Unknown());
  Node* raw = node.get();
  by_name_[raw->name()] = raw;
  nodes_.push_back(std::move(node));
  ++num_nodes_;
  NoteShapeInputsChanged();
  return raw;
}

absl::StatusOr<Node*> Graph::AddNodeCopy(const Node& node) {
  if (node.graph() != nullptr && node.graph()->registry() != registry_) {
    return absl::InvalidArgumentError(absl::StrCat(
        NodeLabel(node.def()),
        ": copied from a graph over another op registry; import its "
        "NodeDef (AddNode) instead"));
  }
  auto [slot, inserted] = by_name_.try_emplace(node.name(), nullptr);
  if (!inserted) {
    return absl::AlreadyExistsError(
        absl::StrCat(NodeLabel(node.def()), ": a node named '", node.name(),
                     "' already exists (", slot->second->op(),
                     "); node names must be unique"));
  }
  auto copy = absl::WrapUnique(new Node);
  copy->id_ = static_cast<int>(nodes_.size());
  copy->graph_ = this;
  copy->def_ = node.def_;
  copy->reg_ = node.reg_;
  copy->stand_in_ = node.stand_in_;
  copy->input_types_ = node.input_types_;
  copy->output_types_ = node.output_types_;
  copy->output_shapes_ = node.output_shapes_;
  copy->output_shape_values_ = node.output_shape_values_;
  copy->assigned_device_ = node.assigned_device_;
  copy->shapes_trusted_ = node.shapes_current_ || node.shapes_trusted_;
  copy->data_in_.assign(copy->input_types_.size(), nullptr);
  slot->second = copy.get();
  nodes_.push_back(std::move(copy));
  ++num_nodes_;
  NoteShapeInputsChanged();
  return slot->second;
}

absl::StatusOr<const Edge*> Graph::AddEdge(Node* src, int src_output, Node* dst,
                                           int dst_input) {
  if (src_output < 0 || src_output >= src->num_outputs()) {
    return absl::InvalidArgumentError(
        absl::StrCat(NodeLabel(dst->def()), ": input ", dst_input,
                     " refers to output ", src_output, " of '", src->name(),
                     "', which has ", src->num_outputs(), " output(s)"));
  }
  if (dst_input < 0 || dst_input >= dst->num_inputs()) {
    return absl::InvalidArgumentError(
        absl::StrCat(NodeLabel(dst->def()), " has ", dst->num_inputs(),
                     " input(s); cannot connect input ", dst_input));
  }
  if (dst->input_edge(dst_input) != nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        NodeLabel(dst->def()), ": input ", dst_input, " is already connected"));
  }
  const DataType from = src->output_type(src_output);
  const DataType to = dst->input_type(dst_input);
  // Between stand-ins a dtype may be unknown (DT_INVALID): nobody said.
  const bool unknown_at_stand_in =
      (from == DT_INVALID || to == DT_INVALID) &&
      (src->IsUnsupported() || dst->IsUnsupported());
  if (!unknown_at_stand_in && !TypesCompatible(from, to)) {
    return absl::InvalidArgumentError(
        absl::StrCat(NodeLabel(dst->def()), ": input '",
                     InputArgName(dst->def(), dst->op_def(), dst_input),
                     "' expects ", DataTypeName(to), " but '", src->name(),
                     src_output ? absl::StrCat(":", src_output) : "", "' (",
                     src->op(), ") produces ", DataTypeName(from),
                     "; insert a Cast or fix the dtype attr"));
  }
  auto edge = std::make_unique<Edge>();
  edge->id = static_cast<int>(edges_.size());
  edge->src = src;
  edge->src_output = src_output;
  edge->dst = dst;
  edge->dst_input = dst_input;
  edge->out_index = static_cast<int>(src->out_edges_.size());
  edge->in_index = static_cast<int>(dst->in_edges_.size());
  const Edge* raw = edge.get();
  src->out_edges_.push_back(raw);
  dst->in_edges_.push_back(raw);
  dst->data_in_[dst_input] = raw;
  edges_.push_back(std::move(edge));
  ++num_edges_;
  NoteShapeInputsChanged();
  return raw;
}

const Edge* Graph::AddControlEdge(Node* src, Node* dst) {
  if (!control_edges_.insert({src->id(), dst->id()}).second) {
    for (const Edge* e : dst->in_edges_) {
      if (e->IsControl() && e->src == src) return e;
    }
  }
  auto edge = std::make_unique<Edge>();
  edge->id = static_cast<int>(edges_.size());
  edge->src = src;
  edge->src_output = kControlSlot;
  edge->dst = dst;
  edge->dst_input = kControlSlot;
  edge->out_index = static_cast<int>(src->out_edges_.size());
  edge->in_index = static_cast<int>(dst->in_edges_.size());
  const Edge* raw = edge.get();
  src->out_edges_.push_back(raw);
  dst->in_edges_.push_back(raw);
  edges_.push_back(std::move(edge));
  ++num_edges_;
  return raw;
}

void Graph::RemoveEdge(const Edge* edge) {
  // Out-edges: the last one fills the hole, O(1).
  std::vector<const Edge*>& outs = edge->src->out_edges_;
  Edge* moved = edges_[outs.back()->id].get();
  outs[edge->out_index] = moved;
  moved->out_index = edge->out_index;
  outs.pop_back();
  // In-edges keep their order: O(edges after it), nothing when removing
  // from the back as RemoveNode does.
  std::vector<const Edge*>& ins = edge->dst->in_edges_;
  ins.erase(ins.begin() + edge->in_index);
  for (size_t i = edge->in_index; i < ins.size(); ++i) {
    edges_[ins[i]->id]->in_index = static_cast<int>(i);
  }
  if (edge->IsControl()) {
    control_edges_.erase({edge->src->id(), edge->dst->id()});
  } else {
    edge->dst->data_in_[edge->dst_input] = nullptr;
    // A copy's shapes are trusted for the inputs it is wired to as copied
    // (AddEdge into empty slots); rewiring one means inferring it again.
    edge->dst->shapes_trusted_ = false;
  }
  edges_[edge->id].reset();
  --num_edges_;
  NoteShapeInputsChanged();
}

void Graph::RemoveNode(Node* node) {
  while (!node->in_edges_.empty()) RemoveEdge(node->in_edges_.back());
  while (!node->out_edges_.empty()) RemoveEdge(node->out_edges_.back());
  by_name_.erase(node->name());
  nodes_[node->id()].reset();
  --num_nodes_;
}

absl::Status Graph::UpdateEdge(Node* new_src, int new_src_output, Node* dst,
                               int dst_input) {
  const Edge* old = dst->input_edge(dst_input);
  // Remember the old source: RemoveEdge destroys the Edge.
  Node* old_src = old != nullptr ? old->src : nullptr;
  const int old_output = old != nullptr ? old->src_output : 0;
  if (old != nullptr) RemoveEdge(old);
  absl::StatusOr<const Edge*> e =
      AddEdge(new_src, new_src_output, dst, dst_input);
  if (!e.ok()) {
    // Put the old edge back so a failed rewire leaves the graph unchanged;
    // it was valid, so re-adding it cannot fail.
    if (old_src != nullptr) {
      AddEdge(old_src, old_output, dst, dst_input).IgnoreError();
    }
    return e.status();
  }
  return absl::OkStatus();
}

Node* Graph::FindNode(absl::string_view name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : it->second;
}

std::vector<Node*> Graph::nodes() const {
  std::vector<Node*> out;
  out.reserve(num_nodes_);
  for (const auto& n : nodes_) {
    if (n) out.push_back(n.get());
  }
  return out;
}

namespace {
// An edge out of a loop's NextIteration: it feeds the next iteration.
bool IsLoopBackEdge(const Edge* e) {
  const std::string& op = e->src->op();
  return op == "NextIteration" || op == "RefNextIteration";
}
}  // namespace

absl::StatusOr<std::vector<Node*>> Graph::TopologicalOrder() const {
  std::vector<int> pending(nodes_.size(), 0);
  std::deque<Node*> ready;
  for (const auto& n : nodes_) {
    if (!n) continue;
    int count = 0;
    for (const Edge* e : n->in_edges_) count += IsLoopBackEdge(e) ? 0 : 1;
    pending[n->id()] = count;
    if (count == 0) ready.push_back(n.get());
  }
  std::vector<Node*> order;
  order.reserve(num_nodes_);
  while (!ready.empty()) {
    Node* n = ready.front();
    ready.pop_front();
    order.push_back(n);
    for (const Edge* e : n->out_edges_) {
      if (IsLoopBackEdge(e)) continue;
      if (--pending[e->dst->id()] == 0) ready.push_back(e->dst);
    }
  }
  if (static_cast<int>(order.size()) == num_nodes_) return order;

  // Some node still waits: walk back along inputs that also wait until a
  // node repeats; the walk between the repeats is a cycle.
  Node* start = nullptr;
  for (const auto& n : nodes_) {
    if (n && pending[n->id()] > 0) {
      start = n.get();
      break;
    }
  }
  std::vector<int> seen_at(nodes_.size(), -1);
  std::vector<Node*> walk;
  Node* cur = start;
  while (seen_at[cur->id()] < 0) {
    seen_at[cur->id()] = static_cast<int>(walk.size());
    walk.push_back(cur);
    for (const Edge* e : cur->in_edges_) {
      if (!IsLoopBackEdge(e) && pending[e->src->id()] > 0) {
        cur = e->src;
        break;
      }
    }
  }
  // The walk went against the edges; reverse it, and start at the node
  // with the smallest id so the message is stable and reads naturally.
  std::vector<Node*> cycle(walk.rbegin(), walk.rend() - seen_at[cur->id()]);
  std::rotate(
      cycle.begin(),
      std::min_element(cycle.begin(), cycle.end(),
                       [](Node* a, Node* b) { return a->id() < b->id(); }),
      cycle.end());
  std::vector<std::string> names;
  for (Node* n : cycle) names.push_back(n->name());
  names.push_back(names.front());
  return absl::FailedPreconditionError(absl::StrCat(
      "graph has a cycle: ", absl::StrJoin(names, " -> "),
      "; only a loop's NextIteration may feed back (remove one of these "
      "edges, or build the loop with Enter/Merge/NextIteration)"));
}

absl::Status Graph::CheckAllInputsConnected() const {
  for (const auto& n : nodes_) {
    if (!n) continue;
    for (int i = 0; i < n->num_inputs(); ++i) {
      if (n->input_edge(i) == nullptr) {
        return absl::FailedPreconditionError(absl::StrCat(
            NodeLabel(n->def()), ": input '",
            InputArgName(n->def(), n->op_def(), i), "' is not connected"));
      }
    }
  }
  return absl::OkStatus();
}

namespace {

// Small constants are what shape functions need to see (Reshape's shape,
// reduction axes, Range's bounds); larger ones are never parsed for
// inference, so a 784x500 weight Const costs nothing here.
constexpr int64_t kMaxConstantElementsForShapes = 4096;

bool ReadSmallConst(const Node& node, Tensor* out) {
  if (node.op() != "Const") return false;
  const AttrValue* value = node.FindAttr("value");
  if (value == nullptr || !value->has_tensor()) return false;
  if (!IsNumericType(value->tensor().dtype())) return false;
  absl::StatusOr<TensorShape> shape =
      TensorShape::FromProto(value->tensor().tensor_shape());
  if (!shape.ok() || shape->num_elements() < 0 ||
      shape->num_elements() > kMaxConstantElementsForShapes) {
    return false;
  }
  absl::StatusOr<Tensor> t = Tensor::FromProto(value->tensor());
  if (!t.ok()) return false;
  *out = *std::move(t);
  return true;
}

}  // namespace

absl::Status Graph::InferShapesForNode(Node* node) {
  const int n = node->num_inputs();
  std::vector<TensorShape> shapes(n, TensorShape::Unknown());
  std::vector<TensorShape> shape_values(n, TensorShape::Unknown());
  std::vector<Tensor> constants(n);
  std::vector<const Tensor*> tensors(n, nullptr);
  for (const Edge* e : node->in_edges_) {
    if (e->IsControl()) continue;
    const Node* src = e->src;
    if (e->src_output < static_cast<int>(src->output_shapes_.size())) {
      shapes[e->dst_input] = src->output_shapes_[e->src_output];
      shape_values[e->dst_input] = src->output_shape_values_[e->src_output];
    }
    if (ReadSmallConst(*src, &constants[e->dst_input])) {
      tensors[e->dst_input] = &constants[e->dst_input];
    }
  }
  InferenceContext ctx(*node->def_, node->op_def(), node->input_types_,
                       std::move(shapes), std::move(tensors),
                       std::move(shape_values), node->num_outputs());
  absl::Status s = node->reg_->shape_fn(&ctx);
  if (!s.ok()) {
    return absl::Status(
        s.code(), absl::StrCat(NodeLabel(*node->def_), ": ", s.message()));
  }
  if (ctx.outputs() != node->output_shapes_ ||
      ctx.output_shape_values() != node->output_shape_values_) {
    node->output_shapes_ = ctx.outputs();
    node->output_shape_values_ = ctx.output_shape_values();
    ++node->shape_version_;
    NoteShapeInputsChanged();
  }
  node->shape_inputs_ = ShapeInputsSignature(*node);
  node->shapes_current_ = true;
  node->shapes_trusted_ = false;
  return absl::OkStatus();
}

uint64_t Graph::ShapeInputsSignature(const Node& node) {
  // What a shape function reads of its inputs is their sources' shapes,
  // shape values and (for small Consts) values: all covered by the
  // source's identity and shape_version_. Ids are never reused.
  auto mix = [](uint64_t h, uint64_t v) {
    h = (h ^ v) * 0x9E3779B97F4A7C15ull;
    return h ^ (h >> 29);
  };
  uint64_t h = mix(0x243F6A8885A308D3ull, node.data_in_.size());
  for (const Edge* e : node.data_in_) {
    if (e == nullptr) {
      h = mix(h, ~uint64_t{0});
      continue;
    }
    h = mix(h, static_cast<uint64_t>(e->src->id_));
    h = mix(h, static_cast<uint64_t>(e->src_output));
    h = mix(h, e->src->shape_version_);
  }
  return h;
}

absl::Status Graph::InferShapes() {
  if (shapes_settled_at_ == mutations_) return absl::OkStatus();
  absl::StatusOr<std::vector<Node*>> order = TopologicalOrder();
  if (!order.ok()) return order.status();
  for (Node* n : *order) {
    if (n->shapes_trusted_) {
      n->shape_inputs_ = ShapeInputsSignature(*n);
      n->shapes_current_ = true;
      n->shapes_trusted_ = false;
      continue;
    }
    if (n->shapes_current_ && n->shape_inputs_ == ShapeInputsSignature(*n)) {
      continue;
    }
    if (absl::Status s = InferShapesForNode(n); !s.ok()) return s;
  }
  shapes_settled_at_ = mutations_;
  return absl::OkStatus();
}

void Graph::ToGraphDef(GraphDef* out) const {
  out->Clear();
  if (has_versions_) *out->mutable_versions() = versions_;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  // Kept only so old graphs round-trip; dflow never reads it.
  if (deprecated_version_ != 0) out->set_version(deprecated_version_);
#pragma GCC diagnostic pop
  if (library_.function_size() || library_.gradient_size() ||
      library_.registered_gradients_size()) {
    *out->mutable_library() = library_;
  }
  if (debug_info_.ByteSizeLong() > 0) *out->mutable_debug_info() = debug_info_;
  out->mutable_node()->Reserve(num_nodes_);
  std::vector<const Edge*> data_inputs;
  for (const auto& n : nodes_) {
    if (!n) continue;
    NodeDef* def = out->add_node();
    *def = *n->def_;
    data_inputs.assign(n->num_inputs(), nullptr);
    for (const Edge* e : n->in_edges_) {
      if (!e->IsControl()) data_inputs[e->dst_input] = e;
    }
    for (const Edge* e : data_inputs) {
      if (e == nullptr) continue;
      def->add_input(e->src_output == 0
                         ? e->src->name()
                         : absl::StrCat(e->src->name(), ":", e->src_output));
    }
    for (const Edge* e : n->in_edges_) {
      if (e->IsControl()) def->add_input(absl::StrCat("^", e->src->name()));
    }
  }
}

}  // namespace dflow
