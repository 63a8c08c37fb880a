#include "examples/mnist_towers_cluster.h"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <set>
#include <string>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "data/batcher.h"
#include "examples/mnist_model.h"
#include "formats/event_file_writer.h"
#include "runtime/run_metadata_proto.h"
#include "runtime/saver.h"
#include "tools/timeline.h"

namespace dflow {
namespace mnist {

absl::StatusOr<ClusterLayout> TowersOnCluster(const ClusterSpec& cluster,
                                              int towers) {
  int workers = 0;
  bool has_ps = false;
  for (const ClusterTask& t : cluster.Tasks()) {
    workers += t.job == "worker";
    has_ps |= t.job == "ps" && t.task == 0;
  }
  if (workers < towers) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--towers ", towers, " on a cluster with ", workers,
        " worker tasks: each tower runs on a task of job 'worker'"));
  }
  ClusterLayout layout;
  for (int i = 0; i < towers; ++i) {
    layout.tower_devices.push_back(
        absl::StrCat("/job:worker/replica:0/task:", i, "/device:CPU:0"));
  }
  layout.shared_device = has_ps ? "/job:ps/replica:0/task:0/device:CPU:0"
                                : layout.tower_devices[0];
  return layout;
}

namespace {

// A failed step that a task's restart or loss explains: the session is
// rebuilt and training resumes from the last checkpoint.
bool TaskLost(const absl::Status& s) {
  return absl::IsUnavailable(s) || absl::IsNotFound(s) ||
         absl::IsDeadlineExceeded(s) || absl::IsAborted(s) ||
         absl::IsCancelled(s);
}

// The step a checkpoint path ends in ("/ckpt/model.ckpt-100": 100).
int CheckpointStep(const std::string& path) {
  int step = 0;
  const size_t dash = path.rfind('-');
  if (dash == std::string::npos ||
      !absl::SimpleAtoi(path.substr(dash + 1), &step)) {
    return 0;
  }
  return step;
}

// The tasks a step's stats came from: "/job:ps/replica:0/task:0,
// /job:worker/replica:0/task:0, ...".
std::string TasksOf(const RunMetadata& metadata) {
  std::set<std::string> tasks;
  for (const NodeExecStats& node : metadata.step_stats) {
    tasks.insert(node.device.substr(0, node.device.find("/device:")));
  }
  return absl::StrJoin(tasks, ", ");
}

}  // namespace

absl::Status TrainOnCluster(const GraphDef& graph, const MnistDataset& data,
                            const ClusterTrainOptions& options,
                            const std::string& intro) {
  absl::StatusOr<Saver> saver = Saver::Create(graph);
  if (!saver.ok()) return saver.status();
  std::unique_ptr<ClusterSession> session;
  std::unique_ptr<Batcher> batcher;
  int done = 0;  // steps trained
  // A new session; then the latest checkpoint (`restore`) or the
  // initializers, and the batches from the step after it.
  auto start = [&](bool restore) -> absl::Status {
    const absl::Time give_up = absl::Now() + options.recovery_timeout;
    for (;;) {
      absl::StatusOr<std::unique_ptr<ClusterSession>> made =
          ClusterSession::Create(graph, options.session);
      if (made.ok()) {
        session = *std::move(made);
        break;
      }
      // While a restarted task comes back, discovery cannot reach it.
      if (!restore || !absl::IsUnavailable(made.status()) ||
          absl::Now() >= give_up) {
        return made.status();
      }
      absl::SleepFor(absl::Milliseconds(200));
    }
    absl::StatusOr<std::string> latest =
        restore ? Saver::LatestCheckpoint(options.checkpoint_dir)
                : absl::NotFoundError("no restore asked");
    if (latest.ok()) {
      if (absl::Status s = saver->Restore(session.get(), *latest); !s.ok()) {
        return s;
      }
      done = CheckpointStep(*latest);
      std::printf("restored %s: continuing after step %d\n", latest->c_str(),
                  done);
    } else {
      if (absl::Status s = session->Run({}, {}, {"init"}, nullptr); !s.ok()) {
        return s;
      }
      done = 0;
    }
    BatcherOptions batcher_options;
    batcher_options.batch_size = options.batch_size;
    batcher_options.seed = options.seed;
    absl::StatusOr<std::unique_ptr<Batcher>> made =
        Batcher::Create(data.train.images, data.train.labels, batcher_options);
    if (!made.ok()) return made.status();
    batcher = *std::move(made);
    // The batches the restored steps saw: the same order as without a
    // failure.
    for (int i = 0; i < done; ++i) {
      if (absl::StatusOr<Batch> skipped = batcher->Next(); !skipped.ok()) {
        return skipped.status();
      }
    }
    return absl::OkStatus();
  };
  if (absl::Status s = start(false); !s.ok()) return s;
  std::printf("%s\n", intro.c_str());
  std::unique_ptr<EventFileWriter> events;
  if (!options.summary_dir.empty()) {
    absl::StatusOr<std::unique_ptr<EventFileWriter>> writer =
        EventFileWriter::Open(options.summary_dir);
    if (!writer.ok()) return writer.status();
    events = *std::move(writer);
    if (absl::Status s = events->AddGraph(graph); !s.ok()) return s;
  }
  const int summary_every = std::max(1, options.summary_every);
  const int traced_step = options.timeline.empty()
                              ? -1
                              : std::min(options.steps, options.timeline_step);
  bool run_recorded = false;
  const int log_every = std::max(1, options.log_every);
  const int checkpoint_every = std::max(1, options.checkpoint_every);
  const int towers = std::max(1, options.towers);
  const bool checkpoints = !options.checkpoint_dir.empty();
  int recoveries = 0;
  absl::Time interval_start = absl::Now();
  std::vector<Tensor> out;
  while (done < options.steps) {
    const int step = done + 1;
    absl::StatusOr<Batch> batch = batcher->Next();
    if (!batch.ok()) return batch.status();
    std::vector<std::string> fetches = {options.loss};
    const bool summarize = events != nullptr && !options.summary.empty() &&
                           (step % summary_every == 0 || step == options.steps);
    if (summarize) fetches.push_back(options.summary);
    RunOptions run_options;
    run_options.trace = step == traced_step;
    // The first summary step's stats go to the event file too (TensorBoard's
    // graph page then shows each node's compute time and task).
    const bool record_run = summarize && !run_recorded;
    run_options.collect_step_stats = record_run;
    RunMetadata metadata;
    const int64_t step_start = absl::ToUnixMicros(absl::Now());
    absl::Status s = session->Run(
        run_options, {{"x", batch->images}, {"labels", batch->labels}}, fetches,
        {options.train_op}, &out, &metadata);
    if (!s.ok()) {
      if (!checkpoints || !TaskLost(s) ||
          recoveries == options.max_recoveries) {
        return s;
      }
      ++recoveries;
      std::printf("step %d failed (%s); recovering (%d of at most %d)\n", step,
                  std::string(s.message()).c_str(), recoveries,
                  options.max_recoveries);
      std::fflush(stdout);
      if (absl::Status r = start(true); !r.ok()) return r;
      interval_start = absl::Now();
      continue;
    }
    done = step;
    if (step == traced_step) {
      if (absl::Status t = WriteChromeTrace(metadata, options.timeline);
          !t.ok()) {
        return t;
      }
      std::printf("wrote timeline %s (step %d, %zu nodes on %s)\n",
                  options.timeline.c_str(), step, metadata.step_stats.size(),
                  TasksOf(metadata).c_str());
    }
    if (record_run) {
      if (absl::Status r = events->AddRunMetadata(
              absl::StrCat("step", step),
              RunMetadataToProto(metadata, step_start), step);
          !r.ok()) {
        return r;
      }
      run_recorded = true;
    }
    if (summarize) {
      absl::Status w = events->AddSummary(out[1].flat<std::string>()[0], step);
      if (w.ok()) w = events->Flush();
      if (!w.ok()) return w;
    }
    if (step % log_every == 0) {
      PrintProgress(step, out[0].flat<float>()[0], log_every,
                    options.batch_size, towers,
                    absl::ToDoubleSeconds(absl::Now() - interval_start));
      interval_start = absl::Now();
    }
    if (checkpoints &&
        (step % checkpoint_every == 0 || step == options.steps)) {
      absl::StatusOr<std::string> path = saver->Save(
          session.get(), options.checkpoint_dir + "/model.ckpt", step);
      if (!path.ok()) return path.status();
      std::printf("saved %s\n", path->c_str());
      std::fflush(stdout);
    }
  }
  if (events != nullptr) {
    if (absl::Status s = events->Close(); !s.ok()) return s;
    std::printf("wrote summaries to %s\n", options.summary_dir.c_str());
  }
  absl::Status s =
      session->Run({{"x", data.test.images}, {"labels", data.test.labels}},
                   {options.accuracy}, {}, &out);
  if (!s.ok()) return s;
  std::printf("test accuracy = %.4f\n", out[0].flat<float>()[0]);
  return absl::OkStatus();
}

}  // namespace mnist
}  // namespace dflow
