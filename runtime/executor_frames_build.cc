// Executor::BuildFrames: the static frame layout the frame step
// (executor_frames.cc) runs on. Which frame each node runs in comes from
// graph/ops/control_flow_frames.h, as partitioning and the placement log
// see it; here each frame gets its nodes' local indices and input tables,
// and each node what the step needs to know about it.
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "graph/node_def_util.h"
#include "graph/ops/control_flow_frames.h"
#include "graph/ops/control_flow_ops.h"
#include "runtime/executor.h"

namespace dflow {

absl::Status Executor::BuildFrames(const Graph& graph,
                                   const std::vector<Node*>& order,
                                   const std::vector<int>& index_of) {
  absl::StatusOr<ControlFlowFrames> cf = ControlFlowFrames::Build(graph);
  if (!cf.ok()) return cf.status();
  // Which nodes FrameStep computes itself (LoopNodeInfo::forward): the CPU
  // kernels of these ops only forward values (kernels/cpu/
  // control_flow_ops.cc, identity_ops.cc), or hand on a constant. Not the
  // Ref forms, nor nodes reading a variable as a value.
  auto forward_kind = [](const Node& n, const NodeItem& item) {
    using Forward = LoopNodeInfo::Forward;
    if (item.device->kernel_device_type() != "CPU" ||
        !item.deref_slots.empty()) {
      return Forward::kNone;
    }
    const std::string& op = n.op();
    if (op == "Identity" || op == "LoopCond" || op == "Enter" || op == "Exit" ||
        op == "NextIteration") {
      return Forward::kValue;
    }
    if (op == "Const") return Forward::kConst;
    if (op == "Switch") return Forward::kSwitch;
    if (op == "Merge") return Forward::kMerge;
    if (op == "NoOp") return Forward::kNoOp;
    return Forward::kNone;
  };
  // LoopNodeInfo::serial_kernel: what a serial loop may run (synchronous,
  // CPU, no transfer, no reference in or out). Of the internal "_" ops
  // (transfers, arguments) only the fused kernels (_FusedMatMul,
  // _FusedConv2D, _FusedElementwise) qualify: they compute and nothing else
  // (the fused collectives are asynchronous).
  // LoopNodeInfo::small_kernel: what FrameStep may run under its lock: the
  // same, and neither state nor resource handles (it must never block
  // there).
  auto may_run_serially = [](const Node& n, const NodeItem& item) {
    if (item.device->kernel_device_type() != "CPU" ||
        !item.deref_slots.empty() || item.kernel->AsAsync() != nullptr ||
        item.may_output_dead || item.runs_when_dead ||
        !item.dead_fetch_error.empty() ||
        (absl::StartsWith(n.op(), "_") &&
         !absl::StartsWith(n.op(), "_Fused"))) {
      return false;
    }
    for (int k = 0; k < n.num_inputs(); ++k) {
      if (IsRefType(n.input_type(k))) return false;
    }
    for (int k = 0; k < n.num_outputs(); ++k) {
      if (IsRefType(n.output_type(k))) return false;
    }
    return true;
  };
  auto may_run_under_lock = [&](const Node& n, const NodeItem& item) {
    if (!may_run_serially(n, item) || n.IsStateful()) return false;
    for (int k = 0; k < n.num_inputs(); ++k) {
      if (n.input_type(k) == DT_RESOURCE) return false;
    }
    for (int k = 0; k < n.num_outputs(); ++k) {
      if (n.output_type(k) == DT_RESOURCE) return false;
    }
    return true;
  };
  frames_.assign(cf->frames().size(), FrameInfo{});
  for (size_t f = 0; f < frames_.size(); ++f) {
    frames_[f].name = cf->frame(f).name;
    frames_[f].parent = cf->frame(f).parent;
    frames_[f].parallel_iterations = cf->frame(f).parallel_iterations;
  }
  loop_nodes_.assign(order.size(), LoopNodeInfo{});
  for (size_t i = 0; i < order.size(); ++i) {
    const Node* n = order[i];
    LoopNodeInfo& info = loop_nodes_[i];
    const int frame = cf->FrameOf(*n);
    info.frame = frame;
    info.local = frames_[frame].num_nodes++;
    info.local_input = frames_[frame].num_inputs;
    frames_[frame].num_inputs += n->num_inputs();
    const std::string& op = n->op();
    if (IsEnterOp(op)) {
      info.child_frame = cf->OutputFrame(*n);
      ++frames_[info.child_frame].num_enters;
      bool is_constant = false;
      n->GetAttr("is_constant", &is_constant).IgnoreError();
      info.is_constant = is_constant;
    } else if (IsExitOp(op)) {
      info.is_exit = true;
      frames_[frame].exits.push_back(static_cast<int>(i));
    } else if (IsNextIterationOp(op)) {
      info.is_next_iteration = true;
      for (const Edge* e : n->out_edges()) {
        if (!IsMergeOp(e->dst->op())) {
          return absl::InvalidArgumentError(absl::StrCat(
              NodeLabel(n->def()), " feeds ", NodeLabel(e->dst->def()),
              "; a NextIteration feeds its loop's Merge only"));
        }
      }
    }
    info.forward = forward_kind(*n, nodes_[i]);
    info.small_kernel = info.forward == LoopNodeInfo::Forward::kNone &&
                        may_run_under_lock(*n, nodes_[i]);
    info.serial_kernel = info.forward == LoopNodeInfo::Forward::kNone &&
                         may_run_serially(*n, nodes_[i]);
    if (info.forward == LoopNodeInfo::Forward::kConst) {
      // A Const's kernel outputs the same tensor every time: take it once,
      // from the kernel itself (same buffer, same allocator).
      OpKernelContext::Params params;
      params.kernel = nodes_[i].kernel.get();
      params.device = nodes_[i].device;
      OpKernelContext ctx(params);
      nodes_[i].kernel->Compute(&ctx);
      const TensorValue& out = (*ctx.outputs())[0];
      if (ctx.status().ok() && out.var == nullptr &&
          out.tensor.IsInitialized()) {
        info.constant = out.tensor;
      } else {
        info.forward = LoopNodeInfo::Forward::kNone;  // its errors at run time
      }
    }
    if (IsMergeOp(op)) {
      for (const Edge* e : n->in_edges()) {
        if (e->IsControl()) {
          ++info.merge_controls;
        } else {
          ++info.merge_data_inputs;
        }
      }
    }
  }
  // A NextIteration's Merge must sit in its frame (its edge was skipped).
  for (size_t i = 0; i < order.size(); ++i) {
    if (!loop_nodes_[i].is_next_iteration) continue;
    for (const Edge* e : order[i]->out_edges()) {
      const int dst = index_of[e->dst->id()];
      if (loop_nodes_[dst].frame != loop_nodes_[i].frame) {
        return absl::InvalidArgumentError(absl::StrCat(
            NodeLabel(order[i]->def()), " feeds ", NodeLabel(e->dst->def()),
            " in another frame; a NextIteration feeds the Merge of its own "
            "loop"));
      }
    }
  }
  frame_edges_.clear();
  frame_edges_.reserve(out_edges_.size());
  for (const OutEdge& edge : out_edges_) {
    const LoopNodeInfo& ln = loop_nodes_[edge.dst];
    const NodeItem& dst = nodes_[edge.dst];
    FrameEdge f;
    f.dst = edge.dst;
    f.local = ln.local;
    f.slot = edge.slot < 0 ? -1 : ln.local_input + edge.slot - dst.input_start;
    f.src_output = edge.src_output;
    f.merge_data_inputs = dst.is_merge ? ln.merge_data_inputs : -1;
    f.last_use = edge.last_use;
    f.skip_dead = ln.is_exit || ln.is_next_iteration;
    frame_edges_.push_back(f);
  }
  BuildSerialLoops(order, index_of);
  return absl::OkStatus();
}

}  // namespace dflow
