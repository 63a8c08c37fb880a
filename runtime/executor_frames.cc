// Executor::FrameStep (runtime/executor_frame_step.h): starting the
// step, its frame instances and iterations, and the propagation of values
// between them.
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/executor.h"
#include "runtime/executor_frame_step.h"

namespace dflow {

absl::Status Executor::FrameStep::Run() {
  const absl::Time start = absl::Now();
  Start(StartOn::kThisThread);
  absl::Status stop;
  {
    std::unique_lock<std::mutex> lock(done_mu_);
    stop = WaitForStep(lock, done_cv_, done_, args_, start);
  }
  // Returning early leaves the kernels still running to finish alone.
  if (!stop.ok()) Abort(stop);
  std::lock_guard<std::mutex> lock(mu_);
  if (stop.ok()) CollectStats();
  return absl::Status(status_.code(), status_.message());
}

void Executor::FrameStep::Start(StartOn start) {
  ReadyList ready;
  {
    std::lock_guard<std::mutex> lock(mu_);
    DrawLoopPath();
    root_ = std::make_unique<FrameInstance>();
    root_->frame = 0;
    root_->pending_enters = 0;
    root_->parallel_iterations = 1;
    NewIteration(root_.get(), 0);
    Iteration* it = root_->Find(0);
    for (int r : exec_->roots_) {
      ++it->outstanding_ops;
      ready.push_back(Tagged{r, root_.get(), 0, it});
    }
    if (ready.empty()) CleanupIterations(root_.get(), &ready);
  }
  if (ready.empty()) return;
  if (start == StartOn::kPool) {
    exec_->pool_->Schedule([self = shared_from_this(), ready]() mutable {
      self->RunQueue(std::move(ready));
    });
    return;
  }
  RunQueue(std::move(ready));
}

void Executor::FrameStep::NewIteration(FrameInstance* f, int64_t iter) {
  const FrameInfo& info = Info(f);
  std::unique_ptr<Iteration> it;
  if (!f->free.empty()) {  // a done iteration's tables, reused
    it = std::move(f->free.back());
    f->free.pop_back();
    // Nodes empty their slots when they run; only a step stopped early
    // leaves values behind.
    ClearValues(it->inputs.get(), info.num_inputs);
    std::memset(it->flags.get(), 0, 4 * static_cast<size_t>(info.num_nodes));
    it->outstanding_ops = 0;
    it->outstanding_frames = 0;
  } else {
    it = std::make_unique<Iteration>();
    it->inputs.reset(new TensorValue[info.num_inputs]);
    it->pending.reset(new int[info.num_nodes]);
    it->flags.reset(new uint8_t[4 * static_cast<size_t>(info.num_nodes)]());
  }
  it->dead = it->flags.get();
  it->fired = it->dead + info.num_nodes;
  it->dead_data = it->fired + info.num_nodes;
  it->live_data = it->dead_data + info.num_nodes;
  f->iterations.push_back(std::move(it));
  f->newest = iter;
  if (f->iterations.size() == 1) f->oldest = iter;
  InitPending(f, iter);
}

void Executor::FrameStep::InitPending(FrameInstance* f, int64_t iter) {
  Iteration* it = f->Find(iter);
  const std::vector<int>& initial = InitialPending(f->frame);
  if (!initial.empty()) {
    std::memcpy(it->pending.get(), initial.data(),
                initial.size() * sizeof(int));
  }
}

const std::vector<int>& Executor::FrameStep::InitialPending(int frame) {
  if (initial_pending_.empty()) {
    initial_pending_.resize(exec_->frames_.size());
    for (size_t f = 0; f < exec_->frames_.size(); ++f) {
      initial_pending_[f].resize(exec_->frames_[f].num_nodes);
    }
    for (size_t i = 0; i < exec_->nodes_.size(); ++i) {
      const LoopNodeInfo& ln = exec_->loop_nodes_[i];
      const NodeItem& item = exec_->nodes_[i];
      initial_pending_[ln.frame][ln.local] =
          item.is_merge ? ln.merge_controls : item.pending_init;
    }
  }
  return initial_pending_[frame];
}

Executor::FrameStep::FrameInstance* Executor::FrameStep::ChildFrame(
    FrameInstance* parent, int64_t iter, int frame) {
  auto key = std::make_pair(iter, frame);
  auto found = parent->children.find(key);
  if (found != parent->children.end()) return found->second.get();
  auto child = std::make_unique<FrameInstance>();
  child->frame = frame;
  child->parent = parent;
  child->parent_iter = iter;
  child->key = absl::StrCat(parent->key, parent->key.empty() ? "" : "/",
                            exec_->frames_[frame].name, "@", iter);
  child->pending_enters = exec_->frames_[frame].num_enters;
  child->parallel_iterations = exec_->frames_[frame].parallel_iterations;
  child->path = ChooseLoopPath(frame, &child->tuned);
  child->serial = child->path != LoopPath::kUsual;
  NewIteration(child.get(), 0);
  parent->Find(iter)->outstanding_frames++;
  FrameInstance* raw = child.get();
  parent->children.emplace(key, std::move(child));
  return raw;
}

void Executor::FrameStep::Activate(FrameInstance* f, int64_t iter, int src,
                                   OpKernelContext::OutputValues* outputs,
                                   bool copy, ReadyList* ready) {
  Iteration* it = f->Find(iter);
  if (it == nullptr) return;  // (cannot happen: callers make it first)
  Activate(f, iter, it, src, outputs, copy, ready);
}

void Executor::FrameStep::Activate(FrameInstance* f, int64_t iter,
                                   Iteration* it, int src,
                                   OpKernelContext::OutputValues* outputs,
                                   bool copy, ReadyList* ready) {
  const NodeItem& item = exec_->nodes_[src];
  for (int e = item.out_begin; e < item.out_end; ++e) {
    const FrameEdge& edge = exec_->frame_edges_[e];
    const int dst = edge.dst;
    const int local = edge.local;
    const bool control = edge.slot < 0;
    bool dead = outputs == nullptr;
    if (!dead && !control) dead = !IsLive((*outputs)[edge.src_output]);
    if (edge.merge_data_inputs >= 0) {  // a Merge
      if (it->fired[local]) continue;   // it ran on an earlier input
      if (control) {
        --it->pending[local];
      } else if (dead) {
        ++it->dead_data[local];
      } else {
        Deliver(outputs, edge, copy, &it->inputs[edge.slot]);
        it->live_data[local] = 1;
      }
      const bool all_dead = it->dead_data[local] == edge.merge_data_inputs;
      if (it->pending[local] == 0 && (it->live_data[local] || all_dead)) {
        it->fired[local] = 1;
        if (all_dead && !it->live_data[local]) it->dead[local] = 1;
        ++it->outstanding_ops;
        ready->push_back(Tagged{dst, f, iter, it});
      }
      continue;
    }
    if (dead) {
      it->dead[local] = 1;
    } else if (!control) {
      Deliver(outputs, edge, copy, &it->inputs[edge.slot]);
    }
    if (--it->pending[local] == 0) {
      if (it->dead[local] && edge.skip_dead && !aborted_) {
        // A dead Exit (every iteration but the last) or NextIteration
        // (the last) does nothing when it runs: Propagate waits for the
        // frame's end to hand the Exit on dead, and ends the iterations
        // at a dead NextIteration. Skipping it here spares a whole node
        // run per loop variable and iteration.
        ClearValues(&it->inputs[exec_->loop_nodes_[dst].local_input],
                    exec_->nodes_[dst].num_inputs);
        continue;
      }
      ++it->outstanding_ops;
      ready->push_back(Tagged{dst, f, iter, it});
    }
  }
}

void Executor::FrameStep::Deliver(OpKernelContext::OutputValues* outputs,
                                  const FrameEdge& edge, bool copy,
                                  TensorValue* slot) {
  if (copy || !edge.last_use) {
    *slot = (*outputs)[edge.src_output];
  } else {
    *slot = std::move((*outputs)[edge.src_output]);
  }
}

void Executor::FrameStep::Propagate(const Tagged& t,
                                    OpKernelContext::OutputValues* outputs,
                                    ReadyList* ready) {
  const LoopNodeInfo& ln = exec_->loop_nodes_[t.id];
  const bool live = outputs != nullptr && !aborted_;
  if (ln.child_frame >= 0) {  // Enter
    FrameInstance* child = ChildFrame(t.frame, t.iter, ln.child_frame);
    if (child->serial) {
      if (!aborted_) {
        child->entered.push_back(
            {t.id, live ? std::move((*outputs)[0]) : TensorValue(), live});
      }
      // The last Enter queues the loop, whose run then holds the frame
      // open: pending_enters stays at 1 until RunSerialLoop ends it.
      const bool last = child->pending_enters == 1;
      if (!(last && !aborted_ && ReadySerialLoop(child, ready))) {
        --child->pending_enters;
      }
    } else {
      if (!aborted_) EnterValue(child, t.id, live ? outputs : nullptr, ready);
      --child->pending_enters;
    }
    CleanupIterations(child, ready);  // may free the child
  } else if (ln.is_exit) {
    if (live && IsLive((*outputs)[0])) {
      t.frame->live_exits.push_back(t.id);
      Activate(t.frame->parent, t.frame->parent_iter, t.id, outputs, false,
               ready);
    }
    // A dead Exit waits: the frame hands it on dead when it is done, if
    // no iteration made it live.
  } else if (ln.is_next_iteration) {
    if (live && IsLive((*outputs)[0])) {
      FrameInstance* f = t.frame;
      const int64_t next = t.iter + 1;
      if (next <= f->newest) {
        Activate(f, next, t.id, outputs, false, ready);
      } else if (static_cast<int>(f->iterations.size()) <
                 f->parallel_iterations) {
        StartIteration(f, next, ready);
        Activate(f, next, t.id, outputs, false, ready);
      } else {
        f->deferred.emplace_back(t.id, std::move((*outputs)[0]));
      }
    }
    // A dead NextIteration ends the loop's iterations.
  } else if (!aborted_) {
    Activate(t.frame, t.iter, t.it, t.id, outputs, false, ready);
  }
  --t.it->outstanding_ops;
  CleanupIterations(t.frame, ready);
}

void Executor::FrameStep::EnterValue(FrameInstance* child, int enter,
                                     OpKernelContext::OutputValues* value,
                                     ReadyList* ready) {
  if (exec_->loop_nodes_[enter].is_constant) {
    FrameInstance::Constant c{enter, {}, value == nullptr};
    c.value.push_back(value != nullptr ? (*value)[0] : TensorValue());
    child->constants.push_back(std::move(c));
    OpKernelContext::OutputValues* kept = &child->constants.back().value;
    for (int64_t i = child->oldest; i <= child->newest; ++i) {
      Activate(child, i, enter, value != nullptr ? kept : nullptr, true, ready);
    }
  } else {
    Activate(child, 0, enter, value, false, ready);
  }
}

void Executor::FrameStep::StartIteration(FrameInstance* f, int64_t iter,
                                         ReadyList* ready) {
  NewIteration(f, iter);
  for (FrameInstance::Constant& c : f->constants) {
    Activate(f, iter, c.enter, c.dead ? nullptr : &c.value, true, ready);
  }
}

bool Executor::FrameStep::IterationDone(FrameInstance* f, int64_t iter) {
  Iteration* it = f->Find(iter);
  if (it->outstanding_ops > 0 || it->outstanding_frames > 0) return false;
  if (iter != f->oldest) return false;
  if (iter == 0 && f->pending_enters > 0) return false;
  return true;
}

void Executor::FrameStep::CleanupIterations(FrameInstance* f,
                                            ReadyList* ready) {
  while (!f->iterations.empty() && IterationDone(f, f->oldest)) {
    // An iteration is done only when the next one has nothing more to
    // receive from it: that holds (its NextIterations ran).
    f->free.push_back(std::move(f->iterations.front()));
    f->iterations.pop_front();
    ++f->oldest;
    if (!f->deferred.empty() && !aborted_) {
      const int64_t next = f->newest + 1;
      StartIteration(f, next, ready);
      std::vector<std::pair<int, TensorValue>> deferred =
          std::move(f->deferred);
      f->deferred.clear();
      for (auto& [node, value] : deferred) {
        OpKernelContext::OutputValues out;
        out.push_back(std::move(value));
        Activate(f, next, node, &out, false, ready);
      }
    }
    if (f->iterations.empty()) break;
  }
  if (!f->iterations.empty()) return;
  // The frame is done.
  if (f->parent == nullptr) {  // the root: the step is done
    FinishStep();
    return;
  }
  FrameInstance* parent = f->parent;
  const int64_t parent_iter = f->parent_iter;
  if (f->tuned) CountTunedIterations(*f);
  if (!aborted_) {
    for (int exit : Info(f).exits) {
      bool was_live = false;
      for (int e : f->live_exits) was_live |= e == exit;
      if (!was_live) {
        Activate(parent, parent_iter, exit, nullptr, false, ready);
      }
    }
  }
  parent->Find(parent_iter)->outstanding_frames--;
  parent->children.erase(std::make_pair(parent_iter, f->frame));  // frees f
  CleanupIterations(parent, ready);
}

void Executor::FrameStep::FinishStep() {
  absl::Status status(status_.code(), status_.message());
  if (loop_path_timed_ && tuned_iterations_ > 0 && !aborted_) {
    RecordLoopTime();
  }
  if (done_callback_) {
    CollectStats();  // the caller reads them once `done` runs
    DoneCallback done = std::move(done_callback_);
    done_callback_ = nullptr;
    // Outside mu_: the callback may start other work.
    exec_->pool_->Schedule(
        [done = std::move(done), status]() mutable { done(status); });
    return;
  }
  std::lock_guard<std::mutex> lock(done_mu_);
  done_ = true;
  done_cv_.notify_all();
}

absl::Status Executor::RunFrames(const Args& args) const {
  auto step = std::make_shared<FrameStep>(this, args, nullptr);
  return step->Run();
}

void Executor::RunFramesAsync(const Args& args, DoneCallback done,
                              StartOn start) const {
  auto step = std::make_shared<FrameStep>(this, args, std::move(done));
  step->Start(start);
}

}  // namespace dflow
