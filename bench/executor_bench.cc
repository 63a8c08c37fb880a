// Executor overhead and end-to-end step latency through Session::Run:
//  - a chain of 10,000 scalar AddV2 nodes (per-node overhead: the time per
//    step divided by the node count; goal <= 0.2 us/node);
//  - a wide graph: one input fanned out to 10,000 scalar adds, summed back
//    by a tree of AddN (fan-out/fan-in scheduling);
//  - the seed MLP forward pass (784-500-10, batch 100);
//  - a 2-partition graph of trivial ops (CPU:0 -> CPU:1 and back): what
//    partitioning adds per step and per transfer (goal <= 5 us), against
//    the same graph on one device.
// us_per_node is wall-clock time per step divided by the node count (for
// the fan-out, by the 10,000 adds); DFLOW_NUM_THREADS=1 or 2 sets the
// pool. bench/compare_torch.sh runs these next to PyTorch (the MLP's
// training step is in training_bench.cc).
#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"

#include "bench/bench_util.h"
#include "benchmark/benchmark.h"
#include "graph/ops/ops.h"
#include "runtime/session.h"

namespace dflow {
namespace {

using bench::MakeSessionOrSkip;
using bench::RunSteps;

// The executor's own cost per node needs the graph as built: with the
// compiler's passes the chain's adds become ~300 _FusedElementwise nodes
// and the fan-out's 10,000 equal adds one (CSE).
SessionOptions AsBuilt() {
  SessionOptions options;
  options.optimize_graph = false;
  return options;
}

void BM_ChainOfScalarAdds(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT,
                              ops::PlaceholderAttrs().Shape(TensorShape()));
  Output one = ops::Const(root, 1.0f);
  Output y = x;
  for (int i = 0; i < n; ++i) y = ops::AddV2(root, y, one);
  auto session = MakeSessionOrSkip(state, root, AsBuilt());
  const double us = RunSteps(state, session.get(),
                             {{"x", Tensor::Scalar<float>(0)}}, {y.name()});
  state.counters["us_per_node"] = us / n;  // wall clock
}
BENCHMARK(BM_ChainOfScalarAdds)->Arg(10000)->Unit(benchmark::kMillisecond);

void BM_FanOutFanIn(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT,
                              ops::PlaceholderAttrs().Shape(TensorShape()));
  Output one = ops::Const(root, 1.0f);
  std::vector<Output> level;
  for (int i = 0; i < n; ++i) level.push_back(ops::AddV2(root, x, one));
  while (level.size() > 1) {  // AddN tree, 16 inputs per node
    std::vector<Output> next;
    for (size_t i = 0; i < level.size(); i += 16) {
      std::vector<Output> group(level.begin() + i,
                                level.begin() + std::min(level.size(), i + 16));
      next.push_back(group.size() == 1 ? group[0] : ops::AddN(root, group));
    }
    level = std::move(next);
  }
  auto session = MakeSessionOrSkip(state, root, AsBuilt());
  const double us =
      RunSteps(state, session.get(), {{"x", Tensor::Scalar<float>(0)}},
               {level[0].name()});
  state.counters["us_per_node"] = us / n;  // wall clock, per add
}
BENCHMARK(BM_FanOutFanIn)->Arg(10000)->Unit(benchmark::kMillisecond);

void BM_MlpForward(benchmark::State& state) {
  const int batch = static_cast<int>(state.range(0));
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT,
                              ops::PlaceholderAttrs().Shape({batch, 784}));
  auto weights = [&](int in, int out) {
    Tensor t(DT_FLOAT, TensorShape({in, out}));
    float v = 0.01f;
    for (float& f : t.flat<float>())
      f = (v = v * 1.37f - static_cast<int>(v * 1.37f)) * 0.1f;
    return ops::Const(root, t);
  };
  auto zeros = [&](int n) {
    Tensor t(DT_FLOAT, TensorShape({n}));
    for (float& f : t.flat<float>()) f = 0.0f;
    return ops::Const(root, t);
  };
  Output h = ops::Relu(
      root,
      ops::BiasAdd(root, ops::MatMul(root, x, weights(784, 500)), zeros(500)));
  Output logits =
      ops::BiasAdd(root, ops::MatMul(root, h, weights(500, 10)), zeros(10));
  Output probs = ops::Softmax(root, logits);
  auto session = MakeSessionOrSkip(state, root);
  Tensor input(DT_FLOAT, TensorShape({batch, 784}));
  for (float& f : input.flat<float>()) f = 0.5f;
  RunSteps(state, session.get(), {{"x", input}}, {probs.name()});
  state.SetItemsProcessed(state.iterations() * batch);
}
BENCHMARK(BM_MlpForward)->Arg(100)->Unit(benchmark::kMicrosecond);

// x on CPU:0 fans out to `n` scalar adds on CPU:0, each read by a Neg on
// CPU:1, summed there and fetched back to CPU:0: n + 1 transfers per step.
// The same graph without device requests runs on one device for scale;
// us_per_transfer is the difference per step divided by the transfers.
void BM_TwoPartitionTransfers(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  Scope root = Scope::NewRootScope();
  Scope cpu0 = root.WithDevice("/cpu:0");
  Scope cpu1 = root.WithDevice("/cpu:1");
  Output x = ops::Placeholder(cpu0.WithOpName("x"), DT_FLOAT,
                              ops::PlaceholderAttrs().Shape(TensorShape()));
  std::vector<Output> received;
  for (int i = 0; i < n; ++i) {
    Output a = ops::AddV2(cpu0, x, ops::Const(cpu0, static_cast<float>(i)));
    received.push_back(ops::Neg(cpu1, a));
  }
  Output sum = n == 1 ? received[0] : ops::AddN(cpu1, received);
  GraphDef def;
  if (absl::Status s = root.ToGraphDef(&def); !s.ok()) {
    state.SkipWithError(std::string(s.message()).c_str());
    return;
  }
  GraphDef one_device = def;
  for (NodeDef& node : *one_device.mutable_node()) node.clear_device();
  // Both as built: on one device fuse_elementwise would merge each Add
  // with its Neg, which the partitioned graph keeps apart.
  SessionOptions options = AsBuilt();
  options.device_count = {{"CPU", 2}};
  absl::StatusOr<std::unique_ptr<Session>> partitioned =
      Session::Create(def, options);
  absl::StatusOr<std::unique_ptr<Session>> single =
      Session::Create(one_device, AsBuilt());
  if (!partitioned.ok() || !single.ok()) {
    state.SkipWithError(
        std::string((partitioned.ok() ? single : partitioned).status().message())
            .c_str());
    return;
  }
  const FeedList feeds = {{"x", Tensor::Scalar<float>(1)}};
  // The one-device figure, timed by hand (the benchmark loop times the
  // partitioned one).
  std::vector<Tensor> out;
  constexpr int kSingleSteps = 20000;
  double single_us = 0;
  for (int pass = 0; pass < 2; ++pass) {  // the first pass warms up
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < kSingleSteps; ++i) {
      if (absl::Status s = (*single)->Run(feeds, {sum.name()}, {}, &out);
          !s.ok()) {
        state.SkipWithError(std::string(s.message()).c_str());
        return;
      }
    }
    const std::chrono::duration<double, std::micro> elapsed =
        std::chrono::steady_clock::now() - start;
    single_us = elapsed.count() / kSingleSteps;
  }
  const double us =
      RunSteps(state, partitioned->get(), feeds, {sum.name()});
  const int transfers = n + 1;
  state.counters["transfers"] = transfers;
  state.counters["us_one_device"] = single_us;
  state.counters["us_per_transfer"] = (us - single_us) / transfers;
}
BENCHMARK(BM_TwoPartitionTransfers)
    ->Arg(1)
    ->Arg(16)
    ->Arg(128)
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace dflow
