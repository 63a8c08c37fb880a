#include "examples/mnist_towers_model.h"

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "examples/mnist_model.h"
#include "graph/ops/ops.h"
#include "graph/training/training.h"

namespace dflow {
namespace mnist {

absl::StatusOr<TowersModel> BuildTowersModel(
    const TowersModelOptions& options) {
  const int towers = options.tower_devices.empty()
                         ? options.towers
                         : static_cast<int>(options.tower_devices.size());
  const bool all_reduce = options.all_reduce;
  const int seed = options.seed;
  if (towers < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("towers = ", towers, ": a model needs at least one"));
  }
  TowersModel model;
  Scope root = Scope::NewRootScope();
  Scope cpu = root.WithDevice(options.shared_device);
  Output x = ops::Placeholder(cpu.WithOpName("x"), DT_FLOAT,
                              ops::PlaceholderAttrs().Shape({-1, kInput}));
  Output labels = ops::Placeholder(cpu.WithOpName("labels"), DT_INT32,
                                   ops::PlaceholderAttrs().Shape({-1}));
  Output global_step = train::GetOrCreateGlobalStep(cpu);

  std::vector<std::string> devices;
  if (options.tower_device_type != "CPU" &&
      options.tower_device_type != "GPU") {
    return absl::InvalidArgumentError(absl::StrCat("tower device type '",
                                                   options.tower_device_type,
                                                   "': expected CPU or GPU"));
  }
  const std::string prefix =
      options.tower_device_type == "GPU" ? "/gpu:" : "/cpu:";
  for (int i = 0; i < towers; ++i) devices.push_back(absl::StrCat(prefix, i));
  if (!options.tower_devices.empty()) devices = options.tower_devices;
  // Tower i: the loss of its part of the batch. The variables are made by
  // tower 0 on /cpu:0 and shared by the others (ps), or replicated on every
  // tower's device (allreduce).
  MlpWeights weights;  // tower 0's
  absl::StatusOr<train::ParallelModel> parallel = train::MakeParallel(
      root, devices, {x, labels},
      [&](train::TowerContext& tower, const std::vector<Output>& in) {
        const MlpWeights w = MakeWeights(
            [&](const std::string& path, const TensorShape& shape,
                const train::Initializer& initializer) {
              return tower.GetVariable(path, shape, DT_FLOAT, initializer);
            },
            seed);
        if (tower.index() == 0) weights = w;
        const Scope& s = tower.scope();
        AddL2Losses(s, w);
        Output cross_entropy = CrossEntropy(s, Inference(s, in[0], w), in[1]);
        return std::vector<Output>{
            ops::Add(s.WithOpName("loss"), cross_entropy,
                     train::TotalRegularizationLoss(s, s.name_scope()))};
      },
      train::ParallelOptions()
          .MirroredVariables(all_reduce)
          .VariablesDevice(options.shared_device)
          .SplitDevice(options.shared_device)
          .ConcatDevice(options.shared_device));
  if (!parallel.ok()) return parallel.status();
  // The towers' losses, stacked by MakeParallel, averaged for the log.
  ops::Mean(cpu.WithOpName("loss"), parallel->outputs[0], 0);

  Output learning_rate = train::ExponentialDecay(
      cpu, options.learning_rate, global_step, options.steps_per_epoch,
      options.learning_rate_decay);
  train::GradientDescentOptimizer optimizer(learning_rate);
  absl::StatusOr<Operation> apply =
      all_reduce
          ? train::AllReduceMinimize(cpu, optimizer, *parallel,
                                     /*loss_index=*/0, global_step)
          : train::ParameterServerMinimize(cpu, optimizer, *parallel,
                                           /*loss_index=*/0, global_step);
  if (!apply.ok()) return apply.status();

  // (Only tower 0's replicas are trainable: all-reduce keeps the others
  // equal to them.)
  train::ExponentialMovingAverage averages(kMovingAverageDecay, global_step);
  absl::StatusOr<Operation> average =
      averages.Apply(cpu, train::TrainableVariables(root));
  if (!average.ok()) return average.status();
  model.train_op = train::Group(cpu, {*apply, *average}, "train").name();

  // Evaluation with the averaged weights, on /cpu:0.
  Scope eval = cpu.NewSubScope("eval");
  const MlpWeights averaged{{averages.Average(weights.layer1.weights),
                             averages.Average(weights.layer1.biases)},
                            {averages.Average(weights.layer2.weights),
                             averages.Average(weights.layer2.biases)}};
  model.accuracy = Accuracy(eval, Inference(eval, x, averaged), labels).name();

  train::GlobalVariablesInitializer(cpu);
  if (absl::Status s = root.ToGraphDef(&model.graph); !s.ok()) return s;
  return model;
}

}  // namespace mnist
}  // namespace dflow
