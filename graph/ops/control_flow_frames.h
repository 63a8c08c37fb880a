// Which loop frame every node of a graph runs in (TensorFlow's control-flow
// info), for the passes and tools that see a graph before the executor
// does: partitioning (a loop cut across devices needs a control loop on
// each device, runtime/executor_frames.cc's frames on both sides), the
// placement log and `dflow dot` (they show frames).
//
// A frame is a loop's static frame: its name (the Enter's `frame_name`)
// inside its parent frame; frame 0 is the root. A node runs in the frame
// of its inputs (data and control; a NextIteration's back edge does not
// count): the frame an Enter starts for what it feeds, the parent frame
// for what an Exit feeds. A node with no inputs runs in the root frame.
// The executor derives the same frames when it runs the graph.
#ifndef DFLOW_GRAPH_OPS_CONTROL_FLOW_FRAMES_H_
#define DFLOW_GRAPH_OPS_CONTROL_FLOW_FRAMES_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "graph/graph.h"

namespace dflow {

class ControlFlowFrames {
 public:
  struct Frame {
    std::string name;  // empty for the root
    int parent = -1;   // -1 for the root
    int parallel_iterations = 10;
    // The frame's LoopCond: what decides whether another iteration runs.
    // Null for the root and for a frame without one (which cannot be cut
    // across devices).
    const Node* loop_cond = nullptr;
    // An Enter of a loop variable (is_constant false; any Enter if the
    // frame has none): it is dead exactly when the loop does not start (in
    // the last iteration of an enclosing loop, in a branch not taken).
    const Node* variable_enter = nullptr;
  };

  // Errors name the node: inputs from two frames, an Exit outside every
  // loop, an Enter without a frame name, a cycle that is not a loop.
  static absl::StatusOr<ControlFlowFrames> Build(const Graph& graph);

  const std::vector<Frame>& frames() const { return frames_; }
  const Frame& frame(int id) const { return frames_[id]; }
  bool has_loops() const { return frames_.size() > 1; }

  // The frame `node` runs in (an Enter: the frame its input is in).
  int FrameOf(const Node& node) const { return frame_of_[node.id()]; }
  // The frame `node`'s outputs are read in: an Enter's own frame is its
  // parent, its outputs are read in the frame it starts; an Exit's outputs
  // are read in the parent of its frame.
  int OutputFrame(const Node& node) const;
  // The frame `node`'s inputs come from (the frame it runs in; for an Enter,
  // that is where its input lives too).
  int InputFrame(const Node& node) const { return FrameOf(node); }

  // Frame `id` and its ancestors, innermost first, the root excluded.
  std::vector<int> Chain(int id) const;
  // "outer/inner" style path of frame names for messages and logs ("" for
  // the root): the names joined by " > ".
  std::string Path(int id) const;

 private:
  std::vector<Frame> frames_;
  std::vector<int> frame_of_;  // by node id
  std::vector<int> child_of_;  // by node id: an Enter's frame, else -1
  std::vector<bool> is_exit_;  // by node id
};

}  // namespace dflow

#endif  // DFLOW_GRAPH_OPS_CONTROL_FLOW_FRAMES_H_
