#include "compiler/fuse_matmul_update.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/op_registry.h"
#include "graph/shape_inference.h"

namespace dflow {

// Internal: only this pass creates it, so it is declared here rather than
// with the public ops in graph/ops/ (TensorFlow does not know it).
DFLOW_REGISTER_OP("_FusedMatMulApplyGradientDescent")
    .Input("var: Ref(T)")
    .Input("alpha: T")
    .Input("a: T")
    .Input("b: T")
    .Output("out: Ref(T)")
    .Attr("T: {float, double}")
    .Attr("transpose_a: bool = false")
    .Attr("transpose_b: bool = false")
    .Attr("use_locking: bool = false")
    .SetShapeFn(shape_fns::UnchangedShape)
    .Doc(
        "var -= alpha * op(a) op(b), one GEMM into the variable (made by "
        "the compiler from ApplyGradientDescent of a MatMul).");

namespace {

struct Match {
  Node* apply;
  Node* matmul;
  Node* gate_identity;  // null when the MatMul feeds the update directly
};

// Whether `node` is a gradient gate's Identity: one data input, the rest
// control edges from NoOps, feeding one consumer.
bool IsGateIdentity(const Node* node) {
  if (node->op() != "Identity" || node->out_edges().size() != 1) return false;
  int data_inputs = 0;
  for (const Edge* e : node->in_edges()) {
    if (!e->IsControl()) {
      ++data_inputs;
    } else if (e->src->op() != "NoOp") {
      return false;
    }
  }
  return data_inputs == 1;
}

// Whether `matmul`'s only consumers are `consumer` (by data) and, by
// control edges, NoOps that `consumer` itself waits for (the gate).
bool FeedsOnly(const Node* matmul, const Node* consumer) {
  for (const Edge* e : matmul->out_edges()) {
    if (!e->IsControl()) {
      if (e->dst != consumer || e->src_output != 0) return false;
      continue;
    }
    bool waited_for = false;
    for (const Edge* c : consumer->in_edges()) {
      waited_for = waited_for || (c->IsControl() && c->src == e->dst);
    }
    if (!waited_for) return false;
  }
  return true;
}

bool Fusable(Node* apply, Match* match) {
  if (apply->op() != "ApplyGradientDescent") return false;
  DataType type = DT_INVALID;
  if (!apply->GetAttr("T", &type).ok() ||
      (type != DT_FLOAT && type != DT_DOUBLE)) {
    return false;
  }
  const Edge* delta = apply->input_edge(2);
  if (delta == nullptr || delta->src_output != 0) return false;
  Node* gate_identity = nullptr;
  Node* matmul = delta->src;
  if (IsGateIdentity(matmul)) {
    gate_identity = matmul;
    const Edge* product = gate_identity->input_edge(0);
    if (product == nullptr || product->src_output != 0) return false;
    matmul = product->src;
  }
  if (matmul->op() != "MatMul") return false;
  // The product must feed the update alone (a fetch or another consumer
  // needs the tensor), and both must ask for the same device.
  if (!FeedsOnly(matmul, gate_identity != nullptr ? gate_identity : apply) ||
      matmul->requested_device() != apply->requested_device()) {
    return false;
  }
  for (int i = 0; i < 2; ++i) {
    if (matmul->input_edge(i) == nullptr) return false;
  }
  *match = {apply, matmul, gate_identity};
  return true;
}

absl::Status Fuse(Graph* graph, const Match& m) {
  struct Link {
    Node* node;
    int slot;
  };
  const Edge* var = m.apply->input_edge(0);
  const Edge* alpha = m.apply->input_edge(1);
  if (var == nullptr || alpha == nullptr) return absl::OkStatus();
  const Link var_in{var->src, var->src_output};
  const Link alpha_in{alpha->src, alpha->src_output};
  const Link a_in{m.matmul->input_edge(0)->src,
                  m.matmul->input_edge(0)->src_output};
  const Link b_in{m.matmul->input_edge(1)->src,
                  m.matmul->input_edge(1)->src_output};
  std::vector<Node*> control_in;
  for (Node* n : {m.apply, m.matmul, m.gate_identity}) {
    if (n == nullptr) continue;
    for (const Edge* e : n->in_edges()) {
      if (e->IsControl()) control_in.push_back(e->src);
    }
  }
  std::vector<Link> data_out, control_out;
  for (const Edge* e : m.apply->out_edges()) {
    if (e->IsControl()) {
      control_out.push_back({e->dst, kControlSlot});
    } else {
      data_out.push_back({e->dst, e->dst_input});
    }
  }

  NodeDef def;
  def.set_name(m.apply->name());
  def.set_op(kFusedMatMulApplyGradientDescentOp);
  def.set_device(m.apply->requested_device());
  for (const char* attr : {"T", "use_locking", "_class"}) {
    if (const AttrValue* v = m.apply->def().attr().count(attr)
                                 ? &m.apply->def().attr().at(attr)
                                 : nullptr) {
      (*def.mutable_attr())[attr] = *v;
    }
  }
  for (const char* attr : {"transpose_a", "transpose_b"}) {
    if (m.matmul->def().attr().count(attr)) {
      (*def.mutable_attr())[attr] = m.matmul->def().attr().at(attr);
    }
  }
  graph->RemoveNode(m.apply);
  if (m.gate_identity != nullptr) graph->RemoveNode(m.gate_identity);
  graph->RemoveNode(m.matmul);
  absl::StatusOr<Node*> fused = graph->AddNode(std::move(def));
  if (!fused.ok()) return fused.status();
  const Link inputs[] = {var_in, alpha_in, a_in, b_in};
  for (int i = 0; i < 4; ++i) {
    absl::StatusOr<const Edge*> e =
        graph->AddEdge(inputs[i].node, inputs[i].slot, *fused, i);
    if (!e.ok()) return e.status();
  }
  for (Node* src : control_in) graph->AddControlEdge(src, *fused);
  for (const Link& out : control_out) graph->AddControlEdge(*fused, out.node);
  for (const Link& out : data_out) {
    absl::StatusOr<const Edge*> e =
        graph->AddEdge(*fused, 0, out.node, out.slot);
    if (!e.ok()) return e.status();
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<int> FuseMatMulIntoGradientDescent(Graph* graph) {
  std::vector<Match> matches;
  for (Node* node : graph->nodes()) {
    Match m;
    if (Fusable(node, &m)) matches.push_back(m);
  }
  for (const Match& m : matches) {
    // Named before Fuse removes the nodes.
    const std::string what = absl::StrCat("fusing MatMul '", m.matmul->name(),
                                          "' into '", m.apply->name(), "': ");
    if (absl::Status s = Fuse(graph, m); !s.ok()) {
      return absl::Status(s.code(), absl::StrCat(what, s.message()));
    }
  }
  return static_cast<int>(matches.size());
}

}  // namespace dflow
