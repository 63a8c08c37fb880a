#include "examples/mnist_model.h"

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "graph/ops/ops.h"
#include "graph/training/regularizers.h"
#include "tools/timeline.h"

namespace dflow {
namespace mnist {

MlpWeights MakeWeights(const VariableGetter& get, int seed) {
  MlpWeights w;
  w.layer1.weights = get("layer1/weights", {kInput, kHidden},
                         train::TruncatedNormalInitializer(0.1, seed));
  w.layer1.biases = get("layer1/biases", {kHidden}, train::ZerosInitializer());
  w.layer2.weights = get("layer2/weights", {kHidden, kClasses},
                         train::TruncatedNormalInitializer(0.1, seed + 1));
  w.layer2.biases = get("layer2/biases", {kClasses}, train::ZerosInitializer());
  return w;
}

void AddL2Losses(const Scope& scope, const MlpWeights& weights) {
  train::L2Regularizer(scope.WithNameScopePath("layer1"), kRegularizationRate,
                       weights.layer1.weights);
  train::L2Regularizer(scope.WithNameScopePath("layer2"), kRegularizationRate,
                       weights.layer2.weights);
}

Output Inference(const Scope& scope, const Output& x, const MlpWeights& w) {
  Output hidden =
      ops::Relu(scope, ops::Add(scope, ops::MatMul(scope, x, w.layer1.weights),
                                w.layer1.biases));
  return ops::Add(scope, ops::MatMul(scope, hidden, w.layer2.weights),
                  w.layer2.biases);
}

Output CrossEntropy(const Scope& scope, const Output& logits,
                    const Output& labels) {
  return ops::Mean(
      scope,
      ops::SparseSoftmaxCrossEntropyWithLogits(scope, logits, labels).loss, 0);
}

Output Accuracy(const Scope& scope, const Output& logits,
                const Output& labels) {
  Output predicted = ops::ArgMax(scope, logits, 1);
  Output correct =
      ops::Equal(scope, predicted, ops::Cast(scope, labels, DT_INT64));
  return ops::Mean(scope.WithOpName("accuracy"),
                   ops::Cast(scope, correct, DT_FLOAT), 0);
}

absl::StatusOr<float> TestAccuracy(Session* session, const MnistSplit& test,
                                   const std::string& accuracy) {
  std::vector<Tensor> out;
  absl::Status s = session->Run({{"x", test.images}, {"labels", test.labels}},
                                {accuracy}, {}, &out);
  if (!s.ok()) return s;
  return out[0].flat<float>()[0];
}

absl::Status RestoreLatest(Session* session, const Saver& saver,
                           const std::string& dir) {
  absl::StatusOr<std::string> latest = Saver::LatestCheckpoint(dir);
  if (!latest.ok()) return latest.status();
  if (absl::Status s = saver.Restore(session, *latest); !s.ok()) return s;
  std::cout << "restored " << *latest << "\n";
  return absl::OkStatus();
}

absl::Status TrainLoop(Session* session, Saver* saver, const MnistSplit& train,
                       const TrainLoopOptions& options) {
  BatcherOptions batcher_options;
  batcher_options.batch_size = options.batch_size;
  batcher_options.seed = options.seed;
  absl::StatusOr<std::unique_ptr<Batcher>> batcher =
      Batcher::Create(train.images, train.labels, batcher_options);
  if (!batcher.ok()) return batcher.status();

  const int log_every = std::max(1, options.log_every);
  const int checkpoint_every = std::max(1, options.checkpoint_every);
  const int towers = std::max(1, options.towers);
  const int traced_step = options.timeline.empty()
                              ? -1
                              : std::min(options.steps, options.timeline_step);
  std::vector<Tensor> out;
  absl::Time interval_start = absl::Now();
  for (int step = 1; step <= options.steps; ++step) {
    absl::StatusOr<Batch> batch = (*batcher)->Next();
    if (!batch.ok()) return batch.status();
    const FeedList feeds = {{"x", batch->images}, {"labels", batch->labels}};
    if (step == traced_step) {
      RunOptions run_options;
      run_options.collect_step_stats = true;
      run_options.trace = true;
      RunMetadata metadata;
      absl::Status s = session->Run(run_options, feeds, {options.loss},
                                    {options.train_op}, &out, &metadata);
      if (!s.ok()) return s;
      s = WriteChromeTrace(metadata, options.timeline);
      if (!s.ok()) return s;
      std::printf("wrote timeline %s (step %d)\n", options.timeline.c_str(),
                  step);
    } else {
      absl::Status s =
          session->Run(feeds, {options.loss}, {options.train_op}, &out);
      if (!s.ok()) return s;
    }
    if (step % log_every == 0) {
      const double seconds =
          absl::ToDoubleSeconds(absl::Now() - interval_start);
      std::printf("step %d, loss = %.2f (%.1f examples/sec; %.3f sec/batch)\n",
                  step, out[0].flat<float>()[0],
                  static_cast<double>(log_every) * options.batch_size / seconds,
                  seconds / log_every / towers);
      std::fflush(stdout);
      interval_start = absl::Now();
    }
    if (step % checkpoint_every == 0 || step == options.steps) {
      absl::StatusOr<std::string> path = saver->Save(
          session, absl::StrCat(options.checkpoint_dir, "/model.ckpt"), step);
      if (!path.ok()) return path.status();
      std::printf("saved %s\n", path->c_str());
      std::fflush(stdout);
    }
  }
  // The batcher prepares batches on its own thread; a step that found none
  // ready waited on decoding (the first usually does).
  const BatcherStats stats = (*batcher)->stats();
  std::printf("input pipeline: %lld of %lld steps waited for a batch\n",
              static_cast<long long>(stats.waits),
              static_cast<long long>(stats.batches_returned));
  return absl::OkStatus();
}

absl::Status TrainOrRestoreThenEvaluate(const GraphDef& graph,
                                        const SessionOptions& options,
                                        const MnistDataset& data,
                                        bool eval_only,
                                        const TrainLoopOptions& loop,
                                        const std::string& intro) {
  absl::StatusOr<std::unique_ptr<Session>> session =
      Session::Create(graph, options);
  if (!session.ok()) return session.status();
  absl::StatusOr<Saver> saver = Saver::Create(graph);
  if (!saver.ok()) return saver.status();
  if (eval_only) {
    if (absl::Status s =
            RestoreLatest(session->get(), *saver, loop.checkpoint_dir);
        !s.ok()) {
      return s;
    }
  } else {
    if (absl::Status s = (*session)->Run({}, {}, {"init"}, nullptr); !s.ok()) {
      return s;
    }
    if (!intro.empty()) std::printf("%s\n", intro.c_str());
    if (absl::Status s = TrainLoop(session->get(), &*saver, data.train, loop);
        !s.ok()) {
      return s;
    }
  }
  absl::StatusOr<float> accuracy =
      TestAccuracy(session->get(), data.test, "eval/accuracy");
  if (!accuracy.ok()) return accuracy.status();
  std::printf("test accuracy = %.4f\n", *accuracy);
  return absl::OkStatus();
}

}  // namespace mnist
}  // namespace dflow
