// One training step of seed 001's MLP through Session::Run: forward,
// backward and plain SGD update in one graph, as the seed trains it.
//
//   x [batch, 784] float, labels [batch] int32 (placeholders, fed a fixed
//   batch every step); h = relu(x W1 + b1); logits = h W2 + b2;
//   loss = mean(sparse softmax cross-entropy(logits, labels));
//   train op = GradientDescentOptimizer(0.01).Minimize(loss) over
//   W1 [784, 500], b1 [500], W2 [500, 10], b2 [10].
//
// The bias add is Add (the seed's `tf.matmul(x, w) + b`, broadcast), the
// weights start as truncated normal(0.1) and the biases at zero, as in the
// seed's mnist_inference. A step runs the train op as a target and fetches
// nothing (the seed also fetches the loss; that is one more scalar). The
// figures: wall time per step and items_per_second (examples per second).
// The counters loss_before and loss_after are the loss of the fixed batch
// before the first step and after the timed ones, fetched outside the
// timing: a finite loss that went down says the steps trained (the same
// check as torch_peer.py's). Counters peak_bytes, resident_bytes and
// planned_peak_bytes: the step's memory (ReportPeakMemory). DFLOW_NUM_THREADS=1 or 2 sets the pool;
// bench/compare_torch.sh
// runs this next to PyTorch (bench/torch_peer.py's mlp_train).
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "bench/bench_util.h"
#include "benchmark/benchmark.h"
#include "graph/ops/ops.h"
#include "graph/training/training.h"
#include "runtime/device.h"
#include "runtime/session.h"

namespace dflow {
namespace {

constexpr int kInput = 784;
constexpr int kHidden = 500;
constexpr int kClasses = 10;
constexpr float kLearningRate = 0.01f;

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

// Memory of one more step, untimed, as counters (bytes, summed over the
// session's devices): peak_bytes, RunMetadata's measured peak (what the
// allocators held at most during the step: the variables plus the step's
// tensors; the fed batch is the caller's and not counted);
// resident_bytes, what they held before the step (the variables), so
// peak_bytes - resident_bytes is the step's own; planned_peak_bytes,
// memory planning's figure for the step's intermediate tensors, only when
// the pass ran and knew every size (RunMetadata::planned_peak_bytes
// empty: no counter). torch_peer.py's mlp_train measures PyTorch's.
void ReportPeakMemory(benchmark::State& state, Session* session,
                      const FeedList& feeds, const std::string& target) {
  if (session == nullptr || state.error_occurred()) return;
  int64_t resident = 0;
  for (const auto& device : session->devices().devices()) {
    resident += device->allocator()->Stats().live_bytes;
  }
  RunMetadata metadata;
  if (!session->Run(RunOptions(), feeds, {}, {target}, nullptr, &metadata)
           .ok()) {
    return;
  }
  int64_t peak = 0;
  for (const auto& [device, bytes] : metadata.peak_bytes) peak += bytes;
  state.counters["peak_bytes"] = static_cast<double>(peak);
  state.counters["resident_bytes"] = static_cast<double>(resident);
  if (!metadata.planned_peak_bytes.empty()) {
    int64_t planned = 0;
    for (const auto& [device, bytes] : metadata.planned_peak_bytes) {
      planned += bytes;
    }
    state.counters["planned_peak_bytes"] = static_cast<double>(planned);
  }
}

void BM_MlpTrainStep(benchmark::State& state) {
  const int batch = static_cast<int>(state.range(0));
  Scope root = Scope::NewRootScope();
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
  if (!train_op.ok()) {
    state.SkipWithError(std::string(train_op.status().message()).c_str());
    return;
  }
  const Operation init = train::GlobalVariablesInitializer(root);

  auto session = bench::MakeSessionOrSkip(state, root);
  if (!bench::RunOnceOrSkip(state, session.get(), {init.name()})) return;
  Tensor images(DT_FLOAT, TensorShape({batch, kInput}));
  Tensor classes(DT_INT32, TensorShape({batch}));
  bench::FillTrainingBatch(&images, &classes);
  const FeedList feeds = {{"x", images}, {"labels", classes}};
  auto fetch_loss = [&](const char* counter) {
    std::vector<Tensor> out;
    if (session != nullptr && !state.error_occurred() &&
        session->Run(feeds, {loss.name()}, {}, &out).ok()) {
      state.counters[counter] = out[0].flat<float>()[0];
    }
  };
  fetch_loss("loss_before");
  bench::RunSteps(state, session.get(), feeds, {}, {train_op->name()});
  state.SetItemsProcessed(state.iterations() * batch);
  fetch_loss("loss_after");
  ReportPeakMemory(state, session.get(), feeds, train_op->name());
}
// Real time: with 2 threads the calling thread mostly waits for the pool,
// so its CPU time would make items_per_second meaningless.
BENCHMARK(BM_MlpTrainStep)
    ->Arg(100)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace dflow
