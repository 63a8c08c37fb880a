// The CIFAR-10 model's ops other than convolutions and products, per run,
// as the executor runs them (outputs allocated every run), on a CPU device
// whose pool has `threads` threads: local response normalization and max
// pooling with their gradients, at seed 003's shapes (one tower of
// bench/compare_tf.sh: batch 32; and the seed's batch 128):
//   LRN, LRNGrad          [batch, 12, 12, 64], depth_radius 4, beta 0.75
//   MaxPool, MaxPoolGrad  [batch, 24, 24, 64] -> [batch, 12, 12, 64],
//                         3x3 windows, stride 2, SAME
// Each reports GB/s: the bytes its inputs and output hold, per second.
//
//   bazel run //bench:cnn_ops_bench
//   bazel run //bench:cnn_ops_bench -- --benchmark_filter=LRN
#include <algorithm>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "bench/kernel_bench_util.h"
#include "benchmark/benchmark.h"
#include "graph/ops/ops.h"
#include "graph/scope.h"
#include "graph/tensor.h"

namespace dflow {
namespace {

enum class Op { kLrn, kLrnGrad, kMaxPool, kMaxPoolGrad };

ops::LRNAttrs CifarLrn() {
  return ops::LRNAttrs()
      .DepthRadius(4)
      .Bias(1.0f)
      .Alpha(0.001f / 9)
      .Beta(0.75f);
}

void BM_CnnOp(benchmark::State& state, Op op) {
  const int threads = static_cast<int>(state.range(0));
  const int64_t batch = state.range(1);
  const TensorShape image({batch, 24, 24, 64});
  const TensorShape pooled({batch, 12, 12, 64});
  const std::vector<int64_t> window = {1, 3, 3, 1}, strides = {1, 2, 2, 1};
  Scope root = Scope::NewRootScope();
  auto ph = [&] { return ops::Placeholder(root, DT_FLOAT); };
  Output node;
  std::vector<TensorValue> inputs;
  auto add_input = [&](const TensorShape& shape) {
    inputs.emplace_back();
    inputs.back().tensor =
        bench::RandomTensor(shape, static_cast<uint32_t>(inputs.size()));
  };
  int64_t elements = 0;  // of all inputs and the output
  switch (op) {
    case Op::kLrn:
      node = ops::LRN(root, ph(), CifarLrn());
      add_input(pooled);
      elements = 2 * pooled.num_elements();
      break;
    case Op::kLrnGrad:
      node = ops::LRNGrad(root, ph(), ph(), ph(), CifarLrn());
      for (int i = 0; i < 3; ++i) add_input(pooled);
      elements = 4 * pooled.num_elements();
      break;
    case Op::kMaxPool:
      node = ops::MaxPool(root, ph(), window, strides, "SAME");
      add_input(image);
      elements = image.num_elements() + pooled.num_elements();
      break;
    case Op::kMaxPoolGrad: {
      node = ops::MaxPoolGrad(root, ph(), ph(), ph(), window, strides, "SAME");
      add_input(image);
      // The forward op's true output, so every window's maximum is found.
      Scope fwd = Scope::NewRootScope();
      Output pool = ops::MaxPool(fwd, ops::Placeholder(fwd, DT_FLOAT), window,
                                 strides, "SAME");
      std::vector<TensorValue> fwd_inputs = {inputs[0]};
      inputs.emplace_back();
      if (!bench::ComputeOnce(*pool.node(), bench::DeviceWithThreads(1),
                              fwd_inputs, &inputs.back().tensor)) {
        state.SkipWithError("MaxPool for MaxPoolGrad's input failed");
        return;
      }
      add_input(pooled);
      elements = 2 * image.num_elements() + 2 * pooled.num_elements();
      break;
    }
  }
  if (!root.ok()) {
    state.SkipWithError(std::string(root.status().message()).c_str());
    return;
  }
  bench::TimeKernel(state, *node.node(), bench::DeviceWithThreads(threads),
                    inputs);
  state.counters["GB/s"] =
      benchmark::Counter(elements * sizeof(float) * 1e-9,
                         benchmark::Counter::kIsIterationInvariantRate);
}

void RegisterAll() {
  const int cores =
      static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const struct {
    const char* name;
    Op op;
  } kOps[] = {{"LRN", Op::kLrn},
              {"LRNGrad", Op::kLrnGrad},
              {"MaxPool", Op::kMaxPool},
              {"MaxPoolGrad", Op::kMaxPoolGrad}};
  for (const auto& op : kOps) {
    auto* b = benchmark::RegisterBenchmark(
        op.name, [o = op.op](benchmark::State& s) { BM_CnnOp(s, o); });
    b->ArgNames({"threads", "batch"});
    for (int64_t batch : {32, 128}) {
      b->Args({1, batch});
      if (cores > 1) b->Args({cores, batch});
    }
    b->UseRealTime()->Unit(benchmark::kMicrosecond);
  }
}

}  // namespace
}  // namespace dflow

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  dflow::RegisterAll();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
