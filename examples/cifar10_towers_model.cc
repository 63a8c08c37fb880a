#include "examples/cifar10_towers_model.h"

#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "examples/cifar10_input.h"
#include "graph/ops/ops.h"
#include "graph/training/training.h"

namespace dflow {
namespace cifar10 {
namespace {

constexpr float kMovingAverageDecay = 0.9999f;
constexpr float kWeightDecay = 0.004f;

// Where the layers' variables come from: the towers' shared variables
// (training) or their moving averages (evaluation).
using VariableGetter =
    std::function<Output(const std::string& path, const TensorShape& shape,
                         const train::Initializer& initializer)>;

// The seed's _variable_with_weight_decay and its biases.
class Layers {
 public:
  // `regularize`: the scope whose name scope collects the weight-decay
  // terms (none when null, as in the evaluation).
  Layers(VariableGetter get, const Scope* regularize, int seed)
      : get_(std::move(get)), regularize_(regularize), seed_(seed) {}

  Output Weights(const std::string& path, const TensorShape& shape,
                 double stddev, float wd) {
    Output w =
        get_(path + "/weights", shape,
             train::TruncatedNormalInitializer(stddev, seed_ + next_seed_++));
    // tf.nn.l2_loss(w) * wd: L2Regularizer's scale * sum(w^2) / 2.
    if (wd > 0 && regularize_ != nullptr) {
      train::L2Regularizer(regularize_->WithNameScopePath(path), wd, w);
    }
    return w;
  }
  Output Biases(const std::string& path, int n, double value) {
    return get_(path + "/biases", TensorShape({n}),
                train::ConstantInitializer(value));
  }

 private:
  VariableGetter get_;
  const Scope* regularize_;
  int seed_;
  int next_seed_ = 0;
};

Output Conv(const Scope& s, Layers& layers, const std::string& name,
            const Output& in, int in_channels, double bias) {
  const Scope scope = s.NewSubScope(name);
  Output kernel =
      layers.Weights(name, TensorShape({5, 5, in_channels, 64}), 5e-2, 0);
  Output conv = ops::Conv2D(scope, in, kernel, {1, 1, 1, 1}, "SAME");
  return ops::Relu(scope,
                   ops::BiasAdd(scope, conv, layers.Biases(name, 64, bias)));
}

Output Norm(const Scope& s, const std::string& name, const Output& in) {
  return ops::LRN(s.NewSubScope(name), in,
                  ops::LRNAttrs()
                      .DepthRadius(4)
                      .Bias(1.0f)
                      .Alpha(0.001f / 9.0f)
                      .Beta(0.75f));
}

Output Pool(const Scope& s, const std::string& name, const Output& in) {
  return ops::MaxPool(s.NewSubScope(name), in, {1, 3, 3, 1}, {1, 2, 2, 1},
                      "SAME");
}

Output Dense(const Scope& s, Layers& layers, const std::string& name,
             const Output& in, int in_dim, int out_dim, double stddev, float wd,
             double bias, bool relu) {
  const Scope scope = s.NewSubScope(name);
  Output w = layers.Weights(name, TensorShape({in_dim, out_dim}), stddev, wd);
  Output y = ops::Add(scope, ops::MatMul(scope, in, w),
                      layers.Biases(name, out_dim, bias));
  return relu ? ops::Relu(scope, y) : y;
}

// cifar10.inference: the logits [batch, 10].
Output Inference(const Scope& s, Layers& layers, const Output& images) {
  Output conv1 = Conv(s, layers, "conv1", images, 3, 0.0);
  Output norm1 = Norm(s, "norm1", Pool(s, "pool1", conv1));
  Output conv2 = Conv(s, layers, "conv2", norm1, 64, 0.1);
  Output pool2 = Pool(s, "pool2", Norm(s, "norm2", conv2));
  constexpr int kDim = 6 * 6 * 64;  // 24 -> 12 -> 6 with SAME pools
  Output flat = ops::Reshape(s, pool2, {-1, kDim});
  Output local3 = Dense(s, layers, "local3", flat, kDim, 384, 0.04,
                        kWeightDecay, 0.1, true);
  Output local4 = Dense(s, layers, "local4", local3, 384, 192, 0.04,
                        kWeightDecay, 0.1, true);
  return Dense(s, layers, "softmax_linear", local4, 192, kNumClasses,
               1.0 / 192.0, 0, 0.0, false);
}

}  // namespace

absl::StatusOr<TowersModel> BuildTowersModel(
    const TowersModelOptions& options) {
  if (options.towers < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "towers = ", options.towers, ": a model needs at least one"));
  }
  if (options.tower_device_type != "CPU" &&
      options.tower_device_type != "GPU") {
    return absl::InvalidArgumentError(absl::StrCat("tower device type '",
                                                   options.tower_device_type,
                                                   "': expected CPU or GPU"));
  }
  TowersModel model;
  Scope root = Scope::NewRootScope();
  Scope cpu = root.WithDevice("/cpu:0");
  Output images = ops::Placeholder(
      cpu.WithOpName("images"), DT_FLOAT,
      ops::PlaceholderAttrs().Shape({-1, kCropSize, kCropSize, 3}));
  Output labels = ops::Placeholder(cpu.WithOpName("labels"), DT_INT32,
                                   ops::PlaceholderAttrs().Shape({-1}));
  Output global_step = train::GetOrCreateGlobalStep(cpu);

  const std::string prefix =
      options.tower_device_type == "GPU" ? "/gpu:" : "/cpu:";
  std::map<std::string, Output> tower0_variables;  // by path
  std::vector<std::string> devices;
  for (int i = 0; i < options.towers; ++i) {
    devices.push_back(absl::StrCat(prefix, i));
  }
  absl::StatusOr<train::ParallelModel> parallel = train::MakeParallel(
      root, devices, {images, labels},
      [&](train::TowerContext& tower, const std::vector<Output>& in) {
        const Scope& s = tower.scope();
        Layers layers(
            [&](const std::string& path, const TensorShape& shape,
                const train::Initializer& initializer) {
              Output v = tower.GetVariable(path, shape, DT_FLOAT, initializer);
              if (tower.index() == 0) tower0_variables[path] = v;
              return v;
            },
            &s, options.seed);
        Output logits = Inference(s, layers, in[0]);
        Output cross_entropy = ops::Mean(
            s, ops::SparseSoftmaxCrossEntropyWithLogits(s, logits, in[1]).loss,
            0);
        return std::vector<Output>{
            ops::Add(s.WithOpName("loss"), cross_entropy,
                     train::TotalRegularizationLoss(s, s.name_scope()))};
      },
      train::ParallelOptions().MirroredVariables(options.all_reduce));
  if (!parallel.ok()) return parallel.status();
  ops::Mean(cpu.WithOpName("loss"), parallel->outputs[0], 0);

  // The seed's schedule: decay by 0.1 every 350 epochs, in whole steps.
  const double batches_per_epoch =
      static_cast<double>(options.examples_per_epoch) /
      (options.batch_size * options.towers);
  Output learning_rate = train::ExponentialDecay(
      cpu, options.initial_learning_rate, global_step,
      batches_per_epoch * options.epochs_per_decay, options.learning_rate_decay,
      train::ExponentialDecayOptions().Staircase(true));
  train::GradientDescentOptimizer optimizer(learning_rate);
  absl::StatusOr<Operation> apply =
      options.all_reduce
          ? train::AllReduceMinimize(cpu, optimizer, *parallel,
                                     /*loss_index=*/0, global_step)
          : train::ParameterServerMinimize(cpu, optimizer, *parallel,
                                           /*loss_index=*/0, global_step);
  if (!apply.ok()) return apply.status();
  train::ExponentialMovingAverage averages(kMovingAverageDecay, global_step);
  absl::StatusOr<Operation> average =
      averages.Apply(cpu, train::TrainableVariables(root));
  if (!average.ok()) return average.status();
  model.train_op = train::Group(cpu, {*apply, *average}, "train").name();

  // cifar10_eval: precision @ 1 of the moving-average weights on the test
  // file, counted per batch.
  if (!options.eval_file.empty()) {
    Scope eval = cpu.NewSubScope("eval");
    absl::StatusOr<EvalInputs> inputs =
        AddEvalInputs(cpu, options.eval_file, options.eval_batch_size);
    if (!inputs.ok()) return inputs.status();
    absl::Status missing;
    Layers averaged(
        [&](const std::string& path, const TensorShape&,
            const train::Initializer&) {
          auto it = tower0_variables.find(path);
          if (it == tower0_variables.end()) {
            missing = absl::InternalError(
                absl::StrCat("the evaluation asks for variable '", path,
                             "', which the towers did not make"));
            return Output();
          }
          return averages.Average(it->second);
        },
        nullptr, options.seed);
    Output logits = Inference(eval, averaged, inputs->images);
    if (!missing.ok()) return missing;
    Output top1 = ops::InTopKV2(eval, logits, inputs->labels, 1);
    model.eval_correct =
        ops::Sum(eval.WithOpName("correct"), ops::Cast(eval, top1, DT_INT32), 0)
            .name();
    model.eval_runners = inputs->runners;
  }
  train::GlobalVariablesInitializer(cpu);
  if (absl::Status s = root.ToGraphDef(&model.graph); !s.ok()) return s;
  return model;
}

}  // namespace cifar10
}  // namespace dflow
