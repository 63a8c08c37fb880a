// The frame-aware step of runtime/executor.h: graphs with loops. Internal
// to the executor: executor_frames.cc has its frames, iterations and
// propagation, executor_frames_nodes.cc how it runs nodes (kernels, and
// what it computes itself under its lock).
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
#ifndef DFLOW_RUNTIME_EXECUTOR_FRAME_STEP_H_
#define DFLOW_RUNTIME_EXECUTOR_FRAME_STEP_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/time/time.h"
#include "runtime/executor.h"
#include "runtime/executor_serial_loop.h"
#include "runtime/op_kernel.h"
#include "runtime/step_container.h"

namespace dflow {

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

  absl::Status Run();

  void Start(StartOn start);

 private:
  // A step's value for one output: live (tensor or variable) or dead.
  static bool IsLive(const TensorValue& v) {
    return v.var != nullptr || v.tensor.dtype() != DT_INVALID;
  }

  // Empties `n` input slots. Most are empty already (moved into a consumer,
  // or never written: a dead input); Tensor::Clear, not the assignment of a
  // fresh TensorValue, which built and destroyed a Tensor per slot.
  static void ClearValues(TensorValue* values, int n) {
    for (int k = 0; k < n; ++k) {
      if (IsLive(values[k])) {
        values[k].tensor.Clear();
        values[k].var = nullptr;
      }
    }
  }

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
    // Run as a serial loop (FrameInfo::serial; decided when the instance
    // starts): the Enters' values wait here until the last one arrives,
    // then RunSerialLoop runs every iteration at once.
    bool serial = false;
    // The path the instance takes (runtime/loop_path_tuner.h; `serial` is
    // path != kUsual, until a dead Enter sends it the usual way after all),
    // and whether it took the step's tuned path (its iterations count in
    // the step's time per iteration).
    LoopPath path = LoopPath::kUsual;
    bool tuned = false;
    int64_t serial_iterations = 0;  // as a serial loop
    struct Entered {
      int enter;
      TensorValue value;
      bool live;
    };
    std::vector<Entered> entered;
    std::map<std::pair<int64_t, int>, std::unique_ptr<FrameInstance>>
        children;  // (iteration, static frame)

    Iteration* Find(int64_t iter) {
      if (iter < oldest || iter > newest) return nullptr;
      return iterations[iter - oldest].get();
    }
  };
  struct Tagged {
    int id;  // a node, or kSerialLoop
    FrameInstance* frame;
    int64_t iter;
    Iteration* it;  // stays alive while the node is outstanding in it
  };
  // Tagged::id of a serial loop instance ready to run (`frame`; iter and
  // it unused): it goes through the ready lists like a node, so that it
  // runs outside mu_ on the thread that takes it.
  static constexpr int kSerialLoop = -1;
  using ReadyList = absl::InlinedVector<Tagged, 8>;

  const FrameInfo& Info(const FrameInstance* f) const {
    return exec_->frames_[f->frame];
  }

  // --- Iterations and frames (mu_ held). ---

  void NewIteration(FrameInstance* f, int64_t iter);

  // A new iteration's pending counts: one copy of the frame's initial
  // counts (a walk over the frame's nodes per iteration was a tenth of a
  // scalar loop's time).
  void InitPending(FrameInstance* f, int64_t iter);

  // Per static frame, by local index: a node's pending count when its
  // iteration starts (a Merge waits only for its control inputs). Built on
  // first use, once per step.
  const std::vector<int>& InitialPending(int frame);

  FrameInstance* ChildFrame(FrameInstance* parent, int64_t iter, int frame);

  // Delivers output values of node `src` (running in another frame or
  // iteration, or this one) to its consumers in iteration `iter` of `f`.
  // `outputs` null: every output and control edge is dead. `copy`: the
  // values are delivered again later (constants), so never moved.
  void Activate(FrameInstance* f, int64_t iter, int src,
                OpKernelContext::OutputValues* outputs, bool copy,
                ReadyList* ready);
  // The same, for the caller that holds the iteration's tables already.
  void Activate(FrameInstance* f, int64_t iter, Iteration* it, int src,
                OpKernelContext::OutputValues* outputs, bool copy,
                ReadyList* ready);

  // Into an input slot: the output itself on its last use (not a copy of
  // the value that will be delivered again), else a copy. Two assignments,
  // not one from a conditional expression, which made a temporary
  // TensorValue per edge.
  static void Deliver(OpKernelContext::OutputValues* outputs,
                      const FrameEdge& edge, bool copy, TensorValue* slot);

  // After node `t` ran (outputs) or was skipped as dead (outputs null).
  void Propagate(const Tagged& t, OpKernelContext::OutputValues* outputs,
                 ReadyList* ready);

  // Enter node `enter`'s value (null: dead) into frame instance `child`:
  // a constant one into every iteration, present and future, the others
  // into iteration 0.
  void EnterValue(FrameInstance* child, int enter,
                  OpKernelContext::OutputValues* value, ReadyList* ready);

  void StartIteration(FrameInstance* f, int64_t iter, ReadyList* ready);

  bool IterationDone(FrameInstance* f, int64_t iter);

  // Frees the done iterations in order, starts deferred ones, and ends the
  // frame (and maybe its parent's iteration) when none is left.
  void CleanupIterations(FrameInstance* f, ReadyList* ready);

  // --- What the step computes itself, under mu_. ---

  // Computes the ready nodes of `ready` that only forward values
  // (LoopNodeInfo::forward) right here, under mu_, and propagates their
  // outputs, which may make more of them ready; what is left runs as usual.
  // A scalar loop's Merge, Switch, LoopCond and Identity then cost no kernel
  // context, lock round trip or queue entry each (half its nodes). Not when
  // the step records stats (Execute records every node's run), nor once it
  // stops. A worklist, not recursion: a long chain of Identities must not
  // grow the stack.
  void RunForwards(ReadyList* ready);

  // Whether RunForwards may run node `t`'s kernel itself (mu_ held): a
  // LoopNodeInfo::small_kernel that the cost model found cheap (it runs
  // inline anyway), on plain values of at most kSmallKernelElements
  // elements each, so that the lock is held about as long as the hand-off
  // it spares would take. A dead node qualifies (it is only skipped).
  bool MayRunSmallKernel(const Tagged& t) const;

  // Runs (or skips, when dead) node `t`'s kernel under mu_ and propagates
  // its outputs, as Execute and Finish would have without the lock.
  void RunSmallKernel(const Tagged& t, ReadyList* ready);

  // What the node's kernel would output (or that it is dead), computed
  // from its input slots, which it empties, into `outputs` (two empty
  // values on entry: no node computed here has more outputs); false (nothing
  // touched) when the node is not one RunForwards computes or its inputs need
  // the kernel (a variable, a pred that is not a bool scalar: the kernel's
  // error).
  bool ComputeForward(const Tagged& t, OpKernelContext::OutputValues* outputs,
                      bool* dead);

  // A Merge's value_index output for input `i`: made once per step, shared
  // read-only as the Merge kernel's own are.
  const Tensor& MergeIndex(int i);

  // --- Serial loops (executor_serial_loop.cc). ---

  // The path of a new instance of `frame` (mu_ held): serial when it has a
  // serial loop (FrameInfo::serial), no stats are recorded (a timeline
  // shows every node), and the step has one thread or every kernel of the
  // loop was measured cheaper than a hand-off (so the first instance runs
  // the usual way and measures them); else, for a serial loop, the path
  // the executor's tuner gave this step (DrawLoopPath; `*tuned`); else the
  // usual path.
  LoopPath ChooseLoopPath(int frame, bool* tuned);
  // Draws the step's path from the executor's tuner when one of its serial
  // loops has a kernel that costs more than a hand-off (Start, mu_ held;
  // the inline flags only ever turn on, so the loops that need a path
  // cannot change during the step).
  void DrawLoopPath();
  // Counts the iterations of an ended instance that took the tuned path.
  void CountTunedIterations(const FrameInstance& f);
  // Reports a timed step to the executor's tuner (FinishStep; mu_ held).
  void RecordLoopTime();

  // Called (mu_ held) when the last Enter of serial loop instance `f` has
  // arrived (f->entered). Adds the loop to `ready` (Tagged::id kSerialLoop)
  // and returns true: f->pending_enters stays at 1, holding the frame open
  // until RunSerialLoop has run. Returns false when an Enter brought a
  // dead value (a loop in an untaken branch): the values go the usual way
  // (EnterValue), and the instance is not serial after all.
  bool ReadySerialLoop(FrameInstance* f, ReadyList* ready);

  // Runs every iteration of serial loop instance `f` as one straight-line
  // program per iteration, outside mu_ (nothing else touches `f` until it
  // ends: its nodes run only here), so that the step's other threads never
  // wait for a whole loop to take the lock. Then, under mu_, hands each
  // live Exit to the parent as Propagate would and ends the frame
  // (CleanupIterations: dead Exits, the parent's iteration). Errors and
  // stop requests abort the step.
  void RunSerialLoop(FrameInstance* f, ReadyList* ready);

  // Why the step must stop now (deadline, cancellation, a peer's abort), or
  // OK: CheckStop's reasons, for callers that hold mu_.
  absl::Status StopStatus() const;

  // --- Running nodes. ---

  void RunQueue(ReadyList queue);

  // Queues the cheap nodes of `ready` on `queue` for this thread and hands
  // the others to the pool, but for one expensive node this thread keeps
  // when its queue is empty and `may_keep`.
  void Dispatch(const ReadyList& ready, ReadyList* queue, bool may_keep = true);

  // Runs (or skips) one node; false when an async kernel finishes later.
  bool Execute(const Tagged& t, ReadyList* ready);

  // Executor::KernelParams with the node's frame and iteration.
  OpKernelContext::Params KernelParams(const Tagged& t, const NodeItem& item,
                                       TensorValue* inputs);

  int64_t ElapsedMicros() const;

  // One entry per execution: a node in a loop runs once per iteration.
  void RecordStats(const Tagged& t, OpKernelContext* ctx, int64_t start_us);

  // Hands the step's stats to the caller, in the order the nodes finished
  // (mu_ held: the step is over).
  void CollectStats();

  void Finish(const Tagged& t, OpKernelContext* ctx, ReadyList* ready);

  // A kernel's outputs as Propagate takes them: null when the kernel failed
  // or left out an output another node needs (then `error` says so, naming
  // the node and its frame), or when its outputs are dead as a whole.
  OpKernelContext::OutputValues* CheckedOutputs(const Tagged& t,
                                                OpKernelContext* ctx,
                                                absl::Status* error);

  // Propagate and RunForwards under mu_ (ChangeAndForward).
  void PropagateAndForward(const Tagged& t,
                           OpKernelContext::OutputValues* outputs,
                           ReadyList* ready);

  // Runs `change` (what a finished node or loop hands on) and RunForwards
  // under mu_; then tells the step's peers of an abort that a kernel run
  // there caused (outside mu_: aborting the rendezvous may run callbacks
  // that take it).
  void ChangeAndForward(ReadyList* ready, absl::FunctionRef<void()> change);

  // Whether CheckStop would stop the step; reads only (callable under mu_).
  bool StopRequested() const;

  void CheckStop();

  void Abort(const absl::Status& s);

  // Abort with mu_ held; PropagateAndForward tells the peers after.
  void AbortLocked(const absl::Status& s);

  // The other partitions' transfers and the collectives end too.
  void AbortPeers(const absl::Status& s);

  // mu_ held.
  void FinishStep();

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
  // The path of the step's loops that the executor's tuner decides
  // (runtime/loop_path_tuner.h), drawn at the start (DrawLoopPath) before
  // any node runs, then only read; kOneThread keeps every node and block
  // on the thread running it (Dispatch, RunQueue).
  bool loop_path_drawn_ = false;
  bool loop_path_timed_ = false;
  LoopPath loop_path_ = LoopPath::kUsual;
  int64_t tuned_iterations_ = 0;
  std::mutex stats_mu_;
  std::vector<NodeExecStats> stats_;  // stats_mu_; with args_.stats only
};

}  // namespace dflow

#endif  // DFLOW_RUNTIME_EXECUTOR_FRAME_STEP_H_
