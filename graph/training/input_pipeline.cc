#include "graph/training/input_pipeline.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "graph/ops/ops.h"
#include "graph/types.h"

namespace dflow {
namespace train {

namespace {

// The close and cancel ops of `queue`, named in `runner`.
void AddCloseOps(const Scope& scope, const Output& queue,
                 QueueRunnerDef* runner) {
  Operation close = OpBuilder(scope.WithOpName("close"), "QueueCloseV2")
                        .Input(queue)
                        .Finalize();
  Operation cancel = OpBuilder(scope.WithOpName("cancel"), "QueueCloseV2")
                         .Input(queue)
                         .Attr("cancel_pending_enqueues", true)
                         .Finalize();
  runner->set_close_op_name(close.node() ? close.node()->name() : "");
  runner->set_cancel_op_name(cancel.node() ? cancel.node()->name() : "");
}

absl::StatusOr<Batches> BuildBatch(const Scope& scope,
                                   const std::vector<Output>& tensors,
                                   int batch_size, int64_t capacity,
                                   int64_t min_after_dequeue, int num_threads,
                                   int64_t seed, bool shuffle) {
  if (tensors.empty() || batch_size < 1 || num_threads < 1 || capacity < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat(shuffle ? "ShuffleBatch" : "Batch", " of ", tensors.size(),
                     " tensors, batch_size ", batch_size, ", capacity ",
                     capacity, ", num_threads ", num_threads,
                     ": needs at least one tensor and positive sizes"));
  }
  std::vector<DataType> types;
  std::vector<TensorShape> shapes;
  for (const Output& t : tensors) {
    const TensorShape& shape = t.node()->output_shape(t.index());
    if (!shape.IsFullyDefined()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "cannot batch '", t.name(), "' of shape ", shape.ToString(),
          ": every example needs a fully defined shape (Reshape it)"));
    }
    types.push_back(t.node()->output_type(t.index()));
    shapes.push_back(shape);
  }
  Scope s = scope.NewSubScope(shuffle ? "shuffle_batch" : "batch");
  OpBuilder queue_op(
      s.WithOpName(shuffle ? "random_shuffle_queue" : "fifo_queue"),
      shuffle ? "RandomShuffleQueueV2" : "FIFOQueueV2");
  queue_op.Attr("component_types", types)
      .Attr("shapes", shapes)
      .Attr("capacity", capacity);
  if (shuffle) {
    queue_op.Attr("min_after_dequeue", min_after_dequeue)
        .Attr("seed", seed)
        .Attr("seed2", seed == 0 ? int64_t{0} : seed + 1);
  }
  Operation queue = queue_op.Finalize();
  if (!s.ok()) return s.status();
  Batches batches;
  batches.runner.set_queue_name(queue.node()->name());
  Operation enqueue = OpBuilder(s.WithOpName("enqueue"), "QueueEnqueueV2")
                          .Input(queue.output(0))
                          .InputList(tensors)
                          .Finalize();
  if (!s.ok()) return s.status();
  for (int i = 0; i < num_threads; ++i) {
    batches.runner.add_enqueue_op_name(enqueue.node()->name());
  }
  AddCloseOps(s, queue.output(0), &batches.runner);
  Operation dequeue = OpBuilder(s.WithOpName("dequeue"), "QueueDequeueManyV2")
                          .Input(queue.output(0))
                          .Input(ops::Const(s, batch_size))
                          .Attr("component_types", types)
                          .Finalize();
  if (!s.ok()) return s.status();
  for (size_t i = 0; i < tensors.size(); ++i) {
    batches.outputs.push_back(dequeue.output(static_cast<int>(i)));
  }
  return batches;
}

}  // namespace

absl::StatusOr<InputQueue> StringInputProducer(
    const Scope& scope, const std::vector<std::string>& files, bool shuffle,
    int64_t seed, int64_t capacity, int64_t num_epochs) {
  if (files.empty()) {
    return absl::InvalidArgumentError(
        "StringInputProducer needs at least one file name");
  }
  if (num_epochs < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("StringInputProducer's num_epochs is ", num_epochs,
                     "; give a positive count, or 0 for no limit"));
  }
  Scope s = scope.NewSubScope("input_producer");
  Output names = ops::Const(
      s, Tensor::FromVector<std::string>(
             files, TensorShape({static_cast<int64_t>(files.size())})));
  if (shuffle) {
    names = OpBuilder(s.WithOpName("RandomShuffle"), "RandomShuffle")
                .Input(names)
                .Attr("seed", seed)
                .Attr("seed2", seed == 0 ? int64_t{0} : seed + 1)
                .Finalize()
                .output(0);
  }
  InputQueue producer;
  if (num_epochs > 0) {
    // TensorFlow's limit_epochs: every enqueue of the names first counts
    // an epoch; past the limit the count fails with OutOfRange.
    Scope limit = s.NewSubScope("limit_epochs");
    Output epochs =
        ops::Variable(limit.WithOpName("epochs"), TensorShape({}), DT_INT64);
    Output init = ops::Assign(limit.WithOpName("epochs/Assign"), epochs,
                              ops::Const(limit, int64_t{0}));
    Output count =
        ops::CountUpTo(limit.WithOpName("CountUpTo"), epochs, num_epochs);
    names = ops::Identity(
        limit.WithOpName("Identity").WithControlDependencies(count), names);
    if (!s.ok()) return s.status();
    producer.local_init = init.node()->name();
  }
  Operation queue =
      OpBuilder(s.WithOpName("queue"), "FIFOQueueV2")
          .Attr("component_types", std::vector<DataType>{DT_STRING})
          .Attr("shapes", std::vector<TensorShape>{TensorShape({})})
          .Attr("capacity", capacity)
          .Finalize();
  if (!s.ok()) return s.status();
  producer.queue = queue.output(0);
  producer.runner.set_queue_name(queue.node()->name());
  Operation enqueue =
      OpBuilder(s.WithOpName("enqueue_many"), "QueueEnqueueManyV2")
          .Input(producer.queue)
          .InputList({names})
          .Finalize();
  if (!s.ok()) return s.status();
  producer.runner.add_enqueue_op_name(enqueue.node()->name());
  AddCloseOps(s, producer.queue, &producer.runner);
  if (!s.ok()) return s.status();
  return producer;
}

Output ReadTfRecord(const Scope& scope, const Output& file_queue,
                    const std::string& compression_type) {
  Operation reader = OpBuilder(scope, "TFRecordReaderV2")
                         .Attr("compression_type", compression_type)
                         .Finalize();
  return OpBuilder(scope, "ReaderReadV2")
      .Input(reader.output(0))
      .Input(file_queue)
      .Finalize()
      .output(1);
}

Output ReadFixedLengthRecord(const Scope& scope, const Output& file_queue,
                             int64_t record_bytes, int64_t header_bytes,
                             int64_t footer_bytes) {
  Operation reader = OpBuilder(scope, "FixedLengthRecordReaderV2")
                         .Attr("record_bytes", record_bytes)
                         .Attr("header_bytes", header_bytes)
                         .Attr("footer_bytes", footer_bytes)
                         .Finalize();
  return OpBuilder(scope, "ReaderReadV2")
      .Input(reader.output(0))
      .Input(file_queue)
      .Finalize()
      .output(1);
}

absl::StatusOr<Batches> Batch(const Scope& scope,
                              const std::vector<Output>& tensors,
                              int batch_size, int64_t capacity,
                              int num_threads) {
  return BuildBatch(scope, tensors, batch_size, capacity, 0, num_threads, 0,
                    /*shuffle=*/false);
}

absl::StatusOr<Batches> ShuffleBatch(const Scope& scope,
                                     const std::vector<Output>& tensors,
                                     int batch_size, int64_t capacity,
                                     int64_t min_after_dequeue, int num_threads,
                                     int64_t seed) {
  if (min_after_dequeue >= capacity) {
    return absl::InvalidArgumentError(
        absl::StrCat("ShuffleBatch: min_after_dequeue (", min_after_dequeue,
                     ") must be below capacity (", capacity,
                     "), or no batch is ever "
                     "dequeued"));
  }
  return BuildBatch(scope, tensors, batch_size, capacity, min_after_dequeue,
                    num_threads, seed, /*shuffle=*/true);
}

namespace {

// Placeholder `name` of `graph` becomes an Identity of `input`.
absl::Status ReplacePlaceholder(const std::string& name, const Output& input,
                                GraphDef* graph) {
  for (NodeDef& node : *graph->mutable_node()) {
    if (node.name() != name) continue;
    if (node.op() != "Placeholder") {
      return absl::InvalidArgumentError(
          absl::StrCat("the model's '", name, "' is a ", node.op(),
                       ", not the Placeholder the input pipeline replaces"));
    }
    node.set_op("Identity");
    node.clear_input();
    node.add_input(input.name());
    node.mutable_attr()->clear();
    (*node.mutable_attr())["T"].set_type(BaseType(input.dtype()));
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "the model has no placeholder '", name, "' for the input pipeline"));
}

}  // namespace

absl::Status AttachInputPipeline(
    const Scope& pipeline,
    const std::vector<std::pair<std::string, Output>>& inputs,
    GraphDef* graph) {
  GraphDef nodes;
  if (absl::Status s = pipeline.ToGraphDef(&nodes); !s.ok()) return s;
  for (const NodeDef& node : nodes.node()) *graph->add_node() = node;
  for (const auto& [name, input] : inputs) {
    if (absl::Status s = ReplacePlaceholder(name, input, graph); !s.ok()) {
      return s;
    }
  }
  return absl::OkStatus();
}

}  // namespace train
}  // namespace dflow
