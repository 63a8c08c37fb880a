// Schemas and wrappers of the text-model string ops of TensorFlow 2.21's
// core/ops/string_ops.cc (string_ops.h): StringNGrams (tf.strings.ngrams)
// and UnsortedSegmentJoin (tf.strings.unsorted_segment_join). The CPU
// kernels are kernels/cpu/string_ops_ngrams.cc.
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "graph/op_registry.h"
#include "graph/ops/string_ops.h"
#include "graph/shape_inference.h"
#include "graph/tensor_shape.h"

namespace dflow {
namespace {

// ngrams: a vector of unknown length; ngrams_splits: data_splits' shape.
absl::Status StringNGramsShape(InferenceContext* c) {
  TensorShape data, splits;
  DFLOW_RETURN_IF_ERROR(c->WithRank(c->input(0), 1, "input 'data'", &data));
  DFLOW_RETURN_IF_ERROR(
      c->WithRank(c->input(1), 1, "input 'data_splits'", &splits));
  c->set_output(0, TensorShape({TensorShape::kUnknownDim}));
  c->set_output(1, splits);
  return absl::OkStatus();
}

// [num_segments] + inputs.shape[rank(segment_ids):].
absl::Status UnsortedSegmentJoinShape(InferenceContext* c) {
  const TensorShape& inputs = c->input(0);
  const TensorShape& ids = c->input(1);
  if (inputs.rank() < 0 || ids.rank() < 0) {
    c->set_output(0, TensorShape::Unknown());
    return absl::OkStatus();
  }
  if (ids.rank() > inputs.rank()) {
    return absl::InvalidArgumentError(
        "segment_ids' rank must not exceed the inputs' rank");
  }
  std::vector<int64_t> n;
  TensorShape out({c->ConstantInputAsInts(2, &n) && n.size() == 1
                       ? n[0]
                       : TensorShape::kUnknownDim});
  for (int i = ids.rank(); i < inputs.rank(); ++i) out.AddDim(inputs.dim(i));
  c->set_output(0, out);
  return absl::OkStatus();
}

}  // namespace

DFLOW_REGISTER_OP("StringNGrams")
    .Input("data: string")
    .Input("data_splits: Tsplits")
    .Output("ngrams: string")
    .Output("ngrams_splits: Tsplits")
    .Attr("separator: string")
    .Attr("ngram_widths: list(int) >= 0")
    .Attr("left_pad: string")
    .Attr("right_pad: string")
    .Attr("pad_width: int")
    .Attr("preserve_short_sequences: bool")
    .Attr("Tsplits: {int32, int64} = int64")
    .SetShapeFn(StringNGramsShape)
    .Doc(
        "The n-grams of each row of a ragged string tensor (values and row "
        "splits), joined by separator and padded with left_pad/right_pad.");

DFLOW_REGISTER_OP("UnsortedSegmentJoin")
    .Input("inputs: string")
    .Input("segment_ids: Tindices")
    .Input("num_segments: Tnumsegments")
    .Output("output: string")
    .Attr("separator: string = ''")
    .Attr("Tindices: {int32, int64}")
    .Attr("Tnumsegments: {int32, int64} = int32")
    .SetShapeFn(UnsortedSegmentJoinShape)
    .Doc("The strings of each segment joined with separator.");

namespace ops {

StringNGramsOutputs StringNGrams(const Scope& scope, Input data,
                                 Input data_splits,
                                 const StringNGramsAttrs& attrs) {
  Operation op = OpBuilder(scope, "StringNGrams")
                     .Input(data)
                     .Input(data_splits)
                     .Attr("separator", attrs.separator)
                     .Attr("ngram_widths", attrs.ngram_widths)
                     .Attr("left_pad", attrs.left_pad)
                     .Attr("right_pad", attrs.right_pad)
                     .Attr("pad_width", attrs.pad_width)
                     .Attr("preserve_short_sequences",
                           attrs.preserve_short_sequences)
                     .Finalize();
  if (!op.valid()) return {};
  return {op.output(0), op.output(1)};
}

Output UnsortedSegmentJoin(const Scope& scope, Input inputs,
                           Input segment_ids, Input num_segments,
                           absl::string_view separator) {
  Operation op = OpBuilder(scope, "UnsortedSegmentJoin")
                     .Input(inputs)
                     .Input(segment_ids)
                     .Input(num_segments)
                     .Attr("separator", std::string(separator))
                     .Finalize();
  return op.valid() ? op.output(0) : Output();
}

}  // namespace ops
}  // namespace dflow
