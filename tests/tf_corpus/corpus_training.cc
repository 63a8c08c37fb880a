#include "tests/tf_corpus/corpus_training.h"

#include <filesystem>
#include <memory>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "formats/graph_file.h"
#include "graph/graph_def_file.h"
#include "graph/npy.h"
#include "runtime/queue_runner.h"

namespace dflow {
namespace {

// Restores the working directory when it goes out of scope.
class WorkingDirectory {
 public:
  WorkingDirectory() : saved_(std::filesystem::current_path()) {}
  ~WorkingDirectory() { std::filesystem::current_path(saved_); }

 private:
  std::filesystem::path saved_;
};

}  // namespace

absl::StatusOr<std::vector<double>> TrainCorpusGraph(
    const CorpusReference& ref, const SessionOptions& options,
    CorpusStepStats* stats) {
  absl::StatusOr<GraphDef> def = ReadGraphDefFile(ref.dir + "/graph.pb");
  if (!def.ok()) return def.status();
  absl::StatusOr<std::unique_ptr<Session>> created =
      Session::Create(*def, options);
  if (!created.ok()) return created.status();
  Session* session = created->get();
  RunOptions traced;
  traced.collect_step_stats = stats != nullptr;
  if (absl::Status s = session->Run(traced, {}, {}, {ref.init}, nullptr,
                                    stats != nullptr ? &stats->init : nullptr);
      !s.ok()) {
    return s;
  }
  std::vector<double> losses;
  if (ref.steps == 0) return losses;

  FeedList feeds;
  for (const auto& [tensor, path] : ref.feeds) {
    absl::StatusOr<Tensor> value = ReadNpyFile(path);
    if (!value.ok()) return value.status();
    feeds.emplace_back(tensor, *std::move(value));
  }
  // An input pipeline: its queue runners read the model's TFRecord file,
  // which the graph names relative to the model's directory.
  std::vector<QueueRunnerDef> runner_defs;
  if (ref.queue_runners) {
    absl::StatusOr<GraphFile> meta = ReadGraphFile(ref.dir + "/model.meta");
    if (!meta.ok()) return meta.status();
    if (!meta->meta_graph.has_value() || meta->meta_graph->queue_runners.empty()) {
      return absl::InternalError(
          absl::StrCat(ref.dir, "/model.meta has no queue runners"));
    }
    runner_defs = meta->meta_graph->queue_runners;
  }
  WorkingDirectory restore;
  if (ref.queue_runners) std::filesystem::current_path(ref.dir);
  Coordinator coordinator;
  std::vector<std::unique_ptr<QueueRunner>> runners;
  if (absl::Status s =
          StartQueueRunners(session, runner_defs, &coordinator, &runners);
      !s.ok()) {
    return s;
  }
  absl::Status step;
  for (int i = 0; i < ref.steps && step.ok(); ++i) {
    std::vector<Tensor> out;
    const bool last = stats != nullptr && i + 1 == ref.steps;
    step = session->Run(last ? traced : RunOptions(), feeds, {ref.loss},
                        {ref.train}, &out, last ? &stats->last_step : nullptr);
    if (step.ok()) losses.push_back(out[0].flat<float>()[0]);
  }
  // num_epochs: the input ends after as many steps as in TensorFlow.
  if (step.ok() && ref.epoch_steps > 0) {
    int steps = ref.steps;
    absl::Status more;
    while (more.ok() && steps <= ref.epoch_steps) {
      more = session->Run(feeds, {}, {ref.train}, nullptr);
      if (more.ok()) ++steps;
    }
    if (!absl::IsOutOfRange(more) || steps != ref.epoch_steps) {
      step = absl::InternalError(absl::StrCat(
          "the input should end after ", ref.epoch_steps,
          " steps (TensorFlow's) with OutOfRange; it ended after ", steps,
          " with: ", more.ToString()));
    }
  }
  const absl::Status pipeline = coordinator.Join();
  runners.clear();
  if (!step.ok()) return step;
  if (!pipeline.ok()) return pipeline;
  return losses;
}

}  // namespace dflow
