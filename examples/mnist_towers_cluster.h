// examples/mnist_towers on a cluster (`--cluster`): the towers' graph, its
// devices naming a cluster's tasks, trained through a ClusterSession
// (distributed/cluster_session.h) with the seed's progress lines and the
// test accuracy at the end. Tower i runs on /job:worker/task:i; with the ps
// strategy the variables, their updates and the shared ops live on
// /job:ps/task:0 (or worker 0 when the cluster has no ps job); with
// allreduce every worker keeps a replica and the gradients meet by a
// CollectiveAllReduce across the tasks (Gloo). No checkpoints, summaries
// or timelines here yet.
#ifndef DFLOW_EXAMPLES_MNIST_TOWERS_CLUSTER_H_
#define DFLOW_EXAMPLES_MNIST_TOWERS_CLUSTER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
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
};

// Initializes the variables, trains `steps` steps and prints the test
// accuracy of the moving averages.
absl::Status TrainOnCluster(const GraphDef& graph, const MnistDataset& data,
                            const ClusterTrainOptions& options,
                            const std::string& intro);

}  // namespace mnist
}  // namespace dflow

#endif  // DFLOW_EXAMPLES_MNIST_TOWERS_CLUSTER_H_
