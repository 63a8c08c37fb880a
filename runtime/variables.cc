#include "runtime/variables.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace dflow {

std::string VariableKey(absl::string_view node_name,
                        absl::string_view container,
                        absl::string_view shared_name) {
  absl::string_view name = shared_name.empty() ? node_name : shared_name;
  return container.empty() ? std::string(name)
                           : absl::StrCat(container, "/", name);
}

std::string VariableKey(const NodeDef& node) {
  auto attr = [&node](const char* name) -> absl::string_view {
    auto it = node.attr().find(name);
    return it == node.attr().end() ? absl::string_view() : it->second.s();
  };
  return VariableKey(node.name(), attr("container"), attr("shared_name"));
}

absl::Status UninitializedValueError(absl::string_view name,
                                     absl::string_view input) {
  return absl::FailedPreconditionError(absl::StrCat(
      "Attempting to use uninitialized value ", name,
      input.empty() ? "" : absl::StrCat(" (", input, ")"),
      "; run its initializer first"));
}

absl::StatusOr<Var*> VariableStore::LookupOrCreate(absl::string_view name,
                                                   DataType dtype,
                                                   const TensorShape& shape) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = vars_.find(name);
  if (it != vars_.end()) {
    if (it->second->dtype() != dtype) {
      return absl::InvalidArgumentError(absl::StrCat(
          "variable '", name, "' exists with dtype ",
          DataTypeName(it->second->dtype()), " but is used as ",
          DataTypeName(dtype), "; give the two variables different names"));
    }
    return it->second.get();
  }
  auto var = std::make_unique<Var>(std::string(name), dtype, shape);
  Var* raw = var.get();
  vars_[std::string(name)] = std::move(var);
  return raw;
}

Var* VariableStore::Lookup(absl::string_view name) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = vars_.find(name);
  return it == vars_.end() ? nullptr : it->second.get();
}

std::vector<Var*> VariableStore::All() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<Var*> out;
  for (const auto& [name, var] : vars_) out.push_back(var.get());
  std::sort(out.begin(), out.end(),
            [](Var* a, Var* b) { return a->name() < b->name(); });
  return out;
}

}  // namespace dflow
