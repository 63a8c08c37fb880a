#include "compiler/host_placement.h"

#include <algorithm>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "graph/node_def_util.h"
#include "graph/types.h"

namespace dflow {
namespace {

bool AllOutputsInt32(const Node& node) {
  return node.num_outputs() > 0 &&
         std::all_of(node.output_types().begin(), node.output_types().end(),
                     [](DataType t) { return t == DT_INT32; });
}

bool Contains(const std::vector<std::string>& v, absl::string_view s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

// The OpDef name of the argument behind data input `index` of `node`.
std::string InputArg(const Node& node, int index) {
  std::vector<std::pair<int, int>> inputs, outputs;
  if (!ArgRangesForNode(node.def(), node.op_def(), &inputs, &outputs).ok()) {
    return "";
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (index >= inputs[i].first && index < inputs[i].second) {
      return node.op_def().input_arg(i).name();
    }
  }
  return "";
}

// Rule 2: every consumer wants the value in host memory on every
// accelerator it has a kernel for (and it has at least one).
std::optional<std::string> ConsumedOnHost(const Node& node,
                                          const KernelQuery& kernels) {
  if (!AllOutputsInt32(node)) return std::nullopt;
  std::string first;
  for (const Edge* edge : node.out_edges()) {
    if (edge->IsControl()) continue;
    const Node& consumer = *edge->dst;
    std::string arg = InputArg(consumer, edge->dst_input);
    if (arg.empty()) return std::nullopt;
    bool has_accelerator = false;
    for (const std::string& type : kernels.SupportedDeviceTypes(consumer)) {
      if (type == kHostDeviceType) continue;
      has_accelerator = true;
      if (!Contains(kernels.HostMemoryArgs(consumer, type), arg)) {
        return std::nullopt;
      }
    }
    if (!has_accelerator) return std::nullopt;
    if (first.empty()) {
      first = absl::StrCat("input '", arg, "' of '", consumer.name(), "' (",
                           consumer.op(), ")");
    }
  }
  if (first.empty()) return std::nullopt;  // no data consumers
  return absl::StrCat("host memory: feeds ", first,
                      ", which its kernels keep in host memory");
}

// Rule 3: the accelerator kernel keeps every argument on the host.
std::optional<std::string> KernelAllHost(const Node& node,
                                         const KernelQuery& kernels,
                                         absl::string_view accelerator_type) {
  if (accelerator_type.empty()) return std::nullopt;
  const OpDef& op = node.op_def();
  if (op.input_arg_size() + op.output_arg_size() == 0) return std::nullopt;
  std::vector<std::string> host =
      kernels.HostMemoryArgs(node, accelerator_type);
  for (const auto& arg : op.input_arg()) {
    if (!Contains(host, arg.name())) return std::nullopt;
  }
  for (const auto& arg : op.output_arg()) {
    if (!Contains(host, arg.name())) return std::nullopt;
  }
  return absl::StrCat("host memory: every argument of its ", accelerator_type,
                      " kernel is in host memory");
}

}  // namespace

std::optional<std::string> HostPlacementReason(
    const Node& node, const KernelQuery& kernels,
    absl::string_view accelerator_type) {
  static const auto* const kShapeOps =
      new absl::flat_hash_set<std::string>{"Shape", "ShapeN", "Size", "Rank"};
  if (kShapeOps->contains(node.op()) && AllOutputsInt32(node)) {
    return absl::StrCat("host memory: output (int32 shape computation, ",
                        node.op(), ")");
  }
  if (auto reason = ConsumedOnHost(node, kernels)) return reason;
  return KernelAllHost(node, kernels, accelerator_type);
}

}  // namespace dflow
