// 2-D convolution throughput in GFLOP/s (2 * batch * out_rows * out_cols *
// out_channels * filter_rows * filter_cols * in_channels per run) of dflow's
// CPU kernels (kernels/cpu/conv_ops*.cc: im2col tiles + single-threaded
// OpenBLAS, tiles split over dflow's thread pool), run through
// OpKernelContext as the executor runs them (outputs allocated every step),
// on a CPU device whose pool has `threads` threads.
//
// Layers (NHWC, filters [rows, cols, in, out], stride 1, SAME), from the
// CIFAR-10 seed model at batch 128:
//   cifar_conv2  24x24x64 input, 5x5x64x64 filter: the headline number
//   cifar_conv1  24x24x3 input,  5x5x3x64 filter (a thin patch: K = 75)
// each for Conv2D and its two gradients, with 1 thread and one per core.
//
//   bazel run //bench:conv_bench
//   bazel run //bench:conv_bench -- --benchmark_filter=Conv2D/cifar_conv2
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

struct Layer {
  const char* name;
  int64_t batch, rows, cols, in_depth, filter_rows, filter_cols, out_depth;
};

const Layer kLayers[] = {
    {"cifar_conv2", 128, 24, 24, 64, 5, 5, 64},
    {"cifar_conv1", 128, 24, 24, 3, 5, 5, 64},
};

enum class Op { kForward, kBackpropInput, kBackpropFilter };

void BM_Conv(benchmark::State& state, const Layer& l, Op op) {
  const int threads = static_cast<int>(state.range(0));
  const TensorShape input({l.batch, l.rows, l.cols, l.in_depth});
  const TensorShape filter(
      {l.filter_rows, l.filter_cols, l.in_depth, l.out_depth});
  const TensorShape output({l.batch, l.rows, l.cols, l.out_depth});  // SAME
  const std::vector<int64_t> strides = {1, 1, 1, 1};
  Scope root = Scope::NewRootScope();
  Output node;
  std::vector<TensorValue> inputs(op == Op::kForward ? 2 : 3);
  switch (op) {
    case Op::kForward:
      node = ops::Conv2D(root, ops::Placeholder(root, DT_FLOAT),
                         ops::Placeholder(root, DT_FLOAT), strides, "SAME");
      inputs[0].tensor = bench::RandomTensor(input, 1);
      inputs[1].tensor = bench::RandomTensor(filter, 2);
      break;
    case Op::kBackpropInput:
      node = ops::Conv2DBackpropInput(root, ops::Placeholder(root, DT_INT32),
                                      ops::Placeholder(root, DT_FLOAT),
                                      ops::Placeholder(root, DT_FLOAT), strides,
                                      "SAME");
      inputs[0].tensor = bench::ShapeTensor(input);
      inputs[1].tensor = bench::RandomTensor(filter, 2);
      inputs[2].tensor = bench::RandomTensor(output, 3);
      break;
    case Op::kBackpropFilter:
      node = ops::Conv2DBackpropFilter(root, ops::Placeholder(root, DT_FLOAT),
                                       ops::Placeholder(root, DT_INT32),
                                       ops::Placeholder(root, DT_FLOAT),
                                       strides, "SAME");
      inputs[0].tensor = bench::RandomTensor(input, 1);
      inputs[1].tensor = bench::ShapeTensor(filter);
      inputs[2].tensor = bench::RandomTensor(output, 3);
      break;
  }
  if (!root.ok()) {
    state.SkipWithError(std::string(root.status().message()).c_str());
    return;
  }
  bench::TimeKernel(state, *node.node(), bench::DeviceWithThreads(threads),
                    inputs);
  const double flops =
      2.0 * output.num_elements() * l.filter_rows * l.filter_cols * l.in_depth;
  state.counters["GFLOP/s"] = benchmark::Counter(
      flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

void RegisterAll() {
  const int cores =
      static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const struct {
    const char* name;
    Op op;
  } kOps[] = {{"Conv2D", Op::kForward},
              {"Conv2DBackpropInput", Op::kBackpropInput},
              {"Conv2DBackpropFilter", Op::kBackpropFilter}};
  for (const auto& op : kOps) {
    for (const Layer& layer : kLayers) {
      auto* b = benchmark::RegisterBenchmark(
          (std::string(op.name) + "/" + layer.name).c_str(),
          [layer, o = op.op](benchmark::State& s) { BM_Conv(s, layer, o); });
      b->ArgName("threads")->Arg(1);
      if (cores > 1) b->Arg(cores);
      b->UseRealTime()->Unit(benchmark::kMillisecond);
    }
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
