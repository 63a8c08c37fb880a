// Schemas, shape functions and builder wrappers of the summary ops, as in
// TensorFlow's `core/ops/logging_ops.cc`. Not stateful (TensorFlow's are
// not): two identical summaries of one value may be merged.
#include "graph/ops/summary_ops.h"

#include "graph/op_registry.h"
#include "graph/ops/shape_fn_util.h"
#include "graph/shape_inference.h"

namespace dflow {
namespace {

DFLOW_REGISTER_OP("ScalarSummary")
    .Input("tags: string")
    .Input("values: T")
    .Output("summary: string")
    .Attr("T: realnumbertype")
    .SetShapeFn(shape_fns::ScalarShape)
    .Doc("A Summary with one simple_value per element of values.");

DFLOW_REGISTER_OP("HistogramSummary")
    .Input("tag: string")
    .Input("values: T")
    .Output("summary: string")
    .Attr("T: realnumbertype = DT_FLOAT")
    .SetShapeFn(shape_fns::ScalarShape)
    .Doc("A Summary with a histogram of values.");

DFLOW_REGISTER_OP("MergeSummary")
    .Input("inputs: N * string")
    .Output("summary: string")
    .Attr("N: int >= 1")
    .SetShapeFn(shape_fns::ScalarShape)
    .Doc("The union of the values of serialized Summary protos.");

// tf.compat.v1.summary.image: up to max_images PNGs of a [batch, height,
// width, 1|3|4] tensor (float and half images scaled into uint8).
DFLOW_REGISTER_OP("ImageSummary")
    .Input("tag: string")
    .Input("tensor: T")
    .Output("summary: string")
    .Attr("max_images: int >= 1 = 3")
    .Attr("T: {uint8, float, half, double} = float")
    .Attr("bad_color: tensor = { dtype: DT_UINT8 tensor_shape { dim { size: 4 "
          "} } int_val: 255 int_val: 0 int_val: 0 int_val: 255 }")
    .SetShapeFn(shape_fns::ScalarShape)
    .Doc("A Summary with up to max_images PNG images of tensor.");

// tf.compat.v1.summary.audio: up to max_outputs 16-bit WAVs of a [batch,
// frames] or [batch, frames, channels] float tensor in [-1, 1].
DFLOW_REGISTER_OP("AudioSummaryV2")
    .Input("tag: string")
    .Input("tensor: float")
    .Input("sample_rate: float")
    .Output("summary: string")
    .Attr("max_outputs: int >= 1 = 3")
    .SetShapeFn(shape_fns::ScalarShape)
    .Doc("A Summary with up to max_outputs WAV clips of tensor.");

// The old AudioSummary: the sample rate is an attr.
DFLOW_REGISTER_OP("AudioSummary")
    .Input("tag: string")
    .Input("tensor: float")
    .Output("summary: string")
    .Attr("sample_rate: float")
    .Attr("max_outputs: int >= 1 = 3")
    .SetShapeFn(shape_fns::ScalarShape)
    .Doc("AudioSummaryV2 with the sample rate as an attr.");

// tf.summary.text and the TF2 plugins' summaries in TF1 graphs: the tensor
// itself under `tag`, with a plugin's SummaryMetadata.
DFLOW_REGISTER_OP("TensorSummaryV2")
    .Input("tag: string")
    .Input("tensor: T")
    .Input("serialized_summary_metadata: string")
    .Output("summary: string")
    .Attr("T: type")
    .SetShapeFn(shape_fns::ScalarShape)
    .Doc("A Summary holding tensor under tag with the given metadata.");

// The deprecated form: no tag (the node's name is the value's node_name);
// the attrs are kept but unused, as in TensorFlow.
DFLOW_REGISTER_OP("TensorSummary")
    .Input("tensor: T")
    .Output("summary: string")
    .Attr("T: type")
    .Attr("description: string = ''")
    .Attr("labels: list(string) = []")
    .Attr("display_name: string = ''")
    .SetShapeFn(shape_fns::ScalarShape)
    .Doc("A Summary holding tensor under the node's name.");

}  // namespace

namespace ops {

Output ScalarSummary(const Scope& scope, Input tags, Input values) {
  return shape_fn_util::FirstOutput(
      OpBuilder(scope, "ScalarSummary").Input(tags).Input(values).Finalize());
}

Output HistogramSummary(const Scope& scope, Input tag, Input values) {
  return shape_fn_util::FirstOutput(
      OpBuilder(scope, "HistogramSummary").Input(tag).Input(values).Finalize());
}

Output MergeSummary(const Scope& scope, InputList inputs) {
  return shape_fn_util::FirstOutput(
      OpBuilder(scope, "MergeSummary").InputList(inputs).Finalize());
}

Output ImageSummary(const Scope& scope, Input tag, Input tensor,
                    int64_t max_images) {
  return shape_fn_util::FirstOutput(OpBuilder(scope, "ImageSummary")
                                        .Input(tag)
                                        .Input(tensor)
                                        .Attr("max_images", max_images)
                                        .Finalize());
}

Output AudioSummaryV2(const Scope& scope, Input tag, Input tensor,
                      Input sample_rate, int64_t max_outputs) {
  return shape_fn_util::FirstOutput(OpBuilder(scope, "AudioSummaryV2")
                                        .Input(tag)
                                        .Input(tensor)
                                        .Input(sample_rate)
                                        .Attr("max_outputs", max_outputs)
                                        .Finalize());
}

Output AudioSummary(const Scope& scope, Input tag, Input tensor,
                    float sample_rate, int64_t max_outputs) {
  return shape_fn_util::FirstOutput(OpBuilder(scope, "AudioSummary")
                                        .Input(tag)
                                        .Input(tensor)
                                        .Attr("sample_rate", sample_rate)
                                        .Attr("max_outputs", max_outputs)
                                        .Finalize());
}

Output TensorSummaryV2(const Scope& scope, Input tag, Input tensor,
                       Input serialized_summary_metadata) {
  return shape_fn_util::FirstOutput(OpBuilder(scope, "TensorSummaryV2")
                                        .Input(tag)
                                        .Input(tensor)
                                        .Input(serialized_summary_metadata)
                                        .Finalize());
}

Output TensorSummary(const Scope& scope, Input tensor) {
  return shape_fn_util::FirstOutput(
      OpBuilder(scope, "TensorSummary").Input(tensor).Finalize());
}

}  // namespace ops
}  // namespace dflow
