// Schemas and wrappers of TensorFlow's summary-writer ops
// (core/ops/summary_ops.cc), what TF2's tf.summary writes in a graph:
// SummaryWriter is the handle of a writer (a resource of the session),
// CreateSummaryFileWriter opens its event file (writer.init()), the Write*
// ops add an event at a step, FlushSummaryWriter and CloseSummaryWriter
// flush and close it (kernels/cpu/summary_ops_writer.cc).
#include "graph/op_registry.h"
#include "graph/ops/shape_fn_util.h"
#include "graph/ops/summary_ops.h"
#include "graph/shape_inference.h"

namespace dflow {
namespace {

absl::Status HandleShape(InferenceContext* c) {
  c->set_output(0, TensorShape({}));
  return absl::OkStatus();
}

// The Write* ops: the writer handle and the step are scalars (TensorFlow's
// shape functions check nothing more; the kernels check the rest).
absl::Status WriterInputShape(InferenceContext* c) {
  TensorShape unused;
  return c->WithRank(c->input(0), 0, "writer", &unused);
}

DFLOW_REGISTER_OP("SummaryWriter")
    .Output("writer: resource")
    .Attr("shared_name: string = ''")
    .Attr("container: string = ''")
    .SetIsStateful()
    .SetShapeFn(HandleShape)
    .Doc("The handle of a summary writer of the session.");

DFLOW_REGISTER_OP("CreateSummaryFileWriter")
    .Input("writer: resource")
    .Input("logdir: string")
    .Input("max_queue: int32")
    .Input("flush_millis: int32")
    .Input("filename_suffix: string")
    .SetIsStateful()
    .SetShapeFn(WriterInputShape)
    .Doc("Opens the writer's event file in logdir (once: a writer that has "
         "one keeps it).");

DFLOW_REGISTER_OP("WriteSummary")
    .Input("writer: resource")
    .Input("step: int64")
    .Input("tensor: T")
    .Input("tag: string")
    .Input("summary_metadata: string")
    .Attr("T: type")
    .SetIsStateful()
    .SetShapeFn(WriterInputShape)
    .Doc("Writes tensor under tag with a plugin's metadata at step.");

DFLOW_REGISTER_OP("WriteScalarSummary")
    .Input("writer: resource")
    .Input("step: int64")
    .Input("tag: string")
    .Input("value: T")
    .Attr("T: {float, double, int32, uint8, int16, int8, int64, bfloat16, "
          "uint16, half, uint32, uint64}")
    .SetIsStateful()
    .SetShapeFn(WriterInputShape)
    .Doc("Writes value as a simple_value at step.");

DFLOW_REGISTER_OP("WriteHistogramSummary")
    .Input("writer: resource")
    .Input("step: int64")
    .Input("tag: string")
    .Input("values: T")
    .Attr("T: {float, double, int32, uint8, int16, int8, int64, bfloat16, "
          "uint16, half, uint32, uint64, bool} = float")
    .SetIsStateful()
    .SetShapeFn(WriterInputShape)
    .Doc("Writes a histogram of values at step.");

DFLOW_REGISTER_OP("WriteImageSummary")
    .Input("writer: resource")
    .Input("step: int64")
    .Input("tag: string")
    .Input("tensor: T")
    .Input("bad_color: uint8")
    .Attr("max_images: int >= 1 = 3")
    .Attr("T: {uint8, double, float, half} = float")
    .SetIsStateful()
    .SetShapeFn(WriterInputShape)
    .Doc("Writes up to max_images PNG images of tensor at step.");

DFLOW_REGISTER_OP("WriteAudioSummary")
    .Input("writer: resource")
    .Input("step: int64")
    .Input("tag: string")
    .Input("tensor: float")
    .Input("sample_rate: float")
    .Attr("max_outputs: int >= 1 = 3")
    .SetIsStateful()
    .SetShapeFn(WriterInputShape)
    .Doc("Writes up to max_outputs WAV clips of tensor at step.");

DFLOW_REGISTER_OP("WriteRawProtoSummary")
    .Input("writer: resource")
    .Input("step: int64")
    .Input("tensor: string")
    .SetIsStateful()
    .SetShapeFn(WriterInputShape)
    .Doc("Writes each serialized Summary of tensor as an event at step.");

DFLOW_REGISTER_OP("WriteGraphSummary")
    .Input("writer: resource")
    .Input("step: int64")
    .Input("tensor: string")
    .SetIsStateful()
    .SetShapeFn(WriterInputShape)
    .Doc("Writes the serialized GraphDef tensor as the graph at step.");

DFLOW_REGISTER_OP("FlushSummaryWriter")
    .Input("writer: resource")
    .SetIsStateful()
    .SetShapeFn(WriterInputShape)
    .Doc("Makes the writer's events readable.");

DFLOW_REGISTER_OP("CloseSummaryWriter")
    .Input("writer: resource")
    .SetIsStateful()
    .SetShapeFn(WriterInputShape)
    .Doc("Flushes and closes the writer's event file.");

}  // namespace

namespace ops {

Output SummaryWriter(const Scope& scope, absl::string_view shared_name) {
  Operation op = OpBuilder(scope, "SummaryWriter")
                     .Attr("shared_name", std::string(shared_name))
                     .Finalize();
  return op.valid() ? op.output(0) : Output();
}

Operation CreateSummaryFileWriter(const Scope& scope, Input writer,
                                  Input logdir, Input max_queue,
                                  Input flush_millis, Input filename_suffix) {
  return OpBuilder(scope, "CreateSummaryFileWriter")
      .Input(writer)
      .Input(logdir)
      .Input(max_queue)
      .Input(flush_millis)
      .Input(filename_suffix)
      .Finalize();
}

Operation WriteSummary(const Scope& scope, Input writer, Input step,
                       Input tensor, Input tag, Input summary_metadata) {
  return OpBuilder(scope, "WriteSummary")
      .Input(writer)
      .Input(step)
      .Input(tensor)
      .Input(tag)
      .Input(summary_metadata)
      .Finalize();
}

Operation WriteScalarSummary(const Scope& scope, Input writer, Input step,
                             Input tag, Input value) {
  return OpBuilder(scope, "WriteScalarSummary")
      .Input(writer)
      .Input(step)
      .Input(tag)
      .Input(value)
      .Finalize();
}

Operation WriteHistogramSummary(const Scope& scope, Input writer, Input step,
                                Input tag, Input values) {
  return OpBuilder(scope, "WriteHistogramSummary")
      .Input(writer)
      .Input(step)
      .Input(tag)
      .Input(values)
      .Finalize();
}

Operation WriteImageSummary(const Scope& scope, Input writer, Input step,
                            Input tag, Input tensor, Input bad_color,
                            int64_t max_images) {
  return OpBuilder(scope, "WriteImageSummary")
      .Input(writer)
      .Input(step)
      .Input(tag)
      .Input(tensor)
      .Input(bad_color)
      .Attr("max_images", max_images)
      .Finalize();
}

Operation WriteAudioSummary(const Scope& scope, Input writer, Input step,
                            Input tag, Input tensor, Input sample_rate,
                            int64_t max_outputs) {
  return OpBuilder(scope, "WriteAudioSummary")
      .Input(writer)
      .Input(step)
      .Input(tag)
      .Input(tensor)
      .Input(sample_rate)
      .Attr("max_outputs", max_outputs)
      .Finalize();
}

Operation WriteRawProtoSummary(const Scope& scope, Input writer, Input step,
                               Input tensor) {
  return OpBuilder(scope, "WriteRawProtoSummary")
      .Input(writer)
      .Input(step)
      .Input(tensor)
      .Finalize();
}

Operation WriteGraphSummary(const Scope& scope, Input writer, Input step,
                            Input tensor) {
  return OpBuilder(scope, "WriteGraphSummary")
      .Input(writer)
      .Input(step)
      .Input(tensor)
      .Finalize();
}

Operation FlushSummaryWriter(const Scope& scope, Input writer) {
  return OpBuilder(scope, "FlushSummaryWriter").Input(writer).Finalize();
}

Operation CloseSummaryWriter(const Scope& scope, Input writer) {
  return OpBuilder(scope, "CloseSummaryWriter").Input(writer).Finalize();
}

}  // namespace ops
}  // namespace dflow
