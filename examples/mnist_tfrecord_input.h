// Seed 001's in-graph input pipeline for a model built on placeholders:
// string_input_producer -> TFRecordReader -> parse_single_example ->
// decode_raw -> shuffle_batch over files in seed 001's record format
// (examples/mnist_tfrecord.h), on /cpu:0 as the seed places it. The
// model's placeholders "x" ([-1, 784] float) and "labels" ([-1] int32)
// become Identities of the batch, so every step dequeues its own examples
// (feeding "x" and "labels" still works, e.g. for the evaluation).
#ifndef DFLOW_EXAMPLES_MNIST_TFRECORD_INPUT_H_
#define DFLOW_EXAMPLES_MNIST_TFRECORD_INPUT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/graph.pb.h"
#include "proto/queue_runner.pb.h"

namespace dflow {
namespace mnist {

struct TfRecordInputOptions {
  std::vector<std::string> files;     // TFRecord files of tf.Examples
  int batch_size = 100;               // examples per step (all towers)
  int64_t min_after_dequeue = 10000;  // the seed's
  int reader_threads = 2;             // enqueue threads of the batch queue
  int64_t seed = 1;                   // of the file and example shuffles
};

// Adds the pipeline to `graph` and rewires "x" and "labels" to it; returns
// the queue runners to start after the initializer (StartQueueRunners).
absl::StatusOr<std::vector<QueueRunnerDef>> AddTfRecordInput(
    const TfRecordInputOptions& options, GraphDef* graph);

}  // namespace mnist
}  // namespace dflow

#endif  // DFLOW_EXAMPLES_MNIST_TFRECORD_INPUT_H_
