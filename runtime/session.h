// Session: runs a graph.
//
// Create one from a GraphDef (or a builder Scope's graph), then call Run
// with feeds, fetches and targets, as in TensorFlow 1.x:
//
//   auto session = Session::Create(def);
//   std::vector<Tensor> out;
//   absl::Status s = (*session)->Run({{"x", batch}}, {"softmax"}, {}, &out);
//
// For each run signature (feeds, fetches, targets) the session prunes the
// graph to what is needed, compiles it once into an executor plan and caches
// it; later calls with the same signature only execute. Variables live in
// the session and keep their values across runs. Run may be called from
// several threads at once.
#ifndef DFLOW_RUNTIME_SESSION_H_
#define DFLOW_RUNTIME_SESSION_H_

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "compiler/graph_pass.h"
#include "graph/graph.h"
#include "graph/tensor.h"
#include "proto/graph.pb.h"
#include "runtime/device.h"
#include "runtime/variables.h"

namespace dflow {

struct SessionOptions {
  // Worker threads of the shared pool (0: one per core). Only the first
  // session's value takes effect: the pool is process-wide.
  int num_threads = 0;
  // Devices per type, as TensorFlow's ConfigProto.device_count. {"CPU", 4}
  // makes four logical CPU devices, /job:localhost/replica:0/task:0/device:
  // CPU:0..3, that share the machine's cores (the one shared pool) and keep
  // separate allocator statistics; default 1, at least 1. "GPU" caps the
  // physical GPUs used (0: none; default: every visible one). Real GPUs
  // come from the GPU device factory, linked into binaries that link the
  // GPU kernels (//kernels/gpu:gpu_kernels); without it, without CUDA or
  // without a GPU a session simply has none. Keys are case-insensitive;
  // others are errors.
  std::map<std::string, int> device_count;
  // Real GPUs (TensorFlow's GPUOptions). Each GPU device allocates from a
  // caching best-fit allocator (runtime/gpu/bfc_allocator.h) over cudaMalloc
  // with a hard limit. The first session to use a GPU sets up its
  // allocators; a later session asking for other limits gets new ones only
  // once the old ones hold no memory (see runtime/gpu/gpu_device_factory.h).
  //
  // The share of each GPU's free memory its allocator may reserve, in
  // (0, 1]; 0: 0.9 (room for the CUDA context, cuBLAS/cuDNN workspaces).
  double gpu_memory_fraction = 0;
  // Reserve GPU memory in growing regions as it is needed, instead of the
  // whole share on first use (friendlier to other processes on the GPU).
  bool gpu_allow_growth = false;
  // Virtual GPUs (TensorFlow's GPUOptions.experimental.virtual_devices):
  // split physical GPU 0 into this many logical devices, GPU:0..N-1, each
  // with an equal share of gpu_memory_fraction of its free memory; further
  // physical GPUs follow whole (GPU:N, ...). 0 or 1: no split. The tower
  // programs use this to run several "GPUs" on one.
  int gpu_virtual_devices = 0;
  // Or explicit memory limits (bytes, each > 0) for the logical devices of
  // GPU 0, one device per limit; their sum must fit in its free memory.
  // When both are given, gpu_virtual_devices must equal the count.
  std::vector<int64_t> gpu_virtual_device_memory_limits;
  // Let float MatMul and convolutions on GPUs use TF32 tensor cores (about
  // 10 mantissa bits, much faster on Ampere and later): TensorFlow's
  // tf.config.experimental.enable_tensor_float_32_execution. Process-wide:
  // set by every session created with the GPU device factory linked.
  bool gpu_allow_tf32 = false;
  // Test-only: this many fake GPUs, /job:localhost/replica:0/task:0/device:
  // GPU:0..N-1, of type "GPU" but computing on host memory with the CPU
  // kernels (see runtime/device.h), so placement and partitioning across
  // GPUs are tested on machines without one. They take the place of any
  // real GPUs (the GPU fields above are still checked, then unused).
  int fake_gpus = 0;
  // TensorFlow's allow_soft_placement: a node asking for a device this
  // session lacks (or a type with no kernel for its op) runs on the best
  // device left instead of failing; the placement log says why.
  bool allow_soft_placement = false;
  // Prints the device mapping when the session is created, then, once per
  // compiled run signature, one line per node with its device and a summary
  // with every soft-placement fallback (to stderr).
  bool log_device_placement = false;
  // Compiler passes that make each run signature's graph faster without
  // changing its results (compiler/optimization_stages.h): before
  // placement, tensor fusion of small all-reduces; on each device's
  // partition, a weight gradient's MatMul fused into its
  // ApplyGradientDescent. false runs the graph exactly as built. With
  // log_device_placement, each compiled signature prints what every pass
  // did.
  bool optimize_graph = true;
  // Tensor fusion's bucket size: all-reduces of one group and dtype with
  // fewer bytes than this (per device) are packed into one buffer and
  // all-reduced together (compiler/tensor_fusion.h). 0 turns fusion off.
  // Results are bitwise the same either way.
  int64_t tensor_fusion_threshold_bytes = 64 << 20;
  // Passes to skip, by name (compiler/optimization_stages.h lists them:
  // "constant_folding", "cse", ...); an unknown name is an error when the
  // session is created.
  std::vector<std::string> disabled_passes;
  // Constant folding leaves outputs larger than this computed at run time.
  int64_t constant_folding_max_bytes = 1 << 20;
  // Bytes each host device (every CPU and fake GPU) may hold at once: an
  // allocation beyond it fails the step with ResourceExhausted naming the
  // node, its op and device, the bytes asked and the limit, instead of
  // reaching the OOM killer. 0: the machine's physical memory. Real GPUs
  // have their own limits (gpu_memory_fraction). `dflow run
  // --memory_limit`.
  int64_t memory_limit_bytes = 0;
  // The timeout of steps whose RunOptions give none (TensorFlow's
  // operation_timeout_in_ms), including the steps the session runs itself
  // (a SavedModel's restore and main op): DeadlineExceeded after this many
  // milliseconds. 0: no limit.
  int64_t step_timeout_ms = 0;
  // When set, each compiled run signature writes its graph after pruning
  // and after every pass into <dir>/sig_<k>/ as .pbtxt and .dot, with one
  // summary line per pass in passes.txt (what `dflow run --dump_passes`
  // shows).
  std::string dump_passes_dir;
};

// The compiler's options for a session with `options`.
OptimizationOptions OptimizationOptionsOf(const SessionOptions& options);

// The devices a session with `options` computes on: the CPUs of
// device_count, then the fake GPUs, or else the real GPUs the "GPU" device
// factory makes (runtime/device.h; none without one). InvalidArgument for a
// bad count or GPU option; the factory's errors (a virtual-device limit
// above the GPU's memory) pass through.
absl::StatusOr<std::unique_ptr<DeviceSet>> CreateSessionDevices(
    const SessionOptions& options);

// What CreateSessionDevices hands the GPU factory for `options`, after
// checking the GPU fields (InvalidArgument naming the field).
absl::StatusOr<DeviceFactoryOptions> GpuFactoryOptions(
    const SessionOptions& options);

// Lets a caller stop a running step from another thread.
class CancellationFlag {
 public:
  void Cancel() { cancelled_.store(true, std::memory_order_release); }
  bool cancelled() const { return cancelled_.load(std::memory_order_acquire); }

 private:
  std::atomic<bool> cancelled_{false};
};

struct RunOptions {
  // Abort the step with DeadlineExceeded after this long (0: no limit).
  int64_t timeout_ms = 0;
  // Record per-node statistics into RunMetadata.
  bool collect_step_stats = false;
  // Record what a timeline of the step needs (tools/timeline.h): the step
  // stats, with each node's inputs. Implies collect_step_stats.
  bool trace = false;
  // Checked between nodes; when set the step ends with Cancelled.
  const CancellationFlag* cancellation = nullptr;

  // Whether the step records NodeExecStats (either flag above).
  bool records_step_stats() const { return collect_step_stats || trace; }
};

// What one node did in one step (RunOptions::collect_step_stats or trace).
struct NodeExecStats {
  std::string node;
  std::string op;
  std::string device;
  // Inside a loop: the frame ("while", TensorFlow's frame_name) and the
  // iteration this execution belongs to; a node in a loop has one entry per
  // iteration it ran in. Empty and 0 outside loops.
  std::string frame;
  int64_t iteration = 0;
  int64_t start_us = 0;  // since the step started
  int64_t end_us = 0;
  int thread_id = 0;
  std::vector<TensorShape> output_shapes;
  int64_t output_bytes = 0;
  // The node's data inputs in order ("node" or "node:k" for output k > 0),
  // then its control inputs ("^node"), as the executed graph has them (in a
  // partitioned graph, a value from another device comes from a _Recv).
  std::vector<std::string> inputs;
  // Details a kernel reports for the timeline, shown with the node: for
  // _Send/_Recv the rendezvous key's parts "tensor_name", "send_device" and
  // "recv_device" (which pair a Send with its Recv), for a collective its
  // group and instance keys; then what only the run knows (a fused
  // all-reduce's "bytes"; OpKernelContext::RecordStatsDetail).
  std::vector<std::pair<std::string, std::string>> details;
  // Parts of the node's work a kernel timed separately
  // (OpKernelContext::RecordPhase): a collective's "wait" for its peers and
  // its "reduce" / "gather" / "broadcast", a fused all-reduce's "pack" and
  // "unpack" too. Each lies within [start_us, end_us], on the same clock.
  struct Phase {
    std::string name;
    int64_t start_us = 0;
    int64_t end_us = 0;
  };
  std::vector<Phase> phases;
};

struct RunMetadata {
  std::vector<NodeExecStats> step_stats;
  // The highest number of bytes live in each device's allocator during the
  // step: what the step's kernels allocated plus what was already held there
  // (the graph's constants, variables, tensors of steps running at the same
  // time). Feeds are the caller's tensors and are not counted.
  std::vector<std::pair<std::string, int64_t>> peak_bytes;
  // What memory planning (compiler/memory_planning.h) computed for each
  // device's partition when the signature was compiled: the most bytes its
  // intermediate tensors hold at once if the step ran in one topological
  // order, with buffers freed after their last reader and forwarded in
  // place where planned. It is computed for the shapes fed in the call
  // that compiled the signature, so it is given for steps fed those
  // shapes only. Devices whose partition has tensors of unknown size are
  // left out. Empty when optimization or planning is off.
  std::vector<std::pair<std::string, int64_t>> planned_peak_bytes;
};

using FeedList = std::vector<std::pair<std::string, Tensor>>;

// Whether `value`, fed as `name`, fits what the graph declares for it: its
// dtype, and a shape compatible with the declared (possibly partial) one;
// InvalidArgument naming the feed otherwise. For every kind of session.
absl::Status CheckFeedValue(const std::string& name, const Tensor& value,
                            DataType type, const TensorShape& shape);

// The key a session caches a run signature's compiled plan under: the fed
// names, the fetches and the targets, in order.
std::string RunSignatureKey(const FeedList& feeds,
                            const std::vector<std::string>& fetches,
                            const std::vector<std::string>& targets);

class Session {
 public:
  static absl::StatusOr<std::unique_ptr<Session>> Create(
      const GraphDef& def, const SessionOptions& options = {});
  ~Session();

  // Adds nodes to the graph (their names must be new). Cached plans stay
  // valid: they only cover nodes that existed when they were compiled.
  absl::Status Extend(const GraphDef& def);

  // Feeds are "node" or "node:k" with a tensor (a placeholder or any other
  // tensor in the graph); fetches are tensor names whose values come back in
  // `outputs`, in order; targets are node names run for their effects.
  absl::Status Run(const FeedList& feeds,
                   const std::vector<std::string>& fetches,
                   const std::vector<std::string>& targets,
                   std::vector<Tensor>* outputs);
  absl::Status Run(const RunOptions& options, const FeedList& feeds,
                   const std::vector<std::string>& fetches,
                   const std::vector<std::string>& targets,
                   std::vector<Tensor>* outputs, RunMetadata* metadata);

  const DeviceSet& devices() const;
  VariableStore* variables();
  // Number of compiled plans in the cache (for tests and `dflow run`).
  int num_cached_plans() const;

 private:
  struct Impl;
  explicit Session(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace dflow

#endif  // DFLOW_RUNTIME_SESSION_H_
