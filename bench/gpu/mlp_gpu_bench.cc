// Seed 001's MLP training step (bench/training_bench.cc's graph: 784-500-10,
// relu, mean sparse softmax cross-entropy, GradientDescentOptimizer(0.01),
// built with the training library) with every node on /gpu:0, through
// Session::Run, at batch 100 and 1000. bench/gpu/compare_torch_gpu.sh runs
// it next to PyTorch on CUDA (bench/torch_peer.py mlp_train --device cuda).
//
// A plain main (not Google Benchmark) so the comparison script parses one
// line per batch:
//   mlp_gpu batch=<b> steps=<n> ms_per_step=<ms> examples_per_s=<e>
//       loss_before=<l0> loss_after=<l1>
// Each step feeds the same fixed host batch (bench_util's
// FillTrainingBatch, as torch_peer.py's) and runs the train op as a target;
// Session::Run returns once the step's GPU work is done, so wall time per
// Run is the step time. loss_before/after (outside the timing) say the steps
// trained. Nodes without a GPU kernel fall back to the CPU (soft placement),
// as in TensorFlow. Flags: --steps=N (default 200), --tf32 (SessionOptions.
// gpu_allow_tf32), --cpu (the same graph on /cpu:0: checks this program
// on a machine without a GPU; not a GPU figure). Without a GPU it prints
// "mlp_gpu: no GPU: <why>" and exits 0.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "bench/bench_util.h"
#include "graph/ops/ops.h"
#include "graph/training/training.h"
#include "kernels/gpu/matmul_gpu.h"
#include "runtime/gpu/gpu_discovery.h"
#include "runtime/session.h"

namespace dflow {
namespace {

constexpr int kInput = 784;
constexpr int kHidden = 500;
constexpr int kClasses = 10;
constexpr float kLearningRate = 0.01f;
constexpr int kWarmupSteps = 20;

struct Layer {
  Output weights;
  Output biases;
};

Layer MakeLayer(const Scope& root, const char* name, int in, int out,
                int seed) {
  Scope s = root.NewSubScope(name);
  return {train::NewVariable(s, "weights", {in, out}, DT_FLOAT,
                             train::TruncatedNormalInitializer(0.1, seed)),
          train::NewVariable(s, "biases", {out}, DT_FLOAT,
                             train::ZerosInitializer())};
}

struct Result {
  double ms_per_step = 0;
  double examples_per_s = 0;
  float loss_before = 0;
  float loss_after = 0;
};

absl::StatusOr<float> Loss(Session* session, const FeedList& feeds,
                           const std::string& loss) {
  std::vector<Tensor> out;
  absl::Status s = session->Run(feeds, {loss}, {}, &out);
  if (!s.ok()) return s;
  return out[0].flat<float>()[0];
}

absl::StatusOr<Result> RunMlp(int batch, int steps, bool tf32, bool cpu) {
  Scope root = Scope::NewRootScope().WithDevice(cpu ? "/cpu:0" : "/gpu:0");
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT,
                              ops::PlaceholderAttrs().Shape({batch, kInput}));
  Output labels = ops::Placeholder(root.WithOpName("labels"), DT_INT32,
                                   ops::PlaceholderAttrs().Shape({batch}));
  const Layer l1 = MakeLayer(root, "layer1", kInput, kHidden, 1);
  const Layer l2 = MakeLayer(root, "layer2", kHidden, kClasses, 2);
  Output hidden = ops::Relu(
      root, ops::Add(root, ops::MatMul(root, x, l1.weights), l1.biases));
  Output logits =
      ops::Add(root, ops::MatMul(root, hidden, l2.weights), l2.biases);
  Output loss = ops::Mean(
      root.WithOpName("loss"),
      ops::SparseSoftmaxCrossEntropyWithLogits(root, logits, labels).loss, 0);
  train::GradientDescentOptimizer optimizer(kLearningRate);
  absl::StatusOr<Operation> train_op = optimizer.Minimize(root, loss);
  if (!train_op.ok()) return train_op.status();
  const Operation init = train::GlobalVariablesInitializer(root);

  GraphDef def;
  if (absl::Status s = root.ToGraphDef(&def); !s.ok()) return s;
  SessionOptions options;
  options.allow_soft_placement = true;
  options.gpu_allow_tf32 = tf32;
  absl::StatusOr<std::unique_ptr<Session>> session =
      Session::Create(def, options);
  if (!session.ok()) return session.status();
  if (!cpu && (*session)->devices().DevicesOfType("GPU").empty()) {
    return absl::UnavailableError("the session has no GPU device");
  }
  std::vector<Tensor> out;
  if (absl::Status s = (*session)->Run({}, {}, {init.name()}, &out); !s.ok()) {
    return s;
  }
  Tensor images(DT_FLOAT, TensorShape({batch, kInput}));
  Tensor classes(DT_INT32, TensorShape({batch}));
  bench::FillTrainingBatch(&images, &classes);
  const FeedList feeds = {{"x", images}, {"labels", classes}};
  const std::vector<std::string> targets = {train_op->name()};

  Result r;
  absl::StatusOr<float> before = Loss(session->get(), feeds, loss.name());
  if (!before.ok()) return before.status();
  r.loss_before = *before;
  // Warm-up: plans compiled, allocator regions reserved, cuBLAS handles
  // made. Not part of the timing (and not undone: the timed steps start
  // from slightly trained weights, which does not change their cost).
  for (int i = 0; i < kWarmupSteps; ++i) {
    if (absl::Status s = (*session)->Run(feeds, {}, targets, &out); !s.ok()) {
      return s;
    }
  }
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < steps; ++i) {
    if (absl::Status s = (*session)->Run(feeds, {}, targets, &out); !s.ok()) {
      return s;
    }
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  r.ms_per_step = seconds * 1e3 / steps;
  r.examples_per_s = seconds > 0 ? batch * steps / seconds : 0;
  absl::StatusOr<float> after = Loss(session->get(), feeds, loss.name());
  if (!after.ok()) return after.status();
  r.loss_after = *after;
  return r;
}

int Main(int argc, char** argv) {
  int steps = 200;
  bool tf32 = false;
  bool cpu = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--steps=", 8) == 0) {
      steps = std::atoi(argv[i] + 8);
    } else if (std::strcmp(argv[i], "--tf32") == 0) {
      tf32 = true;
    } else if (std::strcmp(argv[i], "--cpu") == 0) {
      cpu = true;
    } else {
      std::fprintf(stderr, "usage: %s [--steps=N] [--tf32] [--cpu]\n", argv[0]);
      return 2;
    }
  }
  if (steps < 1) {
    std::fprintf(stderr, "mlp_gpu: --steps must be >= 1\n");
    return 2;
  }
  if (absl::Status s = GpusAvailable(); !cpu && !s.ok()) {
    std::printf("mlp_gpu: no GPU: %s\n", std::string(s.message()).c_str());
    return 0;
  }
  // Also set directly: the session option reaches the kernels only where
  // kernels/gpu/matmul_gpu.cc reads runtime/gpu/gpu_math_mode.h.
  SetGpuTensorFloat32(tf32);
  int failures = 0;
  for (int batch : {100, 1000}) {
    absl::StatusOr<Result> r = RunMlp(batch, steps, tf32, cpu);
    if (!r.ok()) {
      std::printf("mlp_gpu batch=%d error: %s\n", batch,
                  std::string(r.status().message()).c_str());
      ++failures;
      continue;
    }
    std::printf(
        "mlp_%s batch=%d steps=%d tf32=%d ms_per_step=%.4f "
        "examples_per_s=%.1f loss_before=%.5f loss_after=%.5f\n",
        cpu ? "cpu" : "gpu", batch, steps, tf32 ? 1 : 0, r->ms_per_step, r->examples_per_s,
        r->loss_before, r->loss_after);
    std::fflush(stdout);
  }
  return failures == 0 ? 0 : 1;
}

}  // namespace
}  // namespace dflow

int main(int argc, char** argv) { return dflow::Main(argc, argv); }
