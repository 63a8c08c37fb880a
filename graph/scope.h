// The C++ builder API: Scope, Operation, Output, Input and OpBuilder.
//
// A Scope is an immutable value describing *where* the next op goes: its
// graph, name scope, device request, colocation groups and control
// dependencies. Deriving a scope (NewSubScope, WithDevice, ...) returns a new
// value and never changes the original, so scopes can be passed around and
// kept freely:
//
//   Scope root = Scope::NewRootScope();
//   Scope cpu = root.WithDevice("/cpu:0");
//   for (int i = 0; i < 4; ++i) {
//     Scope tower = root.NewSubScope(absl::StrCat("tower_", i))
//                       .WithDevice(absl::StrCat("/gpu:", i));
//     ...
//   }
//   GraphDef def;
//   absl::Status s = root.ToGraphDef(&def);  // the first error, if any
//
// Errors never interrupt a chain of building calls: the first one is kept in
// state shared by every scope derived from the same root, later calls become
// no-ops returning invalid Outputs, and ToGraphDef()/status() return it.
#ifndef DFLOW_GRAPH_SCOPE_H_
#define DFLOW_GRAPH_SCOPE_H_

#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "graph/attr_value_util.h"
#include "graph/device_spec.h"
#include "graph/graph.h"
#include "graph/tensor.h"
#include "proto/graph.pb.h"

namespace dflow {

class Output;

// A node in a graph being built. Invalid (null) after a build error.
class Operation {
 public:
  Operation() = default;
  explicit Operation(Node* node) : node_(node) {}
  Node* node() const { return node_; }
  bool valid() const { return node_ != nullptr; }
  const std::string& name() const;
  int num_outputs() const { return node_ ? node_->num_outputs() : 0; }
  Output output(int i) const;
  int num_inputs() const { return node_ ? node_->num_inputs() : 0; }
  // The output feeding data input i (what gradient functions differentiate
  // against); invalid when the input is not connected.
  Output input(int i) const;

 private:
  Node* node_ = nullptr;
};

// One output of an operation: the value flowing along data edges.
class Output {
 public:
  Output() = default;
  Output(Node* node, int index) : node_(node), index_(index) {}
  Output(const Operation& op) : node_(op.node()), index_(0) {}  // NOLINT
  Node* node() const { return node_; }
  Operation op() const { return Operation(node_); }
  int index() const { return index_; }
  // Refers to an existing output of a node.
  bool valid() const {
    return node_ != nullptr && index_ >= 0 && index_ < node_->num_outputs();
  }
  DataType dtype() const;
  // The statically inferred shape (possibly partial).
  TensorShape shape() const;
  // "node:index" (":0" omitted), as used in NodeDef inputs and fetches.
  std::string name() const;

 private:
  Node* node_ = nullptr;
  int index_ = 0;
};

using OutputList = std::vector<Output>;

// An op argument: an Output, or a constant that becomes a Const node in the
// op's scope when the op is built (so `ops::Mul(s, x, 2.0f)` works).
class Input {
 public:
  Input(const Output& o) : output_(o) {}                   // NOLINT
  Input(const Operation& op) : output_(op) {}              // NOLINT
  Input(const Tensor& t) : tensor_(t), is_const_(true) {}  // NOLINT
  Input(float v) : Input(Tensor::Scalar<float>(v)) {}      // NOLINT
  Input(double v) : Input(Tensor::Scalar<double>(v)) {}    // NOLINT
  Input(int v) : Input(Tensor::Scalar<int32_t>(v)) {}      // NOLINT
  Input(int64_t v) : Input(Tensor::Scalar<int64_t>(v)) {}  // NOLINT
  Input(bool v) : Input(Tensor::Scalar<bool>(v)) {}        // NOLINT
  Input(std::initializer_list<float> v);                   // NOLINT
  Input(std::initializer_list<int> v);                     // NOLINT
  Input(std::initializer_list<int64_t> v);                 // NOLINT

  bool is_const() const { return is_const_; }
  const Output& output() const { return output_; }
  const Tensor& tensor() const { return tensor_; }

 private:
  Output output_;
  Tensor tensor_;
  bool is_const_ = false;
};

using InputList = std::vector<Output>;

class Scope {
 public:
  // A scope over a new, empty graph.
  static Scope NewRootScope();

  // Name scope `name` below this one ("tower_0" -> ops named
  // "tower_0/MatMul"). Asking twice for the same child gives "tower_0" then
  // "tower_0_1", as TensorFlow does.
  Scope NewSubScope(absl::string_view name) const;
  // This name scope followed by `path` ("a/b_grad"), taken as given: no
  // "_1" suffix, so entering the same path twice gives the same name scope
  // (TensorFlow's name_scope("a/b/") with a trailing slash). The gradient
  // builder uses it to mirror forward scopes under "gradients/". Each
  // component must be a valid scope name.
  Scope WithNameScopePath(absl::string_view path) const;
  // This scope at the root name scope (device, colocation and control
  // dependencies kept): for ops named after another op's full name, such as
  // an optimizer's slot "layer1/weights/Momentum".
  Scope WithRootNameScope() const;
  // The next op gets exactly this name (within the name scope); using a name
  // that is already taken is an error.
  Scope WithOpName(absl::string_view name) const;
  // Merges `spec` into the current device request field by field, the new
  // parts winning: inside WithDevice("/job:worker/task:1"),
  // WithDevice("/gpu:0") requests "/job:worker/task:1/device:GPU:0". An empty
  // spec keeps the current request; a malformed spec is recorded as the scope's
  // error.
  Scope WithDevice(absl::string_view spec) const;
  // Replaces the device request entirely ("" clears it).
  Scope WithExactDevice(absl::string_view spec) const;
  // Ops built in the result join `op`'s colocation groups (`_class:
  // ["loc:@op"]` plus the groups `op` itself belongs to).
  Scope ColocateWith(const Operation& op) const;
  Scope ColocateWith(const Output& out) const { return ColocateWith(out.op()); }
  Scope ClearColocation() const;
  // Ops built in the result run after every op in `ops` (control edges).
  Scope WithControlDependencies(absl::Span<const Operation> ops) const;
  Scope WithControlDependencies(std::initializer_list<Operation> ops) const {
    return WithControlDependencies(
        absl::MakeConstSpan(ops.begin(), ops.size()));
  }
  Scope WithControlDependencies(const Output& out) const;
  Scope WithNoControlDependencies() const;

  Graph* graph() const;
  // The first error of any scope sharing this root.
  absl::Status status() const;
  bool ok() const { return status().ok(); }
  // Records `s` if it is the first error.
  void UpdateStatus(const absl::Status& s) const;

  // The name scope ("" at the root, "tower_0" below it).
  const std::string& name_scope() const { return name_scope_; }
  // The device request ops in this scope get (canonical form, may be "").
  std::string device() const { return device_.ToString(); }
  const std::vector<std::string>& colocation_groups() const {
    return colocation_;
  }
  const std::vector<Operation>& control_dependencies() const {
    return control_deps_;
  }

  // Named lists of operations kept with the graph being built, shared by
  // every scope of the same root (TensorFlow's graph collections: the
  // training library keeps its variables, their initializers and the
  // global step here). Not part of the GraphDef.
  void AddToCollection(absl::string_view key, const Operation& op) const;
  // In the order they were added; empty for an unknown key.
  std::vector<Operation> GetCollection(absl::string_view key) const;

  // A value a library keeps with the graph being built, by key, shared by
  // every scope of the same root; null until set. The control-flow
  // builders keep their records of the loops and conditionals they built
  // here, for the gradients (graph/ops/control_flow_builders.h).
  std::shared_ptr<void>& Attachment(absl::string_view key) const;

  // A fresh node name for an op called `default_name` in this scope (or the
  // WithOpName name, checked for uniqueness). Empty on error.
  std::string GetUniqueNameForOp(absl::string_view default_name) const;

  // The graph so far as a GraphDef, or the first build error.
  absl::Status ToGraphDef(GraphDef* out) const;
  // Copies the graph into an empty `out`, or returns the first build error.
  absl::Status ToGraph(Graph* out) const;

 private:
  friend class OpBuilder;
  struct Shared;
  explicit Scope(std::shared_ptr<Shared> shared);
  // This scope without a pending WithOpName (for helper nodes an op adds).
  Scope WithoutOpName() const;

  std::shared_ptr<Shared> shared_;
  std::string name_scope_;
  std::string op_name_;  // from WithOpName; applies to the next op only
  DeviceSpec device_;
  std::vector<std::string> colocation_;  // sorted "loc:@..." entries
  std::vector<Operation> control_deps_;
};

// Builds one node of an op in a scope. Type attrs that an input determines
// (e.g. "T" of MatMul's "a: T") are set from the inputs' dtypes; attrs
// left at their defaults are not written (readers fill them in); the node gets
// the scope's device, colocation groups and control dependencies; shape
// inference runs. Errors go to the scope and Finalize() then returns an invalid
// Operation.
class OpBuilder {
 public:
  // `op` is the registered op name; the node is named from `default_name`
  // (op name when empty) unless the scope has WithOpName.
  OpBuilder(const Scope& scope, absl::string_view op,
            absl::string_view default_name = "");

  OpBuilder& Input(const ::dflow::Input& input);
  OpBuilder& InputList(absl::Span<const Output> inputs);
  OpBuilder& ControlInput(const Operation& op);
  template <typename T>
  OpBuilder& Attr(absl::string_view name, const T& value) {
    attrs_[std::string(name)] = MakeAttr(value);
    return *this;
  }
  OpBuilder& Attr(absl::string_view name, AttrValue value) {
    attrs_[std::string(name)] = std::move(value);
    return *this;
  }

  Operation Finalize();

 private:
  Scope scope_;
  std::string op_;
  std::string default_name_;
  // Each entry is one op argument: a single Output or a list.
  struct Arg {
    std::vector<Output> outputs;
    bool is_list = false;
  };
  std::vector<Arg> args_;
  std::vector<Operation> control_inputs_;
  std::map<std::string, AttrValue> attrs_;
  absl::Status status_;
};

// Operators on Output (`a + b`, `-a`, ...) have no scope argument; they
// build in the innermost ActiveScope of the current thread:
//
//   {
//     ActiveScope active(tower);  // like Python's `with` blocks
//     Output y = ops::MatMul(tower, x, w) + b;
//   }
//
// Using an operator with no ActiveScope records an error naming the operator
// on the operands' graph (it never guesses a scope, which would silently
// misplace ops).
class ActiveScope {
 public:
  explicit ActiveScope(const Scope& scope);
  ~ActiveScope();
  ActiveScope(const ActiveScope&) = delete;
  ActiveScope& operator=(const ActiveScope&) = delete;

  // The innermost active scope on this thread, or null.
  static const Scope* Current();

 private:
  Scope scope_;
  const Scope* previous_;
};

}  // namespace dflow

#endif  // DFLOW_GRAPH_SCOPE_H_
