// Executor::FrameStep (runtime/executor_frame_step.h): running nodes:
// their kernels, what the step computes itself under its lock (the loop
// plumbing and small kernels), step stats, and stopping the step.
#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/node_def_util.h"
#include "runtime/collective_context.h"
#include "runtime/executor.h"
#include "runtime/executor_frame_step.h"
#include "runtime/thread_pool.h"
#include "runtime/variables.h"

namespace dflow {

void Executor::FrameStep::RunForwards(ReadyList* ready) {
  if (args_.stats != nullptr) return;
  // One outputs buffer for all (mu_ held), emptied after each node:
  // building and destroying a vector of TensorValues per node showed.
  OpKernelContext::OutputValues& outputs = forward_outputs_;
  if (outputs.size() < 2) outputs.resize(2);
  size_t i = 0;
  while (i < ready->size() && !aborted_) {
    const Tagged t = (*ready)[i];
    bool dead = false;
    if (t.id == kSerialLoop) {
      ++i;  // runs outside mu_
    } else if (ComputeForward(t, &outputs, &dead)) {
      (*ready)[i] = ready->back();
      ready->pop_back();
      Propagate(t, dead ? nullptr : &outputs, ready);
      ClearValues(outputs.data(), 2);
    } else if (MayRunSmallKernel(t)) {
      (*ready)[i] = ready->back();
      ready->pop_back();
      RunSmallKernel(t, ready);
    } else {
      ++i;
    }
  }
}

bool Executor::FrameStep::MayRunSmallKernel(const Tagged& t) const {
  static constexpr int64_t kSmallKernelElements = 64;
  const LoopNodeInfo& ln = exec_->loop_nodes_[t.id];
  if (!ln.small_kernel ||
      exec_->inline_[t.id].load(std::memory_order_relaxed) == 0) {
    return false;
  }
  if (t.it->dead[ln.local] != 0) return true;
  const TensorValue* in = &t.it->inputs[ln.local_input];
  for (int k = 0; k < exec_->nodes_[t.id].num_inputs; ++k) {
    if (in[k].var != nullptr || !IsLive(in[k]) ||
        in[k].tensor.NumElements() > kSmallKernelElements) {
      return false;
    }
  }
  return true;
}

void Executor::FrameStep::RunSmallKernel(const Tagged& t, ReadyList* ready) {
  const NodeItem& item = exec_->nodes_[t.id];
  const LoopNodeInfo& ln = exec_->loop_nodes_[t.id];
  TensorValue* inputs = &t.it->inputs[ln.local_input];
  if (t.it->dead[ln.local] != 0 && !item.is_control_trigger) {
    ClearValues(inputs, item.num_inputs);
    Propagate(t, nullptr, ready);
    return;
  }
  OpKernelContext ctx(KernelParams(t, item, inputs));
  item.kernel->Compute(&ctx);
  absl::Status error;
  OpKernelContext::OutputValues* outputs = CheckedOutputs(t, &ctx, &error);
  if (!error.ok()) AbortLocked(error);
  ClearValues(inputs, item.num_inputs);
  Propagate(t, outputs, ready);
}

bool Executor::FrameStep::ComputeForward(const Tagged& t,
                                         OpKernelContext::OutputValues* outputs,
                                         bool* dead) {
  using Forward = LoopNodeInfo::Forward;
  const LoopNodeInfo& ln = exec_->loop_nodes_[t.id];
  if (ln.forward == Forward::kNone) return false;
  const NodeItem& item = exec_->nodes_[t.id];
  TensorValue* in = &t.it->inputs[ln.local_input];
  // Each iteration's NextIteration checks whether the step must stop, as
  // Execute does before every node: a loop made only of nodes computed
  // here would otherwise never see its deadline (and hold mu_ forever).
  if (ln.is_next_iteration && StopRequested()) return false;
  if (t.it->dead[ln.local] != 0) {
    ClearValues(in, item.num_inputs);
    *dead = true;
    return true;
  }
  switch (ln.forward) {
    case Forward::kNone:
      return false;
    case Forward::kConst:
      (*outputs)[0].tensor = ln.constant;
      break;
    case Forward::kValue:
      if (in[0].var != nullptr || !IsLive(in[0])) return false;
      (*outputs)[0].tensor = std::move(in[0].tensor);
      break;
    case Forward::kSwitch: {
      const Tensor& pred = in[1].tensor;
      if (in[0].var != nullptr || !IsLive(in[0]) || in[1].var != nullptr ||
          pred.dtype() != DT_BOOL || pred.NumElements() != 1) {
        return false;
      }
      (*outputs)[pred.data<bool>()[0] ? 1 : 0].tensor = std::move(in[0].tensor);
      break;
    }
    case Forward::kMerge: {
      int live = 0;
      while (live < item.num_inputs && !IsLive(in[live])) ++live;
      if (live == item.num_inputs || in[live].var != nullptr) return false;
      (*outputs)[0].tensor = std::move(in[live].tensor);
      (*outputs)[1].tensor = MergeIndex(live);
      break;
    }
    case Forward::kNoOp:
      break;
  }
  ClearValues(in, item.num_inputs);
  return true;
}

const Tensor& Executor::FrameStep::MergeIndex(int i) {
  while (static_cast<int>(merge_index_.size()) <= i) {
    merge_index_.push_back(
        Tensor::Scalar<int32_t>(static_cast<int32_t>(merge_index_.size())));
  }
  return merge_index_[i];
}

void Executor::FrameStep::RunQueue(ReadyList queue) {
  std::optional<ThreadPool::ScopedRunOnCaller> one_thread;
  if (loop_path_ == LoopPath::kOneThread) one_thread.emplace();
  while (!queue.empty()) {
    Tagged t = queue.back();
    queue.pop_back();
    ReadyList ready;
    if (!Execute(t, &ready)) continue;  // async
    Dispatch(ready, &queue);
  }
}

void Executor::FrameStep::Dispatch(const ReadyList& ready, ReadyList* queue,
                                   bool may_keep) {
  const Tagged* keep = nullptr;
  // Nothing goes to the pool on a pool of one thread, or in a step that
  // runs as if on one (LoopPath::kOneThread).
  const bool one_thread = exec_->pool_->num_threads() <= 1 ||
                          loop_path_ == LoopPath::kOneThread;
  auto hand_off = [this](const Tagged& r) {
    exec_->pool_->Schedule(
        [self = shared_from_this(), r] { self->RunQueue(ReadyList{r}); });
  };
  for (const Tagged& r : ready) {
    // A serial loop stays on this thread (its kernels are each cheaper than
    // a hand-off, or the pool has one thread), unless this thread is
    // another's that finished an async kernel: a whole loop is not cheap.
    if (r.id == kSerialLoop) {
      if (may_keep || one_thread) {
        queue->push_back(r);
      } else {
        hand_off(r);
      }
      continue;
    }
    if (exec_->inline_[r.id].load(std::memory_order_relaxed) != 0 ||
        one_thread) {
      queue->push_back(r);
      continue;
    }
    if (keep != nullptr) hand_off(*keep);
    keep = &r;
  }
  if (keep == nullptr) return;
  // One expensive node stays here when this thread has nothing else to
  // do: a loop body's chain of products would otherwise wake another
  // thread per kernel while this one sleeps (40 context switches per LSTM
  // step on two threads).
  if (queue->empty() && may_keep) {
    queue->push_back(*keep);
  } else {
    hand_off(*keep);
  }
}

bool Executor::FrameStep::Execute(const Tagged& t, ReadyList* ready) {
  if (t.id == kSerialLoop) {
    RunSerialLoop(t.frame, ready);
    return true;
  }
  const NodeItem& item = exec_->nodes_[t.id];
  const LoopNodeInfo& ln = exec_->loop_nodes_[t.id];
  CheckStop();
  // Written by the producers under mu_ before the node became ready.
  const bool dead = t.it->dead[ln.local] != 0 && !item.is_control_trigger;
  TensorValue* inputs = &t.it->inputs[ln.local_input];
  if (aborted_ || (dead && !item.runs_when_dead)) {
    if (dead && !aborted_ && !item.dead_fetch_error.empty()) {
      Abort(absl::InvalidArgumentError(
          absl::StrCat(item.label, ": ", item.dead_fetch_error)));
    }
    ClearValues(inputs, item.num_inputs);
    PropagateAndForward(t, nullptr, ready);
    return true;
  }
  if (dead) {  // a _Send sends the deadness
    ClearValues(inputs, item.num_inputs);
  }
  if (absl::Status s = ReadRefInputs(item, inputs); !s.ok()) {
    Abort(s);
    std::lock_guard<std::mutex> lock(mu_);
    Propagate(t, nullptr, ready);
    return true;
  }
  const OpKernelContext::Params params = KernelParams(t, item, inputs);
  const int64_t start_us = args_.stats != nullptr ? ElapsedMicros() : 0;
  if (AsyncOpKernel* async = item.kernel->AsAsync()) {
    auto ctx = std::make_shared<OpKernelContext>(params);
    OpKernelContext* raw = ctx.get();
    async->ComputeAsync(
        raw, [self = shared_from_this(), t, ctx, start_us]() mutable {
          ReadyList ready;
          if (self->args_.stats != nullptr) {
            self->RecordStats(t, ctx.get(), start_us);
          }
          self->Finish(t, ctx.get(), &ready);
          ctx.reset();
          ReadyList queue;
          // This thread finished another's async kernel (a transfer's
          // sender, a collective): cheap nodes only.
          self->Dispatch(ready, &queue, /*may_keep=*/false);
          if (!queue.empty()) self->RunQueue(std::move(queue));
        });
    return false;
  }
  OpKernelContext ctx(params);
  if (exec_->inline_[t.id].load(std::memory_order_relaxed) == 0) {
    // As executor.cc does: a node that computes faster than a hand-off to
    // another thread costs runs inline from then on.
    const auto begin = std::chrono::steady_clock::now();
    item.kernel->Compute(&ctx);
    if (CheaperThanHandOff(*item.kernel,
                           std::chrono::steady_clock::now() - begin)) {
      exec_->inline_[t.id].store(1, std::memory_order_relaxed);
    }
  } else {
    item.kernel->Compute(&ctx);
  }
  if (args_.stats != nullptr) RecordStats(t, &ctx, start_us);
  Finish(t, &ctx, ready);
  return true;
}

OpKernelContext::Params Executor::FrameStep::KernelParams(const Tagged& t,
                                                          const NodeItem& item,
                                                          TensorValue* inputs) {
  OpKernelContext::Params params =
      Executor::KernelParams(item, args_, &step_container_, inputs,
                             /*record_phases=*/args_.stats != nullptr);
  params.frame = t.frame->key;
  params.iteration = t.iter;
  return params;
}

int64_t Executor::FrameStep::ElapsedMicros() const {
  return absl::ToInt64Microseconds(absl::Now() - start_);
}

void Executor::FrameStep::RecordStats(const Tagged& t, OpKernelContext* ctx,
                                      int64_t start_us) {
  const NodeItem& item = exec_->nodes_[t.id];
  NodeExecStats s;
  RecordKernelStats(*item.kernel, *item.device, ctx, start_, start_us, &s);
  if (t.frame->frame != 0) {
    s.frame = Info(t.frame).name;
    s.iteration = t.iter;
  }
  std::lock_guard<std::mutex> lock(stats_mu_);
  stats_.push_back(std::move(s));
}

void Executor::FrameStep::CollectStats() {
  if (args_.stats == nullptr) return;
  std::lock_guard<std::mutex> lock(stats_mu_);
  for (NodeExecStats& s : stats_) args_.stats->push_back(std::move(s));
  stats_.clear();
}

void Executor::FrameStep::Finish(const Tagged& t, OpKernelContext* ctx,
                                 ReadyList* ready) {
  const NodeItem& item = exec_->nodes_[t.id];
  const LoopNodeInfo& ln = exec_->loop_nodes_[t.id];
  absl::Status error;
  OpKernelContext::OutputValues* outputs = CheckedOutputs(t, ctx, &error);
  if (!error.ok()) Abort(error);
  ClearValues(&t.it->inputs[ln.local_input], item.num_inputs);
  PropagateAndForward(t, outputs, ready);
}

OpKernelContext::OutputValues* Executor::FrameStep::CheckedOutputs(
    const Tagged& t, OpKernelContext* ctx, absl::Status* error) {
  const NodeItem& item = exec_->nodes_[t.id];
  OpKernelContext::OutputValues* outputs = ctx->outputs();
  if (!ctx->status().ok()) {
    std::string where;
    if (t.frame->frame != 0) {
      where = absl::StrCat(" (in frame '", Info(t.frame).name, "', iteration ",
                           t.iter, ")");
    }
    *error = absl::Status(
        ctx->status().code(),
        absl::StrCat(item.label, where, ": ", ctx->status().message()));
    return nullptr;
  }
  if (!item.may_output_dead) {
    for (int e = item.out_begin; e < item.out_end; ++e) {
      const OutEdge& edge = exec_->out_edges_[e];
      if (edge.slot >= 0 && !IsLive((*outputs)[edge.src_output])) {
        *error = absl::InternalError(
            absl::StrCat(item.label, ": the kernel did not produce output ",
                         edge.src_output, ", which another node needs"));
        return nullptr;
      }
    }
    return outputs;
  }
  if (SetNoOutput(item, *outputs)) return nullptr;  // control edges too
  return outputs;
}

void Executor::FrameStep::PropagateAndForward(
    const Tagged& t, OpKernelContext::OutputValues* outputs, ReadyList* ready) {
  ChangeAndForward(ready, [&] { Propagate(t, outputs, ready); });
}

void Executor::FrameStep::ChangeAndForward(ReadyList* ready,
                                           absl::FunctionRef<void()> change) {
  absl::Status abort;
  {
    std::lock_guard<std::mutex> lock(mu_);
    change();
    RunForwards(ready);
    abort.Update(peers_to_abort_);
    peers_to_abort_ = absl::OkStatus();
  }
  if (!abort.ok()) AbortPeers(abort);
}

bool Executor::FrameStep::StopRequested() const {
  return (args_.rendezvous != nullptr && args_.rendezvous->aborted()) ||
         (args_.cancellation != nullptr && args_.cancellation->cancelled()) ||
         (args_.deadline != absl::InfiniteFuture() &&
          absl::Now() > args_.deadline);
}

absl::Status Executor::FrameStep::StopStatus() const {
  if (args_.rendezvous != nullptr && args_.rendezvous->aborted()) {
    return args_.rendezvous->status();
  }
  if (args_.cancellation != nullptr && args_.cancellation->cancelled()) {
    return absl::CancelledError("the step was cancelled by the caller");
  }
  if (args_.deadline != absl::InfiniteFuture() &&
      absl::Now() > args_.deadline) {
    return absl::DeadlineExceededError(
        "the step ran past its timeout (a loop that never ends?)");
  }
  return absl::OkStatus();
}

void Executor::FrameStep::CheckStop() {
  if (aborted_) return;
  if (absl::Status s = StopStatus(); !s.ok()) Abort(s);
}

void Executor::FrameStep::Abort(const absl::Status& s) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (status_.ok()) status_ = s;
    aborted_ = true;
  }
  AbortPeers(s);
}

void Executor::FrameStep::AbortLocked(const absl::Status& s) {
  if (status_.ok()) status_ = s;
  aborted_ = true;
  peers_to_abort_.Update(s);
}

void Executor::FrameStep::AbortPeers(const absl::Status& s) {
  if (args_.rendezvous != nullptr) args_.rendezvous->StartAbort(s);
  if (args_.collective_context != nullptr) {
    args_.collective_context->Abort(s);
  }
}

}  // namespace dflow
