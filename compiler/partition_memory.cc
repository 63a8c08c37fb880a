#include "compiler/partition_memory.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "graph/node_def_util.h"
#include "graph/types.h"

namespace dflow {
namespace {

bool Contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

// Strings and resource handles never leave host memory, on any device.
bool AlwaysOnHost(DataType type) {
  type = BaseType(type);
  return type == DT_STRING || type == DT_RESOURCE;
}

}  // namespace

bool HasOwnMemory(absl::string_view device_type) {
  // An unknown type (a device name that does not parse) gets no copies.
  return !device_type.empty() && device_type != "CPU";
}

absl::StatusOr<HostMemoryMap> HostMemoryOf(const Node& node,
                                           const KernelQuery& kernels,
                                           absl::string_view device_type) {
  HostMemoryMap map;
  map.inputs.assign(node.num_inputs(), false);
  map.outputs.assign(node.num_outputs(), false);
  const std::vector<std::string> host =
      kernels.HostMemoryArgs(node, device_type);
  if (host.empty()) return map;
  std::vector<std::pair<int, int>> in_ranges, out_ranges;
  if (absl::Status s =
          ArgRangesForNode(node.def(), node.op_def(), &in_ranges, &out_ranges);
      !s.ok()) {
    return absl::Status(s.code(), absl::StrCat("reading the memory types of ",
                                               NodeLabel(node.def()), " on ",
                                               device_type, ": ", s.message()));
  }
  auto mark = [](const std::pair<int, int>& range, std::vector<bool>* flags) {
    const int end = std::min(range.second, static_cast<int>(flags->size()));
    for (int i = range.first; i < end; ++i) (*flags)[i] = true;
  };
  const OpDef& op = node.op_def();
  for (int a = 0; a < op.input_arg_size(); ++a) {
    if (Contains(host, op.input_arg(a).name())) mark(in_ranges[a], &map.inputs);
  }
  for (int a = 0; a < op.output_arg_size(); ++a) {
    if (Contains(host, op.output_arg(a).name())) {
      mark(out_ranges[a], &map.outputs);
    }
  }
  return map;
}

absl::StatusOr<const HostMemoryMap*> MemoryCopyAnalysis::MapOf(
    const Node& node, absl::string_view device_type) {
  auto it = maps_.find(node.id());
  if (it != maps_.end()) return &it->second;
  absl::StatusOr<HostMemoryMap> map = HostMemoryOf(node, kernels_, device_type);
  if (!map.ok()) return map.status();
  return &maps_.emplace(node.id(), *std::move(map)).first->second;
}

absl::StatusOr<MemoryCopy> MemoryCopyAnalysis::CopyFor(
    const Edge& edge, absl::string_view device_type) {
  if (edge.IsControl() || !HasOwnMemory(device_type)) return MemoryCopy::kNone;
  const DataType consumed = edge.dst->input_type(edge.dst_input);
  if (IsRefType(consumed) || AlwaysOnHost(consumed)) return MemoryCopy::kNone;
  absl::StatusOr<const HostMemoryMap*> src = MapOf(*edge.src, device_type);
  if (!src.ok()) return src.status();
  absl::StatusOr<const HostMemoryMap*> dst = MapOf(*edge.dst, device_type);
  if (!dst.ok()) return dst.status();
  const bool src_host = (*src)->outputs[edge.src_output];
  const bool dst_host = (*dst)->inputs[edge.dst_input];
  if (src_host == dst_host) return MemoryCopy::kNone;
  return src_host ? MemoryCopy::kHostToDevice : MemoryCopy::kDeviceToHost;
}

absl::StatusOr<bool> MemoryCopyAnalysis::ReadsHostMemory(
    const Edge& edge, absl::string_view device_type) {
  if (edge.IsControl() || !HasOwnMemory(device_type)) return false;
  const DataType consumed = edge.dst->input_type(edge.dst_input);
  if (IsRefType(consumed) || AlwaysOnHost(consumed)) return false;
  absl::StatusOr<const HostMemoryMap*> dst = MapOf(*edge.dst, device_type);
  if (!dst.ok()) return dst.status();
  return static_cast<bool>((*dst)->inputs[edge.dst_input]);
}

}  // namespace dflow
