// Seed 001's network trained on one device: the MNIST MLP of the tutorial
// (784-500-10, ReLU, L2 regularization 1e-4, softmax cross-entropy,
// exponentially decaying learning rate, moving averages of the weights),
// here on Fashion-MNIST, written against dflow's public C++ API.
//
//   bazel run //examples:mnist_mlp -- --epochs 3
//
// Every --log_every steps it prints a line like the seed's
//   step 100, loss = 0.52 (48000.0 examples/sec; 0.002 sec/batch)
// saves a checkpoint every --checkpoint_every steps and at the end, and
// finishes with the test accuracy of the moving-average weights (as the
// tutorial's evaluation does):
//   test accuracy = 0.8512
// With --eval_only it trains nothing: it restores the latest checkpoint in
// --checkpoint_dir into a fresh session and prints the same last line, so
// a checkpoint written by one process can be checked in another.
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "data/batcher.h"
#include "data/mnist.h"
#include "graph/ops/ops.h"
#include "graph/training/training.h"
#include "runtime/saver.h"
#include "runtime/session.h"

ABSL_FLAG(int, epochs, 3, "passes over the 60000 training images");
ABSL_FLAG(int, batch_size, 100, "examples per step");
ABSL_FLAG(double, learning_rate, 0.3,
          "base learning rate (decays by --learning_rate_decay per epoch)");
ABSL_FLAG(double, learning_rate_decay, 0.99, "decay per epoch of steps");
ABSL_FLAG(std::string, checkpoint_dir, "/tmp/dflow_mnist_mlp",
          "where checkpoints go (created if missing)");
ABSL_FLAG(int, checkpoint_every, 1000, "steps between checkpoints");
ABSL_FLAG(int, log_every, 100, "steps between progress lines");
ABSL_FLAG(std::string, data_dir, dflow::kFashionMnistDir,
          "directory of the IDX files (MNIST or Fashion-MNIST)");
ABSL_FLAG(int, threads, 0, "worker threads (0: one per core)");
ABSL_FLAG(int, seed, 1, "seed of the weight initializers and the shuffle");
ABSL_FLAG(bool, eval_only, false,
          "restore the latest checkpoint and print the test accuracy");

namespace {

using dflow::Output;
using dflow::Scope;
namespace ops = dflow::ops;
namespace train = dflow::train;

constexpr int kInput = 784;
constexpr int kHidden = 500;
constexpr int kClasses = 10;
constexpr float kRegularizationRate = 1e-4f;
constexpr float kMovingAverageDecay = 0.99f;

struct Layer {
  Output weights;
  Output biases;
};

// The tutorial's mnist_inference: weights ~ truncated normal(0.1) with
// their L2 loss collected, biases 0.
Layer MakeLayer(const Scope& root, const std::string& name, int in, int out,
                int seed) {
  Scope s = root.NewSubScope(name);
  Layer layer;
  layer.weights =
      train::NewVariable(s, "weights", {in, out}, dflow::DT_FLOAT,
                         train::TruncatedNormalInitializer(0.1, seed));
  layer.biases = train::NewVariable(s, "biases", {out}, dflow::DT_FLOAT,
                                    train::ZerosInitializer());
  train::L2Regularizer(s, kRegularizationRate, layer.weights);
  return layer;
}

Output Inference(const Scope& scope, const Output& x, const Layer& l1,
                 const Layer& l2) {
  Output hidden = ops::Relu(
      scope, ops::Add(scope, ops::MatMul(scope, x, l1.weights), l1.biases));
  return ops::Add(scope, ops::MatMul(scope, hidden, l2.weights), l2.biases);
}

// The fraction of rows whose largest logit is the label.
Output Accuracy(const Scope& scope, const Output& logits,
                const Output& labels) {
  Output predicted = ops::ArgMax(scope, logits, 1);
  Output correct = ops::Equal(scope, predicted,
                              ops::Cast(scope, labels, dflow::DT_INT64));
  return ops::Mean(scope.WithOpName("accuracy"),
                   ops::Cast(scope, correct, dflow::DT_FLOAT), 0);
}

struct Model {
  dflow::GraphDef graph;
  std::string train_op;
};

absl::Status BuildModel(int steps_per_epoch, Model* model) {
  Scope root = Scope::NewRootScope();
  const int seed = absl::GetFlag(FLAGS_seed);
  Output x = ops::Placeholder(root.WithOpName("x"), dflow::DT_FLOAT,
                              ops::PlaceholderAttrs().Shape({-1, kInput}));
  Output labels = ops::Placeholder(root.WithOpName("labels"), dflow::DT_INT32,
                                   ops::PlaceholderAttrs().Shape({-1}));
  Layer l1 = MakeLayer(root, "layer1", kInput, kHidden, seed);
  Layer l2 = MakeLayer(root, "layer2", kHidden, kClasses, seed + 1);
  Output global_step = train::GetOrCreateGlobalStep(root);

  Scope net = root.NewSubScope("net");
  Output logits = Inference(net, x, l1, l2);
  Output cross_entropy = ops::Mean(
      net, ops::SparseSoftmaxCrossEntropyWithLogits(net, logits, labels).loss,
      0);
  Output loss = ops::Add(root.WithOpName("loss"), cross_entropy,
                         train::TotalRegularizationLoss(root));

  Output learning_rate = train::ExponentialDecay(
      root, static_cast<float>(absl::GetFlag(FLAGS_learning_rate)),
      global_step, steps_per_epoch,
      static_cast<float>(absl::GetFlag(FLAGS_learning_rate_decay)));
  train::GradientDescentOptimizer optimizer(learning_rate);
  absl::StatusOr<dflow::Operation> apply =
      optimizer.Minimize(root, loss, global_step);
  if (!apply.ok()) return apply.status();

  train::ExponentialMovingAverage averages(kMovingAverageDecay, global_step);
  absl::StatusOr<dflow::Operation> average =
      averages.Apply(root, train::TrainableVariables(root));
  if (!average.ok()) return average.status();
  model->train_op = train::Group(root, {*apply, *average}, "train").name();

  // Evaluation with the averaged weights.
  Scope eval = root.NewSubScope("eval");
  Layer avg1{averages.Average(l1.weights), averages.Average(l1.biases)};
  Layer avg2{averages.Average(l2.weights), averages.Average(l2.biases)};
  Accuracy(eval, Inference(eval, x, avg1, avg2), labels);

  train::GlobalVariablesInitializer(root);
  return root.ToGraphDef(&model->graph);
}

absl::StatusOr<float> TestAccuracy(dflow::Session* session,
                                   const dflow::MnistSplit& test) {
  std::vector<dflow::Tensor> out;
  absl::Status s = session->Run({{"x", test.images}, {"labels", test.labels}},
                                {"eval/accuracy"}, {}, &out);
  if (!s.ok()) return s;
  return out[0].flat<float>()[0];
}

absl::Status Main() {
  const int batch_size = absl::GetFlag(FLAGS_batch_size);
  if (batch_size < 1) return absl::InvalidArgumentError("--batch_size < 1");
  absl::StatusOr<dflow::MnistDataset> data =
      dflow::LoadMnist(absl::GetFlag(FLAGS_data_dir));
  if (!data.ok()) return data.status();
  const int steps_per_epoch =
      static_cast<int>(data->train.num_examples / batch_size);

  Model model;
  if (absl::Status s = BuildModel(steps_per_epoch, &model); !s.ok()) return s;
  dflow::SessionOptions options;
  options.num_threads = absl::GetFlag(FLAGS_threads);
  absl::StatusOr<std::unique_ptr<dflow::Session>> session =
      dflow::Session::Create(model.graph, options);
  if (!session.ok()) return session.status();
  absl::StatusOr<dflow::Saver> saver = dflow::Saver::Create(model.graph);
  if (!saver.ok()) return saver.status();
  const std::string dir = absl::GetFlag(FLAGS_checkpoint_dir);

  if (absl::GetFlag(FLAGS_eval_only)) {
    absl::StatusOr<std::string> latest = dflow::Saver::LatestCheckpoint(dir);
    if (!latest.ok()) return latest.status();
    if (absl::Status s = saver->Restore(session->get(), *latest); !s.ok()) {
      return s;
    }
    std::cout << "restored " << *latest << "\n";
  } else {
    if (absl::Status s = (*session)->Run({}, {}, {"init"}, nullptr); !s.ok()) {
      return s;
    }
    dflow::BatcherOptions batcher_options;
    batcher_options.batch_size = batch_size;
    batcher_options.seed = absl::GetFlag(FLAGS_seed);
    absl::StatusOr<std::unique_ptr<dflow::Batcher>> batcher =
        dflow::Batcher::Create(data->train.images, data->train.labels,
                               batcher_options);
    if (!batcher.ok()) return batcher.status();

    const int steps = absl::GetFlag(FLAGS_epochs) * steps_per_epoch;
    const int log_every = std::max(1, absl::GetFlag(FLAGS_log_every));
    const int checkpoint_every =
        std::max(1, absl::GetFlag(FLAGS_checkpoint_every));
    std::vector<dflow::Tensor> out;
    absl::Time interval_start = absl::Now();
    for (int step = 1; step <= steps; ++step) {
      absl::StatusOr<dflow::Batch> batch = (*batcher)->Next();
      if (!batch.ok()) return batch.status();
      absl::Status s = (*session)->Run(
          {{"x", batch->images}, {"labels", batch->labels}}, {"loss"},
          {model.train_op}, &out);
      if (!s.ok()) return s;
      if (step % log_every == 0) {
        const double seconds =
            absl::ToDoubleSeconds(absl::Now() - interval_start);
        std::printf("step %d, loss = %.2f (%.1f examples/sec; %.3f sec/batch)\n",
                    step, out[0].flat<float>()[0],
                    log_every * batch_size / seconds, seconds / log_every);
        std::fflush(stdout);
        interval_start = absl::Now();
      }
      if (step % checkpoint_every == 0 || step == steps) {
        absl::StatusOr<std::string> path = saver->Save(
            session->get(), absl::StrCat(dir, "/model.ckpt"), step);
        if (!path.ok()) return path.status();
        std::printf("saved %s\n", path->c_str());
      }
    }
    // The batcher prepares batches on its own thread; a step that found
    // none ready waited on decoding (the first usually does).
    const dflow::BatcherStats stats = (*batcher)->stats();
    std::printf("input pipeline: %lld of %lld steps waited for a batch\n",
                static_cast<long long>(stats.waits),
                static_cast<long long>(stats.batches_returned));
  }
  absl::StatusOr<float> accuracy = TestAccuracy(session->get(), data->test);
  if (!accuracy.ok()) return accuracy.status();
  std::printf("test accuracy = %.4f\n", *accuracy);
  return absl::OkStatus();
}

}  // namespace

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "Trains seed 001's MLP on (Fashion-)MNIST and prints the test "
      "accuracy.\nUsage: mnist_mlp [--epochs N] [--batch_size B] "
      "[--learning_rate R] [--checkpoint_dir D] [--data_dir D] [--eval_only]");
  absl::ParseCommandLine(argc, argv);
  absl::Status s = Main();
  if (!s.ok()) {
    std::cerr << "mnist_mlp: " << s << "\n";
    return 1;
  }
  return 0;
}
