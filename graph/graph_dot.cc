#include "graph/graph_dot.h"

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "graph/device_spec.h"

namespace dflow {
namespace {

// Light enough for black text, distinct from each other, from white and
// from the red border of soft-placement fallbacks (ColorBrewer's Set3,
// reordered): the first device (usually CPU:0, which holds the variables
// and the input pipeline) gets a quiet gray so the accelerators stand out.
constexpr const char* kPalette[] = {"#d9d9d9", "#8dd3c7", "#80b1d3", "#fdb462",
                                    "#b3de69", "#bebada", "#fccde5", "#bc80bd",
                                    "#ccebc5", "#ffed6f", "#ffffb3", "#fb8072"};
constexpr int kPaletteSize = sizeof(kPalette) / sizeof(kPalette[0]);

const char* DeviceColor(int i) { return kPalette[i % kPaletteSize]; }

// The inside of a DOT double-quoted string.
std::string Quote(absl::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  out += '"';
  return out;
}

// Text inside an HTML-like label.
std::string HtmlEscape(absl::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string Indent(int depth) { return std::string(2 * depth, ' '); }

// A name scope and what it holds, children in order of first appearance.
struct ScopeTree {
  std::string name;        // last component ("" for the root)
  std::vector<int> nodes;  // indices into GraphDef.node
  std::vector<std::unique_ptr<ScopeTree>> children;
  std::map<std::string, ScopeTree*> by_name;

  ScopeTree* Child(const std::string& child) {
    auto it = by_name.find(child);
    if (it != by_name.end()) return it->second;
    children.push_back(std::make_unique<ScopeTree>());
    children.back()->name = child;
    by_name[child] = children.back().get();
    return children.back().get();
  }
};

// One colored entry of the legend.
struct DeviceColorEntry {
  std::string key;    // what nodes are matched by
  std::string label;  // what the legend says
  int num_nodes = 0;
};

using SpecKey = std::tuple<std::string, int, int, std::string, int>;
SpecKey KeyOf(const DeviceSpec& s) {
  return {s.job().value_or(""), s.replica().value_or(-1), s.task().value_or(-1),
          s.type().value_or(""), s.id().value_or(-1)};
}

// Devices of the session, sorted by job, replica, task, type and id;
// short names ("GPU:0") when they share one task.
std::vector<DeviceColorEntry> PlacedDevices(const PlacementRecord& record) {
  std::vector<std::pair<SpecKey, DeviceColorEntry>> sorted;
  std::map<std::string, bool> seen;
  auto add = [&](const std::string& name, int count) {
    if (seen[name]) return;
    seen[name] = true;
    absl::StatusOr<DeviceSpec> spec = DeviceSpec::Parse(name);
    SpecKey key = spec.ok() ? KeyOf(*spec) : SpecKey{name, -1, -1, "", -1};
    sorted.push_back({key, {name, name, count}});
  };
  for (const DeviceNodeCount& c : record.device_counts()) {
    add(c.device(), c.num_nodes());
  }
  for (const NodePlacement& n : record.nodes()) add(n.assigned_device(), 0);
  std::sort(sorted.begin(), sorted.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  bool one_task = true;
  for (const auto& [key, entry] : sorted) {
    one_task &= std::get<0>(key) == std::get<0>(sorted.front().first) &&
                std::get<1>(key) == std::get<1>(sorted.front().first) &&
                std::get<2>(key) == std::get<2>(sorted.front().first);
  }
  std::vector<DeviceColorEntry> out;
  for (auto& [key, entry] : sorted) {
    if (one_task) {
      absl::StatusOr<DeviceSpec> spec = DeviceSpec::Parse(entry.key);
      if (spec.ok() && !spec->ShortName().empty()) {
        entry.label = spec->ShortName();
      }
    }
    out.push_back(std::move(entry));
  }
  return out;
}

// The canonical form of a request ("/gpu:0" -> "/device:GPU:0"); the
// request itself if it does not parse.
std::string CanonicalRequest(const std::string& request) {
  absl::StatusOr<DeviceSpec> spec = DeviceSpec::Parse(request);
  return spec.ok() ? spec->ToString() : request;
}

// Distinct non-empty requests, canonical, sorted like devices.
std::vector<DeviceColorEntry> RequestedDevices(const GraphDef& def) {
  std::map<std::string, std::pair<SpecKey, int>> requests;
  for (const NodeDef& node : def.node()) {
    if (node.device().empty()) continue;
    const std::string canonical = CanonicalRequest(node.device());
    auto it = requests.find(canonical);
    if (it == requests.end()) {
      absl::StatusOr<DeviceSpec> spec = DeviceSpec::Parse(node.device());
      SpecKey key = spec.ok() ? KeyOf(*spec)
                              : SpecKey{"\x7f" + canonical, -1, -1, "", -1};
      it = requests.emplace(canonical, std::make_pair(key, 0)).first;
    }
    ++it->second.second;
  }
  std::vector<std::pair<SpecKey, DeviceColorEntry>> sorted;
  for (const auto& [canonical, value] : requests) {
    sorted.push_back({value.first, {canonical, canonical, value.second}});
  }
  std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
    return std::tie(a.first, a.second.key) < std::tie(b.first, b.second.key);
  });
  std::vector<DeviceColorEntry> out;
  for (auto& entry : sorted) out.push_back(std::move(entry.second));
  return out;
}

std::string NodeCount(int n) {
  return absl::StrCat(n, n == 1 ? " node" : " nodes");
}

std::string Legend(const std::vector<DeviceColorEntry>& devices, bool placed,
                   int num_unrequested, int num_fallbacks) {
  std::string t =
      "<table border=\"0\" cellborder=\"1\" cellspacing=\"0\" "
      "cellpadding=\"4\">";
  absl::StrAppend(&t, "<tr><td colspan=\"2\"><b>",
                  placed ? "assigned device" : "requested device",
                  "</b></td></tr>");
  for (size_t i = 0; i < devices.size(); ++i) {
    absl::StrAppend(&t, "<tr><td bgcolor=\"", DeviceColor(i),
                    "\" width=\"24\"></td><td align=\"left\">",
                    HtmlEscape(devices[i].label), " (",
                    NodeCount(devices[i].num_nodes), ")</td></tr>");
  }
  if (!placed && num_unrequested > 0) {
    absl::StrAppend(&t,
                    "<tr><td bgcolor=\"white\" width=\"24\"></td>"
                    "<td align=\"left\">none (",
                    NodeCount(num_unrequested), ")</td></tr>");
  }
  if (placed) {
    absl::StrAppend(&t,
                    "<tr><td border=\"3\" color=\"#e00000\" width=\"24\"></td>"
                    "<td align=\"left\">soft-placement fallback (",
                    NodeCount(num_fallbacks), ")</td></tr>");
  }
  absl::StrAppend(&t, "</table>");
  return t;
}

class DotWriter {
 public:
  DotWriter(const GraphDef& def, const PlacementRecord* placement)
      : def_(def), placement_(placement) {
    if (placement_ != nullptr) {
      for (const NodePlacement& n : placement_->nodes()) {
        placed_[n.name()] = &n;
      }
      devices_ = PlacedDevices(*placement_);
    } else {
      devices_ = RequestedDevices(def_);
    }
    for (size_t i = 0; i < devices_.size(); ++i) {
      color_index_[devices_[i].key] = i;
    }
    for (int i = 0; i < def_.node_size(); ++i) {
      std::vector<std::string> parts = absl::StrSplit(def_.node(i).name(), '/');
      ScopeTree* scope = &root_;
      for (size_t p = 0; p + 1 < parts.size(); ++p) {
        scope = scope->Child(parts[p]);
      }
      scope->nodes.push_back(i);
      short_names_.push_back(parts.back());
    }
  }

  std::string Write() {
    absl::StrAppend(&out_,
                    "digraph dflow {\n"
                    "  graph [fontname=\"Helvetica\" fontsize=12 "
                    "newrank=true nodesep=0.25 ranksep=0.35];\n"
                    "  node [shape=box style=\"rounded,filled\" "
                    "fillcolor=\"white\" fontname=\"Helvetica\" fontsize=10 "
                    "height=0.3 margin=\"0.08,0.03\"];\n"
                    "  edge [color=\"#505050\" arrowsize=0.6];\n");
    WriteScope(root_, 1);
    WriteEdges();
    WriteLegend();
    absl::StrAppend(&out_, "}\n");
    return out_;
  }

 private:
  void WriteScope(const ScopeTree& scope, int depth) {
    for (int i : scope.nodes) WriteNode(i, depth);
    for (const auto& child : scope.children) {
      absl::StrAppend(&out_, Indent(depth), "subgraph cluster_",
                      num_clusters_++, " {\n", Indent(depth + 1),
                      "label=", Quote(child->name),
                      "; labeljust=l; style=\"rounded\"; color=\"#9a9a9a\"; "
                      "fontsize=11;\n");
      WriteScope(*child, depth + 1);
      absl::StrAppend(&out_, Indent(depth), "}\n");
    }
  }

  void WriteNode(int i, int depth) {
    const NodeDef& node = def_.node(i);
    std::vector<std::string> attrs;
    attrs.push_back(absl::StrCat(
        "label=", Quote(absl::StrCat(short_names_[i], "\n", node.op()))));
    std::string tooltip = absl::StrCat(node.name(), " (", node.op(), ")");
    if (!node.device().empty()) {
      absl::StrAppend(&tooltip, "\nrequested: ", node.device());
    }
    std::string device_key;
    if (placement_ != nullptr) {
      auto it = placed_.find(node.name());
      if (it != placed_.end()) {
        const NodePlacement& p = *it->second;
        device_key = p.assigned_device();
        absl::StrAppend(&tooltip, "\ndevice: ", p.assigned_device());
        if (!p.reason().empty()) {
          absl::StrAppend(&tooltip, "\nreason: ", p.reason());
        }
        if (!p.frame().empty()) {
          // A loop's nodes: a double border, and the frame in the tooltip.
          absl::StrAppend(&tooltip, "\nloop frame: ", p.frame());
          attrs.push_back("peripheries=2");
        }
        if (p.kind() == NodePlacement::SOFT_FALLBACK) {
          attrs.push_back("color=\"#e00000\" penwidth=3");
        }
      }
    } else if (!node.device().empty()) {
      device_key = CanonicalRequest(node.device());
    }
    auto color = color_index_.find(device_key);
    if (!device_key.empty() && color != color_index_.end()) {
      attrs.push_back(
          absl::StrCat("fillcolor=\"", DeviceColor(color->second), "\""));
    }
    attrs.push_back(absl::StrCat("tooltip=", Quote(tooltip)));
    absl::StrAppend(&out_, Indent(depth), Quote(node.name()), " [",
                    absl::StrJoin(attrs, " "), "];\n");
  }

  void WriteEdges() {
    for (const NodeDef& node : def_.node()) {
      for (const std::string& input : node.input()) {
        if (absl::StartsWith(input, "^")) {
          absl::StrAppend(&out_, "  ", Quote(input.substr(1)), " -> ",
                          Quote(node.name()),
                          " [style=dashed color=\"#909090\"];\n");
          continue;
        }
        std::string source = input;
        std::string port;
        const size_t colon = input.rfind(':');
        if (colon != std::string::npos) {
          source = input.substr(0, colon);
          port = input.substr(colon + 1);
        }
        absl::StrAppend(&out_, "  ", Quote(source), " -> ", Quote(node.name()));
        if (!port.empty() && port != "0") {
          absl::StrAppend(&out_, " [tooltip=", Quote(input), "]");
        }
        absl::StrAppend(&out_, ";\n");
      }
    }
  }

  void WriteLegend() {
    const bool placed = placement_ != nullptr;
    if (!placed && devices_.empty()) return;
    int num_unrequested = 0;
    for (const NodeDef& node : def_.node()) {
      num_unrequested += node.device().empty();
    }
    const int num_fallbacks = placed ? placement_->num_soft_fallbacks() : 0;
    absl::StrAppend(
        &out_, "  \"_dflow:legend\" [shape=plain style=\"\" label=<",
        Legend(devices_, placed, num_unrequested, num_fallbacks), ">];\n");
  }

  const GraphDef& def_;
  const PlacementRecord* placement_;
  std::map<std::string, const NodePlacement*> placed_;
  std::vector<DeviceColorEntry> devices_;
  std::map<std::string, int> color_index_;
  ScopeTree root_;
  std::vector<std::string> short_names_;
  int num_clusters_ = 0;
  std::string out_;
};

}  // namespace

std::string GraphToDot(const GraphDef& def, const PlacementRecord* placement) {
  return DotWriter(def, placement).Write();
}

}  // namespace dflow
