#include "compiler/fuse_bias_activation.h"

#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compiler/fused_node.h"
#include "graph/op_registry.h"
#include "graph/shape_inference.h"

namespace dflow {
namespace {

// [m, n] from op(a) [m, k] and op(b) [k, n], n agreeing with the bias.
absl::Status FusedMatMulShape(InferenceContext* c) {
  bool transpose_a = false, transpose_b = false;
  if (auto s = c->GetAttr("transpose_a", &transpose_a); !s.ok()) return s;
  if (auto s = c->GetAttr("transpose_b", &transpose_b); !s.ok()) return s;
  TensorShape a, b, bias;
  if (auto s = c->WithRank(c->input(0), 2, "input 'a'", &a); !s.ok()) return s;
  if (auto s = c->WithRank(c->input(1), 2, "input 'b'", &b); !s.ok()) return s;
  if (auto s = c->WithRank(c->input(2), 1, "input 'bias'", &bias); !s.ok()) {
    return s;
  }
  int64_t k = 0, n = 0;
  if (auto s =
          c->MergeDim(a.dim(transpose_a ? 0 : 1), b.dim(transpose_b ? 1 : 0),
                      "the inner dimensions of 'a' and 'b'", &k);
      !s.ok()) {
    return s;
  }
  if (auto s = c->MergeDim(b.dim(transpose_b ? 0 : 1), bias.dim(0),
                           "the columns of the product and the bias", &n);
      !s.ok()) {
    return s;
  }
  c->set_output(0, TensorShape({a.dim(transpose_a ? 1 : 0), n}));
  return absl::OkStatus();
}

}  // namespace

// Internal: only this pass creates it (TensorFlow's _FusedMatMul takes a
// list of fused ops instead; this one is dflow's own).
DFLOW_REGISTER_OP("_FusedMatMul")
    .Input("a: T")
    .Input("b: T")
    .Input("bias: T")
    .Output("product: T")
    .Attr("T: {float, double}")
    .Attr("transpose_a: bool = false")
    .Attr("transpose_b: bool = false")
    .Attr("activation: string = ''")
    .SetShapeFn(FusedMatMulShape)
    .Doc(
        "activation(op(a) op(b) + bias), activation '' (none) or 'Relu'; "
        "made by the compiler from MatMul, BiasAdd and Relu.");

namespace {

struct Match {
  Node* product = nullptr;  // MatMul or Conv2D
  Node* bias_add = nullptr;
  int product_input = 0;  // which input of bias_add is the product
  Node* relu = nullptr;   // null: no activation
  Node* last() const { return relu != nullptr ? relu : bias_add; }
};

DataType TypeOf(const Node* node) {
  DataType type = DT_INVALID;
  if (!node->GetAttr("T", &type).ok()) return DT_INVALID;
  return type;
}

// Whether `from`'s output 0 may disappear into `to`: it is read by `to`
// alone (no fetch, no other reader, no control edge out), nobody asked
// for it by name, and both run on the same device.
bool FeedsOnly(const Node* from, const Node* to,
               const absl::flat_hash_set<std::string>& protected_nodes) {
  if (from->out_edges().size() != 1) return false;
  const Edge* e = from->out_edges()[0];
  return !e->IsControl() && e->src_output == 0 && e->dst == to &&
         !protected_nodes.contains(from->name()) && RunOnOneDevice(from, to) &&
         TypeOf(from) == TypeOf(to);
}

// Whether `node`'s data_format attr, if it has one, is NHWC (channels
// last: a bias of the channels is added along the last dimension).
bool ChannelsLast(const Node* node) {
  const AttrValue* format = node->FindAttr("data_format");
  return format == nullptr || format->s() == "NHWC";
}

// Which input of an Add/AddV2 or BiasAdd `node` is a bias for `product`
// (a [m, n] matrix or an NHWC image of n channels): BiasAdd's 1 when its
// data_format is NHWC (for a matrix either format is channels-last); for
// Add the other operand when its static shape is [n] with n known and
// equal to the product's last dimension. -1: not a bias add.
int BiasInput(const Node* node, const Node* product, int product_input) {
  const bool image = product->op() == "Conv2D";
  if (node->op() == "BiasAdd") {
    return product_input == 0 && (!image || ChannelsLast(node)) ? 1 : -1;
  }
  if (node->op() != "Add" && node->op() != "AddV2") return -1;
  const int other = 1 - product_input;
  const Edge* e = node->input_edge(other);
  if (e == nullptr ||
      e->src->output_shapes().size() <= static_cast<size_t>(e->src_output)) {
    return -1;
  }
  const TensorShape& bias = e->src->output_shape(e->src_output);
  if (product->output_shapes().empty()) return -1;
  const TensorShape& prod = product->output_shape(0);
  const int rank = image ? 4 : 2;
  if (bias.rank() != 1 || prod.rank() != rank || bias.dim(0) < 0 ||
      bias.dim(0) != prod.dim(rank - 1)) {
    return -1;
  }
  return other;
}

// Whether `node` heads a fusable chain: a float or double MatMul, or a
// float NHWC Conv2D (the fused convolution runs on oneDNN's float kernels).
bool IsProduct(const Node* node) {
  const DataType type = TypeOf(node);
  if (node->op() == "MatMul") return type == DT_FLOAT || type == DT_DOUBLE;
  return node->op() == "Conv2D" && type == DT_FLOAT && ChannelsLast(node);
}

bool FindMatch(Node* product,
               const absl::flat_hash_set<std::string>& protected_nodes,
               Match* m) {
  if (!IsProduct(product)) return false;
  if (product->input_edge(0) == nullptr || product->input_edge(1) == nullptr ||
      product->out_edges().size() != 1) {
    return false;
  }
  Node* add = product->out_edges()[0]->dst;
  const int product_input = product->out_edges()[0]->dst_input;
  if (!FeedsOnly(product, add, protected_nodes) ||
      BiasInput(add, product, product_input) < 0 ||
      add->input_edge(1 - product_input) == nullptr) {
    return false;
  }
  *m = Match{product, add, product_input, nullptr};
  if (add->out_edges().size() == 1) {
    Node* relu = add->out_edges()[0]->dst;
    if (relu->op() == "Relu" && FeedsOnly(add, relu, protected_nodes)) {
      m->relu = relu;
    }
  }
  return true;
}

// The attrs the fused op keeps from its product.
constexpr const char* kMatMulAttrs[] = {"transpose_a", "transpose_b"};
constexpr const char* kConv2DAttrs[] = {
    "strides", "padding", "explicit_paddings", "data_format", "dilations"};

absl::Status Fuse(Graph* graph, const Match& m) {
  auto input = [](const Node* n, int i) {
    const Edge* e = n->input_edge(i);
    return std::pair<Node*, int>(e->src, e->src_output);
  };
  const std::vector<std::pair<Node*, int>> inputs = {
      input(m.product, 0), input(m.product, 1),
      input(m.bias_add, 1 - m.product_input)};
  const bool conv = m.product->op() == "Conv2D";
  Node* last = m.last();
  NodeDef def;
  def.set_name(last->name());
  def.set_op(conv ? kFusedConv2DOp : kFusedMatMulOp);
  def.set_device(last->requested_device());
  auto& attrs = *def.mutable_attr();
  attrs["T"] = m.product->def().attr().at("T");
  auto keep = [&](const char* attr) {
    if (const AttrValue* v = m.product->FindAttr(attr)) attrs[attr] = *v;
  };
  if (conv) {
    for (const char* attr : kConv2DAttrs) keep(attr);
  } else {
    for (const char* attr : kMatMulAttrs) keep(attr);
  }
  if (const AttrValue* v = last->FindAttr("_class")) attrs["_class"] = *v;
  attrs["activation"].set_s(m.relu != nullptr ? "Relu" : "");
  std::vector<Node*> members = {m.product, m.bias_add};
  if (m.relu != nullptr) members.push_back(m.relu);
  return ReplaceWithFusedNode(graph, members, last, std::move(def), inputs)
      .status();
}

// "1 MatMul+BiasAdd+Relu, 2 Conv2D+BiasAdd fused": MatMuls first, with a
// Relu before without, so it reads the same on every run.
std::string Summary(const std::vector<Match>& matches) {
  std::map<std::tuple<bool, bool, std::string>, int> counts;
  for (const Match& m : matches) {
    const bool conv = m.product->op() != "MatMul";
    const bool relu = m.relu != nullptr;
    ++counts[{conv, !relu,
              absl::StrCat(m.product->op(), "+BiasAdd", relu ? "+Relu" : "")}];
  }
  if (counts.empty()) return "0 MatMul+BiasAdd fused";
  std::vector<std::string> parts;
  for (const auto& [key, count] : counts) {
    parts.push_back(absl::StrCat(count, " ", std::get<2>(key)));
  }
  return absl::StrCat(absl::StrJoin(parts, ", "), " fused");
}

}  // namespace

absl::StatusOr<PassResult> FuseBiasActivation(const PassContext& ctx,
                                              Graph* graph) {
  PassResult result;
  if (!FusesOn(ctx, &result)) return result;
  // Static shapes tell an Add of a [n] bias from a broadcasting Add; a
  // graph whose shapes cannot all be inferred still fuses BiasAdds.
  graph->InferShapes().IgnoreError();
  std::vector<Match> matches;
  for (Node* node : graph->nodes()) {
    Match m;
    if (FindMatch(node, ctx.protected_nodes, &m)) matches.push_back(m);
  }
  result.what = Summary(matches);
  for (const Match& m : matches) {
    // Named before Fuse removes the nodes.
    const std::string what =
        absl::StrCat("fusing ", m.product->op(), " '", m.product->name(),
                     "' into '", m.last()->name(), "': ");
    if (absl::Status s = Fuse(graph, m); !s.ok()) {
      return absl::Status(s.code(), absl::StrCat(what, s.message()));
    }
  }
  result.changes = static_cast<int>(matches.size());
  return result;
}

}  // namespace dflow
