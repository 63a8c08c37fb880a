#include "compiler/fuse_elementwise.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "compiler/fused_node.h"
#include "graph/op_registry.h"
#include "graph/shape_inference.h"

namespace dflow {
namespace {

// NumPy broadcasting over all inputs (for the pass's trees: the one shape
// S that every input has or repeats into).
absl::Status FusedElementwiseShape(InferenceContext* c) {
  TensorShape out = c->input(0);
  for (int i = 1; i < c->num_inputs(); ++i) {
    TensorShape next;
    if (auto s = c->BroadcastShapes(out, c->input(i), &next); !s.ok()) {
      return s;
    }
    out = std::move(next);
  }
  c->set_output(0, std::move(out));
  return absl::OkStatus();
}

}  // namespace

// Internal: only this pass creates it.
DFLOW_REGISTER_OP("_FusedElementwise")
    .Input("inputs: N * T")
    .Output("y: T")
    .Attr("N: int >= 1")
    .Attr("T: {float, double}")
    .Attr("ops: list(string)")
    .Attr("operands: list(int)")
    .SetShapeFn(FusedElementwiseShape)
    .Doc(
        "A tree of element-wise ops evaluated in one loop: ops in order, "
        "operands 1 or 2 per op (k < N: inputs[k]; k >= N: the result of "
        "ops[k - N]); y is the last op's result. Made by the compiler's "
        "fuse_elementwise pass (compiler/fuse_elementwise.h).");

int FusableElementwiseArity(absl::string_view op) {
  static const auto* const kArity =
      new absl::flat_hash_map<std::string, int>{{"Neg", 1},
                                                {"Square", 1},
                                                {"Sqrt", 1},
                                                {"Rsqrt", 1},
                                                {"Exp", 1},
                                                {"Log", 1},
                                                {"Relu", 1},
                                                {"Sigmoid", 1},
                                                {"Tanh", 1},
                                                {"Add", 2},
                                                {"AddV2", 2},
                                                {"Sub", 2},
                                                {"Mul", 2},
                                                {"RealDiv", 2},
                                                {"Maximum", 2},
                                                {"Minimum", 2},
                                                {"SquaredDifference", 2}};
  auto it = kArity->find(op);
  return it == kArity->end() ? 0 : it->second;
}

namespace {

DataType TypeOf(const Node* node) {
  DataType type = DT_INVALID;
  if (!node->GetAttr("T", &type).ok()) return DT_INVALID;
  return type;
}

// `shape` is S, or a one-element tensor that repeats over S.
bool FitsShape(const TensorShape& shape, const TensorShape& s) {
  if (shape.unknown_rank() || !shape.IsFullyDefined()) return false;
  if (shape == s) return true;
  return shape.num_elements() == 1 && shape.rank() <= s.rank();
}

// AddN of 2..kMaxAddNInputs inputs fuses as the chain of Adds its kernel
// computes (kernels/cpu/cwise_ops_unary.cc: left to right in groups of 4,
// each group's sum added to the running sum), so the bits are the same.
// The towers' gradient sums and averages (AddN, then RealDiv by N) become
// one pass over the gradients.
constexpr int kMaxAddNInputs = 8;

// How many inputs `node` reads as a fused op; 0 when it does not fuse.
int ArityOf(const Node* node) {
  if (node->op() == "AddN") {
    const int n = node->num_inputs();
    return n >= 2 && n <= kMaxAddNInputs ? n : 0;
  }
  return FusableElementwiseArity(node->op());
}

// How many ops of the fused program `node` becomes.
int ProgramOpsOf(const Node* node) {
  return node->op() == "AddN" ? node->num_inputs() - 1 : 1;
}

// An element-wise node with connected inputs and a fully known shape.
bool Candidate(const Node* node) {
  const int arity = ArityOf(node);
  if (arity == 0 || node->num_inputs() != arity ||
      node->output_shapes().empty()) {
    return false;
  }
  const DataType type = TypeOf(node);
  if (type != DT_FLOAT && type != DT_DOUBLE) return false;
  for (int i = 0; i < arity; ++i) {
    if (node->input_edge(i) == nullptr) return false;
  }
  const TensorShape& shape = node->output_shape(0);
  return !shape.unknown_rank() && shape.IsFullyDefined();
}

// Whether every operand of `node` has shape `s` or repeats over it. AddN
// does not broadcast: every operand has its result's shape, so when that is
// `s` an operand whose static shape is only partly known ([?, 384], a
// weight gradient whose variable's shape was not inferred) is `s` too.
bool InputsFit(const Node* node, const TensorShape& s) {
  const bool same_shapes = node->op() == "AddN" &&
                           !node->output_shapes().empty() &&
                           node->output_shape(0) == s;
  for (int i = 0; i < node->num_inputs(); ++i) {
    const Edge* e = node->input_edge(i);
    if (e->src->output_shapes().size() <= static_cast<size_t>(e->src_output)) {
      return false;
    }
    const TensorShape& shape = e->src->output_shape(e->src_output);
    if (!FitsShape(shape, s) && !(same_shapes && shape.IsCompatibleWith(s))) {
      return false;
    }
  }
  return true;
}

// An operand read from outside the tree, found again at fusion time (its
// producer may itself have been fused meanwhile, under the same name).
struct ExternalRef {
  Node* member;
  int input;
};

struct Group {
  Node* root = nullptr;
  std::vector<Node*> members;  // root first
};

class Grouper {
 public:
  explicit Grouper(const absl::flat_hash_set<std::string>& protected_nodes)
      : protected_(protected_nodes) {}

  // The tree below `root` (root included), absorbing producers breadth
  // first until kMaxFusedOps.
  Group Grow(Node* root) {
    Group g;
    g.root = root;
    g.members.push_back(root);
    taken_.insert(root);
    int program_ops = ProgramOpsOf(root);
    const TensorShape& s = root->output_shape(0);
    const DataType type = TypeOf(root);
    for (size_t next = 0; next < g.members.size(); ++next) {
      Node* member = g.members[next];
      for (int i = 0; i < member->num_inputs(); ++i) {
        Node* p = member->input_edge(i)->src;
        if (Absorbable(p, g, s, type) &&
            program_ops + ProgramOpsOf(p) <= kMaxFusedOps) {
          g.members.push_back(p);
          taken_.insert(p);
          program_ops += ProgramOpsOf(p);
        }
      }
    }
    return g;
  }

  bool taken(Node* n) const { return taken_.contains(n); }

 private:
  // Whether producer `p` may become part of group `g`'s tree: every
  // out-edge of p is data from output 0 into a member of g (one member
  // reading it twice, Mul(e, e), or two: the towers' gradients both add
  // the one weight-decay term before they are averaged).
  bool Absorbable(Node* p, const Group& g, const TensorShape& s,
                  DataType type) const {
    if (taken_.contains(p) || !Candidate(p) || TypeOf(p) != type ||
        protected_.contains(p->name()) || !RunOnOneDevice(p, g.root) ||
        !FitsShape(p->output_shape(0), s) || !InputsFit(p, s)) {
      return false;
    }
    for (const Edge* e : p->out_edges()) {
      if (e->IsControl() || e->src_output != 0 ||
          std::find(g.members.begin(), g.members.end(), e->dst) ==
              g.members.end()) {
        return false;
      }
    }
    return true;
  }

  const absl::flat_hash_set<std::string>& protected_;
  absl::flat_hash_set<Node*> taken_;
};

absl::Status Fuse(Graph* graph, const Group& g, int* ops_fused) {
  absl::flat_hash_set<const Node*> in(g.members.begin(), g.members.end());
  // The program: ops in post-order from the root, operands as
  // (is_input, index) until N is known.
  struct Operand {
    bool is_input;
    int index;
  };
  struct Instr {
    std::string op;
    std::vector<Operand> operands;
  };
  std::vector<Instr> program;
  absl::flat_hash_map<const Node*, int> result_of;
  std::vector<std::pair<Node*, int>> inputs;  // (src, slot), deduplicated
  absl::flat_hash_map<std::pair<Node*, int>, int> input_index;

  // Post-order without recursion: (node, next input to visit).
  std::vector<std::pair<Node*, int>> stack = {{g.root, 0}};
  while (!stack.empty()) {
    auto& [node, next] = stack.back();
    if (next < node->num_inputs()) {
      Node* src = node->input_edge(next)->src;
      ++next;
      if (in.contains(src) && !result_of.contains(src)) {
        stack.push_back({src, 0});
      }
      continue;
    }
    std::vector<Operand> operands;
    for (int i = 0; i < node->num_inputs(); ++i) {
      const Edge* e = node->input_edge(i);
      if (in.contains(e->src)) {
        operands.push_back({false, result_of.at(e->src)});
        continue;
      }
      const std::pair<Node*, int> key(e->src, e->src_output);
      auto [it, added] =
          input_index.try_emplace(key, static_cast<int>(inputs.size()));
      if (added) inputs.push_back(key);
      operands.push_back({true, it->second});
    }
    // One instruction; its result as an operand.
    auto emit = [&program](std::string op, std::vector<Operand> args) {
      program.push_back(Instr{std::move(op), std::move(args)});
      return Operand{false, static_cast<int>(program.size()) - 1};
    };
    if (node->op() == "AddN") {
      // The AddN kernel's order: each group of up to 4 summed left to
      // right, then added to the sum of the groups before it.
      Operand sum{};
      for (size_t i = 0; i < operands.size(); i += 4) {
        Operand group = operands[i];
        for (size_t j = i + 1; j < std::min(i + 4, operands.size()); ++j) {
          group = emit("Add", {group, operands[j]});
        }
        sum = i == 0 ? group : emit("Add", {sum, group});
      }
      result_of[node] = sum.index;
    } else {
      result_of[node] = emit(node->op(), std::move(operands)).index;
    }
    stack.pop_back();
  }

  const int n = static_cast<int>(inputs.size());
  NodeDef def;
  def.set_name(g.root->name());
  def.set_op(kFusedElementwiseOp);
  def.set_device(g.root->requested_device());
  auto& attrs = *def.mutable_attr();
  attrs["T"] = g.root->def().attr().at("T");
  attrs["N"].set_i(n);
  AttrValue::ListValue* ops = attrs["ops"].mutable_list();
  AttrValue::ListValue* operands = attrs["operands"].mutable_list();
  for (const Instr& instr : program) {
    ops->add_s(instr.op);
    for (const Operand& o : instr.operands) {
      operands->add_i(o.is_input ? o.index : n + o.index);
    }
  }
  if (const AttrValue* v = g.root->FindAttr("_class")) attrs["_class"] = *v;

  absl::StatusOr<Node*> fused =
      ReplaceWithFusedNode(graph, g.members, g.root, std::move(def), inputs);
  if (!fused.ok()) return fused.status();
  *ops_fused += static_cast<int>(program.size());
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<PassResult> FuseElementwise(const PassContext& ctx,
                                           Graph* graph) {
  PassResult result;
  if (!FusesOn(ctx, &result)) return result;
  // Fusion needs static shapes; nodes whose shapes stay unknown are left.
  graph->InferShapes().IgnoreError();
  absl::StatusOr<std::vector<Node*>> order = graph->TopologicalOrder();
  if (!order.ok()) return order.status();
  // Consumers first, so that each tree is found from its root.
  Grouper grouper(ctx.protected_nodes);
  std::vector<Group> groups;
  for (auto it = order->rbegin(); it != order->rend(); ++it) {
    Node* node = *it;
    if (grouper.taken(node) || !Candidate(node) ||
        !InputsFit(node, node->output_shape(0))) {
      continue;
    }
    Group g = grouper.Grow(node);
    if (g.members.size() >= 2) groups.push_back(std::move(g));
  }
  // Producers' trees first, so each fused node's inputs have shapes.
  int ops_fused = 0;
  for (auto it = groups.rbegin(); it != groups.rend(); ++it) {
    const std::string root = it->root->name();
    if (absl::Status s = Fuse(graph, *it, &ops_fused); !s.ok()) {
      return absl::Status(
          s.code(), absl::StrCat("fusing the element-wise tree ending at '",
                                 root, "': ", s.message()));
    }
  }
  result.changes = static_cast<int>(groups.size());
  result.what = absl::StrCat(groups.size(),
                             groups.size() == 1 ? " chain of " : " chains of ",
                             ops_fused, " ops fused");
  return result;
}

}  // namespace dflow
