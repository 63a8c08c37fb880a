// Seed 003's CIFAR-10 CNN (cifar10.inference: conv 5x5x64, max-pool 3x3/2,
// LRN, conv 5x5x64, LRN, max-pool, fully connected 384 and 192, linear
// softmax layer; weight decay 0.004 on the fully connected weights) trained
// on N towers as cifar10_multi_gpu_train does: each tower's loss is its
// cross-entropy plus its own weight-decay terms; the gradients are averaged
// on /cpu:0 and applied there (ps) or all-reduced (allreduce), with the
// seed's staircase exponential decay of the learning rate and moving
// averages of the variables. The placeholders "images" [-1, 24, 24, 3] and
// "labels" [-1] are split among the towers (examples/cifar10_input.h
// rewires them to the input pipeline).
#ifndef DFLOW_EXAMPLES_CIFAR10_TOWERS_MODEL_H_
#define DFLOW_EXAMPLES_CIFAR10_TOWERS_MODEL_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/graph.pb.h"
#include "proto/queue_runner.pb.h"

namespace dflow {
namespace cifar10 {

struct TowersModelOptions {
  int towers = 2;
  // "/cpu:i" or "/gpu:i" for tower i.
  std::string tower_device_type = "CPU";
  bool all_reduce = false;
  int seed = 1;
  int batch_size = 128;  // per tower, for the decay schedule
  float initial_learning_rate = 0.1f;
  float learning_rate_decay = 0.1f;
  int examples_per_epoch = 50000;
  int epochs_per_decay = 350;
  // With a test file (test_batch.bin), an evaluation net on /cpu:0 over
  // the moving averages of the variables (the seed's cifar10_eval).
  std::string eval_file;
  int eval_batch_size = 128;
};

struct TowersModel {
  GraphDef graph;
  std::string train_op;
  std::string loss = "loss";  // the mean of the towers' losses
  // With an eval_file: how many of a test batch the averaged model ranks
  // first (int32 scalar), and the runners of its input.
  std::string eval_correct;
  std::vector<QueueRunnerDef> eval_runners;
};

absl::StatusOr<TowersModel> BuildTowersModel(const TowersModelOptions& options);

}  // namespace cifar10
}  // namespace dflow

#endif  // DFLOW_EXAMPLES_CIFAR10_TOWERS_MODEL_H_
