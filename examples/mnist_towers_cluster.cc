#include "examples/mnist_towers_cluster.h"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "data/batcher.h"
#include "examples/mnist_model.h"

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

absl::Status TrainOnCluster(const GraphDef& graph, const MnistDataset& data,
                            const ClusterTrainOptions& options,
                            const std::string& intro) {
  absl::StatusOr<std::unique_ptr<ClusterSession>> session =
      ClusterSession::Create(graph, options.session);
  if (!session.ok()) return session.status();
  if (absl::Status s = (*session)->Run({}, {}, {"init"}, nullptr); !s.ok()) {
    return s;
  }
  std::printf("%s\n", intro.c_str());
  BatcherOptions batcher_options;
  batcher_options.batch_size = options.batch_size;
  batcher_options.seed = options.seed;
  absl::StatusOr<std::unique_ptr<Batcher>> batcher =
      Batcher::Create(data.train.images, data.train.labels, batcher_options);
  if (!batcher.ok()) return batcher.status();
  const int log_every = std::max(1, options.log_every);
  const int towers = std::max(1, options.towers);
  absl::Time interval_start = absl::Now();
  std::vector<Tensor> out;
  for (int step = 1; step <= options.steps; ++step) {
    absl::StatusOr<Batch> batch = (*batcher)->Next();
    if (!batch.ok()) return batch.status();
    absl::Status s =
        (*session)->Run({{"x", batch->images}, {"labels", batch->labels}},
                        {options.loss}, {options.train_op}, &out);
    if (!s.ok()) return s;
    if (step % log_every == 0) {
      PrintProgress(step, out[0].flat<float>()[0], log_every,
                    options.batch_size, towers,
                    absl::ToDoubleSeconds(absl::Now() - interval_start));
      interval_start = absl::Now();
    }
  }
  absl::Status s =
      (*session)->Run({{"x", data.test.images}, {"labels", data.test.labels}},
                      {options.accuracy}, {}, &out);
  if (!s.ok()) return s;
  std::printf("test accuracy = %.4f\n", out[0].flat<float>()[0]);
  return absl::OkStatus();
}

}  // namespace mnist
}  // namespace dflow
