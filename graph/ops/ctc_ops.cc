// Schemas, shape functions and wrappers of the CTC ops (ctc_ops.h),
// following TensorFlow 2.21's core/ops/ctc_ops.cc. The CPU kernels are
// kernels/cpu/ctc_ops_loss.cc and kernels/cpu/ctc_ops_decoder.cc; CTCLoss's
// gradient is in graph/gradients/nn_grad.cc.
#include "graph/ops/ctc_ops.h"

#include <cstdint>

#include "absl/status/status.h"
#include "graph/op_registry.h"
#include "graph/ops/shape_fn_util.h"
#include "graph/shape_inference.h"
#include "graph/tensor_shape.h"

namespace dflow {
namespace {

using shape_fn_util::InputWithRank;

// loss: [batch]; gradient: inputs' shape. batch is inputs' dimension 1 and
// sequence_length's length.
absl::Status CTCLossShape(InferenceContext* c) {
  TensorShape inputs, indices, values, seq_len;
  DFLOW_RETURN_IF_ERROR(InputWithRank(*c, 0, 3, &inputs));
  DFLOW_RETURN_IF_ERROR(InputWithRank(*c, 1, 2, &indices));
  DFLOW_RETURN_IF_ERROR(InputWithRank(*c, 2, 1, &values));
  DFLOW_RETURN_IF_ERROR(InputWithRank(*c, 3, 1, &seq_len));
  int64_t n = 0;
  DFLOW_RETURN_IF_ERROR(c->MergeDim(
      indices.dim(0), values.dim(0),
      "labels_indices and labels_values must have as many rows", &n));
  int64_t batch = 0;
  DFLOW_RETURN_IF_ERROR(c->MergeDim(
      inputs.dim(1), seq_len.dim(0),
      "inputs' dimension 1 (batch) and sequence_length must agree", &batch));
  inputs.set_dim(1, batch);
  c->set_output(0, TensorShape({batch}));
  c->set_output(1, inputs);
  return absl::OkStatus();
}

// Per path: indices [?, 2], values [?], dense_shape [2]; then
// log_probability [batch, paths].
absl::Status CTCDecoderShape(InferenceContext* c) {
  TensorShape inputs, seq_len;
  DFLOW_RETURN_IF_ERROR(InputWithRank(*c, 0, 3, &inputs));
  DFLOW_RETURN_IF_ERROR(InputWithRank(*c, 1, 1, &seq_len));
  int64_t batch = 0;
  DFLOW_RETURN_IF_ERROR(c->MergeDim(
      inputs.dim(1), seq_len.dim(0),
      "inputs' dimension 1 (batch) and sequence_length must agree", &batch));
  const int paths = (c->num_outputs() - 1) / 3;
  for (int p = 0; p < paths; ++p) {
    c->set_output(p, TensorShape({TensorShape::kUnknownDim, 2}));
    c->set_output(paths + p, TensorShape({TensorShape::kUnknownDim}));
    c->set_output(2 * paths + p, TensorShape({2}));
  }
  c->set_output(3 * paths, TensorShape({batch, paths}));
  return absl::OkStatus();
}

}  // namespace

DFLOW_REGISTER_OP("CTCLoss")
    .Input("inputs: T")
    .Input("labels_indices: int64")
    .Input("labels_values: int32")
    .Input("sequence_length: int32")
    .Output("loss: T")
    .Output("gradient: T")
    .Attr("preprocess_collapse_repeated: bool = false")
    .Attr("ctc_merge_repeated: bool = true")
    .Attr("ignore_longer_outputs_than_inputs: bool = false")
    .Attr("T: {float, double} = float")
    .SetShapeFn(CTCLossShape)
    .Doc(
        "CTC loss of each batch entry (blank: the last class) and its "
        "gradient with respect to the logits.");

DFLOW_REGISTER_OP("CTCLossV2")
    .Input("inputs: float")
    .Input("labels_indices: int64")
    .Input("labels_values: int32")
    .Input("sequence_length: int32")
    .Output("loss: float")
    .Output("gradient: float")
    .Attr("preprocess_collapse_repeated: bool = false")
    .Attr("ctc_merge_repeated: bool = true")
    .Attr("ignore_longer_outputs_than_inputs: bool = false")
    .SetShapeFn(CTCLossShape)
    .Doc("CTCLoss with the blank at class 0 (TensorFlow's cuDNN variant).");

DFLOW_REGISTER_OP("CTCGreedyDecoder")
    .Input("inputs: T")
    .Input("sequence_length: int32")
    .Output("decoded_indices: int64")
    .Output("decoded_values: int64")
    .Output("decoded_shape: int64")
    .Output("log_probability: T")
    .Attr("merge_repeated: bool = false")
    .Attr("blank_index: int = -1")
    .Attr("T: {float, double} = float")
    .SetShapeFn(CTCDecoderShape)
    .Doc("Best-path decoding: the most likely class at each time step.");

DFLOW_REGISTER_OP("CTCBeamSearchDecoder")
    .Input("inputs: T")
    .Input("sequence_length: int32")
    .Output("decoded_indices: top_paths * int64")
    .Output("decoded_values: top_paths * int64")
    .Output("decoded_shape: top_paths * int64")
    .Output("log_probability: T")
    .Attr("beam_width: int >= 1")
    .Attr("top_paths: int >= 1")
    .Attr("merge_repeated: bool = true")
    .Attr("T: {float, double} = float")
    .SetShapeFn(CTCDecoderShape)
    .Doc("The top_paths most likely label sequences of a beam search.");

namespace ops {
namespace {

CTCLossOutputs LossOutputs(const Operation& op) {
  if (!op.valid()) return {};
  return {op.output(0), op.output(1)};
}

CTCLossOutputs BuildLoss(const Scope& scope, const char* name, Input inputs,
                         Input labels_indices, Input labels_values,
                         Input sequence_length, const CTCLossAttrs& attrs) {
  return LossOutputs(
      OpBuilder(scope, name)
          .Input(inputs)
          .Input(labels_indices)
          .Input(labels_values)
          .Input(sequence_length)
          .Attr("preprocess_collapse_repeated",
                attrs.preprocess_collapse_repeated)
          .Attr("ctc_merge_repeated", attrs.ctc_merge_repeated)
          .Attr("ignore_longer_outputs_than_inputs",
                attrs.ignore_longer_outputs_than_inputs)
          .Finalize());
}

CTCDecoderOutputs DecoderOutputs(const Operation& op, int paths) {
  CTCDecoderOutputs out;
  if (!op.valid()) {
    out.decoded_indices = out.decoded_values = out.decoded_shape =
        OutputList(paths);
    return out;
  }
  for (int p = 0; p < paths; ++p) {
    out.decoded_indices.push_back(op.output(p));
    out.decoded_values.push_back(op.output(paths + p));
    out.decoded_shape.push_back(op.output(2 * paths + p));
  }
  out.log_probability = op.output(3 * paths);
  return out;
}

}  // namespace

CTCLossOutputs CTCLoss(const Scope& scope, Input inputs, Input labels_indices,
                       Input labels_values, Input sequence_length,
                       const CTCLossAttrs& attrs) {
  return BuildLoss(scope, "CTCLoss", inputs, labels_indices, labels_values,
                   sequence_length, attrs);
}

CTCLossOutputs CTCLossV2(const Scope& scope, Input inputs,
                         Input labels_indices, Input labels_values,
                         Input sequence_length, const CTCLossAttrs& attrs) {
  return BuildLoss(scope, "CTCLossV2", inputs, labels_indices, labels_values,
                   sequence_length, attrs);
}

CTCDecoderOutputs CTCGreedyDecoder(const Scope& scope, Input inputs,
                                   Input sequence_length, bool merge_repeated,
                                   int64_t blank_index) {
  return DecoderOutputs(OpBuilder(scope, "CTCGreedyDecoder")
                            .Input(inputs)
                            .Input(sequence_length)
                            .Attr("merge_repeated", merge_repeated)
                            .Attr("blank_index", blank_index)
                            .Finalize(),
                        1);
}

CTCDecoderOutputs CTCBeamSearchDecoder(const Scope& scope, Input inputs,
                                       Input sequence_length,
                                       int64_t beam_width, int64_t top_paths,
                                       bool merge_repeated) {
  const int paths = top_paths > 0 ? static_cast<int>(top_paths) : 1;
  return DecoderOutputs(OpBuilder(scope, "CTCBeamSearchDecoder")
                            .Input(inputs)
                            .Input(sequence_length)
                            .Attr("beam_width", beam_width)
                            .Attr("top_paths", top_paths)
                            .Attr("merge_repeated", merge_repeated)
                            .Finalize(),
                        paths);
}

}  // namespace ops
}  // namespace dflow
