// Seed 001's training graph on N towers: what examples/mnist_towers trains
// and bench/tower_bench times, built in one place so the benchmark's
// figures are the example's.
//
// The input placeholders "x" [-1, 784] and "labels" [-1], the global step,
// the learning-rate schedule, the moving averages and the evaluation live
// on /cpu:0 (the seed's "simple ops on the CPU"); tower i computes the loss
// of its part of the batch (cross-entropy plus the L2 terms of its own name
// scope) and its gradients on /cpu:i or /gpu:i (graph/training/towers.h).
// With
// all_reduce false (the seed's strategy) the variables live on /cpu:0 and
// the towers' gradients are averaged and applied there once; with
// all_reduce true every tower keeps a replica, the gradients are averaged
// by CollectiveAllReduce and every tower applies the same update.
#ifndef DFLOW_EXAMPLES_MNIST_TOWERS_MODEL_H_
#define DFLOW_EXAMPLES_MNIST_TOWERS_MODEL_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/graph.pb.h"

namespace dflow {
namespace mnist {

struct TowersModelOptions {
  int towers = 2;
  // Where tower i runs: "/cpu:i" ("CPU", N logical CPU devices) or
  // "/gpu:i" ("GPU"). The shared ops stay on /cpu:0 either way.
  std::string tower_device_type = "CPU";
  // Instead: tower i runs on tower_devices[i] (e.g.
  // "/job:worker/task:i/device:CPU:0" on a cluster); towers =
  // tower_devices.size().
  std::vector<std::string> tower_devices;
  // Where the shared ops (inputs, global step, schedule, averages,
  // evaluation) and, with the ps strategy, the variables live.
  std::string shared_device = "/cpu:0";
  bool all_reduce = false;
  int seed = 1;  // of the weight initializers
  float learning_rate = 0.5f;
  float learning_rate_decay = 0.99f;  // per epoch
  int steps_per_epoch = 300;
};

struct TowersModel {
  GraphDef graph;
  // Runs one training step (the update, the global step, the averages).
  std::string train_op;
  // The mean of the towers' losses.
  std::string loss = "loss";
  // The test accuracy of the moving-average weights ("eval/accuracy").
  std::string accuracy;
};

absl::StatusOr<TowersModel> BuildTowersModel(const TowersModelOptions& options);

}  // namespace mnist
}  // namespace dflow

#endif  // DFLOW_EXAMPLES_MNIST_TOWERS_MODEL_H_
