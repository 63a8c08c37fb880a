#include "graph/node_def_util.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/attr_value_util.h"

namespace dflow {

std::string NodeLabel(absl::string_view name, absl::string_view op) {
  return absl::StrCat("node '", name, "' (", op, ")");
}

std::string NodeLabel(const NodeDef& node) {
  return NodeLabel(node.name(), node.op());
}

void AddDefaultAttrs(const OpDef& op_def, NodeDef* node) {
  for (const auto& attr : op_def.attr()) {
    if (attr.has_default_value() && !node->attr().contains(attr.name())) {
      (*node->mutable_attr())[attr.name()] = attr.default_value();
    }
  }
}

namespace {

std::string AllowedList(const OpDef::AttrDef& attr) {
  return SummarizeAttrValue(attr.allowed_values());
}

absl::Status CheckAllowed(const NodeDef& node, const OpDef::AttrDef& attr,
                          const AttrValue& value) {
  if (!attr.has_allowed_values()) return absl::OkStatus();
  const auto& allowed = attr.allowed_values().list();
  auto type_ok = [&](int t) {
    for (int a : allowed.type()) {
      if (a == t) return true;
    }
    return false;
  };
  auto string_ok = [&](const std::string& s) {
    for (const auto& a : allowed.s()) {
      if (a == s) return true;
    }
    return false;
  };
  auto fail = [&](const std::string& got) {
    return absl::InvalidArgumentError(
        absl::StrCat(NodeLabel(node), ": attr '", attr.name(), "' is ", got,
                     ", expected one of ", AllowedList(attr)));
  };
  if (attr.type() == "type" && !type_ok(value.type())) {
    return fail(DataTypeName(value.type()));
  }
  if (attr.type() == "list(type)") {
    for (int t : value.list().type()) {
      if (!type_ok(t)) return fail(DataTypeName(static_cast<DataType>(t)));
    }
  }
  if (attr.type() == "string" && !string_ok(value.s())) {
    return fail(absl::StrCat("\"", value.s(), "\""));
  }
  if (attr.type() == "list(string)") {
    for (const auto& s : value.list().s()) {
      if (!string_ok(s)) return fail(absl::StrCat("\"", s, "\""));
    }
  }
  return absl::OkStatus();
}

int64_t ListLength(const AttrValue& v) {
  const auto& l = v.list();
  return l.s_size() + l.i_size() + l.f_size() + l.b_size() + l.type_size() +
         l.shape_size() + l.tensor_size() + l.func_size();
}

}  // namespace

absl::Status ValidateAttrs(const NodeDef& node, const OpDef& op_def) {
  for (const auto& attr : op_def.attr()) {
    const AttrValue* value = FindAttr(node, &op_def, attr.name());
    if (value == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat(NodeLabel(node), ": missing attr '", attr.name(),
                       "' of type ", attr.type(), "; set it on the node"));
    }
    if (absl::Status s = AttrValueHasType(*value, attr.type()); !s.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          NodeLabel(node), ": attr '", attr.name(), "' ", s.message()));
    }
    if (absl::Status s = CheckAllowed(node, attr, *value); !s.ok()) return s;
    if (attr.has_minimum()) {
      const bool is_list = absl::StartsWith(attr.type(), "list(");
      const int64_t got = is_list ? ListLength(*value) : value->i();
      if (got < attr.minimum()) {
        return absl::InvalidArgumentError(
            absl::StrCat(NodeLabel(node), ": attr '", attr.name(), "' ",
                         is_list ? "has length " : "is ", got,
                         ", must be at least ", attr.minimum()));
      }
    }
  }
  for (const auto& [name, value] : node.attr()) {
    if (absl::StartsWith(name, "_")) continue;  // internal attrs (_class, ...)
    bool declared = false;
    for (const auto& attr : op_def.attr()) declared |= attr.name() == name;
    if (!declared) {
      std::vector<std::string> names;
      for (const auto& attr : op_def.attr()) names.push_back(attr.name());
      return absl::InvalidArgumentError(absl::StrCat(
          NodeLabel(node), ": attr '", name, "' is not an attr of op ",
          op_def.name(), " (its attrs: ",
          names.empty() ? "none" : absl::StrJoin(names, ", "), ")"));
    }
  }
  return absl::OkStatus();
}

namespace {

// Appends the dtypes of one argument of `node` to `types`.
absl::Status ArgTypes(const NodeDef& node, const OpDef& op_def,
                      const OpDef::ArgDef& arg, std::vector<DataType>* types) {
  int64_t repeat = 1;
  if (!arg.number_attr().empty()) {
    if (auto s = GetNodeAttr(node, &op_def, arg.number_attr(), &repeat);
        !s.ok()) {
      return s;
    }
    if (repeat < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          NodeLabel(node), ": attr '", arg.number_attr(), "' is negative"));
    }
    if (repeat > kMaxArgListLength) {
      return absl::InvalidArgumentError(absl::StrCat(
          NodeLabel(node), ": attr '", arg.number_attr(), "' is ", repeat,
          ", the length of its argument '", arg.name(), "', but a node may ",
          "have at most ", kMaxArgListLength, " values in one argument; fix ",
          "the attr (or split the node)"));
    }
  }
  if (!arg.type_list_attr().empty()) {
    std::vector<DataType> list;
    if (auto s = GetNodeAttr(node, &op_def, arg.type_list_attr(), &list);
        !s.ok()) {
      return s;
    }
    for (DataType t : list) types->push_back(arg.is_ref() ? MakeRefType(t) : t);
    return absl::OkStatus();
  }
  DataType t = arg.type();
  if (!arg.type_attr().empty()) {
    if (auto s = GetNodeAttr(node, &op_def, arg.type_attr(), &t); !s.ok()) {
      return s;
    }
  }
  if (arg.is_ref()) t = MakeRefType(t);
  for (int64_t i = 0; i < repeat; ++i) types->push_back(t);
  return absl::OkStatus();
}

}  // namespace

absl::Status InOutTypesForNode(const NodeDef& node, const OpDef& op_def,
                               std::vector<DataType>* inputs,
                               std::vector<DataType>* outputs) {
  inputs->clear();
  outputs->clear();
  for (const auto& arg : op_def.input_arg()) {
    if (auto s = ArgTypes(node, op_def, arg, inputs); !s.ok()) return s;
  }
  for (const auto& arg : op_def.output_arg()) {
    if (auto s = ArgTypes(node, op_def, arg, outputs); !s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status ArgRangesForNode(const NodeDef& node, const OpDef& op_def,
                              std::vector<std::pair<int, int>>* input_ranges,
                              std::vector<std::pair<int, int>>* output_ranges) {
  auto ranges = [&](const auto& args, std::vector<std::pair<int, int>>* out) {
    out->clear();
    int start = 0;
    for (const auto& arg : args) {
      std::vector<DataType> types;
      if (auto s = ArgTypes(node, op_def, arg, &types); !s.ok()) return s;
      out->emplace_back(start, start + static_cast<int>(types.size()));
      start += static_cast<int>(types.size());
    }
    return absl::OkStatus();
  };
  if (auto s = ranges(op_def.input_arg(), input_ranges); !s.ok()) return s;
  return ranges(op_def.output_arg(), output_ranges);
}

std::string InputArgName(const NodeDef& node, const OpDef& op_def, int i) {
  std::vector<std::pair<int, int>> in, out;
  if (!ArgRangesForNode(node, op_def, &in, &out).ok()) {
    return absl::StrCat("input ", i);
  }
  for (size_t a = 0; a < in.size(); ++a) {
    if (i >= in[a].first && i < in[a].second) {
      const OpDef::ArgDef& arg = op_def.input_arg(static_cast<int>(a));
      if (!arg.number_attr().empty() || !arg.type_list_attr().empty()) {
        return absl::StrCat(arg.name(), "[", i - in[a].first, "]");
      }
      return arg.name();
    }
  }
  return absl::StrCat("input ", i);
}

}  // namespace dflow
