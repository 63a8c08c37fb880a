// The CPU fusions (compiler/fuse_elementwise.h, compiler/fuse_bias_activation.h)
// through Session::Run: the default pipeline (fused) against the same
// pipeline with the one pass disabled (unfused), on
//
//   Chain:        a 4-op element-wise chain over 1M floats (16M, 64K),
//                 fed and fetched: Relu(Square(x * 0.5 + 1)) (cheap ops)
//                 and Tanh(x * 0.5 + 1) * x (one transcendental)
//   DenseLayer:   the seed MLP's first layer, Relu(BiasAdd(x W, b)) with
//                 x [100,784], W [784,500]
//
// Each benchmark's label says which ops ran (from step stats), so a
// "fused" figure that did not fuse shows. The pool's thread count is
// process-wide: run with DFLOW_NUM_THREADS=1 and =2 to compare.
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "graph/ops/ops.h"
#include "runtime/session.h"

namespace dflow {
namespace {

Tensor Filled(const TensorShape& shape, float scale) {
  Tensor t(DT_FLOAT, shape);
  float* p = t.data<float>();
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    p[i] = scale * static_cast<float>((i * 7919) % 1000 - 500) / 500.0f;
  }
  return t;
}

// Creates the session, runs warm-up steps, labels `state` with the ops
// that ran, then times steps. Errors skip the benchmark with the message.
void TimeSteps(benchmark::State& state, const GraphDef& def, bool fused,
               const std::string& pass, const FeedList& feeds,
               const std::string& fetch) {
  SessionOptions options;
  if (!fused) options.disabled_passes = {pass};
  absl::StatusOr<std::unique_ptr<Session>> session =
      Session::Create(def, options);
  if (!session.ok()) {
    state.SkipWithError(std::string(session.status().message()).c_str());
    return;
  }
  std::vector<Tensor> out;
  for (int i = 0; i < 10; ++i) {
    if (absl::Status s = (*session)->Run(feeds, {fetch}, {}, &out); !s.ok()) {
      state.SkipWithError(std::string(s.message()).c_str());
      return;
    }
  }
  RunOptions run;
  run.collect_step_stats = true;
  RunMetadata metadata;
  if (absl::Status s =
          (*session)->Run(run, feeds, {fetch}, {}, &out, &metadata);
      !s.ok()) {
    state.SkipWithError(std::string(s.message()).c_str());
    return;
  }
  std::string ops;
  for (const NodeExecStats& n : metadata.step_stats) {
    if (n.op == "_Arg" || n.op == "_Retval" || n.op == "Const") continue;
    absl::StrAppend(&ops, ops.empty() ? "" : ",", n.op);
  }
  state.SetLabel(ops);
  for (auto _ : state) {
    absl::Status s = (*session)->Run(feeds, {fetch}, {}, &out);
    if (!s.ok()) {
      state.SkipWithError(std::string(s.message()).c_str());
      return;
    }
    benchmark::DoNotOptimize(out);
  }
}

// range(0): fused; range(1): 0 cheap chain, 1 with Tanh; range(2): the
// number of elements (1M: 4 MB per tensor, within this machine's 32 MB
// L3; 16M: 64 MB, beyond it; 64K: about an MLP activation, where the
// executor's cost per node counts).
void BM_Chain(benchmark::State& state) {
  const int64_t size = state.range(2);
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT,
                            ops::PlaceholderAttrs().Shape({size}));
  auto affine = ops::AddV2(
      root, ops::Mul(root, x, ops::Const(root, 0.5f)), ops::Const(root, 1.0f));
  if (state.range(1) == 0) {
    ops::Relu(root.WithOpName("y"), ops::Square(root, affine));
  } else {
    ops::Mul(root.WithOpName("y"), ops::Tanh(root, affine), x);
  }
  GraphDef def;
  root.graph()->ToGraphDef(&def);
  TimeSteps(state, def, state.range(0) != 0, "fuse_elementwise",
            {{"x", Filled({size}, 2.0f)}}, "y");
  state.SetBytesProcessed(state.iterations() * size * 2 * sizeof(float));
}
BENCHMARK(BM_Chain)
    ->ArgNames({"fused", "tanh", "n"})
    ->Args({0, 0, 1 << 20})
    ->Args({1, 0, 1 << 20})
    ->Args({0, 1, 1 << 20})
    ->Args({1, 1, 1 << 20})
    ->Args({0, 0, 1 << 24})
    ->Args({1, 0, 1 << 24})
    ->Args({0, 0, 1 << 16})
    ->Args({1, 0, 1 << 16})
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

void BM_DenseLayer(benchmark::State& state) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT,
                            ops::PlaceholderAttrs().Shape({100, 784}));
  auto w = ops::Const(root.WithOpName("w"), Filled({784, 500}, 0.05f));
  auto b = ops::Const(root.WithOpName("b"), Filled({500}, 0.1f));
  ops::Relu(root.WithOpName("y"),
            ops::BiasAdd(root, ops::MatMul(root, x, w), b));
  GraphDef def;
  root.graph()->ToGraphDef(&def);
  TimeSteps(state, def, state.range(0) != 0, "fuse_bias_activation",
            {{"x", Filled({100, 784}, 1.0f)}}, "y");
  state.counters["GFLOP/s"] = benchmark::Counter(
      2.0 * 100 * 784 * 500 * state.iterations(), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_DenseLayer)
    ->ArgName("fused")
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

}  // namespace
}  // namespace dflow
