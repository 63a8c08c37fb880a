// Compile time of a run signature, stage by stage, over synthetic graphs of
// 10k, 100k and 1M nodes: what Session::Impl::Compile does before it
// creates executors (runtime/session.cc), called the same way, with the
// session's injected pieces (KernelConstantEvaluator on CPU:0,
// RegistryKernelQuery over the linked CPU kernels) on 4 logical CPU
// devices:
//
//   prune        PruneGraph (feeds -> _Arg, fetch -> _Retval): a new Graph
//   indep        RunDeviceIndependentPasses on the pruned graph
//   place        PlaceGraph (the session's PlacerOptions)
//   partition    PartitionIntoGraphs: one Graph per device
//   specific     per partition: RunDeviceSpecificPasses
//   total        the sum: a signature's compile up to executor creation
//
// BM_Compile/<nodes> runs the whole pipeline per iteration and reports each
// stage as counters: <stage>_ms (mean per compile) and <stage>_nodes_per_s
// (the stage's input nodes per second), pass_<name>_ms per pass (from its
// PassSummary, summed over partitions: which pass limits indep/specific);
// total_cpu_ms is the same compile in this thread's CPU time (steadier on a
// busy machine); the benchmark's own time is the
// total (manual time) and items_per_second is the graph's nodes per second
// of total. BM_SessionFirstRun/<nodes> times Session::Create and the first
// Session::Run (compile + executor creation + one step), with the second
// Run as step_ms (so first_run_ms - step_ms is what the first call adds).
// bench/compare_torch.sh reports BM_Compile against the goal of <= 1 s for
// 1M nodes (and linear growth); GraphDef parse/serialize at 1M nodes is
// graph_bench's BM_Parse/BM_Serialize binary_chain/1000000.
//
// The graph ("pipeline of towers"): 5 fed Placeholders on /cpu:0 (x [8,16],
// w1, w2 [16,16], b1, b2 [16]), then N/8 blocks of 8 nodes, each reading the
// previous block's output (x for the first):
//   layer1/{MatMul, BiasAdd, Relu}, layer2/{MatMul, BiasAdd}, Softmax,
//   Const 0.5, Mul
// block i on /cpu:((i / 16) % 4): runs of 16 blocks per device, so the
// partitioner cuts one chain edge every 16 blocks and sends the shared
// weights to every device once; the fetch is the last block's Mul, so the
// prune keeps every node. Small shapes: the session's first run executes
// the graph, and the figure is meant to be overhead, not MatMul.
//
//   bazel run -c opt //bench:compile_bench -- --benchmark_filter=BM_Compile
#include <time.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "benchmark/benchmark.h"
#include "compiler/graph_pass.h"
#include "compiler/optimization_stages.h"
#include "compiler/partition.h"
#include "compiler/placer.h"
#include "compiler/prune.h"
#include "graph/graph.h"
#include "graph/graph_def_import.h"
#include "graph/ops/ops.h"
#include "graph/scope.h"
#include "graph/tensor.h"
#include "runtime/device.h"
#include "runtime/kernel_constant_evaluator.h"
#include "runtime/placement_bridge.h"
#include "runtime/session.h"

namespace dflow {
namespace {

constexpr int kBlockNodes = 8;
constexpr int kShared = 5;
constexpr int kDevices = 4;
constexpr int kBlocksPerRun = 16;  // consecutive blocks on one device
constexpr int kBatch = 8;
constexpr int kWidth = 16;

struct Synthetic {
  GraphDef def;
  std::unique_ptr<Graph> graph;  // imported from def (the session's graph)
  std::string fetch;
  absl::Status status;
};

void BuildPipeline(const Scope& root, int n, std::string* fetch) {
  Scope cpu = root.WithDevice("/cpu:0");
  auto placeholder = [&](const char* name, const TensorShape& shape) {
    return ops::Placeholder(cpu.WithOpName(name), DT_FLOAT,
                            ops::PlaceholderAttrs().Shape(shape));
  };
  Output x = placeholder("x", TensorShape({kBatch, kWidth}));
  Output w1 = placeholder("w1", TensorShape({kWidth, kWidth}));
  Output b1 = placeholder("b1", TensorShape({kWidth}));
  Output w2 = placeholder("w2", TensorShape({kWidth, kWidth}));
  Output b2 = placeholder("b2", TensorShape({kWidth}));
  const int blocks = std::max(1, (n - kShared) / kBlockNodes);
  Output prev = x;
  for (int i = 0; i < blocks; ++i) {
    Scope tower = root.NewSubScope("tower").WithDevice(
        absl::StrCat("/cpu:", (i / kBlocksPerRun) % kDevices));
    Scope layer1 = tower.NewSubScope("layer1");
    Output h = ops::Relu(
        layer1, ops::BiasAdd(layer1, ops::MatMul(layer1, prev, w1), b1));
    Scope layer2 = tower.NewSubScope("layer2");
    Output logits = ops::BiasAdd(layer2, ops::MatMul(layer2, h, w2), b2);
    prev =
        ops::Mul(tower, ops::Softmax(tower, logits), ops::Const(tower, 0.5f));
  }
  *fetch = prev.name();
}

// Built once per size and kept (building 1M nodes takes seconds).
const Synthetic& Cached(int n) {
  static auto* cache = new std::map<int, Synthetic>;
  auto it = cache->find(n);
  if (it != cache->end()) return it->second;
  Synthetic& s = (*cache)[n];
  Scope root = Scope::NewRootScope();
  BuildPipeline(root, n, &s.fetch);
  s.status = root.ToGraphDef(&s.def);
  if (!s.status.ok()) return s;
  s.graph = std::make_unique<Graph>();
  // With shape inference, as Session::Create imports (and as a graph built
  // in C++ has its shapes): the compile starts from inferred shapes.
  s.status = ImportGraphDef(s.def, ImportOptions(), s.graph.get());
  return s;
}

const std::vector<std::string>& FeedNames() {
  static const auto* names =
      new std::vector<std::string>{"x", "w1", "b1", "w2", "b2"};
  return *names;
}

std::vector<TensorShape> FeedShapes() {
  return {TensorShape({kBatch, kWidth}), TensorShape({kWidth, kWidth}),
          TensorShape({kWidth}), TensorShape({kWidth, kWidth}),
          TensorShape({kWidth})};
}

// Stops the run with a message instead of measuring a broken pipeline.
#define BENCH_CHECK_OK(state, expr)                             \
  do {                                                          \
    const absl::Status _s = (expr);                             \
    if (!_s.ok()) {                                             \
      (state).SkipWithError(std::string(_s.message()).c_str()); \
      return;                                                   \
    }                                                           \
  } while (0)

using Clock = std::chrono::steady_clock;
double Since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// This thread's CPU seconds: the compile runs on the calling thread, so
// unlike wall time it does not grow when other processes take the cores.
double ThreadCpuSeconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

// No GraphDef between prune and the executors: the stage that imported the
// pruned GraphDef (and the imports of the partitions) is gone.
enum Stage { kPrune, kIndep, kPlace, kPartition, kSpecific, kStages };
constexpr const char* kStageNames[kStages] = {"prune", "indep", "place",
                                              "partition", "specific"};

void BM_Compile(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  const Synthetic& synthetic = Cached(n);
  BENCH_CHECK_OK(state, synthetic.status);
  DeviceSet::Options device_options;
  device_options.num_cpus = kDevices;
  absl::StatusOr<std::unique_ptr<DeviceSet>> devices =
      DeviceSet::Create(device_options);
  BENCH_CHECK_OK(state, devices.status());
  absl::StatusOr<std::vector<PlacementDevice>> placement_devices =
      PlacementDevicesOf(**devices);
  BENCH_CHECK_OK(state, placement_devices.status());

  PruneRequest request;
  request.feeds = FeedNames();
  request.feed_shape_hints = FeedShapes();
  request.fetches = {synthetic.fetch};
  request.host_device = (*devices)->cpu()->name();
  // What Session::Impl::Compile injects (with SessionOptions' defaults).
  const KernelConstantEvaluator evaluator((*devices)->cpu());
  const RegistryKernelQuery kernels;
  OptimizationOptions optimization = OptimizationOptionsOf(SessionOptions());
  optimization.evaluator = &evaluator;
  optimization.kernels = &kernels;
  const absl::flat_hash_set<std::string> protected_nodes;
  PlacerOptions placer_options;
  placer_options.pruned_subgraph = true;
  PartitionOptions partition_options;
  partition_options.kernels = &kernels;

  double seconds[kStages] = {};
  // Per pass (both stages, all partitions), from the PassSummaries.
  std::map<std::string, double> pass_seconds;
  int64_t stage_nodes[kStages] = {};
  int64_t partitions = 0, transfers = 0, final_nodes = 0;
  double cpu_seconds = 0;
  for (auto _ : state) {
    double stage[kStages] = {};
    int64_t nodes[kStages] = {};
    const double cpu_start = ThreadCpuSeconds();
    Clock::time_point t = Clock::now();
    absl::StatusOr<PrunedGraph> pruned_result =
        PruneGraph(*synthetic.graph, request);
    stage[kPrune] = Since(t);
    BENCH_CHECK_OK(state, pruned_result.status());
    nodes[kPrune] = synthetic.graph->num_nodes();
    std::unique_ptr<Graph> pruned = std::move(pruned_result->graph);

    std::vector<PassSummary> passes;
    nodes[kIndep] = pruned->num_nodes();
    t = Clock::now();
    BENCH_CHECK_OK(state,
                   RunDeviceIndependentPasses(optimization, protected_nodes,
                                              pruned.get(), &passes));
    stage[kIndep] = Since(t);

    nodes[kPlace] = pruned->num_nodes();
    t = Clock::now();
    absl::StatusOr<PlacementRecord> placement =
        PlaceGraph(pruned.get(), *placement_devices, kernels, placer_options);
    stage[kPlace] = Since(t);
    BENCH_CHECK_OK(state, placement.status());

    nodes[kPartition] = pruned->num_nodes();
    t = Clock::now();
    PartitionStats stats;
    absl::StatusOr<std::vector<DevicePartition>> parts =
        PartitionIntoGraphs(*pruned, partition_options, &stats);
    stage[kPartition] = Since(t);
    BENCH_CHECK_OK(state, parts.status());

    t = Clock::now();
    int64_t after = 0;
    for (const DevicePartition& partition : *parts) {
      nodes[kSpecific] += partition.graph->num_nodes();
      Graph& part = *partition.graph;
      const Device* device = (*devices)->Find(partition.device);
      BENCH_CHECK_OK(state, RunDeviceSpecificPasses(
                                optimization, partition.device,
                                device != nullptr ? device->type() : "CPU",
                                protected_nodes, &part, &passes));
      after += part.num_nodes();
    }
    stage[kSpecific] = Since(t);
    cpu_seconds += ThreadCpuSeconds() - cpu_start;

    double total = 0;
    for (int i = 0; i < kStages; ++i) total += stage[i];
    state.SetIterationTime(total);
    for (int i = 0; i < kStages; ++i) {
      seconds[i] += stage[i];
      stage_nodes[i] = nodes[i];
    }
    for (const PassSummary& pass : passes) {
      pass_seconds[pass.pass] += absl::ToDoubleSeconds(pass.time);
    }
    partitions = static_cast<int64_t>(parts->size());
    transfers = stats.sends + stats.recvs;
    final_nodes = after;
    // The graphs are destroyed here, inside the loop but outside the
    // manual time (a session keeps them until its executors are built).
  }
  const double iterations = static_cast<double>(state.iterations());
  double total = 0;
  for (int i = 0; i < kStages; ++i) {
    const double mean = seconds[i] / iterations;
    total += mean;
    state.counters[absl::StrCat(kStageNames[i], "_ms")] = mean * 1e3;
    state.counters[absl::StrCat(kStageNames[i], "_nodes_per_s")] =
        mean > 0 ? stage_nodes[i] / mean : 0;
  }
  state.counters["total_ms"] = total * 1e3;
  state.counters["total_cpu_ms"] = cpu_seconds / iterations * 1e3;
  for (const auto& [pass, s] : pass_seconds) {
    state.counters[absl::StrCat("pass_", pass, "_ms")] = s / iterations * 1e3;
  }
  state.counters["nodes"] = static_cast<double>(synthetic.graph->num_nodes());
  state.counters["partitions"] = static_cast<double>(partitions);
  state.counters["transfers"] = static_cast<double>(transfers);
  state.counters["nodes_after"] = static_cast<double>(final_nodes);
  state.SetItemsProcessed(state.iterations() * synthetic.graph->num_nodes());
}

void BM_SessionFirstRun(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  const Synthetic& synthetic = Cached(n);
  BENCH_CHECK_OK(state, synthetic.status);
  SessionOptions options;
  options.device_count["CPU"] = kDevices;
  FeedList feeds;
  const std::vector<TensorShape> shapes = FeedShapes();
  for (size_t i = 0; i < shapes.size(); ++i) {
    Tensor t(DT_FLOAT, shapes[i]);
    auto flat = t.flat<float>();
    for (size_t j = 0; j < flat.size(); ++j) flat[j] = 0.01f * (j % 7);
    feeds.emplace_back(FeedNames()[i], t);
  }
  double create_s = 0, first_s = 0, step_s = 0;
  for (auto _ : state) {
    Clock::time_point t = Clock::now();
    absl::StatusOr<std::unique_ptr<Session>> session =
        Session::Create(synthetic.def, options);
    const double create = Since(t);
    BENCH_CHECK_OK(state, session.status());
    std::vector<Tensor> out;
    t = Clock::now();
    BENCH_CHECK_OK(state, (*session)->Run(feeds, {synthetic.fetch}, {}, &out));
    const double first = Since(t);
    t = Clock::now();
    BENCH_CHECK_OK(state, (*session)->Run(feeds, {synthetic.fetch}, {}, &out));
    const double step = Since(t);
    state.SetIterationTime(create + first);
    create_s += create;
    first_s += first;
    step_s += step;
    state.PauseTiming();  // the session's teardown is not the figure
    session->reset();
    state.ResumeTiming();
  }
  const double iterations = static_cast<double>(state.iterations());
  state.counters["create_ms"] = create_s / iterations * 1e3;
  state.counters["first_run_ms"] = first_s / iterations * 1e3;
  state.counters["step_ms"] = step_s / iterations * 1e3;
  state.counters["nodes"] = static_cast<double>(synthetic.graph->num_nodes());
  state.SetItemsProcessed(state.iterations() * synthetic.graph->num_nodes());
}

BENCHMARK(BM_Compile)
    ->Arg(10000)
    ->Arg(100000)
    ->Arg(1000000)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SessionFirstRun)
    ->Arg(10000)
    ->Arg(100000)
    ->Arg(1000000)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace dflow
