#include "graph/ops/control_flow_frames.h"

#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "graph/node_def_util.h"
#include "graph/ops/control_flow_ops.h"

namespace dflow {

namespace {

bool IsConstantEnter(const Node& enter) {
  bool is_constant = false;
  enter.GetAttr("is_constant", &is_constant).IgnoreError();
  return is_constant;
}

}  // namespace

absl::StatusOr<ControlFlowFrames> ControlFlowFrames::Build(const Graph& graph) {
  ControlFlowFrames info;
  info.frames_.push_back(Frame{});  // the root
  info.frame_of_.assign(graph.num_node_ids(), 0);
  info.child_of_.assign(graph.num_node_ids(), -1);
  info.is_exit_.assign(graph.num_node_ids(), false);
  if (!GraphHasLoops(graph)) return info;
  absl::StatusOr<std::vector<Node*>> order = graph.TopologicalOrder();
  if (!order.ok()) return order.status();
  auto name_of = [&info](int id) {
    return id == 0 ? std::string("the root frame")
                   : absl::StrCat("frame '", info.Path(id), "'");
  };
  // (parent frame, frame_name) -> frame id
  std::map<std::pair<int, std::string>, int> ids;
  for (const Node* n : *order) {
    int frame = -1;
    const Node* from = nullptr;
    for (const Edge* e : n->in_edges()) {
      if (IsNextIterationOp(e->src->op())) continue;  // a back edge
      // (An Exit in the root frame was refused before its readers came.)
      const int f = info.OutputFrame(*e->src);
      if (frame >= 0 && f != frame) {
        return absl::InvalidArgumentError(absl::StrCat(
            NodeLabel(n->def()), " has inputs from two frames: ",
            NodeLabel(from->def()), " in ", name_of(frame), " and ",
            NodeLabel(e->src->def()), " in ", name_of(f),
            "; values enter a loop through Enter and leave it through Exit"));
      }
      frame = f;
      from = e->src;
    }
    if (frame < 0) frame = 0;
    info.frame_of_[n->id()] = frame;
    const std::string& op = n->op();
    if (IsEnterOp(op)) {
      std::string name;
      if (!n->GetAttr("frame_name", &name).ok() || name.empty()) {
        return absl::InvalidArgumentError(
            absl::StrCat(NodeLabel(n->def()),
                         " has no frame_name; every Enter names the loop "
                         "it enters"));
      }
      auto [it, added] = ids.try_emplace(std::make_pair(frame, name),
                                         static_cast<int>(info.frames_.size()));
      if (added) {
        Frame child;
        child.name = name;
        child.parent = frame;
        int64_t parallel = 10;
        if (n->GetAttr("parallel_iterations", &parallel).ok() && parallel > 0) {
          child.parallel_iterations = static_cast<int>(parallel);
        }
        info.frames_.push_back(std::move(child));
      }
      info.child_of_[n->id()] = it->second;
      const Node*& variable = info.frames_[it->second].variable_enter;
      if (variable == nullptr ||
          (!IsConstantEnter(*n) && IsConstantEnter(*variable))) {
        variable = n;
      }
    } else if (IsExitOp(op)) {
      if (frame == 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            NodeLabel(n->def()),
            " is an Exit outside every loop: nothing it reads came through "
            "an Enter"));
      }
      info.is_exit_[n->id()] = true;
    } else if (op == "LoopCond" && frame != 0) {
      info.frames_[frame].loop_cond = n;
    }
  }
  return info;
}

int ControlFlowFrames::OutputFrame(const Node& node) const {
  if (child_of_[node.id()] >= 0) return child_of_[node.id()];
  const int frame = frame_of_[node.id()];
  if (is_exit_[node.id()]) return frames_[frame].parent;
  return frame;
}

std::vector<int> ControlFlowFrames::Chain(int id) const {
  std::vector<int> chain;
  for (int f = id; f > 0; f = frames_[f].parent) chain.push_back(f);
  return chain;
}

std::string ControlFlowFrames::Path(int id) const {
  std::string path;
  for (int f : Chain(id)) {
    path = path.empty() ? frames_[f].name
                        : absl::StrCat(frames_[f].name, " > ", path);
  }
  return path;
}

}  // namespace dflow
