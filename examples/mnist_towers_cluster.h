// examples/mnist_towers on a cluster (`--cluster`): the towers' graph, its
// devices naming a cluster's tasks, trained through a ClusterSession
// (distributed/cluster_session.h) with the seed's progress lines and the
// test accuracy at the end. Tower i runs on /job:worker/task:i; with the ps
// strategy the variables, their updates and the shared ops live on
// /job:ps/task:0 (or worker 0 when the cluster has no ps job); with
// allreduce every worker keeps a replica and the gradients meet by a
// CollectiveAllReduce across the tasks (Gloo). Checkpoints (Saver through
// the ClusterSession) go to the master's --checkpoint_dir; when a step
// fails because a task died or restarted, a new session restores the last
// one and training resumes after its step with the same batches, as
// tf.train.MonitoredTrainingSession recovers. No summaries or timelines
// here yet.
#ifndef DFLOW_EXAMPLES_MNIST_TOWERS_CLUSTER_H_
#define DFLOW_EXAMPLES_MNIST_TOWERS_CLUSTER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "data/mnist.h"
#include "distributed/cluster_session.h"
#include "proto/graph.pb.h"

namespace dflow {
namespace mnist {

// Tower i's device and the shared device for `towers` towers on `cluster`:
// InvalidArgument when the cluster has fewer worker tasks than towers.
struct ClusterLayout {
  std::vector<std::string> tower_devices;
  std::string shared_device;
};
absl::StatusOr<ClusterLayout> TowersOnCluster(const ClusterSpec& cluster,
                                              int towers);

struct ClusterTrainOptions {
  ClusterSessionOptions session;
  int steps = 0;
  int batch_size = 100;  // all towers together
  int towers = 1;
  int log_every = 100;
  uint64_t seed = 1;  // of the shuffle
  std::string train_op;
  std::string loss = "loss";
  std::string accuracy = "eval/accuracy";
  // Empty: no checkpoints, and a failed step ends training.
  std::string checkpoint_dir;
  int checkpoint_every = 1000;
  // Recoveries from lost tasks before a failed step ends training, and how
  // long each waits for the cluster to answer again.
  int max_recoveries = 3;
  absl::Duration recovery_timeout = absl::Seconds(60);
  // As TrainLoopOptions' (examples/mnist_model.h): step timeline_step's
  // Chrome trace, every task's nodes on the master's clock; the merged
  // summary `summary` every summary_every steps into an event file in
  // summary_dir, with the graph and the first summary step's run metadata.
  std::string timeline;
  int timeline_step = 10;
  std::string summary_dir;
  std::string summary;
  int summary_every = 100;
};

// Initializes the variables, trains `steps` steps (saving and recovering
// as above) and prints the test accuracy of the moving averages.
absl::Status TrainOnCluster(const GraphDef& graph, const MnistDataset& data,
                            const ClusterTrainOptions& options,
                            const std::string& intro);

}  // namespace mnist
}  // namespace dflow

#endif  // DFLOW_EXAMPLES_MNIST_TOWERS_CLUSTER_H_
