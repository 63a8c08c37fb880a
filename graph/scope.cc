#include "graph/scope.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "graph/graph_def_import.h"
#include "graph/node_def_util.h"

namespace dflow {

// State shared by all scopes derived from one root: the graph and the names
// already taken in it (by nodes and by name scopes).
struct Scope::Shared {
  Graph graph;
  absl::flat_hash_set<std::string> used_names;
  // Next suffix to try for a base name, so "MatMul" x1000 stays linear.
  absl::flat_hash_map<std::string, int> next_suffix;
  absl::flat_hash_map<std::string, std::vector<Operation>> collections;
  absl::flat_hash_map<std::string, std::shared_ptr<void>> attachments;

  std::string UniqueName(const std::string& base) {
    if (used_names.insert(base).second) return base;
    int& k = next_suffix[base];
    if (k == 0) k = 1;
    std::string name;
    do {
      name = absl::StrCat(base, "_", k++);
    } while (!used_names.insert(name).second);
    return name;
  }
};

// ---- Operation / Output / Input --------------------------------------------

const std::string& Operation::name() const {
  static const std::string* const kEmpty = new std::string;
  return node_ ? node_->name() : *kEmpty;
}

Output Operation::output(int i) const { return Output(node_, i); }

Output Operation::input(int i) const {
  const Edge* e = node_ != nullptr ? node_->input_edge(i) : nullptr;
  return e != nullptr ? Output(e->src, e->src_output) : Output();
}

DataType Output::dtype() const {
  return valid() ? node_->output_type(index_) : DT_INVALID;
}

TensorShape Output::shape() const {
  return valid() ? node_->output_shape(index_) : TensorShape::Unknown();
}

std::string Output::name() const {
  if (!node_) return "<invalid output>";
  return index_ == 0 ? node_->name() : absl::StrCat(node_->name(), ":", index_);
}

Input::Input(std::initializer_list<float> v)
    : Input(Tensor::FromVector<float>(std::vector<float>(v))) {}
Input::Input(std::initializer_list<int> v)
    : Input(Tensor::FromVector<int32_t>(
          std::vector<int32_t>(v.begin(), v.end()))) {}
Input::Input(std::initializer_list<int64_t> v)
    : Input(Tensor::FromVector<int64_t>(std::vector<int64_t>(v))) {}

// ---- Scope ------------------------------------------------------------------

Scope::Scope(std::shared_ptr<Shared> shared) : shared_(std::move(shared)) {}

Scope Scope::NewRootScope() { return Scope(std::make_shared<Shared>()); }

Graph* Scope::graph() const { return &shared_->graph; }

absl::Status Scope::status() const { return shared_->graph.build_error(); }

void Scope::UpdateStatus(const absl::Status& s) const {
  shared_->graph.RecordBuildError(s);
}

namespace {

bool IsValidScopeName(absl::string_view name) {
  if (name.empty()) return false;
  for (char c : name) {
    const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
                    (c >= '0' && c <= '9') || c == '.' || c == '_' ||
                    c == '-' || c == '>';
    if (!ok) return false;
  }
  return name[0] != '_' && name[0] != '-' && name[0] != '>';
}

}  // namespace

Scope Scope::NewSubScope(absl::string_view name) const {
  Scope child = *this;
  child.op_name_.clear();
  if (name.empty()) return child;
  if (!IsValidScopeName(name)) {
    UpdateStatus(absl::InvalidArgumentError(absl::StrCat(
        "NewSubScope(\"", absl::CEscape(name), "\") under '", name_scope_,
        "': a scope name uses letters, digits and _ . - > (no '/'; nest "
        "NewSubScope calls instead)")));
    return child;
  }
  const std::string base = name_scope_.empty()
                               ? std::string(name)
                               : absl::StrCat(name_scope_, "/", name);
  child.name_scope_ = shared_->UniqueName(base);
  return child;
}

Scope Scope::WithNameScopePath(absl::string_view path) const {
  Scope child = *this;
  child.op_name_.clear();
  for (absl::string_view part : absl::StrSplit(path, '/')) {
    // Inside a path a component may start with '_' (TensorFlow node names
    // do, e.g. "a/_b"); only the whole name's first character is limited.
    const bool first = child.name_scope_.empty();
    if (part.empty() ||
        !IsValidScopeName(first ? part : absl::StrCat("x", part))) {
      UpdateStatus(absl::InvalidArgumentError(
          absl::StrCat("WithNameScopePath(\"", absl::CEscape(path),
                       "\") under '", name_scope_, "': '", absl::CEscape(part),
                       "' is not a scope name (letters, digits and _ . - >)")));
      return child;
    }
    child.name_scope_ = child.name_scope_.empty()
                            ? std::string(part)
                            : absl::StrCat(child.name_scope_, "/", part);
    // Later NewSubScope calls must not hand out this name again.
    shared_->used_names.insert(child.name_scope_);
  }
  return child;
}

Scope Scope::WithRootNameScope() const {
  Scope s = *this;
  s.op_name_.clear();
  s.name_scope_.clear();
  return s;
}

void Scope::AddToCollection(absl::string_view key, const Operation& op) const {
  shared_->collections[std::string(key)].push_back(op);
}

std::shared_ptr<void>& Scope::Attachment(absl::string_view key) const {
  return shared_->attachments[std::string(key)];
}

std::vector<Operation> Scope::GetCollection(absl::string_view key) const {
  auto it = shared_->collections.find(key);
  return it == shared_->collections.end() ? std::vector<Operation>()
                                          : it->second;
}

Scope Scope::WithOpName(absl::string_view name) const {
  Scope s = *this;
  s.op_name_ = std::string(name);
  return s;
}

Scope Scope::WithoutOpName() const {
  Scope s = *this;
  s.op_name_.clear();
  return s;
}

Scope Scope::WithDevice(absl::string_view spec) const {
  Scope s = *this;
  absl::StatusOr<DeviceSpec> parsed = DeviceSpec::Parse(spec);
  if (!parsed.ok()) {
    UpdateStatus(absl::InvalidArgumentError(
        absl::StrCat("WithDevice in scope '", name_scope_,
                     "': ", parsed.status().message())));
    return s;
  }
  s.device_ = DeviceSpec::Merge(device_, *parsed);
  return s;
}

Scope Scope::WithExactDevice(absl::string_view spec) const {
  Scope s = *this;
  absl::StatusOr<DeviceSpec> parsed = DeviceSpec::Parse(spec);
  if (!parsed.ok()) {
    UpdateStatus(absl::InvalidArgumentError(
        absl::StrCat("WithExactDevice in scope '", name_scope_,
                     "': ", parsed.status().message())));
    return s;
  }
  s.device_ = *parsed;
  return s;
}

Scope Scope::ColocateWith(const Operation& op) const {
  Scope s = *this;
  if (!op.valid()) {
    UpdateStatus(absl::InvalidArgumentError(absl::StrCat(
        "ColocateWith in scope '", name_scope_,
        "' got an invalid operation (an earlier build step failed)")));
    return s;
  }
  if (op.node()->graph() != graph()) {
    UpdateStatus(absl::InvalidArgumentError(
        absl::StrCat("ColocateWith in scope '", name_scope_, "': '", op.name(),
                     "' belongs to another graph (another root scope)")));
    return s;
  }
  s.colocation_.push_back(absl::StrCat("loc:@", op.name()));
  // Joining op's group means joining every group op itself belongs to.
  std::vector<std::string> groups;
  if (op.node()->GetAttr("_class", &groups).ok()) {
    for (std::string& g : groups) {
      if (absl::StartsWith(g, "loc:@")) s.colocation_.push_back(std::move(g));
    }
  }
  std::sort(s.colocation_.begin(), s.colocation_.end());
  s.colocation_.erase(std::unique(s.colocation_.begin(), s.colocation_.end()),
                      s.colocation_.end());
  return s;
}

Scope Scope::ClearColocation() const {
  Scope s = *this;
  s.colocation_.clear();
  return s;
}

Scope Scope::WithControlDependencies(absl::Span<const Operation> ops) const {
  Scope s = *this;
  for (const Operation& op : ops) {
    if (!op.valid()) {
      UpdateStatus(absl::InvalidArgumentError(absl::StrCat(
          "WithControlDependencies in scope '", name_scope_,
          "' got an invalid operation (an earlier build step failed)")));
      continue;
    }
    if (op.node()->graph() != graph()) {
      UpdateStatus(absl::InvalidArgumentError(absl::StrCat(
          "WithControlDependencies in scope '", name_scope_, "': '", op.name(),
          "' belongs to another graph (another root scope)")));
      continue;
    }
    s.control_deps_.push_back(op);
  }
  return s;
}

Scope Scope::WithControlDependencies(const Output& out) const {
  const Operation op = out.op();
  return WithControlDependencies(absl::MakeConstSpan(&op, 1));
}

Scope Scope::WithNoControlDependencies() const {
  Scope s = *this;
  s.control_deps_.clear();
  return s;
}

std::string Scope::GetUniqueNameForOp(absl::string_view default_name) const {
  auto join = [&](absl::string_view n) {
    return name_scope_.empty() ? std::string(n)
                               : absl::StrCat(name_scope_, "/", n);
  };
  if (!op_name_.empty()) {
    const std::string name = join(op_name_);
    if (!shared_->used_names.insert(name).second) {
      UpdateStatus(absl::AlreadyExistsError(absl::StrCat(
          "WithOpName(\"", op_name_, "\"): the name '", name,
          "' is already used in this graph; choose another name")));
      return "";
    }
    return name;
  }
  return shared_->UniqueName(join(default_name));
}

absl::Status Scope::ToGraphDef(GraphDef* out) const {
  if (!status().ok()) return status();
  shared_->graph.ToGraphDef(out);
  return absl::OkStatus();
}

absl::Status Scope::ToGraph(Graph* out) const {
  GraphDef def;
  if (absl::Status s = ToGraphDef(&def); !s.ok()) return s;
  return ImportGraphDef(def, ImportOptions(), out);
}

// ---- OpBuilder
// ----------------------------------------------------------------

OpBuilder::OpBuilder(const Scope& scope, absl::string_view op,
                     absl::string_view default_name)
    : scope_(scope),
      op_(op),
      default_name_(default_name.empty() ? op : default_name) {}

OpBuilder& OpBuilder::Input(const ::dflow::Input& input) {
  Arg arg;
  if (input.is_const()) {
    Operation c = OpBuilder(scope_.WithoutOpName(), "Const")
                      .Attr("value", input.tensor())
                      .Attr("dtype", input.tensor().dtype())
                      .Finalize();
    arg.outputs.push_back(c.valid() ? c.output(0) : Output());
  } else {
    arg.outputs.push_back(input.output());
  }
  args_.push_back(std::move(arg));
  return *this;
}

OpBuilder& OpBuilder::InputList(absl::Span<const Output> inputs) {
  Arg arg;
  arg.outputs.assign(inputs.begin(), inputs.end());
  arg.is_list = true;
  args_.push_back(std::move(arg));
  return *this;
}

OpBuilder& OpBuilder::ControlInput(const Operation& op) {
  control_inputs_.push_back(op);
  return *this;
}

Operation OpBuilder::Finalize() {
  if (!scope_.ok()) return Operation();
  auto fail = [&](const absl::Status& s) {
    scope_.UpdateStatus(s);
    return Operation();
  };
  absl::StatusOr<const OpRegistration*> reg =
      scope_.graph()->registry()->LookUp(op_);
  if (!reg.ok()) return fail(reg.status());
  const OpDef& op_def = (*reg)->op_def;

  NodeDef def;
  def.set_op(op_);
  def.set_name(scope_.GetUniqueNameForOp(default_name_));
  if (def.name().empty()) return Operation();  // the scope has the error
  const std::string label = NodeLabel(def);

  if (static_cast<int>(args_.size()) != op_def.input_arg_size()) {
    std::vector<std::string> names;
    for (const auto& a : op_def.input_arg()) names.push_back(a.name());
    return fail(absl::InvalidArgumentError(absl::StrCat(
        label, " takes ", op_def.input_arg_size(), " input(s) (",
        absl::StrJoin(names, ", "), ") but was given ", args_.size())));
  }
  for (size_t a = 0; a < args_.size(); ++a) {
    for (size_t k = 0; k < args_[a].outputs.size(); ++k) {
      const Output& o = args_[a].outputs[k];
      if (o.node() != nullptr && !o.valid()) {
        return fail(absl::InvalidArgumentError(absl::StrCat(
            label, ": input '", op_def.input_arg(a).name(),
            "' refers to output ", o.index(), " of '", o.node()->name(),
            "', which has ", o.node()->num_outputs(), " output(s)")));
      }
      if (!o.valid()) {
        return fail(absl::InvalidArgumentError(
            absl::StrCat(label, ": input '", op_def.input_arg(a).name(),
                         "' is an invalid Output (its op failed to build)")));
      }
      if (o.node()->graph() != scope_.graph()) {
        return fail(absl::InvalidArgumentError(absl::StrCat(
            label, ": input '", op_def.input_arg(a).name(), "' is '", o.name(),
            "', which belongs to another graph (another root "
            "scope); build both in scopes derived from one root")));
      }
    }
  }
  for (auto& [name, value] : attrs_) (*def.mutable_attr())[name] = value;

  // Attrs the inputs determine: T from "x: T", N from "values: N * T", ...
  auto set_if_unset = [&](const std::string& name, AttrValue v) {
    if (!def.attr().contains(name)) (*def.mutable_attr())[name] = std::move(v);
  };
  for (size_t a = 0; a < args_.size(); ++a) {
    const OpDef::ArgDef& arg = op_def.input_arg(a);
    const std::vector<Output>& outs = args_[a].outputs;
    const bool list_arg =
        !arg.number_attr().empty() || !arg.type_list_attr().empty();
    if (list_arg != args_[a].is_list && !(list_arg && outs.size() == 1)) {
      return fail(absl::InvalidArgumentError(
          absl::StrCat(label, ": input '", arg.name(), "' ",
                       list_arg ? "is a list; pass a list of Outputs"
                                : "is a single tensor, but a list was given")));
    }
    if (!arg.number_attr().empty()) {
      set_if_unset(arg.number_attr(),
                   MakeAttr(static_cast<int64_t>(outs.size())));
    }
    if (!arg.type_attr().empty() && !outs.empty()) {
      set_if_unset(arg.type_attr(), MakeAttr(BaseType(outs[0].dtype())));
    }
    if (!arg.type_list_attr().empty()) {
      std::vector<DataType> types;
      for (const Output& o : outs) types.push_back(BaseType(o.dtype()));
      set_if_unset(arg.type_list_attr(), MakeAttr(absl::MakeConstSpan(types)));
    }
  }
  // Attrs equal to their default are left out, as TensorFlow's
  // strip_default_attrs does: readers fill them in, and graphs stay loadable
  // by older consumers that do not know newer attrs (e.g. MaxPool's
  // explicit_paddings, MatMul's grad_a).
  for (const auto& attr : op_def.attr()) {
    auto it = def.attr().find(attr.name());
    if (attr.has_default_value() && it != def.attr().end() &&
        it->second.SerializeAsString() ==
            attr.default_value().SerializeAsString()) {
      def.mutable_attr()->erase(attr.name());
    }
  }
  def.set_device(scope_.device());
  if (!scope_.colocation_groups().empty()) {
    (*def.mutable_attr())["_class"] =
        MakeAttr(absl::MakeConstSpan(scope_.colocation_groups()));
  }

  Graph* graph = scope_.graph();
  absl::StatusOr<Node*> node = graph->AddNode(def);
  if (!node.ok()) return fail(node.status());
  int input_index = 0;
  for (const Arg& arg : args_) {
    for (const Output& o : arg.outputs) {
      absl::StatusOr<const Edge*> e =
          graph->AddEdge(o.node(), o.index(), *node, input_index++);
      if (!e.ok()) {
        graph->RemoveNode(*node);
        return fail(e.status());
      }
    }
  }
  for (const Operation& dep : scope_.control_dependencies()) {
    graph->AddControlEdge(dep.node(), *node);
  }
  for (const Operation& dep : control_inputs_) {
    if (!dep.valid() || dep.node()->graph() != graph) {
      graph->RemoveNode(*node);
      return fail(absl::InvalidArgumentError(
          absl::StrCat(label,
                       ": control input is an invalid Operation or "
                       "belongs to another graph")));
    }
    graph->AddControlEdge(dep.node(), *node);
  }
  if (absl::Status s = graph->InferShapesForNode(*node); !s.ok()) {
    graph->RemoveNode(*node);
    return fail(s);
  }
  return Operation(*node);
}

// ---- ActiveScope ------------------------------------------------------------

namespace {
thread_local const Scope* current_scope = nullptr;
}  // namespace

ActiveScope::ActiveScope(const Scope& scope)
    : scope_(scope), previous_(current_scope) {
  current_scope = &scope_;
}

ActiveScope::~ActiveScope() { current_scope = previous_; }

const Scope* ActiveScope::Current() { return current_scope; }

}  // namespace dflow
