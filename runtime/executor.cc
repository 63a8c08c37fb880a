#include "runtime/executor.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "compiler/partition.h"
#include "graph/node_def_util.h"
#include "graph/ops/control_flow_ops.h"
#include "runtime/collective_context.h"
#include "runtime/variables.h"

namespace dflow {
namespace {

bool RecvMayBeDead(const Node& recv) {
  const AttrValue* v = recv.FindAttr(kRecvMayBeDeadAttr);
  return v != nullptr && v->b();
}

}  // namespace

absl::StatusOr<std::unique_ptr<Executor>> Executor::Create(
    const Graph& graph, Device* device, const KernelProvider& provider) {
  return Create(
      graph, [device](const Node&) { return device; }, provider);
}

absl::StatusOr<std::unique_ptr<Executor>> Executor::Create(
    const Graph& graph, const DeviceResolver& device_of,
    const KernelProvider& provider) {
  absl::StatusOr<std::vector<Node*>> order = graph.TopologicalOrder();
  if (!order.ok()) return order.status();
  if (absl::Status s = graph.CheckAllInputsConnected(); !s.ok()) return s;

  auto exec = std::unique_ptr<Executor>(new Executor);
  std::vector<int> index_of(graph.num_node_ids(), -1);
  exec->nodes_.resize(order->size());
  for (size_t i = 0; i < order->size(); ++i) {
    const Node* n = (*order)[i];
    index_of[n->id()] = static_cast<int>(i);
    NodeItem& item = exec->nodes_[i];
    Device* device = device_of(*n);
    if (device == nullptr) {
      return absl::InternalError(absl::StrCat(
          NodeLabel(n->def()), " has no device to run on (assigned '",
          n->assigned_device(), "')"));
    }
    if (exec->pool_ == nullptr) exec->pool_ = device->thread_pool();
    item.device = device;
    if (provider) {
      absl::StatusOr<std::shared_ptr<OpKernel>> kernel = provider(*n, device);
      if (!kernel.ok()) return kernel.status();
      item.kernel = *std::move(kernel);
    } else {
      absl::StatusOr<std::unique_ptr<OpKernel>> kernel =
          KernelRegistry::Global()->CreateKernel(*n, device);
      if (!kernel.ok()) return kernel.status();
      item.kernel = *std::move(kernel);
    }
    item.label = NodeLabel(n->def());
    // "_forward_input" is compiler/memory_planning.h's kForwardInputAttr
    // (spelled out: the runtime library does not link the planner).
    if (const AttrValue* plan = n->FindAttr("_forward_input")) {
      for (int64_t k : plan->list().i()) {
        item.forward_inputs.push_back(static_cast<int>(k));
      }
      item.forward_inputs.resize(n->num_outputs(), -1);
    }
    item.is_merge = IsMergeOp(n->op());
    // A _Recv carries deadness only from a graph with a Switch (partition
    // marks those), so partitioned graphs without one keep the fast path.
    item.may_output_dead =
        IsSwitchOp(n->op()) || (n->op() == kRecvOp && RecvMayBeDead(*n));
    item.runs_when_dead = n->op() == "_Send";
    item.is_control_trigger = n->op() == "ControlTrigger";
    if (item.may_output_dead) exec->has_deadness_ = true;
    if (n->op() == kRetvalOp) {
      const Edge* in = n->input_edge(0);
      item.dead_fetch_error = absl::StrCat(
          "the fetched tensor '",
          in == nullptr ? std::string("?")
                        : TensorName(in->src->name(), in->src_output),
          "' is dead: a Switch upstream of it took the other branch, so it "
          "has no value in this step; fetch the Merge of the branches "
          "instead");
    }
    item.input_start = exec->total_inputs_;
    item.num_inputs = n->num_inputs();
    item.pending_init = static_cast<int>(n->in_edges().size());
    exec->total_inputs_ += n->num_inputs();
    if (item.pending_init == 0) exec->roots_.push_back(static_cast<int>(i));
  }
  for (size_t i = 0; i < order->size(); ++i) {
    const Node* n = (*order)[i];
    NodeItem& item = exec->nodes_[i];
    item.out_begin = static_cast<int>(exec->out_edges_.size());
    for (const Edge* e : n->out_edges()) {
      const int dst = index_of[e->dst->id()];
      const int slot =
          e->IsControl() ? -1 : exec->nodes_[dst].input_start + e->dst_input;
      exec->out_edges_.push_back(OutEdge{dst, slot, e->src_output, false});
      if (!e->IsControl() && IsRefType(n->output_type(e->src_output)) &&
          !IsRefType(e->dst->input_type(e->dst_input))) {
        exec->nodes_[dst].deref_slots.push_back(slot);
      }
    }
    item.out_end = static_cast<int>(exec->out_edges_.size());
    // The last data edge of each output moves the value.
    std::vector<bool> seen(n->num_outputs(), false);
    for (int e = item.out_end - 1; e >= item.out_begin; --e) {
      OutEdge& edge = exec->out_edges_[e];
      if (edge.slot < 0 || seen[edge.src_output]) continue;
      seen[edge.src_output] = true;
      edge.last_use = true;
    }
  }
  exec->has_loops_ = GraphHasLoops(graph);
  if (exec->has_loops_) {
    exec->has_deadness_ = true;
    if (absl::Status s = exec->BuildFrames(graph, *order, index_of); !s.ok()) {
      return s;
    }
  }
  exec->inline_.reset(new std::atomic<uint8_t>[exec->nodes_.size()]);
  for (size_t i = 0; i < exec->nodes_.size(); ++i) {
    exec->inline_[i].store(exec->nodes_[i].kernel->IsExpensive() ? 0 : 1,
                           std::memory_order_relaxed);
  }
  exec->state_pool_ = std::make_shared<StatePool>(
      exec->total_inputs_, static_cast<int>(exec->nodes_.size()),
      exec->has_deadness_);
  return exec;
}

// Keeps the state of finished steps for the next ones. A few are kept, as
// many as steps usually run at once; more are freed.
class Executor::StatePool {
 public:
  StatePool(int num_inputs, int num_nodes, bool has_deadness)
      : num_inputs_(num_inputs),
        num_nodes_(num_nodes),
        has_deadness_(has_deadness) {}

  std::unique_ptr<StepState> Acquire() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!free_.empty()) {
        std::unique_ptr<StepState> state = std::move(free_.back());
        free_.pop_back();
        return state;
      }
    }
    auto state = std::make_unique<StepState>();
    state->inputs.reset(new TensorValue[num_inputs_]);
    state->pending.reset(new std::atomic<int>[num_nodes_]);
    if (has_deadness_) state->dead.reset(new std::atomic<uint8_t>[num_nodes_]);
    return state;
  }

  int num_inputs() const { return num_inputs_; }

  // Every input slot of `state` must be empty (holding no tensor).
  void Release(std::unique_ptr<StepState> state) {
    std::lock_guard<std::mutex> lock(mu_);
    if (free_.size() < kMaxKept) free_.push_back(std::move(state));
  }

 private:
  static constexpr size_t kMaxKept = 8;
  const int num_inputs_;
  const int num_nodes_;
  const bool has_deadness_;
  std::mutex mu_;
  std::vector<std::unique_ptr<StepState>> free_;  // mu_
};

Executor::~Executor() = default;

namespace {
std::atomic<KernelCostForTesting> kernel_cost_for_testing{nullptr};
}  // namespace

void SetKernelCostForTesting(KernelCostForTesting cost) {
  kernel_cost_for_testing.store(cost, std::memory_order_release);
}

bool Executor::CheaperThanHandOff(const OpKernel& kernel,
                                  std::chrono::nanoseconds measured) {
  if (KernelCostForTesting hook =
          kernel_cost_for_testing.load(std::memory_order_acquire)) {
    measured = std::chrono::nanoseconds(hook(kernel.name()));
  }
  return measured < std::chrono::nanoseconds(2000);
}

namespace {

// The executor times every node during its first kSampledSteps steps; a
// node that ever computed faster than a hand-off (CheaperThanHandOff) runs
// inline from then on.
constexpr int kSampledSteps = 8;

// A thread with at least this many inline nodes queued hands half of them to
// the pool as one task, so wide graphs of small ops still use every core
// without paying a hand-off per node.
constexpr size_t kSplitQueue = 64;

// How deeply asynchronous completions nest on one thread: a _Recv
// completes inside the _Send of another partition, whose successors may
// send again, and so on. Past kMaxInlineDepth the successors go to the pool
// instead, so a long chain of transfers cannot overflow the stack.
constexpr int kMaxInlineDepth = 16;
thread_local int async_depth = 0;

}  // namespace

namespace {

// A small id of the calling thread, stable for its life.
int StatsThreadId() {
  static std::atomic<int> next{0};
  thread_local int id = next.fetch_add(1);
  return id;
}

}  // namespace

void RecordKernelStats(const OpKernel& kernel, const Device& device,
                       OpKernelContext* ctx, absl::Time step_start,
                       int64_t start_us, NodeExecStats* s) {
  s->node = kernel.name();
  s->op = kernel.type_string();
  s->device = device.name();
  s->start_us = start_us;
  s->end_us = absl::ToInt64Microseconds(absl::Now() - step_start);
  s->thread_id = StatsThreadId();
  s->details = kernel.stats_details();
  for (auto& detail : ctx->TakeStatsDetails()) {
    s->details.push_back(std::move(detail));
  }
  if (ctx->status().ok()) {
    for (const TensorValue& v : *ctx->outputs()) {
      s->output_shapes.push_back(v.tensor.shape());
      s->output_bytes += static_cast<int64_t>(v.tensor.TotalBytes());
    }
  }
  for (OpKernelContext::Phase& p : ctx->TakePhases()) {
    s->phases.push_back(NodeExecStats::Phase{
        std::move(p.name), absl::ToInt64Microseconds(p.start - step_start),
        absl::ToInt64Microseconds(p.end - step_start)});
  }
}

// The state of one step. Shared with every closure that runs part of it, so
// it outlives a Run that returned early on a timeout.
class Executor::Step : public std::enable_shared_from_this<Step> {
 public:
  // `done` null: Run() waits for the step; else RunAsync's callback.
  Step(const Executor* exec, const Args& args, DoneCallback done = nullptr)
      : keep_alive_(exec->weak_from_this().lock()),
        exec_(exec),
        args_(args),
        done_callback_(std::move(done)),
        pool_(exec->state_pool_),
        state_(pool_->Acquire()),
        inputs_(state_->inputs.get()),
        pending_(state_->pending.get()),
        dead_(state_->dead.get()),
        sample_costs_(exec->steps_started_.fetch_add(
                          1, std::memory_order_relaxed) < kSampledSteps),
        start_(args.start_time == absl::InfinitePast() ? absl::Now()
                                                       : args.start_time) {
    for (size_t i = 0; i < exec->nodes_.size(); ++i) {
      pending_[i].store(exec->nodes_[i].pending_init,
                        std::memory_order_relaxed);
    }
    if (dead_ != nullptr) {
      for (size_t i = 0; i < exec->nodes_.size(); ++i) {
        dead_[i].store(0, std::memory_order_relaxed);
      }
    }
    if (args.stats != nullptr) InitStats();
  }

  ~Step() {
    // A finished step's consumers emptied every slot; an aborted one may
    // have left values behind.
    if (aborted_.load(std::memory_order_acquire)) {
      for (int i = 0; i < pool_->num_inputs(); ++i) inputs_[i] = TensorValue();
    }
    pool_->Release(std::move(state_));
  }

  absl::Status Run() {
    if (exec_->roots_.empty()) return absl::OkStatus();
    // Cheap roots (Consts, _Args, variables) and the cheap nodes they make
    // ready run here; expensive ones go to the pool. Handing every root but
    // one to the pool cost a thread wake-up per step: 15 us for a 4-node
    // graph on 2 cores, now 0.8 us.
    StartRoots(/*may_keep=*/false);
    return Wait();
  }

  // Starts the roots here or in one task on the pool (one hand-off per
  // partition, not per root) and returns; NodeDone calls the done callback
  // when the last node finished.
  void Start(Executor::StartOn start) {
    if (exec_->roots_.empty()) {
      DoneCallback done = std::move(done_callback_);
      done(absl::OkStatus());
      return;
    }
    switch (start) {
      case Executor::StartOn::kPool:
        exec_->pool_->Schedule(
            [self = shared_from_this()] { self->StartRoots(); });
        return;
      case Executor::StartOn::kThisThread:
        StartRoots();
        return;
      case Executor::StartOn::kThisThreadCheapOnly:
        StartRoots(/*may_keep=*/false);
        return;
    }
  }

  // Runs the cheap roots on this thread; the expensive ones go to the
  // pool but one (none unless `may_keep`), as for any ready nodes
  // (Dispatch).
  void StartRoots(bool may_keep = true) {
    const std::vector<int>& roots = exec_->roots_;
    ReadyList queue;
    Dispatch(ReadyList(roots.begin(), roots.end()), &queue, may_keep);
    RunQueue(std::move(queue), may_keep);
  }

 private:
  using ReadyList = absl::InlinedVector<int, 16>;

  absl::Status Wait() {
    absl::Status stop;  // why the caller stops waiting early, if it does
    {
      std::unique_lock<std::mutex> lock(mu_);
      stop = WaitForStep(lock, done_cv_, done_, args_, start_);
      if (stop.ok()) {
        CollectStats();
        return status_;
      }
    }
    Abort(stop);  // outside mu_: aborting the rendezvous runs its receivers
    std::lock_guard<std::mutex> lock(mu_);
    return status_;
  }

  // Moves the step's stats to the caller's vector once every node ran.
  void CollectStats() {
    if (args_.stats == nullptr) return;
    for (NodeExecStats& s : stats_) {
      if (!s.node.empty()) args_.stats->push_back(std::move(s));
    }
  }

  // Records the step's first error and stops it; with a rendezvous, the
  // other partitions of the step stop too.
  void Abort(const absl::Status& s) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (status_.ok()) status_ = s;
      aborted_.store(true, std::memory_order_release);
    }
    if (args_.rendezvous != nullptr) args_.rendezvous->StartAbort(s);
    if (args_.collective_context != nullptr) {
      args_.collective_context->Abort(s);
    }
  }

  // Runs `first`, then whatever it makes ready, on this thread as long as
  // the work is cheap; expensive ready nodes beyond one go to the pool.
  void RunLoop(int first) { RunQueue(ReadyList{first}); }

  // Runs `queue` and what it makes ready on this thread; with `may_keep`
  // false, expensive ready nodes all go to the pool (see Dispatch).
  void RunQueue(ReadyList queue, bool may_keep = true) {
    ReadyList ready;
    ThreadPool* pool = exec_->pool_;
    while (!queue.empty()) {
      const int id = queue.back();
      queue.pop_back();
      ready.clear();
      if (!Execute(id, &ready)) continue;  // async: finishes in its callback
      Dispatch(ready, &queue, may_keep);
      NodeDone();
      if (queue.size() >= kSplitQueue && pool->num_threads() > 1) {
        const size_t half = queue.size() / 2;
        ReadyList batch(queue.begin(), queue.begin() + half);
        queue.erase(queue.begin(), queue.begin() + half);
        pool->Schedule([self = shared_from_this(), batch = std::move(batch)] {
          self->RunQueue(std::move(batch));
        });
      }
    }
  }

  // Queues inline ready nodes on `queue` and schedules the others; keeps
  // one expensive node for this thread when it has nothing else to do and
  // `may_keep` (a thread that finished an async kernel is often another
  // partition's, in the middle of its own work: it takes cheap nodes only).
  void Dispatch(const ReadyList& ready, ReadyList* queue,
                bool may_keep = true) {
    if (ready.empty()) return;
    outstanding_.fetch_add(static_cast<int>(ready.size()),
                           std::memory_order_relaxed);
    int keep = -1;
    ThreadPool* pool = exec_->pool_;
    for (int r : ready) {
      if (exec_->inline_[r].load(std::memory_order_relaxed) != 0) {
        queue->push_back(r);
        continue;
      }
      if (keep >= 0) {
        pool->Schedule(
            [self = shared_from_this(), keep] { self->RunLoop(keep); });
      }
      keep = r;
    }
    if (keep >= 0) {
      if (queue->empty() && may_keep) {
        queue->push_back(keep);
      } else {
        pool->Schedule(
            [self = shared_from_this(), keep] { self->RunLoop(keep); });
      }
    }
  }

  void NodeDone() {
    if (outstanding_.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
    if (done_callback_) {  // RunAsync: nobody waits, report
      absl::Status status;
      {
        std::lock_guard<std::mutex> lock(mu_);
        done_ = true;
        // A copy sharing nothing with status_, which this step releases on
        // whatever thread drops it last: the system Abseil's uninstrumented
        // reference count would make that a race to ThreadSanitizer.
        if (!status_.ok()) {
          status = absl::Status(status_.code(), status_.message());
        }
      }
      CollectStats();
      DoneCallback done = std::move(done_callback_);
      done(std::move(status));
      return;
    }
    std::lock_guard<std::mutex> lock(mu_);
    done_ = true;
    done_cv_.notify_all();
  }

  // Runs node `id`. Returns true when it finished synchronously (its ready
  // successors are in `ready`), false for an async kernel still running.
  bool Execute(int id, ReadyList* ready) {
    const NodeItem& item = exec_->nodes_[id];
    if (aborted_.load(std::memory_order_acquire)) return true;
    if (args_.rendezvous != nullptr && args_.rendezvous->aborted()) {
      Abort(args_.rendezvous->status());  // another partition failed
      return true;
    }
    if (args_.cancellation != nullptr && args_.cancellation->cancelled()) {
      Abort(absl::CancelledError("the step was cancelled by the caller"));
      return true;
    }
    if (args_.deadline != absl::InfiniteFuture() &&
        absl::Now() > args_.deadline) {
      Abort(absl::DeadlineExceededError("the step ran past its timeout"));
      return true;
    }
    bool input_dead = false;
    if (exec_->has_deadness_) {
      input_dead = InputDead(id) && !item.is_control_trigger;
      if (input_dead && !item.runs_when_dead) {
        if (!item.dead_fetch_error.empty()) {
          Abort(absl::InvalidArgumentError(
              absl::StrCat(item.label, ": ", item.dead_fetch_error)));
          return true;
        }
        PropagateDead(id, ready);
        return true;
      }
      // A dead _Send runs with empty inputs: it sends the deadness.
      if (input_dead) ClearInputs(item);
    }
    if (absl::Status s = ReadRefInputs(item, &inputs_[item.input_start]);
        !s.ok()) {
      Abort(s);
      return true;
    }
    const OpKernelContext::Params params =
        KernelParams(item, args_, &step_container_, &inputs_[item.input_start],
                     /*record_phases=*/!stats_.empty());
    const int64_t start_us = stats_.empty() ? 0 : ElapsedMicros();
    if (AsyncOpKernel* async = item.kernel->AsAsync()) {
      // The callback owns the context, so a kernel that drops `done`
      // without calling it (a step that hangs until its timeout) frees it.
      auto ctx = std::make_shared<OpKernelContext>(params);
      OpKernelContext* raw = ctx.get();
      async->ComputeAsync(
          raw, [self = shared_from_this(), id, ctx, start_us]() mutable {
            ReadyList ready;
            self->Finish(id, ctx.get(), start_us, &ready);
            ctx.reset();  // free the kernel's outputs before the successors run
            ReadyList queue;
            self->Dispatch(ready, &queue, /*may_keep=*/false);
            self->NodeDone();
            if (queue.empty()) return;
            if (async_depth < kMaxInlineDepth) {
              // Continue with the cheap successors on this thread.
              ++async_depth;
              self->RunQueue(std::move(queue));
              --async_depth;
            } else {
              self->exec_->pool_->Schedule(
                  [self, queue = std::move(queue)]() mutable {
                    self->RunQueue(std::move(queue));
                  });
            }
          });
      return false;
    }
    OpKernelContext ctx(params);
    if (sample_costs_) {
      const auto begin = std::chrono::steady_clock::now();
      item.kernel->Compute(&ctx);
      if (CheaperThanHandOff(*item.kernel,
                             std::chrono::steady_clock::now() - begin)) {
        exec_->inline_[id].store(1, std::memory_order_relaxed);
      }
    } else {
      item.kernel->Compute(&ctx);
    }
    Finish(id, &ctx, start_us, ready);
    return true;
  }

  // After a kernel ran: check it, hand its outputs to the consumers' input
  // slots, release its own inputs, and collect the successors now ready.
  void Finish(int id, OpKernelContext* ctx, int64_t start_us,
              ReadyList* ready) {
    const NodeItem& item = exec_->nodes_[id];
    if (!ctx->status().ok()) {
      Abort(absl::Status(
          ctx->status().code(),
          absl::StrCat(item.label, ": ", ctx->status().message())));
      return;
    }
    OpKernelContext::OutputValues& outputs = *ctx->outputs();
    if (!stats_.empty()) RecordStats(id, ctx, start_us);
    const bool wholly_dead =
        item.may_output_dead && Executor::SetNoOutput(item, outputs);
    for (int e = item.out_begin; e < item.out_end; ++e) {
      const OutEdge& edge = exec_->out_edges_[e];
      if (edge.slot < 0 && wholly_dead) MarkDead(edge.dst);
      if (edge.slot >= 0) {
        const TensorValue& v = outputs[edge.src_output];
        if (v.var == nullptr && v.tensor.dtype() == DT_INVALID) {
          if (item.may_output_dead) {  // a Switch's other branch, a dead _Recv
            MarkDead(edge.dst);
            continue;
          }
          Abort(absl::InternalError(
              absl::StrCat(item.label, ": the kernel did not produce output ",
                           edge.src_output, ", which another node needs")));
          return;
        }
        if (edge.last_use) {
          inputs_[edge.slot] = std::move(outputs[edge.src_output]);
        } else {
          inputs_[edge.slot] = v;
        }
      }
    }
    for (int k = 0; k < item.num_inputs; ++k) {  // free early
      TensorValue& v = inputs_[item.input_start + k];
      v.tensor.Clear();
      v.var = nullptr;
    }
    for (int e = item.out_begin; e < item.out_end; ++e) {
      const int dst = exec_->out_edges_[e].dst;
      if (pending_[dst].fetch_sub(1, std::memory_order_acq_rel) == 1) {
        ready->push_back(dst);
      }
    }
  }

  // Whether node `id` has a dead input: for a Merge, every data input
  // (its dead inputs are the empty slots); else any, data or control.
  bool InputDead(int id) const {
    const NodeItem& item = exec_->nodes_[id];
    if (!item.is_merge) return dead_[id].load(std::memory_order_relaxed) != 0;
    for (int k = 0; k < item.num_inputs; ++k) {
      const TensorValue& v = inputs_[item.input_start + k];
      if (v.var != nullptr || v.tensor.dtype() != DT_INVALID) return false;
    }
    return true;
  }

  // Marks a dead input of `dst`. A Merge's dead data inputs are its empty
  // slots, and a dead control input does not make it dead (as in
  // TensorFlow). Written before the pending count drops, which publishes it.
  void MarkDead(int dst) {
    if (!exec_->nodes_[dst].is_merge) {
      dead_[dst].store(1, std::memory_order_relaxed);
    }
  }

  void ClearInputs(const NodeItem& item) {
    for (int k = 0; k < item.num_inputs; ++k) {
      TensorValue& v = inputs_[item.input_start + k];
      v.tensor.Clear();
      v.var = nullptr;
    }
  }

  // Node `id` does not run: every output and control edge is dead.
  void PropagateDead(int id, ReadyList* ready) {
    const NodeItem& item = exec_->nodes_[id];
    ClearInputs(item);
    for (int e = item.out_begin; e < item.out_end; ++e) {
      const int dst = exec_->out_edges_[e].dst;
      MarkDead(dst);
      if (pending_[dst].fetch_sub(1, std::memory_order_acq_rel) == 1) {
        ready->push_back(dst);
      }
    }
  }

  int64_t ElapsedMicros() const {
    return absl::ToInt64Microseconds(absl::Now() - start_);
  }

  // One stats entry per node, with the node's inputs named from the edges:
  // the executor keeps no input names, and a step without stats pays nothing
  // for them.
  void InitStats() {
    const std::vector<NodeItem>& nodes = exec_->nodes_;
    stats_.resize(nodes.size());
    for (size_t i = 0; i < nodes.size(); ++i) {
      stats_[i].inputs.resize(nodes[i].num_inputs);
    }
    for (const bool control : {false, true}) {  // data inputs first
      for (const NodeItem& src : nodes) {
        for (int e = src.out_begin; e < src.out_end; ++e) {
          const OutEdge& edge = exec_->out_edges_[e];
          if ((edge.slot < 0) != control) continue;
          std::vector<std::string>& inputs = stats_[edge.dst].inputs;
          if (control) {
            inputs.push_back(absl::StrCat("^", src.kernel->name()));
            continue;
          }
          inputs[edge.slot - nodes[edge.dst].input_start] =
              edge.src_output == 0
                  ? src.kernel->name()
                  : absl::StrCat(src.kernel->name(), ":", edge.src_output);
        }
      }
    }
  }

  // Called once the kernel is done (an async kernel's phases were recorded
  // before it called `done`, which runs this).
  void RecordStats(int id, OpKernelContext* ctx, int64_t start_us) {
    const NodeItem& item = exec_->nodes_[id];
    RecordKernelStats(*item.kernel, *item.device, ctx, start_, start_us,
                      &stats_[id]);
  }

  const std::shared_ptr<const Executor> keep_alive_;  // null if not shared
  const Executor* exec_;
  const Args args_;
  DoneCallback done_callback_;  // RunAsync's; called once by NodeDone
  const std::shared_ptr<StatePool> pool_;
  std::unique_ptr<StepState> state_;
  TensorValue* const inputs_;         // state_->inputs
  std::atomic<int>* const pending_;   // state_->pending
  std::atomic<uint8_t>* const dead_;  // state_->dead; null without deadness
  std::atomic<int> outstanding_{0};
  std::atomic<bool> aborted_{false};
  const bool sample_costs_;           // time each node (an early step)
  std::vector<NodeExecStats> stats_;  // indexed by node; each written once
  const absl::Time start_;
  // std::mutex, not absl::Mutex: see runtime/variables.h.
  std::mutex mu_;
  std::condition_variable done_cv_;
  absl::Status status_;  // mu_
  bool done_ = false;    // mu_
  // Stacks and TensorArrays the step's kernels made; they die with it.
  StepContainer step_container_;
};

absl::Status Executor::WaitForStep(std::unique_lock<std::mutex>& lock,
                                   std::condition_variable& cv,
                                   const bool& done, const Args& args,
                                   absl::Time start) {
  const bool polls = args.cancellation != nullptr;
  const bool timed = args.deadline != absl::InfiniteFuture();
  while (!done) {
    if (!polls && !timed) {
      cv.wait(lock, [&done] { return done; });
      break;
    }
    absl::Time until = args.deadline;
    if (polls) until = std::min(until, absl::Now() + absl::Milliseconds(10));
    cv.wait_until(lock, absl::ToChronoTime(until), [&done] { return done; });
    if (done) break;
    if (polls && args.cancellation->cancelled()) {
      return absl::CancelledError("the step was cancelled by the caller");
    }
    if (absl::Now() >= args.deadline) {
      return absl::DeadlineExceededError(
          absl::StrCat("the step did not finish within its timeout of ",
                       absl::FormatDuration(args.deadline - start)));
    }
  }
  return absl::OkStatus();
}

absl::Status Executor::ReadRefInputs(const NodeItem& item,
                                     TensorValue* inputs) {
  for (int slot : item.deref_slots) {
    TensorValue& v = inputs[slot - item.input_start];
    if (v.var == nullptr) continue;
    Tensor value = v.var->Read();
    if (value.dtype() != v.var->dtype()) {
      const absl::Status uninitialized = UninitializedValueError(
          v.var->name(), absl::StrCat("input ", slot - item.input_start));
      return absl::Status(
          uninitialized.code(),
          absl::StrCat(item.label, ": ", uninitialized.message()));
    }
    v = TensorValue{std::move(value), nullptr};
  }
  return absl::OkStatus();
}

OpKernelContext::Params Executor::KernelParams(const NodeItem& item,
                                               const Args& args,
                                               StepContainer* step_container,
                                               TensorValue* inputs,
                                               bool record_phases) {
  OpKernelContext::Params params;
  params.kernel = item.kernel.get();
  params.device = item.device;
  params.variables = args.variables;
  params.step_id = args.step_id;
  params.step_container = step_container;
  params.inputs = inputs;
  params.call_frame = args.call_frame;
  params.rendezvous = args.rendezvous;
  params.collective_context = args.collective_context;
  params.record_phases = record_phases;
  if (!item.forward_inputs.empty()) {
    params.forward_inputs = &item.forward_inputs;
  }
  return params;
}

absl::Status Executor::Run(const Args& args) const {
  if (has_loops_) return RunFrames(args);
  auto step = std::make_shared<Step>(this, args);
  return step->Run();
}

void Executor::RunAsync(const Args& args, DoneCallback done,
                        StartOn start) const {
  if (has_loops_) return RunFramesAsync(args, std::move(done), start);
  auto step = std::make_shared<Step>(this, args, std::move(done));
  step->Start(start);
}

bool Executor::SetNoOutput(const NodeItem& item,
                           const OpKernelContext::OutputValues& outputs) {
  const int n = item.kernel->num_outputs();
  if (n == 0) return false;
  for (int k = 0; k < n && k < static_cast<int>(outputs.size()); ++k) {
    const TensorValue& v = outputs[k];
    if (v.var != nullptr || v.tensor.dtype() != DT_INVALID) return false;
  }
  return true;
}

}  // namespace dflow
