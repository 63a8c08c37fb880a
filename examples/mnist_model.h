// What examples/mnist_mlp (one device) and examples/mnist_towers (N towers)
// share: seed 001's network (the tutorial's mnist_inference: 784-500-10,
// ReLU, L2 regularization of the weights), its loss and accuracy, and the
// training loop that prints the seed's progress lines and saves
// checkpoints. The two programs differ only in how they build the training
// step, so the numbers they print are comparable.
#ifndef DFLOW_EXAMPLES_MNIST_MODEL_H_
#define DFLOW_EXAMPLES_MNIST_MODEL_H_

#include <functional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "data/batcher.h"
#include "data/mnist.h"
#include "graph/scope.h"
#include "graph/training/variables.h"
#include "proto/queue_runner.pb.h"
#include "runtime/saver.h"
#include "runtime/session.h"

namespace dflow {
namespace mnist {

inline constexpr int kInput = 784;
inline constexpr int kHidden = 500;
inline constexpr int kClasses = 10;
inline constexpr float kRegularizationRate = 1e-4f;
inline constexpr float kMovingAverageDecay = 0.99f;

struct Layer {
  Output weights;
  Output biases;
};

struct MlpWeights {
  Layer layer1;
  Layer layer2;
};

// Makes (or, in a tower, looks up) the variable at `path` ("layer1/weights").
using VariableGetter =
    std::function<Output(const std::string& path, const TensorShape& shape,
                         const train::Initializer& initializer)>;

// The tutorial's variables: weights ~ truncated normal(0.1) (seeds `seed`
// and `seed + 1`), biases 0, named layer1/weights, layer1/biases, ...
MlpWeights MakeWeights(const VariableGetter& get, int seed);

// The L2 terms of both layers' weights (kRegularizationRate), built in
// `scope`'s name scope ("layer1/l2_regularizer") and collected in kLosses:
// each tower adds its own, as the seed's regularizer does per tower.
void AddL2Losses(const Scope& scope, const MlpWeights& weights);

// The logits of a batch: relu(x w1 + b1) w2 + b2.
Output Inference(const Scope& scope, const Output& x, const MlpWeights& w);

// The mean softmax cross-entropy of the batch.
Output CrossEntropy(const Scope& scope, const Output& logits,
                    const Output& labels);

// The fraction of rows whose largest logit is the label, named "accuracy".
Output Accuracy(const Scope& scope, const Output& logits, const Output& labels);

// Feeds the test split to "x" and "labels" and fetches `accuracy`.
absl::StatusOr<float> TestAccuracy(Session* session, const MnistSplit& test,
                                   const std::string& accuracy);

// Prints the seed's progress line for `step` ("step N, loss = X (Y
// examples/sec; Z sec/batch)"): `steps` steps of `batch_size` examples on
// `towers` towers took `seconds`.
void PrintProgress(int step, float loss, int steps, int batch_size, int towers,
                   double seconds);

// Restores the latest checkpoint of `dir` and says so on stdout.
absl::Status RestoreLatest(Session* session, const Saver& saver,
                           const std::string& dir);

struct TrainLoopOptions {
  int steps = 0;
  int batch_size = 100;  // examples fed per step (all towers together)
  // Towers sharing a step: "sec/batch" is the step's time divided by this,
  // the time per tower batch, as seed 001 prints it.
  int towers = 1;
  int log_every = 100;
  int checkpoint_every = 1000;
  std::string checkpoint_dir;
  std::string train_op;       // run every step
  std::string loss = "loss";  // fetched every step, printed
  uint64_t seed = 1;          // of the shuffle
  // If set, step timeline_step (or the last, if fewer) runs with
  // RunOptions::trace and its Chrome trace is written here
  // (tools/timeline.h).
  std::string timeline;
  int timeline_step = 10;
  // Seed 001's in-graph input (examples/mnist_tfrecord_input.h): nothing is
  // fed; these runners start after the initializer and stop after the last
  // step.
  std::vector<QueueRunnerDef> queue_runners;
  // Summaries (examples/mnist_summaries.h): `summary` is fetched every
  // summary_every steps (and at the last) and written to an event file in
  // summary_dir, after `graph` (TensorBoard's graph page), with the first
  // summary step's RunMetadata (compute time per node on the graph page).
  std::string summary_dir;
  std::string summary;
  int summary_every = 100;
  const GraphDef* graph = nullptr;
};

// Feeds shuffled batches of `train` to "x" and "labels" (or, with
// queue_runners, lets the graph's pipeline supply them) for options.steps
// steps, printing every log_every steps
//   step 100, loss = 0.52 (48000.0 examples/sec; 0.002 sec/batch)
// and "saved <path>" after each checkpoint (every checkpoint_every steps
// and after the last), "wrote timeline <path> (step N)" after the traced
// step, then how many steps waited for a batch.
absl::Status TrainLoop(Session* session, Saver* saver, const MnistSplit& train,
                       const TrainLoopOptions& options);

// What both examples do once their graph is built: a session and a saver
// over `graph`; with `eval_only` the latest checkpoint of
// loop.checkpoint_dir is restored, otherwise "init" runs, `intro` (if any)
// is printed and TrainLoop trains; then "test accuracy = 0.xxxx" (from
// "eval/accuracy") is the last line.
absl::Status TrainOrRestoreThenEvaluate(const GraphDef& graph,
                                        const SessionOptions& options,
                                        const MnistDataset& data,
                                        bool eval_only,
                                        const TrainLoopOptions& loop,
                                        const std::string& intro = "");

}  // namespace mnist
}  // namespace dflow

#endif  // DFLOW_EXAMPLES_MNIST_MODEL_H_
