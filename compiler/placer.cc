#include "compiler/placer.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compiler/colocation_graph.h"
#include "compiler/host_placement.h"
#include "graph/node_def_util.h"
#include "graph/ops/control_flow_frames.h"

namespace dflow {
namespace {

// At most this many members and links are spelled out in an error.
constexpr int kMaxGroupMembersInMessage = 6;
constexpr int kMaxGroupLinksInMessage = 4;

struct Member {
  Node* node = nullptr;
  // The parsed request; empty when the node asked for nothing.
  DeviceSpec request;
  // Device types with a kernel for the node, most preferred first.
  std::vector<std::string> kernel_types;
  // Under soft placement, the earlier member whose request beat this one's.
  const Member* overruled_by = nullptr;

  bool has_request() const { return !request.IsEmpty(); }
  bool HasKernel(absl::string_view type) const {
    return std::find(kernel_types.begin(), kernel_types.end(), type) !=
           kernel_types.end();
  }
  std::string label() const { return NodeLabel(node->name(), node->op()); }
};

std::string RequestString(const DeviceSpec& spec) {
  return spec.IsEmpty() ? "nothing" : spec.ToString();
}

DeviceSpec TaskPart(DeviceSpec spec) {
  spec.clear_type();
  spec.clear_id();
  return spec;
}

std::string JoinOrNone(const std::vector<std::string>& items) {
  return items.empty() ? "none" : absl::StrJoin(items, ", ");
}

// "; its colocation group: 'v' (VariableV2) asked for /device:CPU:0, 'a'
// (Assign) asked for nothing, because 'a' takes a reference to 'v'" or "".
std::string DescribeGroup(const std::vector<Member>& members,
                          const ColocationGroup& group) {
  if (members.size() < 2) return "";
  std::vector<std::string> parts;
  for (const Member& m : members) {
    if (static_cast<int>(parts.size()) == kMaxGroupMembersInMessage) {
      parts.push_back(absl::StrCat(members.size() - parts.size(), " more"));
      break;
    }
    parts.push_back(absl::StrCat("'", m.node->name(), "' (", m.node->op(),
                                 ") asked for ", RequestString(m.request)));
  }
  std::vector<std::string> links(
      group.links.begin(),
      group.links.begin() +
          std::min<size_t>(group.links.size(), kMaxGroupLinksInMessage));
  if (group.links.size() > links.size()) {
    links.push_back(absl::StrCat(group.links.size() - links.size(), " more"));
  }
  return absl::StrCat("; its colocation group: ", absl::StrJoin(parts, ", "),
                      ", because ", absl::StrJoin(links, ", "));
}

class Placer {
 public:
  Placer(std::vector<PlacementDevice> devices, const KernelQuery& kernels,
         const PlacerOptions& options)
      : devices_(std::move(devices)), kernels_(kernels), options_(options) {
    SortByPreference(&devices_);
    for (const PlacementDevice& d : devices_) present_types_.insert(d.type());
  }

  absl::StatusOr<PlacementRecord> Run(Graph* graph);

 private:
  bool soft() const {
    return options_.allow_soft_placement && !options_.strict;
  }
  std::string SessionDevices() const { return DescribeDevices(devices_); }
  std::string KernelTypes(const Member& m) const {
    return JoinOrNone(m.kernel_types);
  }
  // What to add to advice when the user cannot get soft placement.
  std::string EnableSoft() const {
    return options_.strict ? "turn off strict placement"
                           : "enable soft placement";
  }

  absl::StatusOr<std::vector<Member>> MakeMembers(
      const ColocationGroup& group) const;
  // The device types with a kernel for every member among those present.
  absl::StatusOr<std::vector<std::string>> CommonTypes(
      const std::vector<Member>& members, const ColocationGroup& group) const;
  // Devices matching `spec` whose type is in `types`, most preferred first.
  std::vector<const PlacementDevice*> Candidates(
      const DeviceSpec& spec, const std::vector<std::string>& types) const;
  const PlacementDevice* FindDevice(const DeviceSpec& spec) const;

  absl::Status PlaceGroup(const ColocationGroup& group, int index);
  absl::Status PlaceOnAssigned(std::vector<Member>& members,
                               const ColocationGroup& group,
                               const std::vector<std::string>& types,
                               int index);
  // Why no device fits `merged`: the error to return without soft placement
  // and the reason to record with it.
  struct Failure {
    std::string error;
    std::string reason;
  };
  Failure ExplainNoCandidate(const std::vector<Member>& members,
                             const ColocationGroup& group,
                             const DeviceSpec& merged) const;

  void Record(const Member& m, int group, const PlacementDevice& device,
              NodePlacement::Kind kind, std::string reason);

  std::vector<PlacementDevice> devices_;
  absl::flat_hash_set<std::string> present_types_;
  const KernelQuery& kernels_;
  PlacerOptions options_;
  // Indexed by node id.
  std::vector<std::optional<NodePlacement>> placements_;
};

absl::StatusOr<std::vector<Member>> Placer::MakeMembers(
    const ColocationGroup& group) const {
  std::vector<Member> members;
  for (Node* node : group.members) {
    Member m;
    m.node = node;
    absl::StatusOr<DeviceSpec> spec =
        DeviceSpec::Parse(node->requested_device());
    if (!spec.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          NodeLabel(node->name(), node->op()), " has a malformed device '",
          node->requested_device(), "': ", spec.status().message()));
    }
    m.request = *std::move(spec);
    if (node->IsUnsupported()) {
      // A stand-in for an op dflow lacks: placed where its requests and
      // colocations say, as if every device type had its kernel (whoever
      // runs it would), so `dflow place` shows a TensorFlow graph whole.
      // Running it fails at pruning (compiler/prune.h), never here.
      m.kernel_types.assign(present_types_.begin(), present_types_.end());
    } else {
      m.kernel_types = kernels_.SupportedDeviceTypes(*node);
    }
    std::sort(m.kernel_types.begin(), m.kernel_types.end(),
              [](const std::string& a, const std::string& b) {
                int pa = DefaultDeviceTypePriority(a);
                int pb = DefaultDeviceTypePriority(b);
                return pa != pb ? pa > pb : a < b;
              });
    m.kernel_types.erase(
        std::unique(m.kernel_types.begin(), m.kernel_types.end()),
        m.kernel_types.end());
    members.push_back(std::move(m));
  }
  return members;
}

absl::StatusOr<std::vector<std::string>> Placer::CommonTypes(
    const std::vector<Member>& members, const ColocationGroup& group) const {
  for (const Member& m : members) {
    bool any = std::any_of(
        m.kernel_types.begin(), m.kernel_types.end(),
        [&](const std::string& t) { return present_types_.contains(t); });
    if (!any) {
      // An op with kernels, none for this node's dtypes, says which they
      // take.
      const std::string kernels = kernels_.DescribeKernels(*m.node);
      return absl::InvalidArgumentError(absl::StrCat(
          m.label(),
          " has no kernel for any device of this session (this "
          "session has ",
          SessionDevices(), "; device types with a kernel for ", m.node->op(),
          ": ", KernelTypes(m), kernels.empty() ? "" : "; ", kernels, ")",
          DescribeGroup(members, group),
          "; run it where such a device exists, or register a kernel for ",
          m.node->op(), " on one of this session's device types"));
    }
  }
  std::vector<std::string> common;
  for (const PlacementDevice& d : devices_) {
    if (std::find(common.begin(), common.end(), d.type()) != common.end()) {
      continue;
    }
    if (std::all_of(members.begin(), members.end(),
                    [&](const Member& m) { return m.HasKernel(d.type()); })) {
      common.push_back(d.type());
    }
  }
  if (common.empty()) {
    std::vector<std::string> per_member;
    for (const Member& m : members) {
      per_member.push_back(absl::StrCat("'", m.node->name(), "' (",
                                        m.node->op(), "): ", KernelTypes(m)));
    }
    return absl::InvalidArgumentError(absl::StrCat(
        "no device type has a kernel for every node of the colocation group "
        "of ",
        members.front().label(), " (device types with a kernel: ",
        absl::StrJoin(per_member, "; "), ")", DescribeGroup(members, group),
        "; remove the colocation so these nodes may run on different "
        "devices"));
  }
  return common;
}

std::vector<const PlacementDevice*> Placer::Candidates(
    const DeviceSpec& spec, const std::vector<std::string>& types) const {
  std::vector<const PlacementDevice*> result;
  for (const PlacementDevice& d : devices_) {
    if (d.spec.Matches(spec) &&
        std::find(types.begin(), types.end(), d.type()) != types.end()) {
      result.push_back(&d);
    }
  }
  return result;
}

const PlacementDevice* Placer::FindDevice(const DeviceSpec& spec) const {
  for (const PlacementDevice& d : devices_) {
    if (d.spec == spec) return &d;
  }
  return nullptr;
}

void Placer::Record(const Member& m, int group, const PlacementDevice& device,
                    NodePlacement::Kind kind, std::string reason) {
  NodePlacement p;
  p.set_name(m.node->name());
  p.set_op(m.node->op());
  p.set_requested_device(m.node->requested_device());
  p.set_assigned_device(device.name);
  p.set_kind(kind);
  p.set_reason(std::move(reason));
  p.set_group(group);
  placements_[m.node->id()] = std::move(p);
}

absl::Status Placer::PlaceOnAssigned(std::vector<Member>& members,
                                     const ColocationGroup& group,
                                     const std::vector<std::string>& types,
                                     int index) {
  const Member* owner = nullptr;  // the first preassigned member
  const PlacementDevice* device = nullptr;
  for (const Member& m : members) {
    const std::string& assigned = m.node->assigned_device();
    if (assigned.empty()) continue;
    absl::StatusOr<DeviceSpec> spec = DeviceSpec::Parse(assigned);
    const PlacementDevice* d = spec.ok() ? FindDevice(*spec) : nullptr;
    if (d == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          m.label(), " is already assigned to '", assigned,
          "', which is not a device of this session (this session has ",
          SessionDevices(),
          "); clear its assigned device or assign one "
          "that exists"));
    }
    if (device == nullptr) {
      owner = &m;
      device = d;
    } else if (d != device) {
      return absl::InvalidArgumentError(absl::StrCat(
          owner->label(), " is assigned to ", device->name, " and ", m.label(),
          " to ", d->name, ", but they must share a device",
          DescribeGroup(members, group),
          "; assign them to the same device or remove what joins them"));
    }
  }
  if (std::find(types.begin(), types.end(), device->type()) == types.end()) {
    for (const Member& m : members) {
      if (m.HasKernel(device->type())) continue;
      return absl::InvalidArgumentError(absl::StrCat(
          m.label(), " has no ", device->type(),
          " kernel (device types with "
          "a kernel for ",
          m.node->op(), ": ", KernelTypes(m), ") but its colocated node ",
          owner->label(), " is already assigned to ", device->name,
          DescribeGroup(members, group),
          "; assign the group to a device type every node has a kernel for"));
    }
  }
  for (Member& m : members) {
    if (!m.node->assigned_device().empty()) {
      Record(m, index, *device, NodePlacement::PREASSIGNED,
             "already assigned before placement");
    } else if (m.has_request() && !device->spec.Matches(m.request)) {
      if (!soft()) {
        return absl::InvalidArgumentError(
            absl::StrCat(m.label(), " asked for ", m.request.ToString(),
                         " but its colocated node ", owner->label(),
                         " is already assigned to ", device->name,
                         DescribeGroup(members, group), "; ", EnableSoft(),
                         " to let colocation win, or remove the colocation"));
      }
      Record(m, index, *device, NodePlacement::COLOCATED,
             absl::StrCat("colocated with '", owner->node->name(),
                          "': its request ", m.request.ToString(),
                          " lost to that node's assigned device"));
    } else if (m.has_request()) {
      Record(m, index, *device, NodePlacement::REQUESTED, "requested");
    } else {
      Record(m, index, *device, NodePlacement::COLOCATED,
             absl::StrCat("colocated with '", owner->node->name(), "'"));
    }
  }
  return absl::OkStatus();
}

Placer::Failure Placer::ExplainNoCandidate(const std::vector<Member>& members,
                                           const ColocationGroup& group,
                                           const DeviceSpec& merged) const {
  std::vector<const PlacementDevice*> existing;
  for (const PlacementDevice& d : devices_) {
    if (d.spec.Matches(merged)) existing.push_back(&d);
  }
  std::string group_text = DescribeGroup(members, group);
  if (existing.empty()) {
    // The request names no device at all: blame the first member whose own
    // request does, else the merge of several requests.
    const Member* culprit = nullptr;
    DeviceSpec shown = merged;
    for (const Member& m : members) {
      if (!m.has_request() || m.overruled_by != nullptr) continue;
      if (culprit == nullptr) culprit = &m;
      bool matches_any = std::any_of(
          devices_.begin(), devices_.end(),
          [&](const PlacementDevice& d) { return d.spec.Matches(m.request); });
      if (!matches_any) {
        culprit = &m;
        shown = m.request;
        break;
      }
    }
    return Failure{
        absl::StrCat(culprit->label(), " asked for ", shown.ToString(),
                     " but this session has ", SessionDevices(),
                     "; device types with a kernel for ", culprit->node->op(),
                     ": ", KernelTypes(*culprit), group_text, "; ",
                     EnableSoft(), " or ask for an existing device"),
        absl::StrCat("soft placement: ", shown.ToString(),
                     " does not exist (this session has ", SessionDevices(),
                     ")")};
  }
  // Devices exist, but some member has no kernel for their type.
  const std::string& type = existing.front()->type();
  const Member* requester = nullptr;
  const Member* lacking = nullptr;
  for (const Member& m : members) {
    if (requester == nullptr && m.has_request() && m.overruled_by == nullptr &&
        m.request.type().has_value()) {
      requester = &m;
    }
    if (lacking == nullptr && !m.HasKernel(type)) lacking = &m;
  }
  if (lacking == nullptr) lacking = &members.front();
  if (requester == nullptr) requester = lacking;
  std::string who = lacking == requester
                        ? "it"
                        : absl::StrCat("its colocated node ", lacking->label());
  std::string error = absl::StrCat(
      requester->label(), " asked for ", requester->request.ToString(), " but ",
      who, " has no ", type, " kernel (device types with a kernel for ",
      lacking->node->op(), ": ", KernelTypes(*lacking), "; this session has ",
      SessionDevices(), ")", group_text, "; ", EnableSoft(),
      ", or ask for a device type that has a kernel",
      lacking == requester ? "" : ", or remove the colocation");
  std::string reason = absl::StrCat(
      "soft placement: no ", type, " kernel for ", lacking->node->op(),
      lacking == requester
          ? ""
          : absl::StrCat(" (colocated node '", lacking->node->name(), "')"),
      "; device types with a kernel: ", KernelTypes(*lacking));
  return Failure{std::move(error), std::move(reason)};
}

absl::Status Placer::PlaceGroup(const ColocationGroup& group, int index) {
  absl::StatusOr<std::vector<Member>> members_or = MakeMembers(group);
  if (!members_or.ok()) return members_or.status();
  std::vector<Member>& members = *members_or;
  absl::StatusOr<std::vector<std::string>> types = CommonTypes(members, group);
  if (!types.ok()) return types.status();

  for (const Member& m : members) {
    if (!m.node->assigned_device().empty()) {
      return PlaceOnAssigned(members, group, *types, index);
    }
  }

  // Merge requests in member order; a request that contradicts an earlier
  // one is an error, or, under soft placement, loses to it.
  DeviceSpec merged;
  const Member* anchor = nullptr;  // the first member with a request
  for (Member& m : members) {
    if (!m.has_request()) continue;
    if (merged.IsCompatibleWith(m.request)) {
      merged = DeviceSpec::Merge(merged, m.request);
      if (anchor == nullptr) anchor = &m;
      continue;
    }
    const Member* earlier = anchor;
    for (const Member& e : members) {
      if (&e == &m) break;
      if (e.has_request() && e.overruled_by == nullptr &&
          !e.request.IsCompatibleWith(m.request)) {
        earlier = &e;
        break;
      }
    }
    if (!soft()) {
      return absl::InvalidArgumentError(
          absl::StrCat(m.label(), " asked for ", m.request.ToString(),
                       " but it must be colocated with ", earlier->label(),
                       ", which asked for ", earlier->request.ToString(),
                       DescribeGroup(members, group),
                       "; make the requests agree, remove "
                       "the colocation, or ",
                       EnableSoft(), " to let colocation win"));
    }
    m.overruled_by = earlier;
  }

  std::vector<const PlacementDevice*> candidates = Candidates(merged, *types);
  std::optional<Failure> failure;
  std::optional<std::string> host_reason;
  if (candidates.empty()) {
    DeviceSpec task = TaskPart(merged);
    bool task_exists = std::any_of(
        devices_.begin(), devices_.end(),
        [&](const PlacementDevice& d) { return d.spec.Matches(task); });
    const Member& culprit = anchor != nullptr ? *anchor : members.front();
    if (!task_exists) {
      return absl::InvalidArgumentError(absl::StrCat(
          culprit.label(), " asked for ", merged.ToString(),
          " but no device of this session is in ", task.ToString(),
          " (this session has ", DescribeDevices(devices_, /*full_names=*/true),
          ")", DescribeGroup(members, group),
          "; fix the job/replica/task part of the device string"));
    }
    failure = ExplainNoCandidate(members, group, merged);
    if (!soft()) return absl::InvalidArgumentError(failure->error);
    candidates = Candidates(task, *types);
    if (candidates.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          culprit.label(), " asked for ", merged.ToString(),
          " and no device in ", task.ToString(),
          " has a kernel for every node of its group (device types with a "
          "kernel for all of them: ",
          JoinOrNone(*types), ")", DescribeGroup(members, group),
          "; ask for another job or task"));
    }
  } else if (members.size() == 1 && !merged.type().has_value() &&
             !merged.id().has_value()) {
    const PlacementDevice* host = nullptr;
    std::string accelerator;
    for (const PlacementDevice* d : candidates) {
      if (d->type() == kHostDeviceType) {
        if (host == nullptr) host = d;
      } else if (accelerator.empty()) {
        accelerator = d->type();
      }
    }
    if (host != nullptr && !accelerator.empty()) {
      host_reason =
          HostPlacementReason(*members.front().node, kernels_, accelerator);
      if (host_reason.has_value()) candidates = {host};
    }
  }
  const PlacementDevice& chosen = *candidates.front();

  const Member& leader = anchor != nullptr ? *anchor : members.front();
  for (const Member& m : members) {
    if (m.overruled_by != nullptr) {
      Record(m, index, chosen, NodePlacement::COLOCATED,
             absl::StrCat("colocated with '", m.overruled_by->node->name(),
                          "': its request ", m.request.ToString(),
                          " lost to that node's request ",
                          m.overruled_by->request.ToString(),
                          " (soft placement)"));
    } else if (m.has_request()) {
      if (chosen.spec.Matches(m.request)) {
        Record(m, index, chosen, NodePlacement::REQUESTED, "requested");
      } else {
        Record(m, index, chosen, NodePlacement::SOFT_FALLBACK,
               failure.has_value() ? failure->reason : "soft placement");
      }
    } else if (host_reason.has_value()) {
      Record(m, index, chosen, NodePlacement::HOST_CHOICE, *host_reason);
    } else if (&m != &leader) {
      Record(m, index, chosen, NodePlacement::COLOCATED,
             absl::StrCat("colocated with '", leader.node->name(), "'"));
    } else {
      Record(m, index, chosen, NodePlacement::DEFAULT,
             "default: highest-priority device with a kernel");
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<PlacementRecord> Placer::Run(Graph* graph) {
  if (devices_.empty()) {
    return absl::InvalidArgumentError(
        "cannot place a graph on a session with no devices");
  }
  for (const PlacementDevice& d : devices_) {
    if (!d.spec.IsFullySpecified() || d.name != d.spec.ToString()) {
      return absl::InvalidArgumentError(
          absl::StrCat("device '", d.name,
                       "' is not a fully specified canonical device "
                       "name; build devices with PlacementDevice::FromName"));
    }
  }
  for (size_t i = 1; i < devices_.size(); ++i) {
    if (devices_[i].spec == devices_[i - 1].spec) {
      return absl::InvalidArgumentError(
          absl::StrCat("device ", devices_[i].name, " is listed twice"));
    }
  }
  absl::StatusOr<std::vector<ColocationGroup>> groups =
      BuildColocationGroups(*graph, options_.pruned_subgraph);
  if (!groups.ok()) return groups.status();
  placements_.assign(graph->num_node_ids(), std::nullopt);
  for (size_t i = 0; i < groups->size(); ++i) {
    if (absl::Status s = PlaceGroup((*groups)[i], static_cast<int>(i));
        !s.ok()) {
      return s;
    }
  }

  // The loop frame of each node, for the log and `dflow dot`. A graph
  // whose frames do not add up is refused later, by the executor, with
  // its own message; the record then shows no frames.
  absl::StatusOr<ControlFlowFrames> frames = ControlFlowFrames::Build(*graph);
  PlacementRecord record;
  record.set_allow_soft_placement(options_.allow_soft_placement);
  std::vector<int> counts(devices_.size(), 0);
  for (Node* node : graph->nodes()) {
    NodePlacement& p = *placements_[node->id()];
    if (frames.ok() && frames->FrameOf(*node) != 0) {
      p.set_frame(frames->Path(frames->FrameOf(*node)));
    }
    node->set_assigned_device(p.assigned_device());
    for (size_t d = 0; d < devices_.size(); ++d) {
      if (devices_[d].name == p.assigned_device()) ++counts[d];
    }
    if (p.kind() == NodePlacement::SOFT_FALLBACK) {
      record.set_num_soft_fallbacks(record.num_soft_fallbacks() + 1);
    }
    *record.add_nodes() = std::move(p);
  }
  for (size_t d = 0; d < devices_.size(); ++d) {
    DeviceNodeCount* count = record.add_device_counts();
    count->set_device(devices_[d].name);
    count->set_num_nodes(counts[d]);
  }
  return record;
}

}  // namespace

absl::StatusOr<PlacementRecord> PlaceGraph(
    Graph* graph, absl::Span<const PlacementDevice> devices,
    const KernelQuery& kernels, const PlacerOptions& options) {
  Placer placer(std::vector<PlacementDevice>(devices.begin(), devices.end()),
                kernels, options);
  return placer.Run(graph);
}

}  // namespace dflow
