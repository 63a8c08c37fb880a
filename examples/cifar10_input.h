// Seed 003's input pipeline (cifar10_input.distorted_inputs) in the graph:
// string_input_producer over CIFAR-10's binary batches ->
// FixedLengthRecordReader (1 label byte + 3,072 pixel bytes) -> decode_raw
// -> the [32, 32, 3] float image -> random 24x24 crop, random left-right
// flip, random brightness (max delta 63), random contrast (0.2 .. 1.8),
// per-image standardization -> shuffle_batch, on /cpu:0. The model's
// placeholders "images" ([-1, 24, 24, 3] float) and "labels" ([-1] int32)
// become Identities of the batch, as in examples/mnist_tfrecord_input.h.
#ifndef DFLOW_EXAMPLES_CIFAR10_INPUT_H_
#define DFLOW_EXAMPLES_CIFAR10_INPUT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "graph/scope.h"
#include "proto/graph.pb.h"
#include "proto/queue_runner.pb.h"

namespace dflow {
namespace cifar10 {

inline constexpr int kImageSize = 32;  // stored images are 32x32x3
inline constexpr int kCropSize = 24;   // what the model sees
inline constexpr int kNumClasses = 10;
inline constexpr int kRecordBytes = 1 + kImageSize * kImageSize * 3;

struct DistortedInputOptions {
  std::vector<std::string> files;     // data_batch_1.bin .. data_batch_5.bin
  int batch_size = 128;               // examples per step (all towers)
  int64_t min_after_dequeue = 20000;  // the seed's: 40% of an epoch
  int reader_threads = 16;            // the seed's num_preprocess_threads
  int64_t seed = 1;                   // of the shuffles and augmentations
};

// The seed's training files below `data_dir`: data_batch_{1..5}.bin.
std::vector<std::string> TrainingFiles(const std::string& data_dir);

// Adds the pipeline to `graph` and rewires "images" and "labels" to it;
// returns the queue runners to start after the initializer.
absl::StatusOr<std::vector<QueueRunnerDef>> AddDistortedInputs(
    const DistortedInputOptions& options, GraphDef* graph);

// The seed's evaluation input (cifar10_input.inputs(eval_data=True)) in
// `scope`: test_batch.bin read in order, the central 24x24 crop,
// per-image standardization, batched without shuffling.
struct EvalInputs {
  Output images;  // [batch_size, 24, 24, 3]
  Output labels;  // [batch_size] int32
  std::vector<QueueRunnerDef> runners;
};
absl::StatusOr<EvalInputs> AddEvalInputs(const Scope& scope,
                                         const std::string& file,
                                         int batch_size);

// Writes `records` records per training file (and test_batch.bin) into
// `data_dir` in CIFAR-10's
// binary format, made so a model can learn them: the label decides which
// band of rows is bright in which channel, over noise. For tests and demos
// where the real files (which cannot be downloaded here) are absent.
absl::Status WriteSyntheticData(const std::string& data_dir, int records,
                                uint64_t seed);

}  // namespace cifar10
}  // namespace dflow

#endif  // DFLOW_EXAMPLES_CIFAR10_INPUT_H_
