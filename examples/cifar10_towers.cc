// Seed 003 reproduced: TensorFlow's cifar10_multi_gpu_train -- the CIFAR-10
// CNN (examples/cifar10_towers_model.h) trained on N towers from CIFAR-10's
// binary files through the seed's in-graph distorted_inputs pipeline
// (examples/cifar10_input.h), on N logical CPU devices or N GPUs:
//
//   bazel run //examples:cifar10_towers -- --towers 2 --data_dir DIR
//
// (DIR: cifar-10-batches-bin, add --max_steps 1000 for a short run.)
//
// CIFAR-10 cannot be downloaded here; --write_synthetic_data N writes five
// files of N learnable records in its format to --data_dir and exits.
// --batch_size is per tower, as the seed's; every --log_every steps it
// prints the seed's line, counting the examples of all towers, with
// sec/batch the step time per tower (the seed's duration / num_gpus):
//   step 10, loss = 4.38 (412.5 examples/sec; 0.310 sec/batch)
// --strategy ps averages the towers' gradients on /cpu:0 and applies them
// there (the seed's); allreduce keeps a replica per tower and all-reduces
// the gradients. --log_device_placement prints every node's device.
// --virtual_gpus N splits one physical GPU into N logical ones, so
// --towers 2 --virtual_gpus 2 runs two GPU towers on one GPU.
// --eval_examples N then evaluates the moving averages of the weights on N
// examples of test_batch.bin (central crops) as the seed's cifar10_eval
// does and prints
//   precision @ 1 = 0.812
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "examples/cifar10_input.h"
#include "examples/cifar10_towers_model.h"
#include "runtime/cuda_device_count.h"
#include "runtime/queue_runner.h"
#include "runtime/session.h"

ABSL_FLAG(int, towers, 2, "towers, one per device /cpu:0..N-1 or /gpu:0..N-1");
ABSL_FLAG(std::string, device_type, "auto",
          "cpu (N logical CPU devices), gpu (N GPUs, soft placement), or "
          "auto (gpu when the machine has at least N GPUs)");
ABSL_FLAG(int, virtual_gpus, 0,
          "split physical GPU 0 into this many logical GPUs (TensorFlow's "
          "virtual devices), so N towers run on one GPU; 0: none");
ABSL_FLAG(std::string, strategy, "ps",
          "how gradients meet: ps (averaged on /cpu:0) or allreduce");
ABSL_FLAG(int, batch_size, 128, "examples per tower per step (the seed's)");
ABSL_FLAG(int, max_steps, 1000000, "training steps (the seed's default)");
ABSL_FLAG(std::string, data_dir, "/tmp/cifar10_data/cifar-10-batches-bin",
          "directory of data_batch_1.bin .. data_batch_5.bin");
ABSL_FLAG(bool, log_device_placement, false,
          "print each node's device (stderr) when a step is first compiled");
ABSL_FLAG(int, log_every, 10, "steps between progress lines (the seed's)");
ABSL_FLAG(int64_t, min_after_dequeue, 20000,
          "examples the shuffle queue keeps (the seed's: 40% of an epoch)");
ABSL_FLAG(int, reader_threads, 16,
          "threads filling the shuffle queue (the seed's)");
ABSL_FLAG(double, learning_rate, 0.1, "initial learning rate (the seed's)");
ABSL_FLAG(int, threads, 0, "worker threads (0: one per core)");
ABSL_FLAG(int, seed, 1, "seed of the initializers, shuffles, distortions");
ABSL_FLAG(int, eval_examples, 0,
          "after training, evaluate the moving-average weights on this many "
          "examples of --data_dir/test_batch.bin (the seed's cifar10_eval: "
          "10000) and print precision @ 1; 0: no evaluation");
ABSL_FLAG(int, write_synthetic_data, 0,
          "write 5 files of this many synthetic records to --data_dir and "
          "exit");

namespace {

namespace cifar10 = dflow::cifar10;

absl::Status Main() {
  const std::string data_dir = absl::GetFlag(FLAGS_data_dir);
  if (const int n = absl::GetFlag(FLAGS_write_synthetic_data); n > 0) {
    if (absl::Status s = cifar10::WriteSyntheticData(
            data_dir, n, static_cast<uint64_t>(absl::GetFlag(FLAGS_seed)));
        !s.ok()) {
      return s;
    }
    std::printf("wrote 5 files of %d records to %s\n", n, data_dir.c_str());
    return absl::OkStatus();
  }
  const int towers = absl::GetFlag(FLAGS_towers);
  if (towers < 1) return absl::InvalidArgumentError("--towers < 1");
  const std::string strategy = absl::GetFlag(FLAGS_strategy);
  if (strategy != "ps" && strategy != "allreduce") {
    return absl::InvalidArgumentError(
        absl::StrCat("--strategy '", strategy, "': expected ps or allreduce"));
  }
  const int per_tower = absl::GetFlag(FLAGS_batch_size);
  if (per_tower < 1) return absl::InvalidArgumentError("--batch_size < 1");
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
  cifar10::TowersModelOptions model_options;
  model_options.towers = towers;
  model_options.tower_device_type = device_type == "gpu" ? "GPU" : "CPU";
  model_options.all_reduce = strategy == "allreduce";
  model_options.seed = absl::GetFlag(FLAGS_seed);
  model_options.batch_size = per_tower;
  model_options.initial_learning_rate =
      static_cast<float>(absl::GetFlag(FLAGS_learning_rate));
  const int eval_examples = absl::GetFlag(FLAGS_eval_examples);
  if (eval_examples > 0) {
    model_options.eval_file = data_dir + "/test_batch.bin";
    model_options.eval_batch_size = per_tower;
  }
  absl::StatusOr<cifar10::TowersModel> model =
      cifar10::BuildTowersModel(model_options);
  if (!model.ok()) return model.status();

  cifar10::DistortedInputOptions input;
  input.files = cifar10::TrainingFiles(data_dir);
  input.batch_size = per_tower * towers;
  input.min_after_dequeue = absl::GetFlag(FLAGS_min_after_dequeue);
  input.reader_threads = absl::GetFlag(FLAGS_reader_threads);
  input.seed = absl::GetFlag(FLAGS_seed);
  absl::StatusOr<std::vector<dflow::QueueRunnerDef>> runners_defs =
      cifar10::AddDistortedInputs(input, &model->graph);
  if (!runners_defs.ok()) return runners_defs.status();
  runners_defs->insert(runners_defs->end(), model->eval_runners.begin(),
                       model->eval_runners.end());

  dflow::SessionOptions options;
  options.num_threads = absl::GetFlag(FLAGS_threads);
  if (device_type == "gpu") {
    options.device_count = {{"CPU", 1}, {"GPU", towers}};
    options.allow_soft_placement = true;
    options.gpu_virtual_devices = virtual_gpus;
  } else {
    options.device_count = {{"CPU", towers}};
  }
  options.log_device_placement = absl::GetFlag(FLAGS_log_device_placement);
  absl::StatusOr<std::unique_ptr<dflow::Session>> session =
      dflow::Session::Create(model->graph, options);
  if (!session.ok()) return session.status();
  if (absl::Status s = (*session)->Run({}, {}, {"init"}, nullptr); !s.ok()) {
    return s;
  }
  dflow::Coordinator coordinator;
  std::vector<std::unique_ptr<dflow::QueueRunner>> runners;
  if (absl::Status s = dflow::StartQueueRunners(session->get(), *runners_defs,
                                                &coordinator, &runners);
      !s.ok()) {
    return s;
  }
  absl::Status status;
  const int max_steps = absl::GetFlag(FLAGS_max_steps);
  const int log_every = std::max(1, absl::GetFlag(FLAGS_log_every));
  for (int step = 0; step < max_steps && status.ok(); ++step) {
    const auto start = std::chrono::steady_clock::now();
    std::vector<dflow::Tensor> out;
    status = (*session)->Run({}, {model->loss}, {model->train_op}, &out);
    if (!status.ok()) break;
    const double duration =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    const float loss = out[0].data<float>()[0];
    if (!std::isfinite(loss)) {
      status = absl::InternalError(
          absl::StrCat("step ", step, ": the loss diverged (", loss, ")"));
      break;
    }
    if (step % log_every == 0 || step == max_steps - 1) {
      std::printf("%s\n", absl::StrFormat(
                              "step %d, loss = %.2f (%.1f examples/sec; %.3f "
                              "sec/batch)",
                              step, loss, per_tower * towers / duration,
                              duration / towers)
                              .c_str());
      std::fflush(stdout);
    }
  }
  if (status.ok() && eval_examples > 0) {
    // The seed's eval loop: whole batches until num_examples are covered.
    const int steps = (eval_examples + per_tower - 1) / per_tower;
    int64_t correct = 0;
    for (int i = 0; i < steps && status.ok(); ++i) {
      std::vector<dflow::Tensor> out;
      status = (*session)->Run({}, {model->eval_correct}, {}, &out);
      if (status.ok()) correct += out[0].data<int32_t>()[0];
    }
    if (status.ok()) {
      std::printf("precision @ 1 = %.3f\n",
                  static_cast<double>(correct) / (steps * per_tower));
    }
  }
  coordinator.RequestStop();
  absl::Status pipeline = coordinator.Join();
  if (status.ok()) {
    std::printf("input pipeline: queue runners stopped\n");
    return absl::OkStatus();
  }
  if (pipeline.ok()) return status;
  return absl::Status(status.code(),
                      absl::StrCat(status.message(), " (input pipeline: ",
                                   pipeline.message(), ")"));
}

}  // namespace

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "Trains seed 003's CIFAR-10 CNN on N towers from CIFAR-10's binary "
      "files.");
  absl::ParseCommandLine(argc, argv);
  absl::Status s = Main();
  if (!s.ok()) {
    std::fprintf(stderr, "cifar10_towers: %s\n", s.ToString().c_str());
    return 1;
  }
  return 0;
}
