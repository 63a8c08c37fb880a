#include "examples/mnist_tfrecord_input.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "graph/ops/array_ops.h"
#include "graph/ops/math_ops.h"
#include "graph/ops/parsing_ops.h"
#include "graph/ops/shape_ops.h"
#include "graph/scope.h"
#include "graph/training/input_pipeline.h"

namespace dflow {
namespace mnist {
namespace {

constexpr int kPixels = 784;

// One record's image (784 floats in [0, 1], exactly byte / 255 as the IDX
// loader makes them) and label (int32).
std::vector<Output> ParseRecord(const Scope& scope, const Output& record) {
  std::vector<Output> parsed = ops::ParseSingleExample(
      scope, record, {"image_raw", "label"}, {DT_STRING, DT_INT64},
      {TensorShape({}), TensorShape({})});
  Output bytes = ops::DecodeRaw(scope, parsed[0], DT_UINT8);
  Output pixels =
      ops::Cast(scope, ops::Reshape(scope, bytes, {kPixels}), DT_FLOAT);
  Output image = ops::RealDiv(scope, pixels, ops::Const(scope, 255.0f));
  Output label = ops::Cast(scope, parsed[1], DT_INT32);
  return {image, label};
}

}  // namespace

absl::StatusOr<std::vector<QueueRunnerDef>> AddTfRecordInput(
    const TfRecordInputOptions& options, GraphDef* graph) {
  if (options.files.empty()) {
    return absl::InvalidArgumentError(
        "no TFRecord files for the input pipeline");
  }
  Scope root = Scope::NewRootScope();
  Scope input = root.NewSubScope("input").WithDevice("/cpu:0");
  absl::StatusOr<train::InputQueue> files = train::StringInputProducer(
      input, options.files, /*shuffle=*/true, options.seed);
  if (!files.ok()) return files.status();
  Output record = train::ReadTfRecord(input, files->queue);
  std::vector<Output> example = ParseRecord(input, record);
  // TensorFlow's rule of thumb for the capacity: what the shuffle keeps
  // plus a few batches.
  absl::StatusOr<train::Batches> batch = train::ShuffleBatch(
      input, example, options.batch_size,
      options.min_after_dequeue + 3 * options.batch_size,
      options.min_after_dequeue, options.reader_threads, options.seed);
  if (!batch.ok()) return batch.status();
  if (absl::Status s = train::AttachInputPipeline(
          root, {{"x", batch->outputs[0]}, {"labels", batch->outputs[1]}},
          graph);
      !s.ok()) {
    return s;
  }
  return std::vector<QueueRunnerDef>{files->runner, batch->runner};
}

}  // namespace mnist
}  // namespace dflow
