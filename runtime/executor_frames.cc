// The frame-aware step of runtime/executor.h: graphs with loops.
//
// State lives per frame instance and iteration (TensorFlow's executor
// model): a FrameInstance is one execution of a static frame, started by
// the first Enter of it to run in a given iteration of its parent; it owns
// its live Iterations, each with input slots, pending counts and dead flags
// for the frame's nodes. One mutex per step guards all of it; kernels run
// outside it. A node is "outstanding" in its iteration from the moment it is
// ready until its outputs are propagated. An iteration is done when nothing
// in it is outstanding, no child frame it started is running, it is the
// oldest live one, and (the first) every Enter of its frame arrived; a
// frame instance is done when its last iteration is. Done iterations are
// freed in order, which also starts a NextIteration that had to wait for
// the parallel_iterations limit. A done frame hands dead values through
// each Exit that never produced a live one, then releases its parent
// iteration. The step ends when the root frame's only iteration is done.
//
// The price of generality: a lock per node and per-iteration tables. Only
// graphs with an Enter pay it; acyclic graphs keep executor.cc's path. The
// loop plumbing (Identity, LoopCond, Enter, Exit, NextIteration, Switch,
// Merge, NoOp, Const) does not pay it per node: RunForwards computes those
// under the lock already held to propagate their producer, and runs small
// stateless CPU kernels on small values there too (a loop counter's Less and
// Add), so a scalar loop's iteration takes no queue entry, thread hand-off
// or second lock round trip at all (when no stats are asked: a timeline
// shows every node's kernel run).
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "graph/node_def_util.h"
#include "graph/ops/control_flow_ops.h"
#include "runtime/collective_context.h"
#include "runtime/executor.h"
#include "runtime/variables.h"

namespace dflow {

namespace {

// A step's value for one output: live (tensor or variable) or dead.
bool IsLive(const TensorValue& v) {
  return v.var != nullptr || v.tensor.dtype() != DT_INVALID;
}

// Empties `n` input slots. Most are empty already (moved into a consumer,
// or never written: a dead input); Tensor::Clear, not the assignment of a
// fresh TensorValue, which built and destroyed a Tensor per slot.
void ClearValues(TensorValue* values, int n) {
  for (int k = 0; k < n; ++k) {
    if (IsLive(values[k])) {
      values[k].tensor.Clear();
      values[k].var = nullptr;
    }
  }
}

}  // namespace

class Executor::FrameStep : public std::enable_shared_from_this<FrameStep> {
 public:
  FrameStep(const Executor* exec, const Args& args, DoneCallback done)
      : keep_alive_(exec->weak_from_this().lock()),
        exec_(exec),
        args_(args),
        done_callback_(std::move(done)),
        start_(absl::Now()) {}

  ~FrameStep() {
    // Free whatever an aborted step left (frames own their iterations).
    root_.reset();
  }

  absl::Status Run() {
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

  void Start(StartOn start) {
    ReadyList ready;
    {
      std::lock_guard<std::mutex> lock(mu_);
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

 private:
  struct FrameInstance;
  struct Iteration {
    std::unique_ptr<TensorValue[]> inputs;
    std::unique_ptr<int[]> pending;
    std::unique_ptr<uint8_t[]> flags;  // the four arrays below, one block
    uint8_t* dead = nullptr;           // non-Merge: a dead input arrived
    uint8_t* fired = nullptr;          // Merge: made ready
    uint8_t* dead_data = nullptr;      // Merge: dead data inputs
    uint8_t* live_data = nullptr;      // Merge: a live data input
    int outstanding_ops = 0;
    int outstanding_frames = 0;
  };
  struct FrameInstance {
    int frame = 0;
    FrameInstance* parent = nullptr;
    int64_t parent_iter = 0;
    // The instance's name, the same in every partition of the step (their
    // transfers inside it meet by it): "" for the root, else the parent's
    // name, the frame name and the parent iteration ("while@0",
    // "while@0/inner@3").
    std::string key;
    int pending_enters = 0;
    int parallel_iterations = 10;
    int64_t oldest = 0;   // the oldest live iteration
    int64_t newest = -1;  // the newest iteration made
    std::deque<std::unique_ptr<Iteration>> iterations;  // oldest..newest
    std::vector<std::unique_ptr<Iteration>> free;       // for reuse
    // is_constant Enters: delivered to every iteration, also later ones.
    struct Constant {
      int enter;
      OpKernelContext::OutputValues value;  // one; delivered as copies
      bool dead;
    };
    std::vector<Constant> constants;
    // NextIteration values waiting for the parallel_iterations limit.
    std::vector<std::pair<int, TensorValue>> deferred;
    std::vector<int> live_exits;  // Exit nodes that produced a live value
    std::map<std::pair<int64_t, int>, std::unique_ptr<FrameInstance>>
        children;  // (iteration, static frame)

    Iteration* Find(int64_t iter) {
      if (iter < oldest || iter > newest) return nullptr;
      return iterations[iter - oldest].get();
    }
  };
  struct Tagged {
    int id;
    FrameInstance* frame;
    int64_t iter;
    Iteration* it;  // stays alive while the node is outstanding in it
  };
  using ReadyList = absl::InlinedVector<Tagged, 8>;

  const FrameInfo& Info(const FrameInstance* f) const {
    return exec_->frames_[f->frame];
  }

  // --- Iterations and frames (mu_ held). ---

  void NewIteration(FrameInstance* f, int64_t iter) {
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

  // A new iteration's pending counts: one copy of the frame's initial
  // counts (a walk over the frame's nodes per iteration was a tenth of a
  // scalar loop's time).
  void InitPending(FrameInstance* f, int64_t iter) {
    Iteration* it = f->Find(iter);
    const std::vector<int>& initial = InitialPending(f->frame);
    if (!initial.empty()) {
      std::memcpy(it->pending.get(), initial.data(),
                  initial.size() * sizeof(int));
    }
  }

  // Per static frame, by local index: a node's pending count when its
  // iteration starts (a Merge waits only for its control inputs). Built on
  // first use, once per step.
  const std::vector<int>& InitialPending(int frame) {
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

  FrameInstance* ChildFrame(FrameInstance* parent, int64_t iter, int frame) {
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
    NewIteration(child.get(), 0);
    parent->Find(iter)->outstanding_frames++;
    FrameInstance* raw = child.get();
    parent->children.emplace(key, std::move(child));
    return raw;
  }

  // Delivers output values of node `src` (running in another frame or
  // iteration, or this one) to its consumers in iteration `iter` of `f`.
  // `outputs` null: every output and control edge is dead. `copy`: the
  // values are delivered again later (constants), so never moved.
  void Activate(FrameInstance* f, int64_t iter, int src,
                OpKernelContext::OutputValues* outputs, bool copy,
                ReadyList* ready) {
    Iteration* it = f->Find(iter);
    if (it == nullptr) return;  // (cannot happen: callers make it first)
    Activate(f, iter, it, src, outputs, copy, ready);
  }
  // The same, for the caller that holds the iteration's tables already.
  void Activate(FrameInstance* f, int64_t iter, Iteration* it, int src,
                OpKernelContext::OutputValues* outputs, bool copy,
                ReadyList* ready) {
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

  // Into an input slot: the output itself on its last use (not a copy of
  // the value that will be delivered again), else a copy. Two assignments,
  // not one from a conditional expression, which made a temporary
  // TensorValue per edge.
  static void Deliver(OpKernelContext::OutputValues* outputs,
                      const FrameEdge& edge, bool copy, TensorValue* slot) {
    if (copy || !edge.last_use) {
      *slot = (*outputs)[edge.src_output];
    } else {
      *slot = std::move((*outputs)[edge.src_output]);
    }
  }

  // After node `t` ran (outputs) or was skipped as dead (outputs null).
  void Propagate(const Tagged& t, OpKernelContext::OutputValues* outputs,
                 ReadyList* ready) {
    const LoopNodeInfo& ln = exec_->loop_nodes_[t.id];
    const bool live = outputs != nullptr && !aborted_;
    if (ln.child_frame >= 0) {  // Enter
      FrameInstance* child = ChildFrame(t.frame, t.iter, ln.child_frame);
      if (!aborted_) {
        if (ln.is_constant) {
          FrameInstance::Constant c{t.id, {}, !live};
          c.value.push_back(live ? (*outputs)[0] : TensorValue());
          child->constants.push_back(std::move(c));
          OpKernelContext::OutputValues* value = &child->constants.back().value;
          for (int64_t i = child->oldest; i <= child->newest; ++i) {
            Activate(child, i, t.id, live ? value : nullptr, true, ready);
          }
        } else {
          Activate(child, 0, t.id, live ? outputs : nullptr, false, ready);
        }
      }
      --child->pending_enters;
      CleanupIterations(child, ready);
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

  // Computes the ready nodes of `ready` that only forward values
  // (LoopNodeInfo::forward) right here, under mu_, and propagates their
  // outputs, which may make more of them ready; what is left runs as usual.
  // A scalar loop's Merge, Switch, LoopCond and Identity then cost no kernel
  // context, lock round trip or queue entry each (half its nodes). Not when
  // the step records stats (Execute records every node's run), nor once it
  // stops. A worklist, not recursion: a long chain of Identities must not
  // grow the stack.
  void RunForwards(ReadyList* ready) {
    if (args_.stats != nullptr) return;
    // One outputs buffer for all (mu_ held), emptied after each node:
    // building and destroying a vector of TensorValues per node showed.
    OpKernelContext::OutputValues& outputs = forward_outputs_;
    if (outputs.size() < 2) outputs.resize(2);
    size_t i = 0;
    while (i < ready->size() && !aborted_) {
      const Tagged t = (*ready)[i];
      bool dead = false;
      if (ComputeForward(t, &outputs, &dead)) {
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

  // Whether RunForwards may run node `t`'s kernel itself (mu_ held): a
  // LoopNodeInfo::small_kernel that the cost model found cheap (it runs
  // inline anyway), on plain values of at most kSmallKernelElements
  // elements each, so that the lock is held about as long as the hand-off
  // it spares would take. A dead node qualifies (it is only skipped).
  bool MayRunSmallKernel(const Tagged& t) const {
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

  // Runs (or skips, when dead) node `t`'s kernel under mu_ and propagates
  // its outputs, as Execute and Finish would have without the lock.
  void RunSmallKernel(const Tagged& t, ReadyList* ready) {
    const NodeItem& item = exec_->nodes_[t.id];
    const LoopNodeInfo& ln = exec_->loop_nodes_[t.id];
    TensorValue* inputs = &t.it->inputs[ln.local_input];
    if (t.it->dead[ln.local] != 0) {
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

  // What the node's kernel would output (or that it is dead), computed
  // from its input slots, which it empties, into `outputs` (two empty
  // values on entry: no node computed here has more outputs); false (nothing
  // touched) when the node is not one RunForwards computes or its inputs need
  // the kernel (a variable, a pred that is not a bool scalar: the kernel's
  // error).
  bool ComputeForward(const Tagged& t, OpKernelContext::OutputValues* outputs,
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
        (*outputs)[pred.data<bool>()[0] ? 1 : 0].tensor =
            std::move(in[0].tensor);
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

  // A Merge's value_index output for input `i`: made once per step, shared
  // read-only as the Merge kernel's own are.
  const Tensor& MergeIndex(int i) {
    while (static_cast<int>(merge_index_.size()) <= i) {
      merge_index_.push_back(
          Tensor::Scalar<int32_t>(static_cast<int32_t>(merge_index_.size())));
    }
    return merge_index_[i];
  }

  void StartIteration(FrameInstance* f, int64_t iter, ReadyList* ready) {
    NewIteration(f, iter);
    for (FrameInstance::Constant& c : f->constants) {
      Activate(f, iter, c.enter, c.dead ? nullptr : &c.value, true, ready);
    }
  }

  bool IterationDone(FrameInstance* f, int64_t iter) {
    Iteration* it = f->Find(iter);
    if (it->outstanding_ops > 0 || it->outstanding_frames > 0) return false;
    if (iter != f->oldest) return false;
    if (iter == 0 && f->pending_enters > 0) return false;
    return true;
  }

  // Frees the done iterations in order, starts deferred ones, and ends the
  // frame (and maybe its parent's iteration) when none is left.
  void CleanupIterations(FrameInstance* f, ReadyList* ready) {
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

  // --- Running nodes. ---

  void RunQueue(ReadyList queue) {
    while (!queue.empty()) {
      Tagged t = queue.back();
      queue.pop_back();
      ReadyList ready;
      if (!Execute(t, &ready)) continue;  // async
      Dispatch(ready, &queue);
    }
  }

  void Dispatch(const ReadyList& ready, ReadyList* queue) {
    for (const Tagged& r : ready) {
      if (exec_->inline_[r.id].load(std::memory_order_relaxed) != 0 ||
          exec_->pool_->num_threads() <= 1) {
        queue->push_back(r);
      } else {
        exec_->pool_->Schedule(
            [self = shared_from_this(), r] { self->RunQueue(ReadyList{r}); });
      }
    }
  }

  // Runs (or skips) one node; false when an async kernel finishes later.
  bool Execute(const Tagged& t, ReadyList* ready) {
    const NodeItem& item = exec_->nodes_[t.id];
    const LoopNodeInfo& ln = exec_->loop_nodes_[t.id];
    CheckStop();
    // Written by the producers under mu_ before the node became ready.
    const bool dead = t.it->dead[ln.local] != 0 && !ln.is_control_trigger;
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
    for (int slot : item.deref_slots) {
      TensorValue& v = inputs[slot - item.input_start];
      if (v.var == nullptr) continue;
      Tensor value = v.var->Read();
      if (value.dtype() != v.var->dtype()) {
        const absl::Status uninitialized = UninitializedValueError(
            v.var->name(), absl::StrCat("input ", slot - item.input_start));
        Abort(absl::Status(
            uninitialized.code(),
            absl::StrCat(item.label, ": ", uninitialized.message())));
        std::lock_guard<std::mutex> lock(mu_);
        Propagate(t, nullptr, ready);
        return true;
      }
      v = TensorValue{std::move(value), nullptr};
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
            self->Dispatch(ready, &queue);
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
      if (std::chrono::steady_clock::now() - begin <
          std::chrono::nanoseconds(2000)) {
        exec_->inline_[t.id].store(1, std::memory_order_relaxed);
      }
    } else {
      item.kernel->Compute(&ctx);
    }
    if (args_.stats != nullptr) RecordStats(t, &ctx, start_us);
    Finish(t, &ctx, ready);
    return true;
  }

  OpKernelContext::Params KernelParams(const Tagged& t, const NodeItem& item,
                                       TensorValue* inputs) {
    OpKernelContext::Params params;
    params.kernel = item.kernel.get();
    params.device = item.device;
    params.variables = args_.variables;
    params.step_id = args_.step_id;
    params.step_container = &step_container_;
    params.inputs = inputs;
    params.call_frame = args_.call_frame;
    params.rendezvous = args_.rendezvous;
    params.collective_context = args_.collective_context;
    params.frame = t.frame->key;
    params.iteration = t.iter;
    params.record_phases = args_.stats != nullptr;
    if (!item.forward_inputs.empty()) {
      params.forward_inputs = &item.forward_inputs;
    }
    return params;
  }

  int64_t ElapsedMicros() const {
    return absl::ToInt64Microseconds(absl::Now() - start_);
  }

  // One entry per execution: a node in a loop runs once per iteration.
  void RecordStats(const Tagged& t, OpKernelContext* ctx, int64_t start_us) {
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

  // Hands the step's stats to the caller, in the order the nodes finished
  // (mu_ held: the step is over).
  void CollectStats() {
    if (args_.stats == nullptr) return;
    std::lock_guard<std::mutex> lock(stats_mu_);
    for (NodeExecStats& s : stats_) args_.stats->push_back(std::move(s));
    stats_.clear();
  }

  void Finish(const Tagged& t, OpKernelContext* ctx, ReadyList* ready) {
    const NodeItem& item = exec_->nodes_[t.id];
    const LoopNodeInfo& ln = exec_->loop_nodes_[t.id];
    absl::Status error;
    OpKernelContext::OutputValues* outputs = CheckedOutputs(t, ctx, &error);
    if (!error.ok()) Abort(error);
    ClearValues(&t.it->inputs[ln.local_input], item.num_inputs);
    PropagateAndForward(t, outputs, ready);
  }

  // A kernel's outputs as Propagate takes them: null when the kernel failed
  // or left out an output another node needs (then `error` says so, naming
  // the node and its frame), or when its outputs are dead as a whole.
  OpKernelContext::OutputValues* CheckedOutputs(const Tagged& t,
                                                OpKernelContext* ctx,
                                                absl::Status* error) {
    const NodeItem& item = exec_->nodes_[t.id];
    OpKernelContext::OutputValues* outputs = ctx->outputs();
    if (!ctx->status().ok()) {
      std::string where;
      if (t.frame->frame != 0) {
        where = absl::StrCat(" (in frame '", Info(t.frame).name,
                             "', iteration ", t.iter, ")");
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

  // Propagate and RunForwards under mu_; then tells the step's peers of an
  // abort that a kernel run there caused (outside mu_: aborting the
  // rendezvous may run callbacks that take it).
  void PropagateAndForward(const Tagged& t,
                           OpKernelContext::OutputValues* outputs,
                           ReadyList* ready) {
    absl::Status abort;
    {
      std::lock_guard<std::mutex> lock(mu_);
      Propagate(t, outputs, ready);
      RunForwards(ready);
      abort.Update(peers_to_abort_);
      peers_to_abort_ = absl::OkStatus();
    }
    if (!abort.ok()) AbortPeers(abort);
  }

  // Whether CheckStop would stop the step; reads only (callable under mu_).
  bool StopRequested() const {
    return (args_.rendezvous != nullptr && args_.rendezvous->aborted()) ||
           (args_.cancellation != nullptr && args_.cancellation->cancelled()) ||
           (args_.deadline != absl::InfiniteFuture() &&
            absl::Now() > args_.deadline);
  }

  void CheckStop() {
    if (aborted_) return;
    if (args_.rendezvous != nullptr && args_.rendezvous->aborted()) {
      Abort(args_.rendezvous->status());
    } else if (args_.cancellation != nullptr &&
               args_.cancellation->cancelled()) {
      Abort(absl::CancelledError("the step was cancelled by the caller"));
    } else if (args_.deadline != absl::InfiniteFuture() &&
               absl::Now() > args_.deadline) {
      Abort(absl::DeadlineExceededError(
          "the step ran past its timeout (a loop that never ends?)"));
    }
  }

  void Abort(const absl::Status& s) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (status_.ok()) status_ = s;
      aborted_ = true;
    }
    AbortPeers(s);
  }

  // Abort with mu_ held; PropagateAndForward tells the peers after.
  void AbortLocked(const absl::Status& s) {
    if (status_.ok()) status_ = s;
    aborted_ = true;
    peers_to_abort_.Update(s);
  }

  // The other partitions' transfers and the collectives end too.
  void AbortPeers(const absl::Status& s) {
    if (args_.rendezvous != nullptr) args_.rendezvous->StartAbort(s);
    if (args_.collective_context != nullptr) {
      args_.collective_context->Abort(s);
    }
  }

  // mu_ held.
  void FinishStep() {
    absl::Status status(status_.code(), status_.message());
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

  const std::shared_ptr<const Executor> keep_alive_;
  const Executor* exec_;
  const Args args_;
  DoneCallback done_callback_;
  std::mutex mu_;  // frames, iterations, status_, aborted_
  std::unique_ptr<FrameInstance> root_;
  // Stacks and TensorArrays the step's kernels made; they die with it.
  StepContainer step_container_;
  std::vector<std::vector<int>> initial_pending_;  // InitialPending
  std::vector<Tensor> merge_index_;                // MergeIndex; mu_
  OpKernelContext::OutputValues forward_outputs_;  // RunForwards; mu_
  absl::Status status_;
  absl::Status peers_to_abort_;  // AbortLocked; mu_
  std::atomic<bool> aborted_{false};
  std::mutex done_mu_;
  std::condition_variable done_cv_;
  bool done_ = false;  // done_mu_
  const absl::Time start_;
  std::mutex stats_mu_;
  std::vector<NodeExecStats> stats_;  // stats_mu_; with args_.stats only
};

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
