// The graph IR: nodes, data edges (by output index), control edges.
//
// A Graph is what every layer above works on: the builder creates it, the
// GraphDef importer fills it, compiler passes rewrite it, the placer writes
// `assigned_device` into it. Nodes are validated against their op when added
// (attrs, dtypes of inputs) so a Graph is always well-typed; it may still be
// cyclic while being edited, and TopologicalOrder() reports a cycle by the
// names of the nodes on it.
//
// Nodes and edges are owned by the graph and addressed by stable ids;
// removing a node leaves a hole (ids are not reused), which keeps pointers
// held by passes valid for every other node.
#ifndef DFLOW_GRAPH_GRAPH_H_
#define DFLOW_GRAPH_GRAPH_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "graph/op_registry.h"
#include "graph/tensor_shape.h"
#include "graph/types.h"
#include "proto/function.pb.h"
#include "proto/graph.pb.h"
#include "proto/graph_debug_info.pb.h"
#include "proto/node_def.pb.h"
#include "proto/versions.pb.h"

namespace dflow {

class Graph;
class Node;

// The source slot of a control edge.
inline constexpr int kControlSlot = -1;

struct Edge {
  int id = -1;
  Node* src = nullptr;
  int src_output = 0;  // kControlSlot for control edges
  Node* dst = nullptr;
  int dst_input = 0;  // kControlSlot for control edges
  // Where this edge sits in src->out_edges() and dst->in_edges(), kept by
  // the Graph so that removing an edge costs O(1) on the source side (a
  // weight read by 30,000 nodes) instead of a scan.
  int out_index = -1;
  int in_index = -1;
  bool IsControl() const { return src_output == kControlSlot; }
};

class Node {
 public:
  int id() const { return id_; }
  // The graph that owns this node.
  Graph* graph() const { return graph_; }
  const std::string& name() const { return def_->name(); }
  const std::string& op() const { return def_->op(); }
  // The node's NodeDef without its `input` list (edges are the truth for
  // inputs; Graph::ToGraphDef writes them back).
  const NodeDef& def() const { return *def_; }
  const OpDef& op_def() const { return reg_->op_def; }
  const OpRegistration& registration() const { return *reg_; }
  bool IsStateful() const { return reg_->op_def.is_stateful(); }

  // OK for a node dflow can run. For a stand-in (Graph::AddUnsupportedNode:
  // a TensorFlow node whose op dflow does not have, or whose attrs its
  // schema refuses) the reason, naming the node and op: the graph keeps
  // the node so that everything else in it loads and runs, and a run
  // signature that reaches it fails with this reason (compiler/prune.h).
  const absl::Status& unsupported() const;
  bool IsUnsupported() const { return stand_in_ != nullptr; }

  int num_inputs() const { return static_cast<int>(input_types_.size()); }
  int num_outputs() const { return static_cast<int>(output_types_.size()); }
  DataType input_type(int i) const { return input_types_[i]; }
  DataType output_type(int i) const { return output_types_[i]; }
  const std::vector<DataType>& input_types() const { return input_types_; }
  const std::vector<DataType>& output_types() const { return output_types_; }

  // Static shapes of the outputs as last inferred (unknown until
  // Graph::InferShapes or the builder ran shape inference on this node).
  const TensorShape& output_shape(int i) const { return output_shapes_[i]; }
  const std::vector<TensorShape>& output_shapes() const {
    return output_shapes_;
  }
  // Overrides the outputs' shapes (a pass that knows better, or memory
  // planning's hints). Consumers are re-inferred by the next
  // Graph::InferShapes when the shapes differ.
  void set_output_shapes(std::vector<TensorShape> shapes);
  // What is known of the values of outputs that describe shapes.
  const std::vector<TensorShape>& output_shape_values() const {
    return output_shape_values_;
  }
  void set_output_shape_values(std::vector<TensorShape> values);

  // The device the user asked for (may be partial or empty).
  const std::string& requested_device() const { return def_->device(); }
  void set_requested_device(absl::string_view device);
  // The device the placer chose (empty until placement).
  const std::string& assigned_device() const { return assigned_device_; }
  void set_assigned_device(absl::string_view d) {
    assigned_device_ = std::string(d);
  }

  // Attr of the node, else the op's default; null if neither exists.
  const AttrValue* FindAttr(absl::string_view name) const;
  template <typename T>
  absl::Status GetAttr(absl::string_view name, T* value) const;
  // Sets an attr (e.g. `_class`). Does not re-validate: callers setting
  // op-declared attrs must keep them valid.
  void SetAttr(absl::string_view name, AttrValue value);
  void ClearAttr(absl::string_view name);

  // In-edges in the order they were added (so control inputs keep their
  // order through rewrites); out-edges in no particular order (removing one
  // moves the last into its place). Data in-edges are also reachable by
  // input index through input_edge().
  const std::vector<const Edge*>& in_edges() const { return in_edges_; }
  const std::vector<const Edge*>& out_edges() const { return out_edges_; }
  // The edge feeding data input `i`, or null if it is not connected.
  const Edge* input_edge(int i) const;

 private:
  friend class Graph;
  Node() = default;
  void AttrsChanged();
  NodeDef* MutableDef();

  // What a stand-in node carries (null for every other node): its own
  // registration, made from its NodeDef, and why it cannot run. Shared
  // with its copies, like the NodeDef.
  struct StandIn {
    OpRegistration registration;
    absl::Status why;
  };

  int id_ = -1;
  Graph* graph_ = nullptr;
  std::shared_ptr<const StandIn> stand_in_;
  // Shared with the node's copies in other graphs (Graph::AddNodeCopy) and
  // copied on write (MutableDef): pruning copies a pointer, not a NodeDef
  // with its attr map. Never null. A graph is mutated by one thread at a
  // time, and a copy shares only with graphs it was copied from or to, so
  // the use count tells whether this node is the only owner.
  std::shared_ptr<NodeDef> def_ = std::make_shared<NodeDef>();
  const OpRegistration* reg_ = nullptr;
  std::vector<DataType> input_types_;
  std::vector<DataType> output_types_;
  std::vector<TensorShape> output_shapes_;
  std::vector<TensorShape> output_shape_values_;
  // Incremental shape inference (Graph::InferShapes). shape_version_ grows
  // whenever what consumers' shape functions read of this node changes
  // (output shapes or shape values, or an attr: a Const's value). A node
  // is up to date when shapes_current_ and shape_inputs_ still equals the
  // signature of its inputs: (source id, output, source shape_version_)
  // per data input. A copy of an up-to-date node (AddNodeCopy) is trusted
  // once: its shapes are taken as inferred in the new graph.
  uint64_t shape_inputs_ = 0;
  uint64_t shape_version_ = 0;
  bool shapes_current_ = false;
  bool shapes_trusted_ = false;
  std::string assigned_device_;
  std::vector<const Edge*> in_edges_;
  std::vector<const Edge*> out_edges_;
  // data_in_[i]: the edge feeding data input i (O(1) lookups: a node may
  // have tens of thousands of inputs, e.g. a group over every variable).
  std::vector<const Edge*> data_in_;
};

class Graph {
 public:
  // Ops are looked up in `registry` (the global one by default).
  explicit Graph(const OpRegistry* registry = OpRegistry::Global());
  ~Graph();
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  // Adds a node from `def` (its `input` list is ignored: add edges). Checks
  // the name is new and well-formed, the op exists, and the attrs are valid;
  // default attrs are *not* added (see AddDefaultAttrs) so that imported
  // graphs round-trip byte for byte.
  absl::StatusOr<Node*> AddNode(NodeDef def);
  // Adds a copy of `node`, a node of another graph over the same registry:
  // its NodeDef, dtypes, inferred shapes and assigned device, but no edges.
  // Nothing is re-validated (the node was checked when it was added there),
  // which is what makes pruning and partitioning cheap; only the name must
  // be new (a node of a graph over another registry is InvalidArgument).
  // Graph-to-graph passes use this instead of a GraphDef round trip.
  absl::StatusOr<Node*> AddNodeCopy(const Node& node);
  // Adds a stand-in for a node dflow cannot run as written (an op it does
  // not have, attrs its schema refuses), so that a TensorFlow graph loads
  // whole and only the run signatures that reach the node fail. The node
  // keeps its NodeDef (it round-trips unchanged) and takes the given data
  // input and output dtypes (the importer derives them from the node's
  // neighbours); it is stateful, so no pass merges or folds it, and its
  // output shapes are unknown. `why` says what is missing.
  absl::StatusOr<Node*> AddUnsupportedNode(NodeDef def,
                                           std::vector<DataType> input_types,
                                           std::vector<DataType> output_types,
                                           absl::Status why);

  // Adds a data edge; fails if the slots are out of range, the input is
  // already connected, or the dtypes differ (a ref output may feed a value
  // input of its base type).
  absl::StatusOr<const Edge*> AddEdge(Node* src, int src_output, Node* dst,
                                      int dst_input);
  // Adds a control edge src -> dst (no-op if it already exists).
  const Edge* AddControlEdge(Node* src, Node* dst);
  void RemoveEdge(const Edge* edge);
  // Removes the node and all its edges.
  void RemoveNode(Node* node);
  // Makes data input `dst_input` of `dst` read from (new_src, new_output).
  absl::Status UpdateEdge(Node* new_src, int new_src_output, Node* dst,
                          int dst_input);

  Node* FindNode(absl::string_view name) const;
  Node* node(int id) const {
    return id >= 0 && id < static_cast<int>(nodes_.size()) ? nodes_[id].get()
                                                           : nullptr;
  }
  // Live nodes in id order.
  std::vector<Node*> nodes() const;
  int num_nodes() const { return num_nodes_; }
  int num_edges() const { return num_edges_; }
  // Upper bound of node ids (for arrays indexed by id).
  int num_node_ids() const { return static_cast<int>(nodes_.size()); }

  // Live nodes such that every node comes after all its inputs (data and
  // control), except the loops' back edges: an edge out of a NextIteration
  // (or RefNextIteration) is not an ordering constraint, as in TensorFlow.
  // Deterministic: nodes are taken in the order they became ready,
  // starting from the inputs-free nodes in id order. Any other cycle is a
  // FailedPrecondition listing the nodes on one cycle:
  //   "graph has a cycle: a -> b -> c -> a".
  absl::StatusOr<std::vector<Node*>> TopologicalOrder() const;

  // Every data input of every node is connected.
  absl::Status CheckAllInputsConnected() const;

  // Brings every node's static shapes up to date, in topological order,
  // storing results on the nodes. Errors name the node and op. Incremental:
  // only nodes whose inputs (their sources or those sources' shapes) or
  // attrs changed since they were last inferred run their shape function,
  // and a graph unchanged since the last call costs nothing, so passes may
  // call it freely.
  absl::Status InferShapes();
  // Runs the shape function of one node whose inputs already have shapes.
  absl::Status InferShapesForNode(Node* node);

  const VersionDef& versions() const { return versions_; }
  VersionDef* mutable_versions() {
    has_versions_ = true;
    return &versions_;
  }
  // Takes `versions` (and the deprecated `version`) exactly as `def` has
  // them, present or not, so an import/export round trip is lossless.
  void SetVersionsFrom(const GraphDef& def);
  // Parts of a GraphDef dflow keeps without interpreting (round trip).
  const FunctionDefLibrary& library() const { return library_; }
  FunctionDefLibrary* mutable_library() { return &library_; }
  const GraphDebugInfo& debug_info() const { return debug_info_; }
  GraphDebugInfo* mutable_debug_info() { return &debug_info_; }

  const OpRegistry* registry() const { return registry_; }

  // The first error the C++ builder met while building this graph (see
  // Scope::status()); it lives here so that operators on Output, which have
  // no scope argument, can report to it too.
  const absl::Status& build_error() const { return build_error_; }
  void RecordBuildError(const absl::Status& s) {
    if (build_error_.ok()) build_error_ = s;
  }

  // Writes the graph as a GraphDef: nodes in id order, data inputs in input
  // order then control inputs ("^name") in the order they were added.
  void ToGraphDef(GraphDef* out) const;

 private:
  friend class Node;
  // A new node's name is well-formed and unused, and its device parses.
  absl::Status CheckNameAndDevice(const NodeDef& def) const;
  // Signature of `node`'s data inputs for incremental shape inference.
  static uint64_t ShapeInputsSignature(const Node& node);
  // Anything shape inference reads changed (InferShapes' shortcut).
  void NoteShapeInputsChanged() { ++mutations_; }

  const OpRegistry* registry_;
  std::vector<std::unique_ptr<Node>> nodes_;
  // Mutations so far, and their count when InferShapes last succeeded.
  uint64_t mutations_ = 0;
  uint64_t shapes_settled_at_ = ~uint64_t{0};
  std::vector<std::unique_ptr<Edge>> edges_;
  absl::flat_hash_map<std::string, Node*> by_name_;
  // (src id, dst id) of every control edge, to refuse duplicates in O(1).
  absl::flat_hash_set<std::pair<int, int>> control_edges_;
  int num_nodes_ = 0;
  int num_edges_ = 0;
  VersionDef versions_;
  bool has_versions_ = true;  // graphs dflow creates carry versions
  int deprecated_version_ = 0;
  FunctionDefLibrary library_;
  GraphDebugInfo debug_info_;
  absl::Status build_error_;
};

template <typename T>
absl::Status Node::GetAttr(absl::string_view name, T* value) const {
  return GetNodeAttr(*def_, &reg_->op_def, name, value);
}

// The producer version dflow writes into GraphDefs it creates; a TensorFlow
// 1.x producer number so TensorFlow accepts the graphs.
inline constexpr int kGraphDefProducerVersion = 27;

}  // namespace dflow

#endif  // DFLOW_GRAPH_GRAPH_H_
