// Serial loops (runtime/executor_serial_loop.h): which frames qualify, and
// running one.
#include "runtime/executor_serial_loop.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "graph/graph.h"
#include "graph/ops/control_flow_ops.h"
#include "runtime/executor_frame_step.h"

namespace dflow {
namespace {

std::atomic<int64_t> serial_loop_runs{0};

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
    auto loop = std::make_shared<SerialLoop>();
    loop->enters = enters[f];
    // Node index order is the executor's topological order (back edges
    // left out): one iteration's dependency order.
    absl::flat_hash_map<int, int> step_of;
    int loop_cond = -1;
    bool plain = true;
    for (int i : members[f]) {
      const LoopNodeInfo& ln = loop_nodes_[i];
      if (ln.forward == LoopNodeInfo::Forward::kNone && !ln.small_kernel) {
        plain = false;
        break;
      }
      if (order[i]->op() == "LoopCond") {
        if (loop_cond >= 0) plain = false;
        loop_cond = i;
      }
      step_of[i] = static_cast<int>(loop->program.size());
      SerialLoop::Step step;
      step.node = i;
      step.is_merge = nodes_[i].is_merge;
      step.is_exit = ln.is_exit;
      step.is_kernel = ln.forward == LoopNodeInfo::Forward::kNone;
      step.is_const = ln.forward == LoopNodeInfo::Forward::kConst;
      loop->program.push_back(std::move(step));
    }
    if (!plain || loop_cond < 0) continue;
    absl::flat_hash_map<int, int> enter_index;
    for (size_t k = 0; k < loop->enters.size(); ++k) {
      const int e = loop->enters[k];
      enter_index[e] = static_cast<int>(k);
      if (loop_nodes_[e].is_constant) continue;
      // A value entered once feeds Merges only.
      for (const Edge* out : order[e]->out_edges()) {
        if (out->IsControl() || !IsMergeOp(out->dst->op())) plain = false;
      }
    }
    for (size_t k = 0; k < loop->program.size() && plain; ++k) {
      SerialLoop::Step& step = loop->program[k];
      const Node* n = order[step.node];
      step.inputs.resize(n->num_inputs());
      int next_iteration = -1;  // a Merge's
      for (const Edge* e : n->in_edges()) {
        SerialLoop::Source source;
        const int src = index_of[e->src->id()];
        if (auto s = step_of.find(src); s != step_of.end()) {
          source.step = s->second;
        } else if (auto en = enter_index.find(src); en != enter_index.end()) {
          source.enter = en->second;
        } else {
          plain = false;  // (cannot happen in a graph whose frames agree)
          break;
        }
        source.output = e->src_output;
        if (e->IsControl()) {
          step.controls.push_back(source);
          continue;
        }
        step.inputs[e->dst_input] = source;
        if (step.is_merge) {
          if (source.step >= 0 &&
              loop_nodes_[loop->program[source.step].node].is_next_iteration) {
            next_iteration = source.step;
            step.merge_next_slot = e->dst_input;
          } else if (source.enter >= 0 &&
                     !loop_nodes_[loop->enters[source.enter]].is_constant) {
            step.merge_enter = source.enter;
            step.merge_enter_slot = e->dst_input;
          }
        }
      }
      if (!plain) break;
      if (step.is_merge) {
        // An Enter and a NextIteration, nothing else.
        if (n->num_inputs() != 2 || !step.controls.empty() ||
            step.merge_enter < 0 || next_iteration < 0 ||
            loop->program[next_iteration].next_merge >= 0) {
          plain = false;
          break;
        }
        loop->program[next_iteration].next_merge = static_cast<int>(k);
        continue;
      }
      for (const SerialLoop::Source& source : step.inputs) {
        if (source.step < 0 && source.enter < 0) plain = false;  // unfed
        if (source.enter >= 0 &&
            !loop_nodes_[loop->enters[source.enter]].is_constant) {
          plain = false;
        }
      }
      if (IsSwitchOp(n->op()) &&
          (step.inputs[1].step < 0 ||
           loop->program[step.inputs[1].step].node != loop_cond)) {
        plain = false;  // a conditional inside the loop
      }
      if (step.is_exit &&
          (step.inputs[0].step < 0 || step.inputs[0].output != 0 ||
           !IsSwitchOp(order[loop->program[step.inputs[0].step].node]->op()))) {
        plain = false;
      }
    }
    for (const SerialLoop::Step& step : loop->program) {
      if (loop_nodes_[step.node].is_next_iteration && step.next_merge < 0) {
        plain = false;
      }
    }
    if (!plain) continue;
    // Each value's last reader in an iteration takes it.
    std::map<std::pair<int, int>, SerialLoop::Source*> last_reader;
    for (SerialLoop::Step& step : loop->program) {
      loop->max_inputs =
          std::max(loop->max_inputs, static_cast<int>(step.inputs.size()));
      if (step.is_kernel) loop->kernels.push_back(step.node);
      if (step.is_merge) continue;  // reads its Enter and back edge itself
      for (SerialLoop::Source& source : step.inputs) {
        if (source.step < 0) continue;
        last_reader[{source.step, source.output}] = &source;
        SerialLoop::Step& producer = loop->program[source.step];
        if (source.output == 1) producer.index_read = true;
        if (std::find(producer.read_outputs.begin(),
                      producer.read_outputs.end(),
                      source.output) == producer.read_outputs.end()) {
          producer.read_outputs.push_back(source.output);
        }
      }
    }
    for (auto& [value, reader] : last_reader) {
      // A Const's value stays for the next iteration (never moved).
      reader->last_use = !loop->program[value.first].is_const;
    }
    frames_[f].serial = std::move(loop);
  }
}

bool Executor::FrameStep::SerialLoopAllowed(int frame) const {
  const SerialLoop* loop = exec_->frames_[frame].serial.get();
  if (loop == nullptr || args_.stats != nullptr) return false;
  for (int node : loop->kernels) {
    if (exec_->inline_[node].load(std::memory_order_relaxed) == 0) {
      return false;
    }
  }
  return true;
}

bool Executor::FrameStep::ForwardFromSources(
    const SerialLoop::Step& step,
    std::vector<OpKernelContext::OutputValues>* values,
    std::vector<TensorValue>* entered, OpKernelContext::OutputValues* out) {
  using Forward = LoopNodeInfo::Forward;
  auto source = [&](int j) -> TensorValue& {
    const SerialLoop::Source& s = step.inputs[j];
    return s.step >= 0 ? (*values)[s.step][s.output] : (*entered)[s.enter];
  };
  auto take = [&](int j, TensorValue* to) {
    TensorValue& v = source(j);
    if (step.inputs[j].last_use) {
      *to = std::move(v);
    } else {
      *to = v;
    }
  };
  const LoopNodeInfo& ln = exec_->loop_nodes_[step.node];
  switch (ln.forward) {
    case Forward::kConst:
      (*out)[0].tensor = ln.constant;
      return true;
    case Forward::kValue:
      if (source(0).var != nullptr) return false;
      take(0, &(*out)[0]);
      return true;
    case Forward::kSwitch: {
      const TensorValue& pred = source(1);
      if (source(0).var != nullptr || pred.var != nullptr ||
          pred.tensor.dtype() != DT_BOOL || pred.tensor.NumElements() != 1) {
        return false;
      }
      const bool taken = pred.tensor.data<bool>()[0];
      take(0, &(*out)[taken ? 1 : 0]);
      return true;
    }
    case Forward::kNoOp:
      return true;
    case Forward::kNone:
    case Forward::kMerge:
      return false;
  }
  return false;
}

namespace {

// What an iteration knows of a step: it did not run (an input never came),
// it ran dead, or live.
constexpr uint8_t kAbsent = 0;
constexpr uint8_t kDead = 1;
constexpr uint8_t kLive = 2;

}  // namespace

void Executor::FrameStep::RunSerialLoop(FrameInstance* f, ReadyList* ready) {
  serial_loop_runs.fetch_add(1, std::memory_order_relaxed);
  const SerialLoop& loop = *Info(f).serial;
  const int n = static_cast<int>(loop.program.size());
  std::vector<OpKernelContext::OutputValues> values(n);
  for (int k = 0; k < n; ++k) {
    const NodeItem& item = exec_->nodes_[loop.program[k].node];
    values[k].resize(std::max(2, item.kernel->num_outputs()));
  }
  std::vector<uint8_t> state(n, kAbsent);
  std::vector<TensorValue> entered(loop.enters.size());
  std::vector<uint8_t> entered_live(loop.enters.size(), 0);
  for (FrameInstance::Entered& e : f->entered) {
    for (size_t k = 0; k < loop.enters.size(); ++k) {
      if (loop.enters[k] != e.enter) continue;
      entered[k] = std::move(e.value);
      entered_live[k] = e.live;
    }
  }
  f->entered.clear();
  // A NextIteration's value, for its Merge in the next iteration.
  std::vector<TensorValue> carried(n);
  std::vector<uint8_t> has_carried(n, 0);
  std::vector<TensorValue> in(std::max(1, loop.max_inputs));
  // The kernel steps' params, the same in every iteration but for the
  // iteration itself.
  std::vector<OpKernelContext::Params> params(n);
  for (int k = 0; k < n; ++k) {
    const SerialLoop::Step& step = loop.program[k];
    params[k] = KernelParams(Tagged{step.node, f, 0, nullptr},
                             exec_->nodes_[step.node], in.data());
  }
  auto source_state = [&](const SerialLoop::Source& s, bool data) -> uint8_t {
    if (s.step < 0) return entered_live[s.enter] ? kLive : kDead;
    const uint8_t st = state[s.step];
    if (st != kLive || !data) return st;
    return IsLive(values[s.step][s.output]) ? kLive : kDead;
  };
  for (int64_t iter = 0;; ++iter) {
    if (StopRequested()) {
      if (absl::Status s = StopStatus(); !s.ok()) {
        AbortLocked(s);
        break;
      }
    }
    bool next = false;
    for (int k = 0; k < n && !aborted_; ++k) {
      const SerialLoop::Step& step = loop.program[k];
      OpKernelContext::OutputValues& out = values[k];
      if (!step.is_const) ClearValues(out.data(), static_cast<int>(out.size()));
      if (step.is_merge) {
        if (iter == 0 ? !entered_live[step.merge_enter] : !has_carried[k]) {
          state[k] = kAbsent;  // a Merge with no live input waits: never
          continue;
        }
        if (iter == 0) {
          out[0] = std::move(entered[step.merge_enter]);
          if (step.index_read) {
            out[1].tensor = MergeIndex(step.merge_enter_slot);
          }
        } else {
          out[0] = std::move(carried[k]);
          has_carried[k] = 0;
          if (step.index_read) out[1].tensor = MergeIndex(step.merge_next_slot);
        }
        state[k] = kLive;
        continue;
      }
      uint8_t st = kLive;
      for (const SerialLoop::Source& c : step.controls) {
        st = std::min<uint8_t>(st, source_state(c, false));
      }
      for (const SerialLoop::Source& s : step.inputs) {
        st = std::min<uint8_t>(st, source_state(s, true));
      }
      state[k] = st;
      if (st != kLive) continue;
      if (step.is_const && IsLive(out[0])) continue;  // from the last one
      const NodeItem& item = exec_->nodes_[step.node];
      const Tagged t{step.node, f, iter, nullptr};
      if (!step.is_kernel &&
          ForwardFromSources(step, &values, &entered, &out)) {
        // computed without the kernel
      } else {
        for (size_t j = 0; j < step.inputs.size(); ++j) {
          const SerialLoop::Source& s = step.inputs[j];
          TensorValue& v =
              s.step >= 0 ? values[s.step][s.output] : entered[s.enter];
          if (s.last_use) {
            in[j] = std::move(v);
          } else {
            in[j] = v;
          }
        }
        params[k].iteration = iter;
        OpKernelContext ctx(params[k]);
        item.kernel->Compute(&ctx);
        ClearValues(in.data(), item.num_inputs);
        OpKernelContext::OutputValues* produced = ctx.outputs();
        bool produced_read = ctx.status().ok();
        for (int o : step.read_outputs) {
          produced_read = produced_read && IsLive((*produced)[o]);
        }
        if (!produced_read) {  // the usual path's error
          absl::Status error;
          CheckedOutputs(t, &ctx, &error);
          AbortLocked(error.ok() ? absl::InternalError(absl::StrCat(
                                       item.label, ": left out an output"))
                                 : error);
          break;
        }
        for (size_t o = 0; o < produced->size(); ++o) {
          out[o] = std::move((*produced)[o]);
        }
      }
      if (step.is_exit) {
        if (IsLive(out[0])) {
          f->live_exits.push_back(step.node);
          Activate(f->parent, f->parent_iter, step.node, &out, false, ready);
        }
      } else if (step.next_merge >= 0 && IsLive(out[0])) {
        carried[step.next_merge] = std::move(out[0]);
        has_carried[step.next_merge] = 1;
        next = true;
      }
    }
    if (!next || aborted_) break;
  }
  for (OpKernelContext::OutputValues& out : values) {
    ClearValues(out.data(), static_cast<int>(out.size()));
  }
}

}  // namespace dflow
