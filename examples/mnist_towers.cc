// Seed 001 reproduced: the MNIST MLP of the tutorial (784-500-10, ReLU, L2
// regularization 1e-4, exponentially decaying learning rate, moving
// averages) trained data-parallel on N towers, here on Fashion-MNIST and N
// logical CPU devices, or N GPUs when the machine has them (--device_type):
//
//   bazel run //examples:mnist_towers -- --towers 2 --epochs 3
//
//  - the input placeholders, the shared variables, the averaged gradients
//    and the update live on /cpu:0 (the seed's "simple ops on the CPU");
//  - each step feeds --batch_size examples PER TOWER (the seed's BATCH_SIZE
//    per GPU): the step's batch of batch_size * towers rows is split along
//    dimension 0 and tower i computes its part's loss (cross-entropy plus
//    the L2 terms collected in its own name scope, as the seed's
//    tf.get_collection('losses', scope)) and its gradients on /cpu:i
//    (or /gpu:i)
//    (graph/training/towers.h: MakeParallel, ParameterServerMinimize);
//  - --strategy ps averages the towers' gradients on /cpu:0 and applies
//    them once there (the seed's average_gradients + apply_gradients);
//    --strategy allreduce keeps a replica of the variables on every tower's
//    device instead, averages the gradients across the towers with
//    CollectiveAllReduce and applies the same update on every tower (the
//    moving averages and the evaluation then use tower 0's replica, which
//    the checkpoint saves with the others).
//
// Every --log_every steps it prints the seed's line, counting the examples
// of all towers, with sec/batch the step time per tower batch (the seed's
// duration / N_GPU):
//   step 100, loss = 0.52 (48000.0 examples/sec; 0.002 sec/batch)
// where loss is the mean of the towers' losses. It saves a checkpoint every
// --checkpoint_every steps and at the end, and prints the test accuracy of
// the moving-average weights last:
//   test accuracy = 0.8512
// --log_device_placement prints where every node runs (to stderr): the
// tower_i/ nodes on CPU:i. --timeline FILE writes the Chrome trace of one
// training step (the 10th) to FILE, for chrome://tracing or Perfetto.
// --dump_passes DIR writes the graph of every compiled step signature after
// pruning and after each compiler pass (.pbtxt, .dot) into DIR/sig_<k>/.
// --input tfrecord trains from --tfrecord_dir/train.tfrecords (written by
// examples/mnist_to_tfrecord) through seed 001's in-graph pipeline instead
// of the IDX files; --summary_dir DIR writes the loss, histograms of the
// variables and their gradients (every --summary_every steps) and the graph
// to an event file TensorBoard reads.
// --virtual_gpus N splits one physical GPU into N logical ones, so
// --towers 2 --virtual_gpus 2 runs the seed's two GPU towers on one GPU.
// --eval_only restores the latest checkpoint of --checkpoint_dir into a
// fresh session and prints the same last line.
#include <algorithm>
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
#include "absl/strings/str_format.h"
#include "data/mnist.h"
#include "examples/mnist_model.h"
#include "examples/mnist_summaries.h"
#include "examples/mnist_tfrecord_input.h"
#include "examples/mnist_towers_cluster.h"
#include "examples/mnist_towers_model.h"
#include "runtime/cuda_device_count.h"
#include "runtime/session.h"

ABSL_FLAG(int, towers, 2, "towers, one per logical CPU device /cpu:0..N-1");
ABSL_FLAG(std::string, device_type, "auto",
          "where the towers run: cpu (/cpu:0..N-1, N logical CPU devices), "
          "gpu (/gpu:0..N-1, with soft placement for ops without a GPU "
          "kernel), or auto (gpu when the machine has at least N GPUs)");
ABSL_FLAG(int, virtual_gpus, 0,
          "split physical GPU 0 into this many logical GPUs (TensorFlow's "
          "virtual devices), so N towers run on one GPU; 0: none");
ABSL_FLAG(std::string, strategy, "ps",
          "how gradients meet: ps (averaged on /cpu:0, one update there) or "
          "allreduce");
ABSL_FLAG(bool, log_device_placement, false,
          "print each node's device (stderr) when a step is first compiled");
ABSL_FLAG(std::string, timeline, "",
          "write the Chrome trace JSON of the 10th training step here");
ABSL_FLAG(std::string, dump_passes, "",
          "write the graph after every compiler pass here (one folder per "
          "compiled step signature: sig_0/, ...; passes.txt says what each "
          "pass did)");
ABSL_FLAG(int, epochs, 3, "passes over the 60000 training images");
ABSL_FLAG(int, batch_size, 100, "examples per tower per step");
ABSL_FLAG(double, learning_rate, 0.5,
          "base learning rate (decays by --learning_rate_decay per epoch)");
ABSL_FLAG(double, learning_rate_decay, 0.99, "decay per epoch of steps");
ABSL_FLAG(std::string, checkpoint_dir, "/tmp/dflow_mnist_towers",
          "where checkpoints go (created if missing)");
ABSL_FLAG(int, checkpoint_every, 1000, "steps between checkpoints");
ABSL_FLAG(int, log_every, 100, "steps between progress lines");
ABSL_FLAG(std::string, data_dir, dflow::kFashionMnistDir,
          "directory of the IDX files (MNIST or Fashion-MNIST)");
ABSL_FLAG(int, threads, 0, "worker threads (0: one per core)");
ABSL_FLAG(int, seed, 1, "seed of the weight initializers and the shuffle");
ABSL_FLAG(std::string, input, "idx",
          "where training batches come from: idx (the IDX files of "
          "--data_dir, batched in C++ and fed) or tfrecord (seed 001's "
          "in-graph pipeline over --tfrecord_dir/train.tfrecords: "
          "string_input_producer, TFRecordReader, parse_single_example, "
          "decode_raw, shuffle_batch)");
ABSL_FLAG(std::string, tfrecord_dir, "/tmp/fashion_records",
          "where examples/mnist_to_tfrecord wrote train.tfrecords");
ABSL_FLAG(int64_t, min_after_dequeue, 10000,
          "--input tfrecord: examples the shuffle queue keeps (the seed's)");
ABSL_FLAG(std::string, summary_dir, "",
          "write seed 001's summaries (loss; histograms of variables and "
          "gradients) and the graph to an event file here, for TensorBoard");
ABSL_FLAG(int, summary_every, 100, "steps between summaries");
ABSL_FLAG(bool, eval_only, false,
          "restore the latest checkpoint and print the test accuracy");
ABSL_FLAG(std::string, cluster, "",
          "train on a cluster of `dflow worker` tasks instead of this "
          "process's devices: worker=HOST:PORT,...[,ps=HOST:PORT]; tower i "
          "on /job:worker/task:i, the shared ops (and with --strategy ps the "
          "variables) on /job:ps/task:0, else on worker 0");

namespace {

namespace mnist = dflow::mnist;

absl::Status Main() {
  const int towers = absl::GetFlag(FLAGS_towers);
  if (towers < 1) return absl::InvalidArgumentError("--towers < 1");
  const std::string strategy = absl::GetFlag(FLAGS_strategy);
  if (strategy != "ps" && strategy != "allreduce") {
    return absl::InvalidArgumentError(
        absl::StrCat("--strategy '", strategy, "': expected ps or allreduce"));
  }
  const int per_tower = absl::GetFlag(FLAGS_batch_size);
  if (per_tower < 1) return absl::InvalidArgumentError("--batch_size < 1");
  const int batch_size = per_tower * towers;
  absl::StatusOr<dflow::MnistDataset> data =
      dflow::LoadMnist(absl::GetFlag(FLAGS_data_dir));
  if (!data.ok()) return data.status();
  const int steps_per_epoch =
      static_cast<int>(data->train.num_examples / batch_size);

  mnist::TowersModelOptions model_options;
  model_options.towers = towers;
  const std::string cluster_text = absl::GetFlag(FLAGS_cluster);
  dflow::ClusterSpec cluster;
  if (!cluster_text.empty()) {
    absl::StatusOr<dflow::ClusterSpec> spec =
        dflow::ClusterSpec::Parse(cluster_text);
    if (!spec.ok()) return spec.status();
    cluster = *std::move(spec);
    absl::StatusOr<mnist::ClusterLayout> layout =
        mnist::TowersOnCluster(cluster, towers);
    if (!layout.ok()) return layout.status();
    model_options.tower_devices = layout->tower_devices;
    model_options.shared_device = layout->shared_device;
    for (const auto& [flag, set] : std::vector<std::pair<const char*, bool>>{
             {"--input tfrecord", absl::GetFlag(FLAGS_input) != "idx"},
             {"--dump_passes", !absl::GetFlag(FLAGS_dump_passes).empty()},
             {"--eval_only", absl::GetFlag(FLAGS_eval_only)},
             {"--virtual_gpus", absl::GetFlag(FLAGS_virtual_gpus) != 0},
             {"--device_type gpu",
              absl::GetFlag(FLAGS_device_type) == "gpu"}}) {
      if (set) {
        return absl::InvalidArgumentError(
            absl::StrCat(flag,
                         " does not work with --cluster yet (towers run on the "
                         "workers' CPU:0)"));
      }
    }
  }
  std::string device_type = absl::GetFlag(FLAGS_device_type);
  const int virtual_gpus = absl::GetFlag(FLAGS_virtual_gpus);
  if (virtual_gpus < 0) return absl::InvalidArgumentError("--virtual_gpus < 0");
  if (device_type == "auto") {
    device_type =
        dflow::CountGpusWithVirtualSplit(virtual_gpus) >= towers ? "gpu" : "cpu";
  }
  if (device_type != "cpu" && device_type != "gpu") {
    return absl::InvalidArgumentError(absl::StrCat(
        "--device_type '", device_type, "': expected cpu, gpu or auto"));
  }
  const bool on_gpus = device_type == "gpu";
  model_options.tower_device_type = on_gpus ? "GPU" : "CPU";
  model_options.all_reduce = strategy == "allreduce";
  model_options.seed = absl::GetFlag(FLAGS_seed);
  model_options.learning_rate =
      static_cast<float>(absl::GetFlag(FLAGS_learning_rate));
  model_options.learning_rate_decay =
      static_cast<float>(absl::GetFlag(FLAGS_learning_rate_decay));
  model_options.steps_per_epoch = steps_per_epoch;
  absl::StatusOr<mnist::TowersModel> model =
      mnist::BuildTowersModel(model_options);
  if (!model.ok()) return model.status();
  if (!cluster_text.empty()) {
    mnist::ClusterTrainOptions train;
    train.session.cluster = cluster;
    train.session.log_device_placement =
        absl::GetFlag(FLAGS_log_device_placement);
    train.steps = absl::GetFlag(FLAGS_epochs) * steps_per_epoch;
    train.batch_size = batch_size;
    train.towers = towers;
    train.log_every = absl::GetFlag(FLAGS_log_every);
    train.seed = absl::GetFlag(FLAGS_seed);
    train.train_op = model->train_op;
    train.checkpoint_dir = absl::GetFlag(FLAGS_checkpoint_dir);
    train.checkpoint_every = absl::GetFlag(FLAGS_checkpoint_every);
    train.timeline = absl::GetFlag(FLAGS_timeline);
    train.summary_dir = absl::GetFlag(FLAGS_summary_dir);
    train.summary_every = absl::GetFlag(FLAGS_summary_every);
    if (!train.summary_dir.empty()) {
      absl::StatusOr<std::string> merged =
          mnist::AddSeedSummaries(model->loss, &model->graph);
      if (!merged.ok()) return merged.status();
      train.summary = *merged;
    }
    return mnist::TrainOnCluster(
        model->graph, *data, train,
        absl::StrFormat("%d towers on /job:worker/task:0..%d, shared ops on "
                        "%s, %d examples per step (%d per tower), strategy %s",
                        towers, towers - 1, model_options.shared_device,
                        batch_size, per_tower, strategy));
  }
  const std::string input = absl::GetFlag(FLAGS_input);
  if (input != "idx" && input != "tfrecord") {
    return absl::InvalidArgumentError(
        absl::StrCat("--input '", input, "': expected idx or tfrecord"));
  }
  std::vector<dflow::QueueRunnerDef> queue_runners;
  if (input == "tfrecord") {
    mnist::TfRecordInputOptions input_options;
    input_options.files = {absl::GetFlag(FLAGS_tfrecord_dir) +
                           "/train.tfrecords"};
    input_options.batch_size = batch_size;
    input_options.min_after_dequeue = absl::GetFlag(FLAGS_min_after_dequeue);
    input_options.seed = absl::GetFlag(FLAGS_seed);
    absl::StatusOr<std::vector<dflow::QueueRunnerDef>> runners =
        mnist::AddTfRecordInput(input_options, &model->graph);
    if (!runners.ok()) return runners.status();
    queue_runners = *std::move(runners);
  }
  std::string summary;
  if (!absl::GetFlag(FLAGS_summary_dir).empty()) {
    absl::StatusOr<std::string> merged =
        mnist::AddSeedSummaries(model->loss, &model->graph);
    if (!merged.ok()) return merged.status();
    summary = *merged;
  }
  dflow::SessionOptions options;
  options.num_threads = absl::GetFlag(FLAGS_threads);
  if (on_gpus) {
    // Ops with no GPU kernel yet run on the CPU instead of failing.
    options.device_count = {{"CPU", 1}, {"GPU", towers}};
    options.allow_soft_placement = true;
    options.gpu_virtual_devices = virtual_gpus;
  } else {
    options.device_count = {{"CPU", towers}};
  }
  options.log_device_placement = absl::GetFlag(FLAGS_log_device_placement);
  options.dump_passes_dir = absl::GetFlag(FLAGS_dump_passes);
  mnist::TrainLoopOptions loop;
  loop.steps = absl::GetFlag(FLAGS_epochs) * steps_per_epoch;
  loop.batch_size = batch_size;
  loop.log_every = absl::GetFlag(FLAGS_log_every);
  loop.checkpoint_every = absl::GetFlag(FLAGS_checkpoint_every);
  loop.checkpoint_dir = absl::GetFlag(FLAGS_checkpoint_dir);
  loop.train_op = model->train_op;
  loop.seed = absl::GetFlag(FLAGS_seed);
  loop.towers = towers;
  loop.timeline = absl::GetFlag(FLAGS_timeline);
  loop.queue_runners = queue_runners;
  loop.summary_dir = absl::GetFlag(FLAGS_summary_dir);
  loop.summary = summary;
  loop.summary_every = absl::GetFlag(FLAGS_summary_every);
  loop.graph = &model->graph;
  return mnist::TrainOrRestoreThenEvaluate(
      model->graph, options, *data, absl::GetFlag(FLAGS_eval_only), loop,
      absl::StrFormat(
          "%d towers on /%s:0../%s:%d, %d examples per step (%d per tower), "
          "strategy %s",
          towers, device_type, device_type, towers - 1, batch_size, per_tower,
          strategy));
}

}  // namespace

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "Trains seed 001's MLP on (Fashion-)MNIST with N data-parallel towers "
      "on N logical CPU devices and prints the test accuracy.\nUsage: "
      "mnist_towers [--towers N] [--strategy ps|allreduce] [--epochs N] "
      "[--batch_size B per tower] [--log_device_placement] [--timeline F] "
      "[--dump_passes DIR] "
      "[--checkpoint_dir D] [--data_dir D] [--eval_only]");
  absl::ParseCommandLine(argc, argv);
  absl::Status s = Main();
  if (!s.ok()) {
    std::cerr << "mnist_towers: " << s << "\n";
    return 1;
  }
  return 0;
}
