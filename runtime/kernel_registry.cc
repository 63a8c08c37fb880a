#include "runtime/kernel_registry.h"

#include <algorithm>
#include <set>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/node_def_util.h"
#include "graph/op_registry.h"

namespace dflow {

std::string KernelDef::DebugString() const {
  std::vector<std::string> parts;
  for (const auto& [attr, types] : type_constraints) {
    std::vector<std::string> names;
    for (DataType t : types) names.push_back(DataTypeName(t));
    parts.push_back(
        absl::StrCat(attr, " in {", absl::StrJoin(names, ", "), "}"));
  }
  return absl::StrCat(
      op, " on ", device_type,
      parts.empty() ? "" : absl::StrCat(" with ", absl::StrJoin(parts, ", ")));
}

KernelRegistry* KernelRegistry::Global() {
  static KernelRegistry* registry = new KernelRegistry;
  return registry;
}

namespace {

using ConstraintSet = std::set<std::pair<std::string, std::set<DataType>>>;

ConstraintSet Constraints(const KernelDef& def) {
  ConstraintSet out;
  for (const auto& [attr, types] : def.type_constraints) {
    out.emplace(attr, std::set<DataType>(types.begin(), types.end()));
  }
  return out;
}

std::set<std::string> HostArgs(const KernelDef& def) {
  return {def.host_memory_args.begin(), def.host_memory_args.end()};
}

bool Matches(const KernelDef& def, const Node& node) {
  for (const auto& [attr, allowed] : def.type_constraints) {
    DataType t;
    if (!node.GetAttr(attr, &t).ok()) return false;
    if (std::find(allowed.begin(), allowed.end(), t) == allowed.end()) {
      return false;
    }
  }
  return true;
}

// True if some assignment of dtypes satisfies both definitions.
bool Overlap(const KernelDef& a, const KernelDef& b) {
  for (const auto& [attr, types_a] : a.type_constraints) {
    for (const auto& [attr_b, types_b] : b.type_constraints) {
      if (attr != attr_b) continue;
      bool common = false;
      for (DataType t : types_a) {
        if (std::find(types_b.begin(), types_b.end(), t) != types_b.end()) {
          common = true;
        }
      }
      if (!common) return false;
    }
  }
  return true;
}

// True if implementation `impl` implements definition `def`: the same op,
// device type, host-memory args and constrained attrs, each attr's dtypes a
// subset of the definition's.
bool Covers(const KernelDef& def, const KernelDef& impl) {
  if (def.op != impl.op || def.device_type != impl.device_type ||
      HostArgs(def) != HostArgs(impl)) {
    return false;
  }
  const ConstraintSet d = Constraints(def);
  const ConstraintSet i = Constraints(impl);
  if (d.size() != i.size()) return false;
  auto di = d.begin();
  for (auto ii = i.begin(); ii != i.end(); ++ii, ++di) {
    if (di->first != ii->first) return false;
    for (DataType t : ii->second) {
      if (di->second.count(t) == 0) return false;
    }
  }
  return true;
}

// " with T=float, Tidx=int32": the node's type attrs, for messages.
std::string TypeAttrsOf(const Node& node) {
  std::vector<std::string> names;
  for (const auto& [name, value] : node.def().attr()) {
    if (value.has_type()) names.push_back(name);
  }
  std::sort(names.begin(), names.end());  // the attr map is unordered
  std::string types;
  for (const std::string& name : names) {
    absl::StrAppend(&types, types.empty() ? " with " : ", ", name, "=",
                    DataTypeName(node.def().attr().at(name).type()));
  }
  return types;
}

bool AlwaysOnHost(DataType t) {
  t = BaseType(t);
  return t == DT_STRING || t == DT_RESOURCE;
}

}  // namespace

void KernelRegistry::Register(KernelDef def, KernelFactory factory) {
  absl::MutexLock lock(&mu_);
  supported_.clear();
  std::vector<Entry>& entries = by_op_[def.op];
  const ConstraintSet constraints = Constraints(def);
  for (Entry& e : entries) {
    if (e.def.device_type != def.device_type ||
        Constraints(e.def) != constraints) {
      continue;
    }
    if (HostArgs(e.def) != HostArgs(def)) {
      conflicts_.push_back(
          absl::StrCat(def.DebugString(),
                       " is registered twice with different host-memory "
                       "args: {",
                       absl::StrJoin(e.def.host_memory_args, ", "), "} and {",
                       absl::StrJoin(def.host_memory_args, ", "), "}"));
      break;  // kept as a separate entry; the first one wins lookups
    }
    if (factory && e.factory) {
      conflicts_.push_back(
          absl::StrCat(def.DebugString(), " has two implementations"));
    } else if (factory) {
      e.factory = std::move(factory);
    }
    return;
  }
  entries.push_back(Entry{std::move(def), std::move(factory)});
}

void KernelRegistry::RegisterImplementation(KernelDef def,
                                            KernelFactory factory) {
  absl::MutexLock lock(&mu_);
  supported_.clear();
  if (!factory) {
    conflicts_.push_back(absl::StrCat(
        def.DebugString(),
        " was registered as an implementation without a "
        "factory; register a definition with Register(def, nullptr)"));
    return;
  }
  implementations_[def.op].push_back(Entry{std::move(def), std::move(factory)});
}

absl::Status KernelRegistry::Validate() const {
  absl::MutexLock lock(&mu_);
  std::vector<std::string> problems = conflicts_;
  std::vector<std::string> impl_ops;
  for (const auto& [op, impls] : implementations_) impl_ops.push_back(op);
  std::sort(impl_ops.begin(), impl_ops.end());
  for (const std::string& op : impl_ops) {
    const std::vector<Entry>& impls = implementations_.at(op);
    auto defs_it = by_op_.find(op);
    for (size_t i = 0; i < impls.size(); ++i) {
      const KernelDef& impl = impls[i].def;
      const Entry* covering = nullptr;
      std::vector<std::string> same_device;
      if (defs_it != by_op_.end()) {
        for (const Entry& e : defs_it->second) {
          if (e.def.device_type != impl.device_type) continue;
          same_device.push_back(absl::StrCat(
              e.def.DebugString(),
              e.def.host_memory_args.empty()
                  ? ""
                  : absl::StrCat(" (host memory: ",
                                 absl::StrJoin(e.def.host_memory_args, ", "),
                                 ")")));
          if (covering == nullptr && Covers(e.def, impl)) covering = &e;
        }
      }
      if (covering == nullptr) {
        problems.push_back(absl::StrCat(
            "the ", impl.device_type, " implementation ", impl.DebugString(),
            impl.host_memory_args.empty()
                ? ""
                : absl::StrCat(" (host memory: ",
                               absl::StrJoin(impl.host_memory_args, ", "), ")"),
            " matches no ", impl.device_type, " kernel definition (",
            same_device.empty()
                ? absl::StrCat("there is none for ", op)
                : absl::StrCat("definitions: ",
                               absl::StrJoin(same_device, "; ")),
            "); an implementation must name the definition's op, device and "
            "host-memory args and a subset of its dtypes (kernels/gpu/"
            "kernel_defs_*.cc hold the GPU definitions)"));
        continue;
      }
      if (covering->factory && Overlap(covering->def, impl)) {
        problems.push_back(absl::StrCat(impl.DebugString(),
                                        " has two implementations (one "
                                        "registered with its definition)"));
      }
      for (size_t j = 0; j < i; ++j) {
        const KernelDef& other = impls[j].def;
        if (other.device_type == impl.device_type && Overlap(impl, other)) {
          problems.push_back(
              absl::StrCat(impl.DebugString(), " and ", other.DebugString(),
                           " are two implementations for the same dtypes"));
        }
      }
    }
  }
  std::vector<std::string> ops;
  for (const auto& [op, entries] : by_op_) ops.push_back(op);
  std::sort(ops.begin(), ops.end());
  for (const std::string& op : ops) {
    const std::vector<Entry>& entries = by_op_.at(op);
    absl::StatusOr<const OpRegistration*> reg =
        OpRegistry::Global()->LookUp(op);
    if (!reg.ok()) {
      problems.push_back(absl::StrCat("kernel for unknown op ", op));
      continue;
    }
    const OpDef& op_def = (*reg)->op_def;
    for (size_t i = 0; i < entries.size(); ++i) {
      const KernelDef& def = entries[i].def;
      for (const auto& [attr, types] : def.type_constraints) {
        bool is_type_attr = false;
        for (const auto& a : op_def.attr()) {
          if (a.name() == attr && a.type() == "type") is_type_attr = true;
        }
        if (!is_type_attr) {
          problems.push_back(absl::StrCat(def.DebugString(), ": '", attr,
                                          "' is not a type attr of ", op));
        }
      }
      for (const std::string& arg : def.host_memory_args) {
        bool found = false;
        for (const auto& a : op_def.input_arg()) found |= a.name() == arg;
        for (const auto& a : op_def.output_arg()) found |= a.name() == arg;
        if (!found) {
          problems.push_back(absl::StrCat(def.DebugString(),
                                          ": host-memory arg '", arg,
                                          "' is not an argument of ", op));
        }
      }
      for (size_t j = 0; j < i; ++j) {
        const KernelDef& other = entries[j].def;
        if (other.device_type == def.device_type && Overlap(def, other)) {
          problems.push_back(absl::StrCat(def.DebugString(), " overlaps ",
                                          other.DebugString()));
        }
      }
    }
  }
  if (problems.empty()) return absl::OkStatus();
  return absl::InternalError(
      absl::StrCat("kernel registry: ", absl::StrJoin(problems, "\n")));
}

const KernelRegistry::Entry* KernelRegistry::FindEntry(
    const Node& node, absl::string_view device_type) const {
  auto it = by_op_.find(node.op());
  if (it == by_op_.end()) return nullptr;
  for (const Entry& e : it->second) {
    if (e.def.device_type == device_type && Matches(e.def, node)) return &e;
  }
  return nullptr;
}

KernelFactory KernelRegistry::FindFactory(const Node& node,
                                          const Entry& definition) const {
  if (definition.factory) return definition.factory;
  auto it = implementations_.find(node.op());
  if (it == implementations_.end()) return nullptr;
  for (const Entry& impl : it->second) {
    if (Matches(impl.def, node) && Covers(definition.def, impl.def)) {
      return impl.factory;
    }
  }
  return nullptr;
}

absl::StatusOr<const KernelDef*> KernelRegistry::FindKernelDef(
    const Node& node, absl::string_view device_type) const {
  absl::MutexLock lock(&mu_);
  if (const Entry* e = FindEntry(node, device_type)) return &e->def;
  std::vector<std::string> available;
  auto it = by_op_.find(node.op());
  if (it != by_op_.end()) {
    for (const Entry& e : it->second) {
      if (e.def.device_type == device_type) {
        available.push_back(e.def.DebugString());
      }
    }
  }
  const std::string types = TypeAttrsOf(node);
  return absl::NotFoundError(absl::StrCat(
      NodeLabel(node.def()), ": no ", device_type, " kernel for ", node.op(),
      types,
      available.empty()
          ? absl::StrCat("; dflow has no ", device_type, " kernel for ",
                         node.op(), " at all")
          : absl::StrCat("; registered: ", absl::StrJoin(available, "; "))));
}

std::vector<KernelDef> KernelRegistry::DefinitionsForOp(
    absl::string_view op) const {
  absl::MutexLock lock(&mu_);
  std::vector<KernelDef> out;
  auto it = by_op_.find(op);
  if (it == by_op_.end()) return out;
  for (const Entry& e : it->second) out.push_back(e.def);
  return out;
}

std::vector<std::string> KernelRegistry::SupportedDeviceTypes(
    const Node& node) const {
  return SupportedDeviceTypes(node, {});
}

std::vector<std::string> KernelRegistry::SupportedDeviceTypes(
    const Node& node, const std::vector<std::string>& implemented_only) const {
  absl::MutexLock lock(&mu_);
  std::vector<std::string> out;
  auto it = by_op_.find(node.op());
  if (it == by_op_.end()) return out;
  // The memo key: op, each constrained attr's dtype (as the node has it),
  // and implemented_only. Implementations constrain the same attrs as the
  // definitions they implement.
  absl::InlinedVector<absl::string_view, 4> attrs;
  for (const Entry& e : it->second) {
    for (const auto& [attr, allowed] : e.def.type_constraints) {
      if (std::find(attrs.begin(), attrs.end(), attr) == attrs.end()) {
        attrs.push_back(attr);
      }
    }
  }
  std::string key = node.op();
  for (absl::string_view attr : attrs) {
    DataType t = DT_INVALID;
    const bool has = node.GetAttr(attr, &t).ok();
    absl::StrAppend(&key, "|", attr, "=", has ? static_cast<int>(t) : -1);
  }
  for (const std::string& type : implemented_only) {
    absl::StrAppend(&key, "#", type);
  }
  if (auto memo = supported_.find(key); memo != supported_.end()) {
    return memo->second;
  }
  for (const Entry& e : it->second) {
    if (!Matches(e.def, node) ||
        std::find(out.begin(), out.end(), e.def.device_type) != out.end()) {
      continue;
    }
    // The first matching entry is the one CreateKernel would use.
    if (FindEntry(node, e.def.device_type) != &e) continue;
    if (std::find(implemented_only.begin(), implemented_only.end(),
                  e.def.device_type) != implemented_only.end() &&
        !FindFactory(node, e)) {
      continue;
    }
    out.push_back(e.def.device_type);
  }
  supported_.emplace(std::move(key), out);
  return out;
}

bool KernelRegistry::IsKernelBuilt(const Node& node,
                                   absl::string_view device_type) const {
  absl::MutexLock lock(&mu_);
  const Entry* e = FindEntry(node, device_type);
  return e != nullptr && FindFactory(node, *e) != nullptr;
}

std::vector<std::string> KernelRegistry::HostMemoryArgs(
    const Node& node, absl::string_view device_type) const {
  absl::MutexLock lock(&mu_);
  const Entry* e = FindEntry(node, device_type);
  if (e == nullptr) return {};
  return e->def.host_memory_args;
}

absl::Status KernelRegistry::MemoryTypesForNode(
    const Node& node, absl::string_view device_type,
    std::vector<MemoryType>* inputs, std::vector<MemoryType>* outputs) const {
  std::vector<std::pair<int, int>> in_ranges, out_ranges;
  if (absl::Status s =
          ArgRangesForNode(node.def(), node.op_def(), &in_ranges, &out_ranges);
      !s.ok()) {
    return s;
  }
  inputs->assign(node.num_inputs(), MemoryType::kDevice);
  outputs->assign(node.num_outputs(), MemoryType::kDevice);
  bool has_kernel = false;
  std::vector<std::string> host_args;
  {
    absl::MutexLock lock(&mu_);
    if (const Entry* e = FindEntry(node, device_type)) {
      has_kernel = true;
      host_args = e->def.host_memory_args;
    }
  }
  const OpDef& op = node.op_def();
  auto mark = [](const std::pair<int, int>& range,
                 std::vector<MemoryType>* types) {
    for (int i = range.first; i < range.second && i < (int)types->size(); ++i) {
      (*types)[i] = MemoryType::kHost;
    }
  };
  for (const std::string& arg : host_args) {
    for (int i = 0; i < op.input_arg_size(); ++i) {
      if (op.input_arg(i).name() == arg) mark(in_ranges[i], inputs);
    }
    for (int i = 0; i < op.output_arg_size(); ++i) {
      if (op.output_arg(i).name() == arg) mark(out_ranges[i], outputs);
    }
  }
  auto required = [&](DataType t) {
    return AlwaysOnHost(t) || (!has_kernel && BaseType(t) == DT_INT32);
  };
  for (int i = 0; i < node.num_inputs(); ++i) {
    if (required(node.input_type(i))) (*inputs)[i] = MemoryType::kHost;
  }
  for (int i = 0; i < node.num_outputs(); ++i) {
    if (required(node.output_type(i))) (*outputs)[i] = MemoryType::kHost;
  }
  return absl::OkStatus();
}

bool KernelRegistry::IsHostMemoryInput(const Node& node,
                                       absl::string_view device_type,
                                       int index) const {
  std::vector<MemoryType> in, out;
  if (!MemoryTypesForNode(node, device_type, &in, &out).ok()) return false;
  return index >= 0 && index < static_cast<int>(in.size()) &&
         in[index] == MemoryType::kHost;
}

bool KernelRegistry::IsHostMemoryOutput(const Node& node,
                                        absl::string_view device_type,
                                        int index) const {
  std::vector<MemoryType> in, out;
  if (!MemoryTypesForNode(node, device_type, &in, &out).ok()) return false;
  return index >= 0 && index < static_cast<int>(out.size()) &&
         out[index] == MemoryType::kHost;
}

bool KernelRegistry::IsHostMemoryArg(const Node& node,
                                     absl::string_view device_type,
                                     absl::string_view arg_name) const {
  std::vector<std::pair<int, int>> in_ranges, out_ranges;
  std::vector<MemoryType> in, out;
  if (!ArgRangesForNode(node.def(), node.op_def(), &in_ranges, &out_ranges)
           .ok() ||
      !MemoryTypesForNode(node, device_type, &in, &out).ok()) {
    return false;
  }
  const OpDef& op = node.op_def();
  // An argument is in host memory when all its values are (an empty list
  // argument counts when declared).
  auto all_host = [](const std::pair<int, int>& r,
                     const std::vector<MemoryType>& types) {
    for (int i = r.first; i < r.second; ++i) {
      if (i >= (int)types.size() || types[i] != MemoryType::kHost) return false;
    }
    return true;
  };
  for (int i = 0; i < op.input_arg_size(); ++i) {
    if (op.input_arg(i).name() == arg_name) return all_host(in_ranges[i], in);
  }
  for (int i = 0; i < op.output_arg_size(); ++i) {
    if (op.output_arg(i).name() == arg_name) {
      return all_host(out_ranges[i], out);
    }
  }
  return false;
}

absl::Status KernelRegistry::NotImplementedError(
    const Node& node, absl::string_view type, absl::string_view impl_type,
    absl::string_view device_name) const {
  // The definition exists (placement and partitioning planned with it),
  // but no implementation covers the node in this binary: a binary without
  // any kernels of the type (a CPU-only build), or a kernel not written
  // yet.
  std::vector<std::string> implemented;
  bool any_of_type = false;
  {
    absl::MutexLock lock(&mu_);
    for (const auto& [op, impls] : implementations_) {
      for (const Entry& e : impls) {
        if (e.def.device_type != impl_type) continue;
        any_of_type = true;
        if (op == node.op()) implemented.push_back(e.def.DebugString());
      }
    }
    for (const auto& [op, entries] : by_op_) {
      for (const Entry& e : entries) {
        any_of_type |= e.def.device_type == impl_type && e.factory;
      }
    }
  }
  if (!any_of_type) {
    const std::string hint =
        type == kDeviceGpu && impl_type == type
            ? " (CPU-only build); place it on a CPU or build with CUDA"
            : absl::StrCat("; place it on another device or link the ",
                           impl_type, " kernels");
    return absl::UnimplementedError(absl::StrCat(
        NodeLabel(node.def()), ": a ", impl_type,
        " kernel is defined but not built into this binary", hint));
  }
  const std::string types = TypeAttrsOf(node);  // " with T=float"
  return absl::UnimplementedError(absl::StrCat(
      NodeLabel(node.def()), " on ", device_name, ": no ", impl_type,
      " implementation of op ", node.op(), " for ",
      types.empty() ? "its dtypes" : absl::StrCat("dtype ", types.substr(6)),
      " yet (", impl_type, " kernels of ", node.op(), " in this binary: ",
      implemented.empty() ? "none" : absl::StrJoin(implemented, "; "),
      "); place it on the CPU or enable soft placement"));
}

absl::Status KernelRegistry::CheckImplemented(
    const Node& node, absl::string_view device_type,
    absl::string_view device_name) const {
  absl::StatusOr<const KernelDef*> def = FindKernelDef(node, device_type);
  if (!def.ok()) return def.status();
  {
    absl::MutexLock lock(&mu_);
    if (FindFactory(node, *FindEntry(node, device_type))) {
      return absl::OkStatus();
    }
  }
  return NotImplementedError(node, device_type, device_type, device_name);
}

absl::StatusOr<std::unique_ptr<OpKernel>> KernelRegistry::CreateKernel(
    const Node& node, Device* device) const {
  const std::string& type = device->type();
  const std::string& impl_type = device->kernel_device_type();
  // The device's own type must have a definition: a node runs on a fake GPU
  // only if it could run on a real one.
  absl::StatusOr<const KernelDef*> def = FindKernelDef(node, type);
  if (!def.ok()) return def.status();
  KernelFactory factory;
  if (impl_type == type) {
    absl::MutexLock lock(&mu_);
    factory = FindFactory(node, *FindEntry(node, type));
  } else {
    absl::StatusOr<const KernelDef*> impl_def = FindKernelDef(node, impl_type);
    if (!impl_def.ok()) {
      return absl::Status(
          impl_def.status().code(),
          absl::StrCat(impl_def.status().message(), " (device ", device->name(),
                       " is a stand-in for a ", type,
                       " that computes with the ", impl_type, " kernels)"));
    }
    absl::MutexLock lock(&mu_);
    factory = FindFactory(node, *FindEntry(node, impl_type));
  }
  if (!factory) {
    return NotImplementedError(node, type, impl_type, device->name());
  }
  OpKernelConstruction construction(node, device);
  if (impl_type != kDeviceCpu) {
    // Outputs the kernel keeps in host memory on a device with memory of
    // its own (shape outputs): allocate_output puts them there.
    std::vector<MemoryType> in, out;
    if (MemoryTypesForNode(node, type, &in, &out).ok()) {
      std::vector<bool> host(out.size());
      bool any = false;
      for (size_t i = 0; i < out.size(); ++i) {
        host[i] = out[i] == MemoryType::kHost;
        any |= host[i];
      }
      if (any) construction.set_host_memory_outputs(std::move(host));
    }
  }
  std::unique_ptr<OpKernel> kernel = factory(&construction);
  if (!construction.status().ok()) {
    return absl::Status(construction.status().code(),
                        absl::StrCat(NodeLabel(node.def()), ": ",
                                     construction.status().message()));
  }
  return kernel;
}

}  // namespace dflow
