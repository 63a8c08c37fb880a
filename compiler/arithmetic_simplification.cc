#include "compiler/arithmetic_simplification.h"

#include <array>
#include <complex>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/attr_value_util.h"
#include "graph/ops/control_flow_ops.h"
#include "graph/tensor.h"
#include "graph/tensor_shape.h"
#include "graph/types.h"

namespace dflow {
namespace {

// The rewrites, in the order PassResult::what lists them.
enum Rule {
  kIdentity,
  kAddN,
  kCast,
  kMulOne,
  kAddZero,
  kSubZero,
  kSubSelf,
  kTranspose,
  kReshape,
  kStackedMean,
  kNumRules
};
constexpr std::array<const char*, kNumRules> kRuleNames = {
    "Identity", "AddN", "Cast",      "x*1",     "x+0",
    "x-0",      "x-x",  "Transpose", "Reshape", "mean of stacked"};

bool IsRefOrResource(DataType t) { return IsRefType(t) || t == DT_RESOURCE; }

// One output of one node.
struct Source {
  Node* node = nullptr;
  int slot = 0;
  bool operator==(const Source& o) const {
    return node == o.node && slot == o.slot;
  }
};

std::optional<Source> InputOf(const Node* node, int i) {
  const Edge* e = node->input_edge(i);
  if (e == nullptr) return std::nullopt;
  return Source{e->src, e->src_output};
}

// A value a consumer may read in place of another: a ref output is read
// when its consumer runs (an Identity of a variable is the snapshot), and
// resource handles are left to the passes that understand them.
bool PlainValue(const Source& s) {
  return !IsRefOrResource(s.node->output_type(s.slot));
}

std::optional<TensorShape> ShapeOf(const Source& s) {
  if (static_cast<int>(s.node->output_shapes().size()) <= s.slot) {
    return std::nullopt;
  }
  return s.node->output_shape(s.slot);
}

std::optional<Tensor> ConstValue(const Node* node) {
  if (node->op() != "Const") return std::nullopt;
  const AttrValue* value = node->FindAttr("value");
  if (value == nullptr || !value->has_tensor()) return std::nullopt;
  // Only constants small enough to look at (a few values may stand for a
  // huge tensor; the simplifications need every element).
  const int64_t bytes = Tensor::ProtoBytes(value->tensor());
  if (bytes < 0 || bytes > (1 << 20)) return std::nullopt;
  absl::StatusOr<Tensor> t = Tensor::FromProto(value->tensor());
  if (!t.ok()) return std::nullopt;
  return *std::move(t);
}

// Whether every element of `t` is `value` (0 or 1). Quantized and float8
// types store other numbers than they mean, strings and bools are no
// arithmetic: none of them is "1" or "0" here.
bool AllElementsAre(const Tensor& t, int value) {
  if (StorageDataType(t.dtype()) != BaseType(t.dtype()) ||
      t.dtype() == DT_BOOL) {
    return false;
  }
  bool all = false;
  VisitStorageType(t.dtype(), [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    if constexpr (std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>) {
      all = true;
      for (const T& x : t.flat<T>()) {
        if (x.ToFloat() != static_cast<float>(value)) {
          all = false;
          break;
        }
      }
    } else if constexpr (std::is_arithmetic_v<T> ||
                         std::is_same_v<T, complex64> ||
                         std::is_same_v<T, complex128>) {
      all = true;
      for (const T& x : t.flat<T>()) {
        if (!(x == static_cast<T>(value))) {
          all = false;
          break;
        }
      }
    }
  });
  return all;
}

// Whether x op c (c a constant of shape `c`, out the op's inferred output
// shape) has x's shape: c must not broadcast x to more elements or a
// higher rank, which checking `out` alone cannot tell when x has unknown
// dimensions.
bool KeepsShape(const TensorShape& x, const TensorShape& c,
                const TensorShape& out) {
  if (x != out) return false;
  if (x.unknown_rank()) return c.rank() == 0;
  if (c.rank() > x.rank()) return false;
  for (int j = 1; j <= c.rank(); ++j) {
    const int64_t cd = c.dim(c.rank() - j);
    const int64_t xd = x.dim(x.rank() - j);
    if (cd == 1) continue;
    if (xd == TensorShape::kUnknownDim || xd != cd) return false;
  }
  return true;
}

std::optional<std::vector<int64_t>> Permutation(const Node* perm_node) {
  std::optional<Tensor> t = ConstValue(perm_node);
  if (!t.has_value() || t->shape().rank() != 1) return std::nullopt;
  std::vector<int64_t> perm;
  if (t->dtype() == DT_INT32) {
    for (int32_t v : t->flat<int32_t>()) perm.push_back(v);
  } else if (t->dtype() == DT_INT64) {
    for (int64_t v : t->flat<int64_t>()) perm.push_back(v);
  } else {
    return std::nullopt;
  }
  std::vector<bool> seen(perm.size(), false);
  for (int64_t v : perm) {
    if (v < 0 || v >= static_cast<int64_t>(perm.size()) || seen[v]) {
      return std::nullopt;
    }
    seen[v] = true;
  }
  return perm;
}

std::vector<Node*> ControlInputs(const Node* node) {
  std::vector<Node*> out;
  for (const Edge* e : node->in_edges()) {
    if (e->IsControl()) out.push_back(e->src);
  }
  return out;
}

bool HasDataConsumers(const Node* node) {
  for (const Edge* e : node->out_edges()) {
    if (!e->IsControl()) return true;
  }
  return false;
}

class Simplifier {
 public:
  Simplifier(const PassContext& ctx, Graph* graph) : ctx_(ctx), graph_(graph) {}

  absl::Status Run() {
    // Shapes decide only the rules that depend on them; a graph whose
    // shapes cannot be inferred here still gets the others.
    shapes_known_ = graph_->InferShapes().ok();
    while (true) {
      absl::StatusOr<std::vector<Node*>> order = graph_->TopologicalOrder();
      if (!order.ok()) return order.status();
      std::vector<int> ids;
      ids.reserve(order->size());
      for (Node* n : *order) ids.push_back(n->id());
      const int before = changes_;
      // In topological order a chain collapses in one sweep: each node
      // already reads what its simplified inputs were replaced by.
      for (int id : ids) {
        Node* node = graph_->node(id);
        if (node == nullptr) continue;
        const std::string name = node->name();
        const std::string op = node->op();
        if (absl::Status s = Visit(node); !s.ok()) {
          return absl::Status(s.code(),
                              absl::StrCat("simplifying '", name, "' (", op,
                                           "): ", s.message()));
        }
      }
      if (changes_ == before) return absl::OkStatus();
    }
  }

  PassResult Result() const {
    PassResult result;
    result.changes = changes_;
    std::vector<std::string> parts;
    for (int r = 0; r < kNumRules; ++r) {
      if (counts_[r] > 0)
        parts.push_back(absl::StrCat(counts_[r], " ", kRuleNames[r]));
    }
    result.what =
        absl::StrCat(changes_, changes_ == 1 ? " rewrite" : " rewrites");
    if (!parts.empty()) {
      absl::StrAppend(&result.what, " (", absl::StrJoin(parts, ", "), ")");
    }
    return result;
  }

 private:
  bool Protected(const Node* node) const {
    return ctx_.protected_nodes.contains(node->name());
  }

  // Whether replacing `node`'s output by `to` would change anything: a
  // protected node whose consumers already moved stays as it is.
  bool CanBypass(const Node* node, const Source& to) const {
    if (Protected(node) && !HasDataConsumers(node)) return false;
    // A Switch output is dead in one branch while the Switch node itself
    // ran: a control edge moved from the Identity (a cond's pivot) to the
    // Switch would make the branch's nodes live in both branches.
    if (IsSwitchOp(to.node->op())) return false;
    return PlainValue(to) && node->num_outputs() == 1 &&
           to.node->output_type(to.slot) == node->output_type(0);
  }

  absl::Status Visit(Node* node) {
    const std::string& op = node->op();
    if (op == "Identity") return VisitIdentity(node);
    if (op == "AddN" && node->num_inputs() == 1) {
      return BypassIfPlain(node, kAddN);
    }
    if (op == "Cast" && node->num_inputs() == 1 &&
        node->input_type(0) == node->output_type(0)) {
      return BypassIfPlain(node, kCast);
    }
    if (op == "Mul" || op == "Add" || op == "AddV2" || op == "Sub") {
      return VisitBinary(node);
    }
    if (op == "Transpose") return VisitTranspose(node);
    if (op == "Reshape") return VisitReshape(node);
    if (op == "Mean") return VisitStackedMean(node);
    return absl::OkStatus();
  }

  // Whether `s` is a Const holding the single integer 0 (a scalar or [0]).
  static bool IsZeroIndex(const std::optional<Source>& s) {
    if (!s.has_value()) return false;
    std::optional<Tensor> value = ConstValue(s->node);
    if (!value.has_value() || value->NumElements() != 1) return false;
    if (value->dtype() == DT_INT32) return value->data<int32_t>()[0] == 0;
    if (value->dtype() == DT_INT64) return value->data<int64_t>()[0] == 0;
    return false;
  }

  // The towers' gradient average (TensorFlow's multi-GPU tutorials:
  // Mean(ConcatV2([ExpandDims(g_i, 0)...], 0), 0)) is (g_1 + ... + g_N) / N
  // without stacking the N tensors first: an AddN and a RealDiv by N, the
  // sum then the division as Mean computes it. Float types, equal fully
  // known shapes only.
  absl::Status VisitStackedMean(Node* mean) {
    const DataType type = mean->output_type(0);
    bool keep_dims = true;
    if (!shapes_known_ || (type != DT_FLOAT && type != DT_DOUBLE) ||
        !mean->GetAttr("keep_dims", &keep_dims).ok() || keep_dims ||
        !IsZeroIndex(InputOf(mean, 1))) {
      return absl::OkStatus();
    }
    std::optional<Source> stacked = InputOf(mean, 0);
    if (!stacked.has_value() || stacked->node->op() != "ConcatV2" ||
        stacked->slot != 0) {
      return absl::OkStatus();
    }
    const Node* concat = stacked->node;
    const int n = concat->num_inputs() - 1;
    if (n < 2 || !IsZeroIndex(InputOf(concat, n))) return absl::OkStatus();
    std::optional<TensorShape> shape = ShapeOf({mean, 0});
    if (!shape.has_value() || !shape->IsFullyDefined()) {
      return absl::OkStatus();
    }
    std::vector<Source> parts;
    for (int i = 0; i < n; ++i) {
      std::optional<Source> expand = InputOf(concat, i);
      if (!expand.has_value() || expand->node->op() != "ExpandDims" ||
          !IsZeroIndex(InputOf(expand->node, 1))) {
        return absl::OkStatus();
      }
      std::optional<Source> part = InputOf(expand->node, 0);
      if (!part.has_value() || !PlainValue(*part) ||
          part->node->output_type(part->slot) != type ||
          ShapeOf(*part) != shape) {
        return absl::OkStatus();
      }
      parts.push_back(*part);
    }
    if (!CanBypass(mean, parts[0])) return absl::OkStatus();
    // A node next to `mean` (its device and colocation); `def` holds the
    // attrs beyond T, which every op here but Const has.
    auto add = [&](const std::string& suffix, const std::string& op,
                   const std::vector<Source>& inputs,
                   NodeDef def) -> absl::StatusOr<Node*> {
      def.set_name(NewName(mean->name() + "/" + suffix));
      def.set_op(op);
      def.set_device(mean->requested_device());
      if (op != "Const") (*def.mutable_attr())["T"] = MakeAttr(type);
      if (const AttrValue* cls = mean->FindAttr("_class"); cls != nullptr) {
        (*def.mutable_attr())["_class"] = *cls;
      }
      absl::StatusOr<Node*> node = graph_->AddNode(std::move(def));
      if (!node.ok()) return node.status();
      for (size_t i = 0; i < inputs.size(); ++i) {
        absl::StatusOr<const Edge*> e = graph_->AddEdge(
            inputs[i].node, inputs[i].slot, *node, static_cast<int>(i));
        if (!e.ok()) return e.status();
      }
      if (absl::Status s = graph_->InferShapesForNode(*node); !s.ok()) {
        return s;
      }
      return node;
    };
    NodeDef sum_def;
    (*sum_def.mutable_attr())["N"] = MakeAttr(static_cast<int64_t>(n));
    absl::StatusOr<Node*> sum = add("sum", "AddN", parts, std::move(sum_def));
    if (!sum.ok()) return sum.status();
    // The sum skips the ExpandDims and the ConcatV2: it waits for what they
    // waited for (a gradient gate's NoOp, moved onto them from a bypassed
    // Identity, orders an in-place variable update after the reads it
    // guards).
    for (int i = 0; i < n; ++i) {
      const Node* expand = InputOf(concat, i)->node;
      for (Node* c : ControlInputs(expand)) graph_->AddControlEdge(c, *sum);
      KeepOrderOfDroppedInputs(expand, parts[i], *sum);
    }
    for (Node* c : ControlInputs(concat)) graph_->AddControlEdge(c, *sum);
    for (const Node* axis_user : {concat, static_cast<const Node*>(mean)}) {
      Node* axis = InputOf(axis_user, axis_user->num_inputs() - 1)->node;
      if (HasControlInputs(axis)) graph_->AddControlEdge(axis, *sum);
    }
    NodeDef count_def;
    Tensor count(type, TensorShape({}));
    if (type == DT_FLOAT) {
      count.data<float>()[0] = static_cast<float>(n);
    } else {
      count.data<double>()[0] = static_cast<double>(n);
    }
    (*count_def.mutable_attr())["dtype"] = MakeAttr(type);
    count.ToProto((*count_def.mutable_attr())["value"].mutable_tensor());
    absl::StatusOr<Node*> divisor = add("count", "Const", {}, count_def);
    if (!divisor.ok()) return divisor.status();
    Anchor(*divisor, parts[0]);
    absl::StatusOr<Node*> quotient =
        add("mean", "RealDiv", {{*sum, 0}, {*divisor, 0}}, NodeDef());
    if (!quotient.ok()) return quotient.status();
    return Bypass(mean, {*quotient, 0}, kStackedMean);
  }

  absl::Status VisitIdentity(Node* node) {
    std::optional<Source> in = InputOf(node, 0);
    if (!in.has_value() || Protected(node) ||
        IsRefOrResource(node->input_type(0)) ||
        node->requested_device() != in->node->requested_device() ||
        !CanBypass(node, *in)) {
      return absl::OkStatus();
    }
    return Bypass(node, *in, kIdentity);
  }

  absl::Status BypassIfPlain(Node* node, Rule rule) {
    std::optional<Source> in = InputOf(node, 0);
    if (!in.has_value() || !CanBypass(node, *in)) return absl::OkStatus();
    return Bypass(node, *in, rule);
  }

  absl::Status VisitBinary(Node* node) {
    std::optional<Source> a = InputOf(node, 0);
    std::optional<Source> b = InputOf(node, 1);
    if (!a.has_value() || !b.has_value() || !shapes_known_) {
      return absl::OkStatus();
    }
    const std::string& op = node->op();
    std::optional<TensorShape> out = ShapeOf({node, 0});
    if (!out.has_value()) return absl::OkStatus();
    if (op == "Sub" && *a == *b) return VisitSubSelf(node, *out);
    const int neutral = op == "Mul" ? 1 : 0;
    // Sub is x - 0 only: 0 - x is -x.
    const int sides = op == "Sub" ? 1 : 2;
    for (int k = 0; k < sides; ++k) {
      const Source& x = k == 0 ? *a : *b;
      const Source& c = k == 0 ? *b : *a;
      std::optional<Tensor> value = ConstValue(c.node);
      std::optional<TensorShape> x_shape = ShapeOf(x);
      if (!value.has_value() || !x_shape.has_value() ||
          !AllElementsAre(*value, neutral) ||
          !KeepsShape(*x_shape, value->shape(), *out) || !CanBypass(node, x)) {
        continue;
      }
      const Rule rule = op == "Mul"   ? kMulOne
                        : op == "Sub" ? kSubZero
                                      : kAddZero;
      return Bypass(node, x, rule);
    }
    return absl::OkStatus();
  }

  // x - x is 0 for integers only (NaN - NaN and Inf - Inf are NaN), and a
  // Const needs the full shape.
  absl::Status VisitSubSelf(Node* node, const TensorShape& out) {
    const DataType type = node->output_type(0);
    std::optional<Source> x = InputOf(node, 0);
    if (!IsIntegerType(type) || IsQuantizedType(type) ||
        !out.IsFullyDefined() || !HasDataConsumers(node) || !x.has_value() ||
        IsSwitchOp(x->node->op())) {
      return absl::OkStatus();
    }
    NodeDef def;
    def.set_name(NewName(node->name() + "/zeros"));
    def.set_op("Const");
    def.set_device(node->requested_device());
    (*def.mutable_attr())["dtype"] = MakeAttr(type);
    // A TensorProto without values is all zeros: no bytes in the graph
    // however large the shape.
    AttrValue value;
    value.mutable_tensor()->set_dtype(type);
    out.ToProto(value.mutable_tensor()->mutable_tensor_shape());
    (*def.mutable_attr())["value"] = std::move(value);
    if (const AttrValue* cls = node->FindAttr("_class"); cls != nullptr) {
      (*def.mutable_attr())["_class"] = *cls;
    }
    absl::StatusOr<Node*> zeros = graph_->AddNode(std::move(def));
    if (!zeros.ok()) return zeros.status();
    Anchor(*zeros, *x);
    if (absl::Status s = graph_->InferShapesForNode(*zeros); !s.ok()) return s;
    return Bypass(node, {*zeros, 0}, kSubSelf);
  }

  // Transpose(Transpose(x, p1), p2) is Transpose(x, c) with
  // c[i] = p1[p2[i]]; when c is the identity it is x.
  absl::Status VisitTranspose(Node* outer) {
    std::optional<Source> in = InputOf(outer, 0);
    std::optional<Source> perm_in = InputOf(outer, 1);
    if (!in.has_value() || !perm_in.has_value() ||
        in->node->op() != "Transpose" || in->node == outer) {
      return absl::OkStatus();
    }
    Node* inner = in->node;
    std::optional<Source> x = InputOf(inner, 0);
    std::optional<Source> inner_perm_in = InputOf(inner, 1);
    if (!x.has_value() || !inner_perm_in.has_value() || !PlainValue(*x) ||
        IsSwitchOp(x->node->op())) {
      return absl::OkStatus();
    }
    std::optional<std::vector<int64_t>> p1 = Permutation(inner_perm_in->node);
    std::optional<std::vector<int64_t>> p2 = Permutation(perm_in->node);
    if (!p1.has_value() || !p2.has_value() || p1->size() != p2->size()) {
      return absl::OkStatus();
    }
    std::vector<int64_t> composed(p2->size());
    bool identity = true;
    for (size_t i = 0; i < p2->size(); ++i) {
      composed[i] = (*p1)[(*p2)[i]];
      identity = identity && composed[i] == static_cast<int64_t>(i);
    }
    if (identity) {
      std::optional<TensorShape> x_shape = ShapeOf(*x);
      std::optional<TensorShape> out_shape = ShapeOf({outer, 0});
      if (!CanBypass(outer, *x) ||
          (shapes_known_ && x_shape.has_value() && out_shape.has_value() &&
           *x_shape != *out_shape)) {
        return absl::OkStatus();
      }
      // The consumers skip the inner Transpose too: they follow its
      // control inputs through the outer one's.
      for (Node* c : ControlInputs(inner)) graph_->AddControlEdge(c, outer);
      KeepOrderOfDroppedInputs(inner, *x, outer);
      // Ids: removing the outer one may already take the inner one and the
      // perms with it.
      const int inner_id = inner->id();
      const int perm_id = perm_in->node->id();
      if (absl::Status s = Bypass(outer, *x, kTranspose); !s.ok()) return s;
      RemoveBypassed(inner_id, *x);
      RemoveIfDead(perm_id);
      return absl::OkStatus();
    }
    DataType perm_type = DT_INT32;
    if (!outer->GetAttr("Tperm", &perm_type).ok()) return absl::OkStatus();
    Tensor value;
    if (perm_type == DT_INT64) {
      value = Tensor::FromVector<int64_t>(composed);
    } else {
      value = Tensor::FromVector<int32_t>(
          std::vector<int32_t>(composed.begin(), composed.end()));
    }
    NodeDef def;
    def.set_name(NewName(outer->name() + "/perm"));
    def.set_op("Const");
    def.set_device(outer->requested_device());
    (*def.mutable_attr())["dtype"] = MakeAttr(perm_type);
    (*def.mutable_attr())["value"] = MakeAttr(value);
    absl::StatusOr<Node*> perm = graph_->AddNode(std::move(def));
    if (!perm.ok()) return perm.status();
    Anchor(*perm, *x);
    if (absl::Status s = graph_->InferShapesForNode(*perm); !s.ok()) return s;
    const int old_perm = perm_in->node->id();
    if (absl::Status s = graph_->UpdateEdge(x->node, x->slot, outer, 0);
        !s.ok()) {
      return s;
    }
    if (absl::Status s = graph_->UpdateEdge(*perm, 0, outer, 1); !s.ok()) {
      return s;
    }
    for (Node* c : ControlInputs(inner)) graph_->AddControlEdge(c, outer);
    KeepOrderOfDroppedInputs(inner, *x, outer);
    RemoveIfDead(old_perm);
    RemoveBypassed(inner->id(), *x);
    Count(kTranspose);
    return absl::OkStatus();
  }

  // Reshape(Reshape(x, s1), s2) is Reshape(x, s2).
  absl::Status VisitReshape(Node* outer) {
    std::optional<Source> in = InputOf(outer, 0);
    if (!in.has_value() || in->node->op() != "Reshape" || in->node == outer) {
      return absl::OkStatus();
    }
    Node* inner = in->node;
    std::optional<Source> x = InputOf(inner, 0);
    if (!x.has_value() || !PlainValue(*x) ||
        x->node->output_type(x->slot) != outer->output_type(0)) {
      return absl::OkStatus();
    }
    if (absl::Status s = graph_->UpdateEdge(x->node, x->slot, outer, 0);
        !s.ok()) {
      return s;
    }
    for (Node* c : ControlInputs(inner)) graph_->AddControlEdge(c, outer);
    KeepOrderOfDroppedInputs(inner, *x, outer);
    RemoveBypassed(inner->id(), *x);
    Count(kReshape);
    return absl::OkStatus();
  }

  // A Const a rewrite adds waits for `anchor`, a value the node it
  // replaces read (never a Switch: the callers check). A Const without
  // inputs runs in the root frame and is live in every branch; waiting for
  // the anchor puts it where that node was: in its loop frame, and dead in
  // a branch not taken.
  void Anchor(Node* constant, const Source& anchor) {
    graph_->AddControlEdge(anchor.node, constant);
  }

  // Whether `node` waits for anything by a control edge.
  static bool HasControlInputs(const Node* node) {
    for (const Edge* e : node->in_edges()) {
      if (e->IsControl()) return true;
    }
    return false;
  }

  // `dst` takes the place of `node`, reading `kept` but not its other data
  // inputs: it waits for those of them that wait for something (a Const
  // made inside a control_dependencies block), so the order they carried
  // stays.
  void KeepOrderOfDroppedInputs(const Node* node, const Source& kept,
                                Node* dst) {
    for (int i = 0; i < node->num_inputs(); ++i) {
      const Edge* e = node->input_edge(i);
      if (e != nullptr && e->src != kept.node && e->src != dst &&
          HasControlInputs(e->src)) {
        graph_->AddControlEdge(e->src, dst);
      }
    }
  }

  // Consumers of `node`'s output read `to` instead and run after
  // `node`'s control inputs; then `node` goes if nothing needs it.
  absl::Status Bypass(Node* node, const Source& to, Rule rule) {
    std::vector<Node*> control_in = ControlInputs(node);
    // A dropped input (the Const 1 of x*1) may carry an ordering of its
    // own: TensorFlow puts the control dependency of a
    // `with control_dependencies` block on the Const made inside it, not on
    // the Mul that reads it.
    for (int i = 0; i < node->num_inputs(); ++i) {
      const Edge* e = node->input_edge(i);
      if (e != nullptr && e->src != to.node && HasControlInputs(e->src)) {
        control_in.push_back(e->src);
      }
    }
    const std::vector<const Edge*> out(node->out_edges().begin(),
                                       node->out_edges().end());
    for (const Edge* e : out) {
      if (e->IsControl()) continue;
      Node* dst = e->dst;
      if (absl::Status s =
              graph_->UpdateEdge(to.node, to.slot, dst, e->dst_input);
          !s.ok()) {
        return s;
      }
      for (Node* c : control_in) graph_->AddControlEdge(c, dst);
    }
    RemoveBypassed(node->id(), to);
    Count(rule);
    return absl::OkStatus();
  }

  // Removes a node whose output now comes from `to`, when it has no data
  // consumers and is no target: its control consumers then follow `to`'s
  // producer and its own control inputs instead.
  void RemoveBypassed(int id, const Source& to) {
    Node* node = graph_->node(id);
    if (node == nullptr || Protected(node) || HasDataConsumers(node)) return;
    const std::vector<Node*> control_in = ControlInputs(node);
    std::vector<Node*> control_out;
    for (const Edge* e : node->out_edges()) control_out.push_back(e->dst);
    for (Node* dst : control_out) {
      graph_->AddControlEdge(to.node, dst);
      for (Node* c : control_in) graph_->AddControlEdge(c, dst);
    }
    std::vector<int> inputs;
    for (int i = 0; i < node->num_inputs(); ++i) {
      if (const Edge* e = node->input_edge(i); e != nullptr) {
        inputs.push_back(e->src->id());
      }
    }
    graph_->RemoveNode(node);
    for (int n : inputs) RemoveIfDead(n);
  }

  // Removes what a rewrite left without consumers (the Const 1 of x*1, the
  // perm of a removed Transpose), and what only it fed: stateless, no
  // target, nothing reads it, so it has no effect.
  void RemoveIfDead(int start) {
    std::vector<int> stack = {start};
    while (!stack.empty()) {
      Node* n = graph_->node(stack.back());
      stack.pop_back();
      if (n == nullptr || !n->out_edges().empty() || n->IsStateful() ||
          Protected(n) || n->op() == "Placeholder" ||
          n->op() == "PlaceholderWithDefault") {
        continue;
      }
      bool plain = true;
      for (DataType t : n->output_types()) plain = plain && !IsRefOrResource(t);
      for (DataType t : n->input_types()) plain = plain && !IsRefOrResource(t);
      if (!plain) continue;
      for (int i = 0; i < n->num_inputs(); ++i) {
        if (const Edge* e = n->input_edge(i); e != nullptr) {
          stack.push_back(e->src->id());
        }
      }
      graph_->RemoveNode(n);
    }
  }

  std::string NewName(const std::string& base) const {
    std::string name = base;
    for (int k = 1; graph_->FindNode(name) != nullptr; ++k) {
      name = absl::StrCat(base, "_", k);
    }
    return name;
  }

  void Count(Rule rule) {
    ++counts_[rule];
    ++changes_;
  }

  const PassContext& ctx_;
  Graph* graph_;
  bool shapes_known_ = false;
  int changes_ = 0;
  std::array<int, kNumRules> counts_{};
};

}  // namespace

absl::StatusOr<PassResult> SimplifyArithmetic(const PassContext& ctx,
                                              Graph* graph) {
  Simplifier simplifier(ctx, graph);
  if (absl::Status s = simplifier.Run(); !s.ok()) return s;
  return simplifier.Result();
}

}  // namespace dflow
