#include "graph/op_registry.h"

#include <algorithm>
#include <cctype>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "google/protobuf/text_format.h"
#include "graph/types.h"

namespace dflow {

OpDefBuilder::OpDefBuilder(std::string op_name) : name_(std::move(op_name)) {}

OpDefBuilder& OpDefBuilder::Input(std::string spec) {
  inputs_.push_back(std::move(spec));
  return *this;
}
OpDefBuilder& OpDefBuilder::Output(std::string spec) {
  outputs_.push_back(std::move(spec));
  return *this;
}
OpDefBuilder& OpDefBuilder::Attr(std::string spec) {
  attrs_.push_back(std::move(spec));
  return *this;
}
OpDefBuilder& OpDefBuilder::SetIsStateful() {
  stateful_ = true;
  return *this;
}
OpDefBuilder& OpDefBuilder::SetIsCommutative() {
  commutative_ = true;
  return *this;
}
OpDefBuilder& OpDefBuilder::SetIsAggregate() {
  aggregate_ = true;
  return *this;
}
OpDefBuilder& OpDefBuilder::SetAllowsUninitializedInput() {
  allows_uninitialized_input_ = true;
  return *this;
}
OpDefBuilder& OpDefBuilder::SetShapeFn(ShapeFn fn) {
  shape_fn_ = std::move(fn);
  return *this;
}
OpDefBuilder& OpDefBuilder::Doc(std::string summary) {
  summary_ = std::move(summary);
  return *this;
}

namespace {

bool IsIdentifier(absl::string_view s) {
  if (s.empty() ||
      !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) {
    return false;
  }
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

// Type sets TensorFlow specs use by name.
bool ExpandTypeSet(absl::string_view name, std::vector<DataType>* out) {
  const std::vector<DataType> real = {
      DT_FLOAT, DT_DOUBLE,   DT_INT32,  DT_UINT8, DT_INT16,  DT_INT8,
      DT_INT64, DT_BFLOAT16, DT_UINT16, DT_HALF,  DT_UINT32, DT_UINT64};
  if (name == "realnumbertype") {
    *out = real;
    return true;
  }
  if (name == "numbertype") {
    *out = real;
    out->push_back(DT_COMPLEX64);
    out->push_back(DT_COMPLEX128);
    out->push_back(DT_QINT8);
    out->push_back(DT_QUINT8);
    out->push_back(DT_QINT32);
    out->push_back(DT_QINT16);
    out->push_back(DT_QUINT16);
    return true;
  }
  if (name == "quantizedtype") {
    *out = {DT_QINT8, DT_QUINT8, DT_QINT32, DT_QINT16, DT_QUINT16};
    return true;
  }
  return false;
}

// Parses "{a, b, c}" into its items (quotes kept).
std::vector<std::string> SplitBraces(absl::string_view s) {
  absl::ConsumePrefix(&s, "{");
  absl::ConsumeSuffix(&s, "}");
  std::vector<std::string> items;
  for (absl::string_view item :
       absl::StrSplit(s, ',', absl::SkipWhitespace())) {
    items.emplace_back(absl::StripAsciiWhitespace(item));
  }
  return items;
}

bool Unquote(absl::string_view s, std::string* out) {
  if (s.size() >= 2 && ((s.front() == '\'' && s.back() == '\'') ||
                        (s.front() == '"' && s.back() == '"'))) {
    *out = std::string(s.substr(1, s.size() - 2));
    return true;
  }
  return false;
}

// Parses one scalar default value of attr type `type` into `out`.
absl::Status ParseScalar(absl::string_view type, absl::string_view text,
                         AttrValue* out) {
  text = absl::StripAsciiWhitespace(text);
  if (type == "string") {
    std::string s;
    if (!Unquote(text, &s))
      return absl::InvalidArgumentError("expected a quoted string");
    out->set_s(s);
  } else if (type == "int") {
    int64_t v;
    if (!absl::SimpleAtoi(text, &v))
      return absl::InvalidArgumentError("expected an int");
    out->set_i(v);
  } else if (type == "float") {
    float v;
    if (!absl::SimpleAtof(text, &v))
      return absl::InvalidArgumentError("expected a float");
    out->set_f(v);
  } else if (type == "bool") {
    if (text != "true" && text != "false") {
      return absl::InvalidArgumentError("expected true or false");
    }
    out->set_b(text == "true");
  } else if (type == "type") {
    absl::StatusOr<DataType> t = ParseDataType(text);
    if (!t.ok()) return t.status();
    out->set_type(*t);
  } else if (type == "shape") {
    if (absl::StartsWith(text, "{")) {
      std::string body(text.substr(1, text.size() - 2));
      if (!google::protobuf::TextFormat::ParseFromString(
              body, out->mutable_shape())) {
        return absl::InvalidArgumentError("expected a TensorShapeProto");
      }
    } else {
      absl::StatusOr<TensorShape> shape = TensorShape::Parse(text);
      if (!shape.ok()) return shape.status();
      shape->ToProto(out->mutable_shape());
    }
  } else if (type == "tensor") {
    std::string body(text);
    if (absl::StartsWith(body, "{")) body = body.substr(1, body.size() - 2);
    if (!google::protobuf::TextFormat::ParseFromString(body,
                                                       out->mutable_tensor())) {
      return absl::InvalidArgumentError("expected a TensorProto");
    }
  } else {
    return absl::InvalidArgumentError(absl::StrCat("no defaults for ", type));
  }
  return absl::OkStatus();
}

absl::Status ParseDefault(absl::string_view type, absl::string_view text,
                          AttrValue* out) {
  absl::string_view elem = type;
  if (absl::ConsumePrefix(&elem, "list(") && absl::ConsumeSuffix(&elem, ")")) {
    text = absl::StripAsciiWhitespace(text);
    if (!absl::ConsumePrefix(&text, "[") || !absl::ConsumeSuffix(&text, "]")) {
      return absl::InvalidArgumentError("expected a list like [1, 2]");
    }
    out->mutable_list();  // an empty list is still a list
    for (absl::string_view item :
         absl::StrSplit(text, ',', absl::SkipWhitespace())) {
      AttrValue v;
      if (auto s = ParseScalar(elem, item, &v); !s.ok()) return s;
      auto* l = out->mutable_list();
      if (elem == "string") l->add_s(v.s());
      if (elem == "int") l->add_i(v.i());
      if (elem == "float") l->add_f(v.f());
      if (elem == "bool") l->add_b(v.b());
      if (elem == "type") l->add_type(v.type());
      if (elem == "shape") *l->add_shape() = v.shape();
      if (elem == "tensor") *l->add_tensor() = v.tensor();
    }
    return absl::OkStatus();
  }
  return ParseScalar(type, text, out);
}

const char* const kAttrTypes[] = {"string", "int",   "float",  "bool",
                                  "type",   "shape", "tensor", "func"};

bool IsAttrType(absl::string_view t) {
  for (const char* k : kAttrTypes) {
    if (t == k) return true;
  }
  return false;
}

// A default must itself satisfy the attr's constraints, or every node
// relying on it would fail validation with a confusing message.
absl::Status CheckDefaultAllowed(const OpDef::AttrDef& attr) {
  const AttrValue& d = attr.default_value();
  if (attr.has_allowed_values()) {
    const auto& allowed = attr.allowed_values().list();
    if (attr.type() == "string" &&
        std::find(allowed.s().begin(), allowed.s().end(), d.s()) ==
            allowed.s().end()) {
      return absl::InvalidArgumentError(
          absl::StrCat("'", d.s(), "' is not one of the allowed strings"));
    }
    if (attr.type() == "type" &&
        std::find(allowed.type().begin(), allowed.type().end(), d.type()) ==
            allowed.type().end()) {
      return absl::InvalidArgumentError(absl::StrCat(
          DataTypeName(d.type()), " is not one of the allowed types"));
    }
  }
  if (attr.has_minimum()) {
    const bool is_list = absl::StartsWith(attr.type(), "list(");
    const auto& l = d.list();
    const int64_t got = is_list ? l.s_size() + l.i_size() + l.f_size() +
                                      l.b_size() + l.type_size() +
                                      l.shape_size() + l.tensor_size()
                                : d.i();
    if (got < attr.minimum()) {
      return absl::InvalidArgumentError("below the attr's minimum");
    }
  }
  return absl::OkStatus();
}

absl::Status ParseAttrSpec(absl::string_view spec, OpDef::AttrDef* attr) {
  std::pair<absl::string_view, absl::string_view> name_rest =
      absl::StrSplit(spec, absl::MaxSplits(':', 1));
  absl::string_view name = absl::StripAsciiWhitespace(name_rest.first);
  if (!IsIdentifier(name)) {
    return absl::InvalidArgumentError("attr name must be an identifier");
  }
  attr->set_name(std::string(name));
  absl::string_view rest = absl::StripAsciiWhitespace(name_rest.second);
  // Split off "= default" (outside braces/quotes).
  absl::string_view default_text;
  bool has_default = false;
  int depth = 0;
  char quote = 0;
  for (size_t i = 0; i < rest.size(); ++i) {
    char c = rest[i];
    if (quote) {
      if (c == quote) quote = 0;
    } else if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == '{' || c == '[' || c == '(') {
      ++depth;
    } else if (c == '}' || c == ']' || c == ')') {
      --depth;
    } else if (c == '=' && depth == 0 && (i == 0 || rest[i - 1] != '>')) {
      default_text = absl::StripAsciiWhitespace(rest.substr(i + 1));
      rest = absl::StripAsciiWhitespace(rest.substr(0, i));
      has_default = true;
      break;
    }
  }
  // Split off ">= minimum".
  size_t ge = rest.rfind(">=");
  if (ge != absl::string_view::npos &&
      rest.find('}', ge) == absl::string_view::npos) {
    int64_t min;
    if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(rest.substr(ge + 2)),
                          &min)) {
      return absl::InvalidArgumentError("bad minimum after '>='");
    }
    attr->set_has_minimum(true);
    attr->set_minimum(min);
    rest = absl::StripAsciiWhitespace(rest.substr(0, ge));
  }
  // The type, possibly a constrained set.
  bool is_list = false;
  absl::string_view type = rest;
  if (absl::ConsumePrefix(&type, "list(") && absl::ConsumeSuffix(&type, ")")) {
    is_list = true;
  }
  type = absl::StripAsciiWhitespace(type);
  std::string base;
  std::vector<DataType> set;
  if (absl::StartsWith(type, "{")) {
    std::vector<std::string> items = SplitBraces(type);
    if (items.empty()) return absl::InvalidArgumentError("empty {} constraint");
    std::string unquoted;
    if (Unquote(items[0], &unquoted)) {
      base = "string";
      auto* allowed = attr->mutable_allowed_values()->mutable_list();
      for (const std::string& item : items) {
        if (!Unquote(item, &unquoted)) {
          return absl::InvalidArgumentError("mixed strings and types in {}");
        }
        allowed->add_s(unquoted);
      }
    } else {
      base = "type";
      auto* allowed = attr->mutable_allowed_values()->mutable_list();
      for (const std::string& item : items) {
        std::vector<DataType> expanded;
        if (ExpandTypeSet(item, &expanded)) {
          for (DataType t : expanded) allowed->add_type(t);
          continue;
        }
        absl::StatusOr<DataType> t = ParseDataType(item);
        if (!t.ok()) return t.status();
        allowed->add_type(*t);
      }
    }
  } else if (ExpandTypeSet(type, &set)) {
    base = "type";
    auto* allowed = attr->mutable_allowed_values()->mutable_list();
    for (DataType t : set) allowed->add_type(t);
  } else if (IsAttrType(type)) {
    base = std::string(type);
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown attr type '", type, "'"));
  }
  attr->set_type(is_list ? absl::StrCat("list(", base, ")") : base);
  if (has_default) {
    if (default_text.empty()) {
      return absl::InvalidArgumentError("'=' without a default value");
    }
    absl::Status s =
        ParseDefault(attr->type(), default_text, attr->mutable_default_value());
    if (s.ok()) s = CheckDefaultAllowed(*attr);
    if (!s.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("bad default '", default_text, "': ", s.message()));
    }
  }
  return absl::OkStatus();
}

const OpDef::AttrDef* FindAttrDef(const OpDef& op, absl::string_view name) {
  for (const auto& a : op.attr()) {
    if (a.name() == name) return &a;
  }
  return nullptr;
}

absl::Status ParseArgSpec(absl::string_view spec, const OpDef& op,
                          OpDef::ArgDef* arg) {
  std::pair<absl::string_view, absl::string_view> name_rest =
      absl::StrSplit(spec, absl::MaxSplits(':', 1));
  absl::string_view name = absl::StripAsciiWhitespace(name_rest.first);
  if (!IsIdentifier(name)) {
    return absl::InvalidArgumentError("argument name must be an identifier");
  }
  arg->set_name(std::string(name));
  absl::string_view type = absl::StripAsciiWhitespace(name_rest.second);
  if (absl::ConsumePrefix(&type, "Ref(")) {
    if (!absl::ConsumeSuffix(&type, ")")) {
      return absl::InvalidArgumentError("unbalanced Ref(");
    }
    arg->set_is_ref(true);
    type = absl::StripAsciiWhitespace(type);
  }
  size_t star = type.find('*');
  if (star != absl::string_view::npos) {
    absl::string_view number = absl::StripAsciiWhitespace(type.substr(0, star));
    const OpDef::AttrDef* n = FindAttrDef(op, number);
    if (n == nullptr || n->type() != "int") {
      return absl::InvalidArgumentError(
          absl::StrCat("'", number, "' must be a declared int attr"));
    }
    arg->set_number_attr(std::string(number));
    type = absl::StripAsciiWhitespace(type.substr(star + 1));
  }
  if (const OpDef::AttrDef* a = FindAttrDef(op, type)) {
    if (a->type() == "type") {
      arg->set_type_attr(std::string(type));
    } else if (a->type() == "list(type)" && arg->number_attr().empty()) {
      arg->set_type_list_attr(std::string(type));
    } else {
      return absl::InvalidArgumentError(absl::StrCat(
          "attr '", type, "' has type ", a->type(), ", not usable as a dtype"));
    }
    return absl::OkStatus();
  }
  absl::StatusOr<DataType> t = ParseDataType(type);
  if (!t.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "'", type, "' is neither a dtype nor a declared type attr"));
  }
  arg->set_type(*t);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<OpRegistration> OpDefBuilder::Build() const {
  OpRegistration reg;
  OpDef& op = reg.op_def;
  op.set_name(name_);
  auto fail = [&](absl::string_view spec, const absl::Status& s) {
    return absl::InvalidArgumentError(
        absl::StrCat("op ", name_, ": bad spec \"", spec, "\": ", s.message()));
  };
  if (!IsIdentifier(name_)) {
    return absl::InvalidArgumentError(
        absl::StrCat("op name '", name_, "' is not an identifier"));
  }
  for (const std::string& spec : attrs_) {
    OpDef::AttrDef* attr = op.add_attr();
    if (auto s = ParseAttrSpec(spec, attr); !s.ok()) return fail(spec, s);
    for (int i = 0; i + 1 < op.attr_size(); ++i) {
      if (op.attr(i).name() == attr->name()) {
        return fail(spec, absl::InvalidArgumentError("duplicate attr"));
      }
    }
  }
  for (const std::string& spec : inputs_) {
    if (auto s = ParseArgSpec(spec, op, op.add_input_arg()); !s.ok()) {
      return fail(spec, s);
    }
  }
  for (const std::string& spec : outputs_) {
    if (auto s = ParseArgSpec(spec, op, op.add_output_arg()); !s.ok()) {
      return fail(spec, s);
    }
  }
  op.set_is_stateful(stateful_);
  op.set_is_commutative(commutative_);
  op.set_is_aggregate(aggregate_);
  op.set_allows_uninitialized_input(allows_uninitialized_input_);
  op.set_summary(summary_);
  reg.shape_fn = shape_fn_ ? shape_fn_ : ShapeFn(shape_fns::Unknown);
  return reg;
}

OpRegistry* OpRegistry::Global() {
  static OpRegistry* registry = new OpRegistry;
  return registry;
}

absl::Status OpRegistry::Register(const OpDefBuilder& builder) {
  absl::StatusOr<OpRegistration> reg = builder.Build();
  absl::MutexLock lock(&mu_);
  if (!reg.ok()) {
    errors_.push_back(reg.status());
    return reg.status();
  }
  const std::string name = reg->op_def.name();
  if (ops_.contains(name)) {
    absl::Status s = absl::AlreadyExistsError(
        absl::StrCat("op ", name, " is registered twice"));
    errors_.push_back(s);
    return s;
  }
  ops_[name] = std::make_unique<OpRegistration>(*std::move(reg));
  return absl::OkStatus();
}

absl::StatusOr<const OpRegistration*> OpRegistry::LookUp(
    absl::string_view op) const {
  absl::MutexLock lock(&mu_);
  auto it = ops_.find(op);
  if (it != ops_.end()) return it->second.get();
  // Suggest an op whose name differs only in case: a common slip.
  std::string hint;
  for (const auto& [name, reg] : ops_) {
    if (absl::EqualsIgnoreCase(name, op)) {
      hint = absl::StrCat(" Did you mean '", name, "'?");
    }
  }
  // Python callbacks: the function is not in the GraphDef at all.
  if (op == "PyFunc" || op == "PyFuncStateless" || op == "EagerPyFunc") {
    hint = absl::StrCat(
        " It calls a Python function (tf.py_function or tf.numpy_function) "
        "that lives only in the Python process that built the graph, so no "
        "runtime can run it from the GraphDef (TensorFlow cannot either): "
        "rewrite that part with TensorFlow ops before exporting the graph, or "
        "feed the tensors it produces.");
  }
  return absl::NotFoundError(absl::StrCat(
      "op '", op, "' is not registered in dflow (", ops_.size(), " ops are).",
      hint,
      " `dflow inspect` lists unknown ops; new ops are declared with "
      "DFLOW_REGISTER_OP in graph/ops/."));
}

std::vector<const OpRegistration*> OpRegistry::AllOps() const {
  absl::MutexLock lock(&mu_);
  std::vector<const OpRegistration*> out;
  for (const auto& [name, reg] : ops_) out.push_back(reg.get());
  std::sort(out.begin(), out.end(), [](const auto* a, const auto* b) {
    return a->op_def.name() < b->op_def.name();
  });
  return out;
}

std::vector<absl::Status> OpRegistry::InitErrors() const {
  absl::MutexLock lock(&mu_);
  return errors_;
}

}  // namespace dflow
