// Runs one graph partition on one device.
//
// Create() compiles the graph once into a flat plan: nodes in an array with
// their kernels built, every input a slot in one table, precomputed pending
// counts and fan-out lists. Run() then executes a step with no map lookups,
// string work or per-node allocation beyond the tensors the kernels make:
// atomic pending counters, cheap kernels inline on the thread that made them
// ready, expensive ones on the shared pool, tensors released as soon as
// their last consumer ran. The first error cancels the rest of the step and
// is returned naming the node and op. Run may be called concurrently: all
// per-step state lives in the step.
//
// Dead tensors (TensorFlow's TF1 conditionals, acyclic graphs): a Switch
// forwards its data to one output and leaves the other dead. A node with a
// dead input (data or control) does not run and its outputs are dead,
// except a Merge, which runs once all its inputs arrived and forwards its
// first live one (dead only when every data input is), and a _Send, which
// runs to hand the deadness to its _Recv in another partition. Fetching a
// dead tensor is an error naming it. Only graphs with a node that can make
// a tensor dead (Switch, RefSwitch, _Recv) keep the per-step dead flags;
// every other graph runs the plain path, paying one predicted branch per
// node.
//
// Loops (TensorFlow's TF1 frames): a graph with Enter nodes runs through
// the frame-aware step of runtime/executor_frames.cc instead. Every node
// belongs to a static frame (the root, or the loop an Enter with its
// frame_name opens); at run time each frame instance has iterations, each
// with its own input slots and pending counts. Enter hands a value to its
// child frame's first iteration (to every iteration when is_constant),
// NextIteration to the next iteration of its frame (at most
// parallel_iterations in flight), Exit to the parent frame; a Merge runs on
// its first live input. A loop whose inputs are dead never runs, and its
// Exits hand on dead values once the frame instance is done. Acyclic graphs
// keep the plain path described above.
//
// The partitions of one step (one executor per device) run concurrently
// through RunAsync, meeting at the step's Rendezvous: a partition's first
// error aborts the rendezvous, which fails the other partitions' pending
// receives and stops them before their next node.
#ifndef DFLOW_RUNTIME_EXECUTOR_H_
#define DFLOW_RUNTIME_EXECUTOR_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "graph/graph.h"
#include "runtime/call_frame.h"
#include "runtime/device.h"
#include "runtime/kernel_registry.h"
#include "runtime/loop_path_tuner.h"
#include "runtime/op_kernel.h"
#include "runtime/rendezvous.h"
#include "runtime/session.h"
#include "runtime/variables.h"

namespace dflow {

// Fills `s` with what both executors record of one kernel run: names,
// times (start_us, and now, since `step_start`), the calling thread, the
// outputs (when the kernel succeeded), its details and timed phases.
void RecordKernelStats(const OpKernel& kernel, const Device& device,
                       OpKernelContext* ctx, absl::Time step_start,
                       int64_t start_us, NodeExecStats* s);

// Test hook for the cost model (Executor::inline_ below): while set, the
// executor takes a sampled node's compute time, in nanoseconds, from
// `cost(node name)` instead of the clock, so a test decides which nodes
// are measured cheap; timing real kernels made such tests fail on loaded
// hosts. nullptr restores the clock. Set it before the sessions it
// concerns run their first steps.
using KernelCostForTesting = int64_t (*)(const std::string& node);
void SetKernelCostForTesting(KernelCostForTesting cost);

// Test hook for the loop path tuner (runtime/loop_path_tuner.h): while
// set, a timed step reports `time(path)` nanoseconds per loop iteration
// instead of the clock's, so a test decides which path wins. nullptr
// restores the clock.
using LoopTimeForTesting = int64_t (*)(LoopPath path);
void SetLoopTimeForTesting(LoopTimeForTesting time);

// How many loop instances this process ran as serial loops
// (runtime/executor_serial_loop.h), for tests that check which path ran.
int64_t SerialLoopRunsForTesting();

// Owned through a std::shared_ptr (a unique_ptr from Create converts), a
// step that outlives Run (it timed out, its kernels still finishing) keeps
// the executor alive until its last kernel returns; otherwise the caller
// must keep the executor alive that long.
class Executor : public std::enable_shared_from_this<Executor> {
 public:
  // Supplies the kernel of a node: lets a session share one kernel per
  // stateful node among all its plans (a seeded random op continues its
  // stream whatever run signature it runs in, as in TensorFlow).
  using KernelProvider =
      std::function<absl::StatusOr<std::shared_ptr<OpKernel>>(const Node& node,
                                                              Device* device)>;

  // The device a node runs on.
  using DeviceResolver = std::function<Device*(const Node& node)>;

  // Every node of `graph` runs on `device`. The graph must be acyclic but
  // for loops' back edges (out of NextIteration), with all inputs
  // connected; it is not referenced after Create returns.
  // Without a provider, each node gets a new kernel from the registry.
  static absl::StatusOr<std::unique_ptr<Executor>> Create(
      const Graph& graph, Device* device,
      const KernelProvider& provider = nullptr);
  // Each node runs on the device `device_of` gives it. Only for devices
  // that share host memory (CPU devices and the host-memory stand-in for
  // GPUs): values pass between them without transfers. Graphs spanning
  // devices with memories of their own are partitioned first, one executor
  // per device.
  static absl::StatusOr<std::unique_ptr<Executor>> Create(
      const Graph& graph, const DeviceResolver& device_of,
      const KernelProvider& provider = nullptr);
  ~Executor();

  struct Args {
    int64_t step_id = 0;
    VariableStore* variables = nullptr;
    CallFrame* call_frame = nullptr;
    // Held by the step until its last kernel returns, for whatever the
    // pointers above point into: a step that timed out may still be
    // running kernels after Run returned and its caller moved on.
    std::shared_ptr<const void> keep_alive;
    // Optional: cancellation, deadline, step stats.
    const CancellationFlag* cancellation = nullptr;
    absl::Time deadline = absl::InfiniteFuture();
    // When non-null, one entry per node is appended, with the phases its
    // kernel recorded (OpKernelContext::RecordPhase).
    std::vector<NodeExecStats>* stats = nullptr;
    // The step's rendezvous, for the _Send/_Recv of a partitioned step
    // (null otherwise). The step aborts it with its first error, and stops
    // before its next node once it is aborted (by another partition, or by
    // the session on cancellation or timeout).
    Rendezvous* rendezvous = nullptr;
    // Handed to collective kernels (see OpKernelContext::Params).
    CollectiveContext* collective_context = nullptr;
    // What the stats' times count from: the partitions of one step share
    // it, so their stats sit on one clock. InfinitePast: when Run starts.
    absl::Time start_time = absl::InfinitePast();
  };

  // Runs one step to completion (or to the first error). Starts on the
  // calling thread; returns early, with the step's kernels still running,
  // when it is cancelled or runs past its deadline.
  absl::Status Run(const Args& args) const;

  // Starts one step on the thread pool and returns; `done` runs exactly
  // once, on whichever thread finishes the step, with its status (OK, or
  // the first error naming its node), after every started kernel returned
  // (possibly before RunAsync returns). `stats` is written before `done`
  // runs. `start` says which thread starts the step (StartOn).
  // Cancellation and the deadline are checked between nodes only: a
  // caller that must return while a kernel is stuck waits for `done` with
  // its own timeout, and aborts the step's rendezvous.
  // By value: the status is the callee's alone (moved in, sharing nothing
  // with the step, which may be released on another thread).
  using DoneCallback = std::function<void(absl::Status)>;
  enum class StartOn {
    // One task on the pool runs the roots.
    kPool,
    // The calling thread runs the cheap roots and what they make ready, and
    // keeps one expensive node for itself, as Run does: for the last
    // partition a thread starts.
    kThisThread,
    // The calling thread runs only the cheap roots and cheap nodes they
    // make ready; expensive ones go to the pool. For the partitions a
    // thread starts before its last: a step of cheap nodes (a _Recv
    // waiting, a Const) then costs no hand-off between threads, and no
    // expensive node holds up the partitions started after it.
    kThisThreadCheapOnly,
  };
  void RunAsync(const Args& args, DoneCallback done,
                StartOn start = StartOn::kPool) const;

  int num_nodes() const { return static_cast<int>(nodes_.size()); }

 private:
  // What both step kinds' Run waits with: on `cv` (with `lock` held on its
  // mutex) until `done`, the caller's cancellation or the step's deadline
  // (counted from `start`). Returns OK when done, else why it stopped
  // waiting (Cancelled, DeadlineExceeded); the step then aborts itself.
  static absl::Status WaitForStep(std::unique_lock<std::mutex>& lock,
                                  std::condition_variable& cv, const bool& done,
                                  const Args& args, absl::Time start);

  // Run / RunAsync of a graph with loops (runtime/executor_frames.cc).
  absl::Status RunFrames(const Args& args) const;
  void RunFramesAsync(const Args& args, DoneCallback done, StartOn start) const;

  struct NodeItem {
    std::shared_ptr<OpKernel> kernel;
    Device* device = nullptr;
    std::string label;  // "node 'name' (Op)" for errors
    int input_start = 0;
    int num_inputs = 0;
    int pending_init = 0;
    int out_begin = 0;
    int out_end = 0;
    // Input slots fed by a reference output but read as values: the
    // variable is read (and checked initialized) right before the kernel.
    std::vector<int> deref_slots;
    // Memory planning's `_forward_input` attr (compiler/memory_planning.h):
    // per output, the input whose buffer it may reuse, or -1; empty when
    // the node has no plan.
    std::vector<int> forward_inputs;
    // Deadness (only read when the executor tracks it, has_deadness_).
    bool is_merge = false;         // runs with dead data inputs
    bool may_output_dead = false;  // an unset output is dead (Switch, _Recv)
    bool runs_when_dead = false;   // _Send: runs with empty inputs
    // ControlTrigger: never dead, its inputs' deadness stops at it
    // (TensorFlow's rule; a loop gradient's f_sync/b_sync triggers wait on
    // stack pushes and pops that only one branch of a cond runs).
    bool is_control_trigger = false;
    // For a _Retval: the error when what it fetches is dead.
    std::string dead_fetch_error;
  };
  // Whether a node that may leave outputs unset (Switch, _Recv) set none
  // of them: then it is dead as a whole, and its control edges carry the
  // deadness too (a _Recv of a dead value: a control loop's Enter waits on
  // one, compiler/partition.h). Nodes without outputs never are.
  static bool SetNoOutput(const NodeItem& item,
                          const OpKernelContext::OutputValues& outputs);
  // One fan-out edge: output `src_output` of a node feeds input slot `slot`
  // (absolute index into the step's input table) of node `dst`; control
  // edges have slot -1.
  // `last_use` marks the last edge reading its output: that one takes the
  // value by move (no reference-count traffic for single consumers).
  struct OutEdge {
    int dst;
    int slot;
    int src_output;
    bool last_use;
  };
  // The per-step tables (input slots, pending counts), kept for reuse by
  // the next step: building 10,000 empty slots per step cost more than
  // running a 10,000-node chain of scalar adds.
  struct StepState {
    std::unique_ptr<TensorValue[]> inputs;
    std::unique_ptr<std::atomic<int>[]> pending;
    // Per node: a dead input arrived (only with has_deadness_).
    std::unique_ptr<std::atomic<uint8_t>[]> dead;
  };
  class StatePool;
  class Step;
  class FrameStep;  // runtime/executor_frame_step.h

  // What both kinds of step give the kernel of `item`: the node's kernel,
  // device and in-place permissions, the step's state from `args`, its
  // stack container and the node's `inputs`. (A loop's step adds the frame
  // and the iteration.)
  // Replaces each reference input of `item` that its kernel reads as a
  // value (deref_slots) by the variable's current value, in `inputs` (the
  // node's first input slot). FailedPrecondition naming the node, the
  // input and the variable when one is not initialized.
  static absl::Status ReadRefInputs(const NodeItem& item, TensorValue* inputs);
  // Whether a kernel run that took `measured` was faster than handing a
  // node to a pool thread costs (a few microseconds: queue, wake-up, cache
  // misses), so the node runs inline from then on (inline_). Tests set the
  // cost instead (SetKernelCostForTesting).
  static bool CheaperThanHandOff(const OpKernel& kernel,
                                 std::chrono::nanoseconds measured);
  static OpKernelContext::Params KernelParams(const NodeItem& item,
                                              const Args& args,
                                              StepContainer* step_container,
                                              TensorValue* inputs,
                                              bool record_phases);

  // A loop the frame step may run as one straight-line program per
  // iteration (runtime/executor_serial_loop.h).
  struct SerialLoop;
  // Loops: where each node sits (only filled when has_loops_).
  struct FrameInfo {
    std::string name;  // the Enter's frame_name; "" for the root
    int parent = -1;
    int num_nodes = 0;
    int num_inputs = 0;
    int num_enters = 0;  // Enter nodes opening it (per parent iteration)
    int parallel_iterations = 10;
    std::vector<int> exits;  // its Exit nodes
    // Set when the frame is a plain loop of cheap CPU nodes
    // (BuildSerialLoops); null otherwise.
    std::shared_ptr<const SerialLoop> serial;
  };
  struct LoopNodeInfo {
    int frame = 0;             // the static frame the node runs in
    int local = 0;             // index among its frame's nodes
    int local_input = 0;       // first input slot in its frame's tables
    int child_frame = -1;      // an Enter: the frame its output enters
    bool is_constant = false;  // an Enter with is_constant
    bool is_exit = false;
    bool is_next_iteration = false;
    int merge_controls = 0;           // a Merge: its control inputs
    int merge_data_inputs = 0;        // a Merge: its data inputs
    // What the frame step may compute itself, under its lock, instead of
    // running the kernel (no stats asked; plain values only): the loop
    // plumbing that only forwards a value, half of a scalar loop's nodes.
    enum class Forward : uint8_t {
      kNone,
      kValue,   // Identity, LoopCond, Enter, Exit, NextIteration: input 0
                // to output 0
      kConst,   // a Const: `constant`
      kSwitch,  // input 0 to output 1 when the bool scalar pred holds, else 0
      kMerge,   // the live input to output 0, its index to output 1
      kNoOp,    // nothing to compute
    };
    Forward forward = Forward::kNone;
    Tensor constant;  // kConst: the Const kernel's output
    // A kernel the frame step may also run itself under its lock, when its
    // inputs are small (FrameStep::RunSmallKernel): a synchronous CPU
    // kernel of a stateless op on plain values, such as a loop counter's
    // Less and Add. Running those there spares the queue entry, the kernel
    // context's second lock round trip and the thread hand-off per
    // iteration.
    bool small_kernel = false;
    // A kernel a serial loop may run (executor_serial_loop.h): as
    // small_kernel, but stateful ops and resource handles are fine (a
    // TF1 loop's stacks and TensorArrays), since a serial loop runs outside
    // the lock, in node order, one iteration after another: an order the
    // usual path may take too.
    bool serial_kernel = false;
  };
  // Loops: out_edges_ as the frame step reads them (same indices), with
  // what Activate needs of the consumer in one place (reading it from the
  // consumer's NodeItem and LoopNodeInfo cost two cache misses per edge).
  struct FrameEdge {
    int dst;
    int local;  // dst's index among its frame's nodes
    int slot;   // dst's input slot in its frame's tables; -1: control
    int src_output;
    int merge_data_inputs;  // dst a Merge: its data inputs; else -1
    bool last_use;
    bool skip_dead;  // dst an Exit or NextIteration: a no-op when dead
  };
  // Assigns every node its frame; fails on a graph whose frames disagree.
  absl::Status BuildFrames(const Graph& graph, const std::vector<Node*>& order,
                           const std::vector<int>& index_of);
  // Sets FrameInfo::serial for the frames that qualify (after BuildFrames).
  void BuildSerialLoops(const std::vector<Node*>& order,
                        const std::vector<int>& index_of);
  // Frame `frame`'s serial loop program, or null when it does not qualify;
  // `members` are its nodes and `enters` the Enters into it, in node order.
  std::shared_ptr<const SerialLoop> CompileSerialLoop(
      const std::vector<int>& members, const std::vector<int>& enters,
      const std::vector<Node*>& order, const std::vector<int>& index_of) const;

  Executor() = default;

  ThreadPool* pool_ = nullptr;  // shared by every device
  // Shared with running steps, so a step that outlives Run (timeout) can
  // still return its state.
  std::shared_ptr<StatePool> state_pool_;
  std::vector<NodeItem> nodes_;
  std::vector<OutEdge> out_edges_;
  std::vector<int> roots_;  // nodes with no inputs at all
  int total_inputs_ = 0;
  // Some node can make a tensor dead: steps track deadness.
  bool has_deadness_ = false;
  // The graph has loops: steps run through FrameStep.
  bool has_loops_ = false;
  std::vector<FrameInfo> frames_;
  std::vector<LoopNodeInfo> loop_nodes_;  // by node index
  std::vector<FrameEdge> frame_edges_;    // by out_edges_ index
  // Per node: run inline on the thread that made it ready (1) or hand it to
  // the pool (0). Starts as !IsExpensive() and turns to 1 when the node,
  // timed during the executor's first kSampledSteps steps, computes faster
  // than a hand-off to another thread costs: an "expensive" MatMul of 2x2
  // matrices runs inline. Written and read with relaxed atomics by steps.
  std::unique_ptr<std::atomic<uint8_t>[]> inline_;
  // Which path the serial loops of kernels not all cheap take on a pool of
  // more than one thread, chosen by timing the executor's first steps each
  // way (runtime/loop_path_tuner.h); null without serial loops.
  std::unique_ptr<LoopPathTuner> loop_tuner_;
  mutable std::atomic<int> steps_started_{0};
};

}  // namespace dflow

#endif  // DFLOW_RUNTIME_EXECUTOR_H_
