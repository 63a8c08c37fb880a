// The tower example's training step (examples/mnist_towers: seed 001's MLP,
// 100 examples per tower) on 1, 2 and 4 logical CPU devices, with either
// strategy: ps (gradients averaged on CPU:0, one update there) and
// allreduce (replicas, gradients all-reduced across the devices, fused by
// default). items_per_second counts the examples of all towers, as the
// example's "examples/sec" does. The graph is the example's own
// (examples/mnist_towers_model.h); the batch is fixed synthetic data.
//
// On one machine the logical devices share its cores, so more towers do
// not add compute: what the rows measure is what partitioning, the
// transfers and the collectives cost against one device at the same
// per-tower batch. DFLOW_NUM_THREADS sets the pool (default: one thread
// per core).
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "bench/bench_util.h"
#include "benchmark/benchmark.h"
#include "examples/mnist_model.h"
#include "examples/mnist_towers_model.h"
#include "graph/tensor.h"
#include "runtime/session.h"

namespace dflow {
namespace {

constexpr int kPerTower = 100;

void BM_TowerTrainStep(benchmark::State& state) {
  const int towers = static_cast<int>(state.range(0));
  const bool all_reduce = state.range(1) != 0;
  state.SetLabel(all_reduce ? "allreduce" : "ps");
  mnist::TowersModelOptions options;
  options.towers = towers;
  options.all_reduce = all_reduce;
  absl::StatusOr<mnist::TowersModel> model = mnist::BuildTowersModel(options);
  if (!model.ok()) {
    state.SkipWithError(std::string(model.status().message()).c_str());
    return;
  }
  SessionOptions session_options;
  session_options.device_count = {{"CPU", towers}};
  absl::StatusOr<std::unique_ptr<Session>> session =
      Session::Create(model->graph, session_options);
  if (!session.ok()) {
    state.SkipWithError(std::string(session.status().message()).c_str());
    return;
  }
  if (!bench::RunOnceOrSkip(state, session->get(), {"init"})) return;
  const int batch = kPerTower * towers;
  Tensor images(DT_FLOAT, TensorShape({batch, mnist::kInput}));
  Tensor labels(DT_INT32, TensorShape({batch}));
  bench::FillTrainingBatch(&images, &labels);
  bench::RunSteps(state, session->get(), {{"x", images}, {"labels", labels}},
                  {}, {model->train_op});
  state.SetItemsProcessed(state.iterations() * batch);
}
BENCHMARK(BM_TowerTrainStep)
    ->ArgNames({"towers", "allreduce"})
    ->ArgsProduct({{1, 2, 4}, {0, 1}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace dflow
