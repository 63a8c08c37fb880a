#include "examples/mnist_model.h"

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "formats/event_file_writer.h"
#include "graph/ops/ops.h"
#include "graph/training/regularizers.h"
#include "runtime/queue_runner.h"
#include "runtime/run_metadata_proto.h"
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

void PrintProgress(int step, float loss, int steps, int batch_size, int towers,
                   double seconds) {
  std::printf("step %d, loss = %.2f (%.1f examples/sec; %.3f sec/batch)\n",
              step, loss, static_cast<double>(steps) * batch_size / seconds,
              seconds / steps / towers);
  std::fflush(stdout);
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
  // Batches come from the C++ batcher (fed), or from the graph's own
  // pipeline once its queue runners run.
  const bool in_graph_input = !options.queue_runners.empty();
  std::unique_ptr<Batcher> batcher;
  Coordinator coordinator;
  std::vector<std::unique_ptr<QueueRunner>> runners;
  if (in_graph_input) {
    if (absl::Status s = StartQueueRunners(session, options.queue_runners,
                                           &coordinator, &runners);
        !s.ok()) {
      return s;
    }
  } else {
    BatcherOptions batcher_options;
    batcher_options.batch_size = options.batch_size;
    batcher_options.seed = options.seed;
    absl::StatusOr<std::unique_ptr<Batcher>> made =
        Batcher::Create(train.images, train.labels, batcher_options);
    if (!made.ok()) return made.status();
    batcher = *std::move(made);
  }
  // Stops the runners on every way out (their queues close, their threads
  // end); the first error a runner met, if any, explains a failed step.
  auto stop_input = [&](absl::Status status) {
    if (!in_graph_input) return status;
    coordinator.RequestStop();
    absl::Status pipeline = coordinator.Join();
    if (status.ok() || pipeline.ok()) return status;
    return absl::Status(status.code(),
                        absl::StrCat(status.message(), " (input pipeline: ",
                                     pipeline.message(), ")"));
  };
  std::unique_ptr<EventFileWriter> events;
  if (!options.summary_dir.empty()) {
    absl::StatusOr<std::unique_ptr<EventFileWriter>> writer =
        EventFileWriter::Open(options.summary_dir);
    if (!writer.ok()) return stop_input(writer.status());
    events = *std::move(writer);
    if (options.graph != nullptr) {
      if (absl::Status s = events->AddGraph(*options.graph); !s.ok()) {
        return stop_input(s);
      }
    }
  }

  const int log_every = std::max(1, options.log_every);
  const int checkpoint_every = std::max(1, options.checkpoint_every);
  const int summary_every = std::max(1, options.summary_every);
  const int towers = std::max(1, options.towers);
  const int traced_step = options.timeline.empty()
                              ? -1
                              : std::min(options.steps, options.timeline_step);
  std::vector<Tensor> out;
  bool run_recorded = false;
  absl::Time interval_start = absl::Now();
  for (int step = 1; step <= options.steps; ++step) {
    FeedList feeds;
    if (batcher != nullptr) {
      absl::StatusOr<Batch> batch = batcher->Next();
      if (!batch.ok()) return batch.status();
      feeds = {{"x", batch->images}, {"labels", batch->labels}};
    }
    std::vector<std::string> fetches = {options.loss};
    const bool summarize = events != nullptr && !options.summary.empty() &&
                           (step % summary_every == 0 || step == options.steps);
    if (summarize) fetches.push_back(options.summary);
    RunOptions run_options;
    RunMetadata metadata;
    if (step == traced_step) {
      run_options.collect_step_stats = true;
      run_options.trace = true;
    }
    // The first summary step's stats go to the event file too (the
    // seed's add_run_metadata): TensorBoard's graph page shows each node's
    // compute time and device.
    const bool record_run = summarize && !run_recorded;
    if (record_run) run_options.collect_step_stats = true;
    const int64_t step_start = record_run ? absl::ToUnixMicros(absl::Now()) : 0;
    absl::Status s = session->Run(run_options, feeds, fetches,
                                  {options.train_op}, &out, &metadata);
    if (!s.ok()) return stop_input(s);
    if (step == traced_step) {
      s = WriteChromeTrace(metadata, options.timeline);
      if (!s.ok()) return stop_input(s);
      std::printf("wrote timeline %s (step %d)\n", options.timeline.c_str(),
                  step);
    }
    if (record_run) {
      s = events->AddRunMetadata(absl::StrCat("step", step),
                                 RunMetadataToProto(metadata, step_start),
                                 step);
      if (!s.ok()) return stop_input(s);
      run_recorded = true;
    }
    if (summarize) {
      s = events->AddSummary(out[1].flat<std::string>()[0], step);
      if (s.ok()) s = events->Flush();
      if (!s.ok()) return stop_input(s);
    }
    if (step % log_every == 0) {
      PrintProgress(step, out[0].flat<float>()[0], log_every,
                    options.batch_size, towers,
                    absl::ToDoubleSeconds(absl::Now() - interval_start));
      interval_start = absl::Now();
    }
    if (step % checkpoint_every == 0 || step == options.steps) {
      absl::StatusOr<std::string> path = saver->Save(
          session, absl::StrCat(options.checkpoint_dir, "/model.ckpt"), step);
      if (!path.ok()) return stop_input(path.status());
      std::printf("saved %s\n", path->c_str());
      std::fflush(stdout);
    }
  }
  if (events != nullptr) {
    if (absl::Status s = events->Close(); !s.ok()) return stop_input(s);
    std::printf("wrote summaries to %s\n", options.summary_dir.c_str());
  }
  if (in_graph_input) {
    if (absl::Status s = stop_input(absl::OkStatus()); !s.ok()) return s;
    std::printf("input pipeline: queue runners stopped\n");
    return absl::OkStatus();
  }
  // The batcher prepares batches on its own thread; a step that found none
  // ready waited on decoding (the first usually does).
  const BatcherStats stats = batcher->stats();
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
