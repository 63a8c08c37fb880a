#include "distributed/checkpoint_nodes.h"

#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "runtime/variables.h"

namespace dflow {
namespace {

constexpr char kPrefix[] = "dflow_checkpoint/";

AttrValue TypeAttr(DataType dtype) {
  AttrValue v;
  v.set_type(dtype);
  return v;
}

// A node beside `variable`: its device, colocated with it.
NodeDef* AddBeside(const NodeDef& variable, const std::string& name,
                   const std::string& op, GraphDef* def) {
  NodeDef* n = def->add_node();
  n->set_name(name);
  n->set_op(op);
  n->set_device(variable.device());
  (*n->mutable_attr())["_class"].mutable_list()->add_s(
      absl::StrCat("loc:@", variable.name()));
  return n;
}

}  // namespace

absl::StatusOr<std::map<std::string, VariableCheckpointNodes>>
AddCheckpointNodes(GraphDef* def) {
  absl::flat_hash_set<std::string> names;
  for (const NodeDef& n : def->node()) names.insert(n.name());
  // The first node of each variable, by key. Copies: adding nodes moves
  // the repeated field's elements.
  std::map<std::string, NodeDef> variables;
  for (const NodeDef& n : def->node()) {
    if (n.op() != "VariableV2" && n.op() != "VarHandleOp") continue;
    variables.try_emplace(VariableKey(n), n);
  }
  std::map<std::string, VariableCheckpointNodes> nodes;
  for (const auto& [key, var] : variables) {
    auto dtype = var.attr().find("dtype");
    if (dtype == var.attr().end()) {
      return absl::InvalidArgumentError(
          absl::StrCat("node '", var.name(), "' (", var.op(),
                       ") has no dtype attr; give the variable a dtype"));
    }
    VariableCheckpointNodes& made = nodes[key];
    const std::string base = absl::StrCat(kPrefix, var.name());
    made.read = base + "/read";
    made.value = base + "/value";
    made.assign = base + "/assign";
    for (const std::string* name : {&made.read, &made.value, &made.assign}) {
      if (names.count(*name) != 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            "the graph has a node '", *name,
            "', a name the master keeps for checkpoints; rename it"));
      }
    }
    const DataType type = dtype->second.type();
    const bool resource = var.op() == "VarHandleOp";
    NodeDef* read = AddBeside(var, made.read,
                              resource ? "ReadVariableOp" : "Identity", def);
    read->add_input(var.name());
    (*read->mutable_attr())[resource ? "dtype" : "T"] = TypeAttr(type);
    // Fed: the value arrives in the target task, as every feed does.
    NodeDef* value = def->add_node();
    value->set_name(made.value);
    value->set_op("Placeholder");
    (*value->mutable_attr())["dtype"] = TypeAttr(type);
    NodeDef* assign = AddBeside(var, made.assign,
                                resource ? "AssignVariableOp" : "Assign", def);
    assign->add_input(var.name());
    assign->add_input(made.value);
    if (resource) {
      (*assign->mutable_attr())["dtype"] = TypeAttr(type);
    } else {
      (*assign->mutable_attr())["T"] = TypeAttr(type);
      (*assign->mutable_attr())["validate_shape"].set_b(false);
    }
  }
  return nodes;
}

}  // namespace dflow
