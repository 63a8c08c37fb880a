// Builders for TF1 input pipelines, as tf.compat.v1.train builds them: a
// queue of file names (string_input_producer), TFRecord reading, and
// batching queues (batch, shuffle_batch). Each builder returns its outputs
// and the QueueRunnerDef of the enqueue ops that fill its queue; start them
// with StartQueueRunners (runtime/queue_runner.h) after the initializer:
//
//   auto files = train::StringInputProducer(root, {"train.tfrecords"});
//   Output record = train::ReadTfRecord(root, files->queue);
//   ... parse `record` into `image` [784] and `label` [] ...
//   auto batch = train::ShuffleBatch(root, {image, label}, 128,
//                                    /*capacity=*/20000,
//                                    /*min_after_dequeue=*/10000);
//   ... StartQueueRunners(session, {files->runner, batch->runner}, &coord,
//                         &runners); train on batch->outputs ...
#ifndef DFLOW_GRAPH_TRAINING_INPUT_PIPELINE_H_
#define DFLOW_GRAPH_TRAINING_INPUT_PIPELINE_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "graph/scope.h"
#include "proto/graph.pb.h"
#include "proto/queue_runner.pb.h"

namespace dflow {
namespace train {

// A queue and the runner that fills it.
struct InputQueue {
  Output queue;  // the queue's handle
  QueueRunnerDef runner;
  // With num_epochs: the op that sets the epoch counter (a local variable,
  // as TensorFlow's local_variables_initializer sets it) to 0. Run it
  // before starting the runner; empty without num_epochs.
  std::string local_init;
};

// A FIFO queue of file names (capacity `capacity`) that its runner fills
// with `files` epoch after epoch, in a new random order each epoch when
// `shuffle` (seeded by `seed` when it is not 0). With `num_epochs` > 0 it
// stops after that many epochs, as TensorFlow's does: a counter variable
// (CountUpTo) fails the next enqueue with OutOfRange, the runner closes the
// queue, and readers get OutOfRange once it is drained. Run `local_init`
// first.
absl::StatusOr<InputQueue> StringInputProducer(
    const Scope& scope, const std::vector<std::string>& files,
    bool shuffle = true, int64_t seed = 0, int64_t capacity = 32,
    int64_t num_epochs = 0);

// One record at a time from the TFRecord files `file_queue` names
// (TFRecordReaderV2 + ReaderReadV2): the record's bytes.
Output ReadTfRecord(const Scope& scope, const Output& file_queue,
                    const std::string& compression_type = "");

// One record at a time from the fixed-length record files `file_queue`
// names (FixedLengthRecordReaderV2 + ReaderReadV2), CIFAR-10's format: the
// record's `record_bytes` bytes, read after `header_bytes`.
Output ReadFixedLengthRecord(const Scope& scope, const Output& file_queue,
                             int64_t record_bytes, int64_t header_bytes = 0,
                             int64_t footer_bytes = 0);

// Batches of `tensors` (one example each, every shape fully defined),
// enqueued by `num_threads` runner threads: DequeueMany of `batch_size`
// from a FIFO queue (Batch) or a random shuffle queue that keeps
// `min_after_dequeue` examples to draw from (ShuffleBatch).
struct Batches {
  std::vector<Output> outputs;  // [batch_size] + each tensor's shape
  QueueRunnerDef runner;
};
absl::StatusOr<Batches> Batch(const Scope& scope,
                              const std::vector<Output>& tensors,
                              int batch_size, int64_t capacity = 32,
                              int num_threads = 1);
absl::StatusOr<Batches> ShuffleBatch(const Scope& scope,
                                     const std::vector<Output>& tensors,
                                     int batch_size, int64_t capacity,
                                     int64_t min_after_dequeue,
                                     int num_threads = 1, int64_t seed = 0);

// Feeds a model built with placeholders from a pipeline built on its own
// root: appends the pipeline's nodes to `graph`, then each placeholder named
// in `inputs` becomes an Identity of its pipeline output. An error when
// `graph` has no such node, or it is no Placeholder.
absl::Status AttachInputPipeline(
    const Scope& pipeline,
    const std::vector<std::pair<std::string, Output>>& inputs, GraphDef* graph);

}  // namespace train
}  // namespace dflow

#endif  // DFLOW_GRAPH_TRAINING_INPUT_PIPELINE_H_
