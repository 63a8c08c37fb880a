// The kernel interface: what a kernel sees when it is built and when it runs.
//
// A kernel is constructed once per node when a plan is compiled
// (OpKernelConstruction: the node's attrs, its device) and then computes
// many times, possibly concurrently from several steps, so Compute() must
// not mutate the kernel except through atomics or its own locks (a random
// op's stream position). A session shares one kernel per stateful node
// among all its run signatures. At run time an OpKernelContext gives it its
// inputs and takes its outputs. Errors are reported with ctx->SetStatus() (or
// the OP_REQUIRES macros); the executor prefixes them with the node and op:
//   node 'layer1/MatMul' (MatMul): In[0] [100,784] and In[1] [500,10] ...
//
// Inputs of reference type (VariableV2's output, Assign's `ref`) and of
// resource type (VarHandleOp's output) arrive as a Var*; input(i) of a
// reference input is the variable's current value.
#ifndef DFLOW_RUNTIME_OP_KERNEL_H_
#define DFLOW_RUNTIME_OP_KERNEL_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/time/time.h"
#include "graph/graph.h"
#include "graph/tensor.h"
#include "runtime/device.h"
#include "runtime/step_container.h"
#include "runtime/variables.h"

namespace dflow {

class AsyncOpKernel;
class Rendezvous;
// The per-step state collective kernels meet through (group membership,
// instance order, abort): defined by the collectives runtime
// (runtime/collective_*.h); the executor only passes the pointer along.
class CollectiveContext;

class OpKernelConstruction {
 public:
  OpKernelConstruction(const Node& node, Device* device)
      : node_(node), device_(device) {}

  const Node& node() const { return node_; }
  Device* device() const { return device_; }
  const std::string& name() const { return node_.name(); }
  template <typename T>
  absl::Status GetAttr(absl::string_view name, T* value) const {
    return node_.GetAttr(name, value);
  }
  void SetStatus(const absl::Status& s) {
    if (status_.ok()) status_ = s;
  }
  const absl::Status& status() const { return status_; }

  // One flag per output: true where the kernel's definition keeps the
  // output in host memory on a device with memory of its own (set by the
  // kernel registry; empty: every output in the device's memory).
  const std::vector<bool>& host_memory_outputs() const {
    return host_memory_outputs_;
  }
  void set_host_memory_outputs(std::vector<bool> host) {
    host_memory_outputs_ = std::move(host);
  }

 private:
  const Node& node_;
  Device* device_;
  absl::Status status_;
  std::vector<bool> host_memory_outputs_;
};

class OpKernel {
 public:
  explicit OpKernel(OpKernelConstruction* ctx);
  virtual ~OpKernel() = default;
  OpKernel(const OpKernel&) = delete;
  OpKernel& operator=(const OpKernel&) = delete;

  virtual void Compute(class OpKernelContext* ctx) = 0;
  // Cheap kernels (Identity, Shape, Const, ...) run inline on the thread that
  // made them ready; expensive ones are handed to the thread pool.
  virtual bool IsExpensive() const { return true; }
  virtual AsyncOpKernel* AsAsync() { return nullptr; }

  const std::string& name() const { return name_; }
  const std::string& type_string() const { return op_; }
  int num_inputs() const { return static_cast<int>(input_types_.size()); }
  int num_outputs() const { return static_cast<int>(output_types_.size()); }
  DataType input_type(int i) const { return input_types_[i]; }
  DataType output_type(int i) const { return output_types_[i]; }
  // Whether output i lives in host memory although the device has memory
  // of its own (a GPU kernel's shape output); see
  // OpKernelConstruction::host_memory_outputs.
  bool output_in_host_memory(int i) const {
    return i < static_cast<int>(host_memory_outputs_.size()) &&
           host_memory_outputs_[i];
  }

  // What step stats (and so timelines) show with this node beyond its name
  // and op, as key/value pairs fixed when the kernel is built: a transfer's
  // rendezvous key parts ("tensor_name", "send_device", "recv_device"),
  // which pair a _Send with its _Recv; a collective's keys.
  using StatsDetails = std::vector<std::pair<std::string, std::string>>;
  const StatsDetails& stats_details() const { return stats_details_; }

 protected:
  void set_stats_details(StatsDetails details) {
    stats_details_ = std::move(details);
  }

 private:
  StatsDetails stats_details_;
  const std::string name_;
  const std::string op_;
  const std::vector<DataType> input_types_;
  const std::vector<DataType> output_types_;
  const std::vector<bool> host_memory_outputs_;
};

// A kernel that finishes later (a Recv waiting for its Send, a collective):
// it calls `done` exactly once, after setting outputs or an error.
class AsyncOpKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  using DoneCallback = std::function<void()>;
  virtual void ComputeAsync(OpKernelContext* ctx, DoneCallback done) = 0;
  // Runs ComputeAsync and blocks until done (for callers that need a value
  // now, e.g. constant folding).
  void Compute(OpKernelContext* ctx) final;
  AsyncOpKernel* AsAsync() final { return this; }
};

// One input or output value as the executor stores it: a tensor, or for
// reference and resource values the variable it refers to.
struct TensorValue {
  Tensor tensor;
  Var* var = nullptr;
};

class OpKernelContext {
 public:
  // What the executor hands a kernel for one computation.
  struct Params {
    const OpKernel* kernel = nullptr;
    Device* device = nullptr;
    VariableStore* variables = nullptr;
    int64_t step_id = 0;
    // Resources that die with the step (stacks, TensorArrays); null where
    // kernels run outside a step (constant folding).
    StepContainer* step_container = nullptr;
    // num_inputs entries; for ref/resource inputs `var` is set.
    const TensorValue* inputs = nullptr;
    // Feeds and fetches of the step (read by _Arg, written by _Retval).
    class CallFrame* call_frame = nullptr;
    // Where _Send leaves and _Recv picks up values crossing partitions;
    // null when the step runs unpartitioned.
    Rendezvous* rendezvous = nullptr;
    // For collective kernels; null when the step has no collectives.
    CollectiveContext* collective_context = nullptr;
    // Inside a loop: the frame instance the node runs in (its frames and
    // the parent iterations that started them, the same name in every
    // partition of the step) and the iteration. Empty in the root frame.
    // A transfer inside a loop adds both to its rendezvous key.
    absl::string_view frame;
    int64_t iteration = 0;
    // Whether the step records step stats, and so the phases kernels time
    // (RecordPhase).
    bool record_phases = false;
    // Memory planning's permission to forward (compiler/memory_planning.h):
    // per output, the input whose buffer allocate_output may reuse, or -1;
    // null when the node has none (then allocate_output costs nothing more).
    const std::vector<int>* forward_inputs = nullptr;
  };

  explicit OpKernelContext(const Params& params);

  int num_inputs() const { return params_.kernel->num_inputs(); }
  int num_outputs() const { return params_.kernel->num_outputs(); }
  // The value of input i; for a reference input, the variable's value when
  // first asked in this computation (a snapshot sharing its buffer). Valid
  // until Compute returns; a reference, so reading an input costs nothing.
  const Tensor& input(int i) const;
  // Reference (Ref(T)) and resource inputs: the variable, never null for
  // those inputs.
  Var* input_var(int i) const { return params_.inputs[i].var; }
  // Whether input i is a plain value whose buffer this node's input slot
  // alone holds (Tensor::RefCount() == 1: the executor moved it here on its
  // last use; no feed, fetch, Const or other reader holds it), so that the
  // kernel may change what it holds in place (a TensorList it appends to).
  bool input_held_only_here(int i) const;

  // Allocates output i on this kernel's device (in host memory when the
  // kernel keeps that output there: OpKernel::output_in_host_memory), or,
  // where memory planning allows it (Params::forward_inputs), reuses the
  // planned input's buffer: only when that input has the output's dtype and
  // element count, is a plain value (not a variable's) and is held by no
  // one else (Tensor::RefCount() == 1: the executor moved it into this
  // node's input slot, so no feed, fetch, Const, variable or other reader
  // holds it). The kernel must then read each input element before it
  // writes the output element at the same offset (element-wise kernels). On
  // failure (out of memory, bad shape) sets the status and returns it; out
  // of memory is ResourceExhausted, explained by the allocator when it can
  // (Allocator::OutOfMemoryError: a GPU's limit, use and fragmentation).
  absl::Status allocate_output(int i, const TensorShape& shape, Tensor** out);
  // Sets output i to an existing tensor (forwarding an input, a Const).
  void set_output(int i, Tensor t);
  // Sets a reference or resource output to a variable.
  void set_output_var(int i, Var* var);
  // Allocates a scratch tensor on this device (freed with the Tensor);
  // errors as allocate_output's.
  absl::Status allocate_temp(DataType dtype, const TensorShape& shape,
                             Tensor* out);

  void SetStatus(const absl::Status& s) {
    if (status_.ok() && !s.ok()) status_ = s;
  }
  const absl::Status& status() const { return status_; }

  Device* device() const { return params_.device; }
  Allocator* allocator() const { return params_.device->allocator(); }
  // Host memory for this device's kernels (the device's own allocator on
  // host devices).
  Allocator* host_allocator() const { return params_.device->host_allocator(); }
  ThreadPool* thread_pool() const { return params_.device->thread_pool(); }
  VariableStore* variables() const { return params_.variables; }
  int64_t step_id() const { return params_.step_id; }
  StepContainer* step_container() const { return params_.step_container; }
  class CallFrame* call_frame() const {
    return params_.call_frame;
  }
  Rendezvous* rendezvous() const { return params_.rendezvous; }
  absl::string_view frame() const { return params_.frame; }
  int64_t iteration() const { return params_.iteration; }
  CollectiveContext* collective_context() const {
    return params_.collective_context;
  }
  const OpKernel& kernel() const { return *params_.kernel; }

  // Phases: parts of its own work a kernel times separately (a collective's
  // "wait" for its peers, then its "reduce"), shown nested in the node's
  // slice of a timeline. Only steps that record stats keep them: a kernel
  // checks records_phases() before reading the clock, so other steps pay
  // nothing. RecordPhase may be called from any thread (an async kernel
  // records from the thread that completes it) before the kernel is done
  // (Compute returns, or an async kernel calls `done`); the executor reads
  // them after. Times are absl::Now() readings: the executor puts them on
  // the step's clock.
  struct Phase {
    std::string name;
    absl::Time start;
    absl::Time end;
  };
  bool records_phases() const { return params_.record_phases; }
  void RecordPhase(std::string name, absl::Time start, absl::Time end);
  // A detail of this computation for step stats, after the kernel's fixed
  // ones (OpKernel::stats_details): what only the run knows, such as the
  // bytes a fused collective packed. Recorded, like phases, only when
  // records_phases(), under the same rules.
  void RecordStatsDetail(std::string key, std::string value);
  // The recorded phases and details, in the order recorded. For the
  // executor, once the kernel is done.
  std::vector<Phase> TakePhases();
  OpKernel::StatsDetails TakeStatsDetails();

  // What the kernel produced (the executor reads these after Compute).
  using OutputValues = absl::InlinedVector<TensorValue, 4>;
  OutputValues* outputs() { return &outputs_; }

 private:
  // `failed` (Tensor::Allocate's error) as this kernel's error: out of
  // memory explained by `allocator` when it can.
  absl::Status AllocationError(const absl::Status& failed, Allocator* allocator,
                               DataType dtype, const TensorShape& shape,
                               absl::string_view what) const;

  // allocate_output's in-place case: output i takes input k's buffer if
  // allowed (see allocate_output); false: allocate as usual.
  bool ForwardInput(int k, int i, DataType dtype, const TensorShape& shape,
                    Tensor** out);

  Params params_;
  OutputValues outputs_;  // inline: no allocation per node for <= 4 outputs
  absl::Status status_;
  // Snapshots of reference inputs read as values, one slot per input, made
  // on first use (most kernels have no reference inputs and never allocate).
  mutable std::unique_ptr<Tensor[]> ref_values_;
  // A kernel's phases may come from threads other than the one that
  // started it (and, in principle, from several at once).
  std::mutex phases_mu_;
  std::vector<Phase> phases_;            // phases_mu_
  OpKernel::StatsDetails step_details_;  // phases_mu_
};

// Report an error from a kernel and return from Compute.
#define OP_REQUIRES(ctx, condition, status) \
  do {                                      \
    if (!(condition)) {                     \
      (ctx)->SetStatus(status);             \
      return;                               \
    }                                       \
  } while (0)

#define OP_REQUIRES_OK(ctx, expr)     \
  do {                                \
    const ::absl::Status _s = (expr); \
    if (!_s.ok()) {                   \
      (ctx)->SetStatus(_s);           \
      return;                         \
    }                                 \
  } while (0)

}  // namespace dflow

#endif  // DFLOW_RUNTIME_OP_KERNEL_H_
