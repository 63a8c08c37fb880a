#include "formats/subgraph.h"

#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace dflow {

std::string NodeNameOf(absl::string_view name) {
  absl::ConsumePrefix(&name, "^");
  const size_t colon = name.rfind(':');
  int index;
  if (colon != absl::string_view::npos &&
      absl::SimpleAtoi(name.substr(colon + 1), &index)) {
    name = name.substr(0, colon);
  }
  return std::string(name);
}

absl::StatusOr<GraphDef> SubgraphNeededFor(
    const GraphDef& def, const std::vector<std::string>& roots,
    absl::string_view source) {
  absl::flat_hash_map<std::string, int> index;
  for (int i = 0; i < def.node_size(); ++i)
    index.emplace(def.node(i).name(), i);
  std::vector<bool> keep(def.node_size(), false);
  std::vector<int> stack;
  auto visit = [&](const std::string& name) {
    auto it = index.find(name);
    if (it == index.end() || keep[it->second]) return;
    keep[it->second] = true;
    stack.push_back(it->second);
  };
  for (const std::string& root : roots) {
    const std::string node = NodeNameOf(root);
    if (!index.contains(node)) {
      return absl::NotFoundError(absl::StrCat(
          "'", source, "' has no node '", node, "' (asked for as '", root,
          "'); check the name with dflow inspect"));
    }
    visit(node);
  }
  while (!stack.empty()) {
    const NodeDef& n = def.node(stack.back());
    stack.pop_back();
    for (const std::string& input : n.input()) visit(NodeNameOf(input));
    auto cls = n.attr().find("_class");
    if (cls != n.attr().end() && cls->second.has_list()) {
      for (absl::string_view entry : cls->second.list().s()) {
        if (absl::ConsumePrefix(&entry, "loc:@")) visit(std::string(entry));
      }
    }
  }
  GraphDef out;
  *out.mutable_versions() = def.versions();
  *out.mutable_library() = def.library();
  for (int i = 0; i < def.node_size(); ++i) {
    if (keep[i]) *out.add_node() = def.node(i);
  }
  return out;
}

}  // namespace dflow
