// CTC ops (TensorFlow 2.21's core/ops/ctc_ops.cc): the connectionist
// temporal classification loss of tf.compat.v1.nn.ctc_loss (and of
// tf.nn.ctc_loss with sparse labels, whose function library also carries
// the cuDNN variant CTCLossV2) and the greedy and beam-search decoders.
// Inputs are time-major logits [max_time, batch, num_classes]; the blank is
// class num_classes - 1 (CTCLossV2: class 0).
//
//   ops::CTCLossOutputs l = ops::CTCLoss(root, logits, idx, vals, seq_len);
//   // l.loss: [batch] negative log-likelihoods; l.gradient: d loss/d logits
#ifndef DFLOW_GRAPH_OPS_CTC_OPS_H_
#define DFLOW_GRAPH_OPS_CTC_OPS_H_

#include <cstdint>

#include "graph/scope.h"

namespace dflow {
namespace ops {

struct CTCLossAttrs {
  // Merge repeated labels (a a b -> a b) before computing the loss.
  bool preprocess_collapse_repeated = false;
  // Paths may repeat a label without a blank in between (standard CTC).
  bool ctc_merge_repeated = true;
  // A batch entry with more labels than time steps gets loss 0 and a zero
  // gradient instead of failing the step.
  bool ignore_longer_outputs_than_inputs = false;
  CTCLossAttrs& PreprocessCollapseRepeated(bool v) {
    preprocess_collapse_repeated = v;
    return *this;
  }
  CTCLossAttrs& CtcMergeRepeated(bool v) {
    ctc_merge_repeated = v;
    return *this;
  }
  CTCLossAttrs& IgnoreLongerOutputsThanInputs(bool v) {
    ignore_longer_outputs_than_inputs = v;
    return *this;
  }
};

struct CTCLossOutputs {
  Output loss;      // [batch]
  Output gradient;  // [max_time, batch, num_classes]
};

// Labels are a SparseTensor (int64 indices [n, 2] in row-major order, int32
// values); sequence_length is int32 [batch].
CTCLossOutputs CTCLoss(const Scope& scope, Input inputs, Input labels_indices,
                       Input labels_values, Input sequence_length,
                       const CTCLossAttrs& attrs = {});
// The same loss with the blank at class 0 (float only; TensorFlow runs it
// with cuDNN, dflow on the CPU).
CTCLossOutputs CTCLossV2(const Scope& scope, Input inputs,
                         Input labels_indices, Input labels_values,
                         Input sequence_length,
                         const CTCLossAttrs& attrs = {});

// A decoded batch: SparseTensor (indices [n, 2], values [n], dense_shape
// [batch, longest]) per path, and each path's log probability.
struct CTCDecoderOutputs {
  OutputList decoded_indices;
  OutputList decoded_values;
  OutputList decoded_shape;
  Output log_probability;  // [batch, paths]
};

// The most likely class at each step, blanks dropped (and repeats merged
// with merge_repeated); blank_index < 0 counts from num_classes.
CTCDecoderOutputs CTCGreedyDecoder(const Scope& scope, Input inputs,
                                   Input sequence_length,
                                   bool merge_repeated = false,
                                   int64_t blank_index = -1);
// The top_paths best label sequences of a beam search of beam_width.
CTCDecoderOutputs CTCBeamSearchDecoder(const Scope& scope, Input inputs,
                                       Input sequence_length,
                                       int64_t beam_width, int64_t top_paths,
                                       bool merge_repeated = true);

}  // namespace ops
}  // namespace dflow

#endif  // DFLOW_GRAPH_OPS_CTC_OPS_H_
