// Serial loops (runtime/executor_serial_loop.h): which frames qualify, their
// programs, and running one.
#include "runtime/executor_serial_loop.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "graph/graph.h"
#include "graph/ops/control_flow_ops.h"
#include "runtime/executor_frame_step.h"
#include "runtime/thread_pool.h"

namespace dflow {
namespace {

std::atomic<int64_t> serial_loop_runs{0};

// The part of an iteration a node runs in (executor_serial_loop.h).
enum class Part : uint8_t { kCondition, kBody, kExits };

}  // namespace

int64_t SerialLoopRunsForTesting() {
  return serial_loop_runs.load(std::memory_order_relaxed);
}

void Executor::BuildSerialLoops(const std::vector<Node*>& order,
                                const std::vector<int>& index_of) {
  const int num_frames = static_cast<int>(frames_.size());
  std::vector<std::vector<int>> members(num_frames);  // in node order
  std::vector<std::vector<int>> enters(num_frames);
  std::vector<bool> has_inner_loop(num_frames, false);
  for (size_t i = 0; i < order.size(); ++i) {
    const LoopNodeInfo& ln = loop_nodes_[i];
    members[ln.frame].push_back(static_cast<int>(i));
    if (ln.child_frame >= 0) {
      enters[ln.child_frame].push_back(static_cast<int>(i));
      has_inner_loop[ln.frame] = true;
    }
  }
  for (int f = 1; f < num_frames; ++f) {
    if (has_inner_loop[f]) continue;
    frames_[f].serial =
        CompileSerialLoop(members[f], enters[f], order, index_of);
    if (frames_[f].serial != nullptr && loop_tuner_ == nullptr) {
      loop_tuner_ = std::make_unique<LoopPathTuner>();
    }
  }
}

std::shared_ptr<const Executor::SerialLoop> Executor::CompileSerialLoop(
    const std::vector<int>& members, const std::vector<int>& enters,
    const std::vector<Node*>& order, const std::vector<int>& index_of) const {
  using Forward = LoopNodeInfo::Forward;
  auto loop = std::make_shared<SerialLoop>();
  loop->enters = enters;
  absl::flat_hash_map<int, int> entered_slot;
  for (size_t k = 0; k < enters.size(); ++k) {
    const int e = enters[k];
    entered_slot[e] = static_cast<int>(k);
    if (loop_nodes_[e].is_constant) continue;
    // A value entered once feeds Merges only.
    for (const Edge* out : order[e]->out_edges()) {
      if (out->IsControl() || !IsMergeOp(out->dst->op())) return nullptr;
    }
  }
  int next_slot = static_cast<int>(enters.size());
  // Per member: its part and the slot of each output (-1: none).
  absl::flat_hash_map<int, Part> part_of;
  absl::flat_hash_map<int, std::vector<int>> slot_of;
  // NextIteration -> the slot of the Merge it feeds, and of its value.
  absl::flat_hash_map<int, int> variable_of_next;
  absl::flat_hash_map<int, int> carried_slot;
  int loop_cond = -1;
  bool has_switch = false;
  for (int i : members) {
    const Node* n = order[i];
    const LoopNodeInfo& ln = loop_nodes_[i];
    if (ln.forward == Forward::kNone && !ln.serial_kernel) return nullptr;
    if (n->op() == "LoopCond") {
      if (loop_cond >= 0) return nullptr;
      loop_cond = i;
    }
    if (ln.forward == Forward::kMerge) {
      // One Enter that is not a constant and one NextIteration; nothing
      // reads its value_index.
      int enter = -1, next = -1;
      for (const Edge* e : n->in_edges()) {
        if (e->IsControl()) return nullptr;
        const int src = index_of[e->src->id()];
        if (auto s = entered_slot.find(src);
            s != entered_slot.end() && !loop_nodes_[src].is_constant) {
          enter = s->second;
        } else if (loop_nodes_[src].is_next_iteration &&
                   loop_nodes_[src].frame == ln.frame) {
          next = src;
        }
      }
      const int slot = next_slot++;
      if (n->num_inputs() != 2 || enter < 0 || next < 0 ||
          !variable_of_next.emplace(next, slot).second) {
        return nullptr;
      }
      for (const Edge* e : n->out_edges()) {
        if (!e->IsControl() && e->src_output != 0) return nullptr;
      }
      loop->starts.emplace_back(slot, enter);
      part_of[i] = Part::kCondition;
      slot_of[i] = {slot};
      continue;
    }
    // The node's part is that of what it reads; its inputs' slots.
    bool in_body = false, in_exits = false;
    std::vector<int> inputs(n->num_inputs(), -1);
    int pred_source = -1;
    for (const Edge* e : n->in_edges()) {
      const int src = index_of[e->src->id()];
      int slot = -1;
      if (auto s = entered_slot.find(src); s != entered_slot.end()) {
        // Non-constant Enters feed Merges only (checked above).
        slot = s->second;
      } else if (auto p = part_of.find(src); p != part_of.end()) {
        Part part = p->second;
        // A Switch's outputs belong to the body (1) and the exits (0); a
        // control edge from it is live whenever the Switch ran, as in the
        // usual path (a TF1 gradient's group_deps on a Merge's grad).
        if (loop_nodes_[src].forward == Forward::kSwitch && !e->IsControl()) {
          part = e->src_output == 1 ? Part::kBody : Part::kExits;
        }
        in_body |= part == Part::kBody;
        in_exits |= part == Part::kExits;
        if (!e->IsControl()) slot = slot_of[src][e->src_output];
      } else {
        return nullptr;  // (cannot happen in a graph whose frames agree)
      }
      if (e->IsControl()) continue;
      if (slot < 0) return nullptr;
      inputs[e->dst_input] = slot;
      if (e->dst_input == 1) pred_source = src;
    }
    if (in_body && in_exits) return nullptr;
    for (int slot : inputs) {
      if (slot < 0) return nullptr;  // an input fed by nothing
    }
    const Part part = in_body    ? Part::kBody
                      : in_exits ? Part::kExits
                                 : Part::kCondition;
    // Only the Exits run in the last iteration's exit part.
    if ((part == Part::kExits) != ln.is_exit) return nullptr;
    part_of[i] = part;
    switch (ln.forward) {
      case Forward::kValue:  // Identity, LoopCond, NextIteration, Exit
        slot_of[i] = {inputs[0]};
        if (ln.is_next_iteration) {
          if (part != Part::kBody) return nullptr;
          carried_slot[i] = inputs[0];
        } else if (ln.is_exit) {
          loop->exits.push_back({i, {inputs[0], false}});
        } else if (i == loop_cond && part != Part::kCondition) {
          return nullptr;
        }
        break;
      case Forward::kSwitch:
        if (part != Part::kCondition || pred_source != loop_cond ||
            loop_cond < 0) {
          return nullptr;  // a conditional inside the loop
        }
        has_switch = true;
        loop->predicate_switch = i;
        slot_of[i] = {inputs[0], inputs[0]};
        break;
      case Forward::kConst: {
        const int slot = next_slot++;
        loop->constants.emplace_back(slot, ln.constant);
        slot_of[i] = {slot};
        break;
      }
      case Forward::kNoOp:
        slot_of[i] = {};
        break;
      case Forward::kMerge:
        return nullptr;  // (handled above)
      case Forward::kNone: {
        SerialLoop::KernelRun run;
        run.node = i;
        for (int slot : inputs) run.inputs.push_back({slot, false});
        std::vector<int> slots(n->num_outputs(), -1);
        for (const Edge* e : n->out_edges()) {
          if (e->IsControl() || slots[e->src_output] >= 0) continue;
          slots[e->src_output] = next_slot++;
          run.outputs.emplace_back(e->src_output, slots[e->src_output]);
        }
        slot_of[i] = std::move(slots);
        loop->max_inputs =
            std::max(loop->max_inputs, static_cast<int>(inputs.size()));
        loop->kernels.push_back(i);
        (part == Part::kBody ? loop->body : loop->condition)
            .push_back(std::move(run));
        break;
      }
    }
  }
  if (loop_cond < 0 || !has_switch ||
      variable_of_next.size() != carried_slot.size()) {
    return nullptr;  // (every NextIteration feeds a Merge: BuildFrames)
  }
  loop->predicate = slot_of[loop_cond][0];
  for (const auto& [next, variable] : variable_of_next) {
    loop->carries.push_back({variable, {carried_slot[next], false}});
  }
  std::sort(loop->carries.begin(), loop->carries.end(),  // Merge order
            [](const SerialLoop::Carry& a, const SerialLoop::Carry& b) {
              return a.variable < b.variable;
            });
  loop->num_slots = next_slot;

  // Which reads take their value: the last of the slot's reads in the
  // iteration, whichever way it ends (body and carries, or exits). The
  // Enters' and Consts' slots serve every iteration; the predicate is read
  // between the condition part and the rest.
  std::vector<bool> persistent(loop->num_slots, false);
  for (size_t k = 0; k < enters.size(); ++k) persistent[k] = true;
  for (const auto& [slot, value] : loop->constants) persistent[slot] = true;
  struct Reads {
    SerialLoop::Read* last = nullptr;
    int count = 0;
  };
  std::vector<Reads> condition(loop->num_slots), body(loop->num_slots),
      carries(loop->num_slots), exits(loop->num_slots);
  auto note = [](std::vector<Reads>* reads, SerialLoop::Read* r) {
    (*reads)[r->slot].last = r;
    ++(*reads)[r->slot].count;
  };
  for (SerialLoop::KernelRun& run : loop->condition) {
    for (SerialLoop::Read& r : run.inputs) note(&condition, &r);
  }
  for (SerialLoop::KernelRun& run : loop->body) {
    for (SerialLoop::Read& r : run.inputs) note(&body, &r);
  }
  for (SerialLoop::Carry& c : loop->carries) note(&carries, &c.value);
  for (SerialLoop::ExitRun& x : loop->exits) note(&exits, &x.value);
  for (int s = 0; s < loop->num_slots; ++s) {
    if (persistent[s]) continue;
    if (condition[s].last != nullptr && s != loop->predicate &&
        body[s].count == 0 && carries[s].count == 0 && exits[s].count == 0) {
      condition[s].last->take = true;
    }
    if (body[s].last != nullptr && carries[s].count == 0) {
      body[s].last->take = true;
    }
    if (carries[s].last != nullptr) carries[s].last->take = true;
    if (exits[s].last != nullptr) exits[s].last->take = true;
  }
  return loop;
}

namespace {
std::atomic<LoopTimeForTesting> loop_time_for_testing{nullptr};
}  // namespace

void SetLoopTimeForTesting(LoopTimeForTesting time) {
  loop_time_for_testing.store(time, std::memory_order_release);
}

namespace {

// Whether every kernel of a serial loop was measured cheaper than a hand-off.
bool AllCheap(const std::vector<int>& kernels,
              const std::atomic<uint8_t>* inline_flags) {
  for (int node : kernels) {
    if (inline_flags[node].load(std::memory_order_relaxed) == 0) return false;
  }
  return true;
}

}  // namespace

void Executor::FrameStep::DrawLoopPath() {
  if (exec_->loop_tuner_ == nullptr || args_.stats != nullptr ||
      exec_->pool_->num_threads() <= 1) {
    return;
  }
  bool needed = false;  // a serial loop whose kernels are not all cheap
  for (const FrameInfo& info : exec_->frames_) {
    needed = needed || (info.serial != nullptr &&
                        !AllCheap(info.serial->kernels, exec_->inline_.get()));
  }
  if (!needed) return;
  loop_path_drawn_ = true;
  loop_path_ = exec_->loop_tuner_->Next(&loop_path_timed_);
}

LoopPath Executor::FrameStep::ChooseLoopPath(int frame, bool* tuned) {
  *tuned = false;
  const FrameInfo& info = exec_->frames_[frame];
  if (info.serial == nullptr || args_.stats != nullptr) return LoopPath::kUsual;
  if (exec_->pool_->num_threads() <= 1) return LoopPath::kSerial;
  // Kernels each cheaper than a hand-off gain nothing from other threads.
  if (!loop_path_drawn_ || AllCheap(info.serial->kernels, exec_->inline_.get())) {
    return LoopPath::kSerial;
  }
  *tuned = true;
  return loop_path_;
}

void Executor::FrameStep::CountTunedIterations(const FrameInstance& f) {
  tuned_iterations_ +=
      f.serial ? f.serial_iterations : std::max<int64_t>(1, f.newest + 1);
}

void Executor::FrameStep::RecordLoopTime() {
  int64_t nanos = absl::ToInt64Nanoseconds(absl::Now() - start_);
  if (LoopTimeForTesting hook =
          loop_time_for_testing.load(std::memory_order_acquire)) {
    nanos = hook(loop_path_) * std::max<int64_t>(1, tuned_iterations_);
  }
  exec_->loop_tuner_->Record(loop_path_, nanos, tuned_iterations_);
}

bool Executor::FrameStep::ReadySerialLoop(FrameInstance* f, ReadyList* ready) {
  // A value that is a variable (a stack's or TensorArray's handle) is fine:
  // the loop's kernels take no reference inputs and dereference nothing
  // (LoopNodeInfo::serial_kernel), so they see what the usual path gives.
  bool live = true;
  for (const FrameInstance::Entered& e : f->entered) live = live && e.live;
  if (live) {
    ready->push_back(Tagged{kSerialLoop, f, 0, nullptr});
    return true;
  }
  // The usual path, as if the frame had never been serial.
  std::vector<FrameInstance::Entered> entered = std::move(f->entered);
  f->entered.clear();
  f->serial = false;
  f->tuned = false;  // not the path it was to measure
  for (FrameInstance::Entered& e : entered) {
    OpKernelContext::OutputValues value;
    value.push_back(std::move(e.value));
    EnterValue(f, e.enter, e.live ? &value : nullptr, ready);
  }
  return false;
}

void Executor::FrameStep::RunSerialLoop(FrameInstance* f, ReadyList* ready) {
  const SerialLoop& loop = *Info(f).serial;
  serial_loop_runs.fetch_add(1, std::memory_order_relaxed);
  std::vector<TensorValue> slots(loop.num_slots);
  for (FrameInstance::Entered& e : f->entered) {
    const size_t k =
        std::find(loop.enters.begin(), loop.enters.end(), e.enter) -
        loop.enters.begin();
    slots[k] = std::move(e.value);
  }
  f->entered.clear();
  for (const auto& [slot, value] : loop.constants) slots[slot].tensor = value;
  for (const auto& [variable, from] : loop.starts) {
    slots[variable] = std::move(slots[from]);
  }
  auto read = [&slots](const SerialLoop::Read& r, TensorValue* to) {
    if (r.take) {
      *to = std::move(slots[r.slot]);
    } else {
      *to = slots[r.slot];
    }
  };
  // The kernels' params, the same in every iteration but for the
  // iteration itself.
  std::vector<TensorValue> in(std::max(1, loop.max_inputs));
  auto params_of = [&](const std::vector<SerialLoop::KernelRun>& runs) {
    std::vector<OpKernelContext::Params> params;
    params.reserve(runs.size());
    for (const SerialLoop::KernelRun& run : runs) {
      params.push_back(KernelParams(Tagged{run.node, f, 0, nullptr},
                                    exec_->nodes_[run.node], in.data()));
    }
    return params;
  };
  std::vector<OpKernelContext::Params> condition_params =
      params_of(loop.condition);
  std::vector<OpKernelContext::Params> body_params = params_of(loop.body);
  // Runs `runs` for iteration `iter`; false when one failed (the step is
  // aborted).
  auto run_kernels = [&](const std::vector<SerialLoop::KernelRun>& runs,
                         std::vector<OpKernelContext::Params>* params,
                         int64_t iter) {
    for (size_t k = 0; k < runs.size(); ++k) {
      const SerialLoop::KernelRun& run = runs[k];
      const NodeItem& item = exec_->nodes_[run.node];
      for (size_t j = 0; j < run.inputs.size(); ++j) {
        read(run.inputs[j], &in[j]);
      }
      (*params)[k].iteration = iter;
      OpKernelContext ctx((*params)[k]);
      item.kernel->Compute(&ctx);
      ClearValues(in.data(), item.num_inputs);
      OpKernelContext::OutputValues* produced = ctx.outputs();
      bool ok = ctx.status().ok();
      for (const auto& [output, slot] : run.outputs) {
        ok = ok && IsLive((*produced)[output]);
      }
      if (!ok) {  // the usual path's error
        absl::Status error;
        CheckedOutputs(Tagged{run.node, f, iter, nullptr}, &ctx, &error);
        Abort(error.ok() ? absl::InternalError(
                               absl::StrCat(item.label, ": left out an output"))
                         : error);
        return false;
      }
      for (const auto& [output, slot] : run.outputs) {
        slots[slot] = std::move((*produced)[output]);
      }
    }
    return true;
  };
  std::vector<TensorValue> carried(loop.carries.size());
  std::vector<TensorValue> exits;  // by loop.exits, once the loop ended
  std::optional<ThreadPool::ScopedRunOnCaller> one_thread;
  if (f->path == LoopPath::kSerialOneThread) one_thread.emplace();
  for (int64_t iter = 0; !aborted_; ++iter) {
    f->serial_iterations = iter + 1;
    if (StopRequested()) {
      if (absl::Status s = StopStatus(); !s.ok()) {
        Abort(s);
        break;
      }
    }
    if (!run_kernels(loop.condition, &condition_params, iter)) break;
    const TensorValue& pred = slots[loop.predicate];
    if (pred.var != nullptr || pred.tensor.dtype() != DT_BOOL ||
        pred.tensor.NumElements() != 1) {  // the Switch kernel's error
      Abort(absl::InvalidArgumentError(
          absl::StrCat(exec_->nodes_[loop.predicate_switch].label,
                       ": pred must be a bool scalar, got a ",
                       DataTypeName(pred.tensor.dtype()), " tensor of shape ",
                       pred.tensor.shape().ToString(), " (in frame '",
                       Info(f).name, "', iteration ", iter, ")")));
      break;
    }
    if (!pred.tensor.data<bool>()[0]) {
      exits.resize(loop.exits.size());
      for (size_t x = 0; x < loop.exits.size(); ++x) {
        read(loop.exits[x].value, &exits[x]);
      }
      break;
    }
    if (!run_kernels(loop.body, &body_params, iter)) break;
    // Read every carried value before any loop variable changes (a body
    // may swap two of them).
    for (size_t c = 0; c < loop.carries.size(); ++c) {
      read(loop.carries[c].value, &carried[c]);
    }
    for (size_t c = 0; c < loop.carries.size(); ++c) {
      slots[loop.carries[c].variable] = std::move(carried[c]);
    }
  }
  one_thread.reset();
  slots.clear();  // the loop's values go before the lock is taken
  ChangeAndForward(ready, [&] {
    if (!aborted_) {
      OpKernelContext::OutputValues out(1);
      for (size_t x = 0; x < exits.size(); ++x) {
        out[0] = std::move(exits[x]);
        f->live_exits.push_back(loop.exits[x].node);
        Activate(f->parent, f->parent_iter, loop.exits[x].node, &out, false,
                 ready);
      }
    }
    --f->pending_enters;          // ReadySerialLoop's hold on the frame
    CleanupIterations(f, ready);  // may free f
  });
}

}  // namespace dflow
