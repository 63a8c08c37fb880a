// Schemas and wrappers of TensorFlow 2.21's Unicode ops
// (core/ops/string_ops.cc; string_ops.h): UnicodeDecode and
// UnicodeDecodeWithOffsets (tf.strings.unicode_decode, unicode_split),
// UnicodeEncode, UnicodeTranscode and UnicodeScript. The CPU kernels are
// kernels/cpu/string_ops_unicode.cc.
#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "graph/op_registry.h"
#include "graph/ops/string_ops.h"
#include "graph/shape_inference.h"
#include "graph/tensor_shape.h"

namespace dflow {
namespace {

// row_splits: [size(input) + 1]; the values (and offsets): [?].
absl::Status UnicodeDecodeShape(InferenceContext* c) {
  const TensorShape& input = c->input(0);
  const int64_t n = input.num_elements();  // -1 when not fully known
  c->set_output(0, TensorShape({n < 0 ? TensorShape::kUnknownDim : n + 1}));
  for (int i = 1; i < c->num_outputs(); ++i) {
    c->set_output(i, TensorShape({TensorShape::kUnknownDim}));
  }
  return absl::OkStatus();
}

// One string per row: [len(input_splits) - 1].
absl::Status UnicodeEncodeShape(InferenceContext* c) {
  TensorShape values, splits;
  DFLOW_RETURN_IF_ERROR(
      c->WithRank(c->input(0), 1, "input 'input_values'", &values));
  DFLOW_RETURN_IF_ERROR(
      c->WithRank(c->input(1), 1, "input 'input_splits'", &splits));
  const int64_t n = splits.dim(0);
  c->set_output(0, TensorShape({n < 1 ? TensorShape::kUnknownDim : n - 1}));
  return absl::OkStatus();
}

}  // namespace

DFLOW_REGISTER_OP("UnicodeDecode")
    .Input("input: string")
    .Output("row_splits: Tsplits")
    .Output("char_values: int32")
    .Attr("input_encoding: string")
    .Attr("errors: {'strict', 'replace', 'ignore'} = 'replace'")
    .Attr("replacement_char: int = 65533")
    .Attr("replace_control_characters: bool = false")
    .Attr("Tsplits: {int32, int64} = int64")
    .SetShapeFn(UnicodeDecodeShape)
    .Doc(
        "The code points of each string (any encoding ICU converts) as a "
        "ragged tensor: values and row splits.");

DFLOW_REGISTER_OP("UnicodeDecodeWithOffsets")
    .Input("input: string")
    .Output("row_splits: Tsplits")
    .Output("char_values: int32")
    .Output("char_to_byte_starts: int64")
    .Attr("input_encoding: string")
    .Attr("errors: {'strict', 'replace', 'ignore'} = 'replace'")
    .Attr("replacement_char: int = 65533")
    .Attr("replace_control_characters: bool = false")
    .Attr("Tsplits: {int32, int64} = int64")
    .SetShapeFn(UnicodeDecodeShape)
    .Doc("UnicodeDecode and each code point's byte offset in its string.");

DFLOW_REGISTER_OP("UnicodeEncode")
    .Input("input_values: int32")
    .Input("input_splits: Tsplits")
    .Output("output: string")
    .Attr("errors: {'ignore', 'replace', 'strict'} = 'replace'")
    .Attr("output_encoding: {'UTF-8', 'UTF-16-BE', 'UTF-32-BE'}")
    .Attr("replacement_char: int = 65533")
    .Attr("Tsplits: {int32, int64} = int64")
    .SetShapeFn(UnicodeEncodeShape)
    .Doc("Each row of code points (values and row splits) as a string.");

DFLOW_REGISTER_OP("UnicodeTranscode")
    .Input("input: string")
    .Output("output: string")
    .Attr("input_encoding: string")
    .Attr("output_encoding: {'UTF-8', 'UTF-16-BE', 'UTF-32-BE'}")
    .Attr("errors: {'strict', 'replace', 'ignore'} = 'replace'")
    .Attr("replacement_char: int = 65533")
    .Attr("replace_control_characters: bool = false")
    .SetShapeFn(shape_fns::UnchangedShape)
    .Doc("Each string converted from input_encoding to output_encoding.");

DFLOW_REGISTER_OP("UnicodeScript")
    .Input("input: int32")
    .Output("output: int32")
    .SetShapeFn(shape_fns::UnchangedShape)
    .Doc("ICU's UScriptCode of each code point (-1 when it has none).");

namespace ops {
namespace {

OpBuilder& ErrorAttrs(OpBuilder& b, const UnicodeErrorAttrs& attrs,
                      bool control) {
  b.Attr("errors", attrs.errors)
      .Attr("replacement_char", attrs.replacement_char);
  if (control) {
    b.Attr("replace_control_characters", attrs.replace_control_characters);
  }
  return b;
}

}  // namespace

UnicodeDecodeOutputs UnicodeDecode(const Scope& scope, Input input,
                                   absl::string_view input_encoding,
                                   const UnicodeErrorAttrs& attrs,
                                   bool with_offsets) {
  OpBuilder b(scope,
              with_offsets ? "UnicodeDecodeWithOffsets" : "UnicodeDecode");
  b.Input(input).Attr("input_encoding", std::string(input_encoding));
  Operation op = ErrorAttrs(b, attrs, true).Finalize();
  if (!op.valid()) return {};
  UnicodeDecodeOutputs out{op.output(0), op.output(1), Output()};
  if (with_offsets) out.char_to_byte_starts = op.output(2);
  return out;
}

Output UnicodeEncode(const Scope& scope, Input input_values,
                     Input input_splits, absl::string_view output_encoding,
                     const UnicodeErrorAttrs& attrs) {
  OpBuilder b(scope, "UnicodeEncode");
  b.Input(input_values)
      .Input(input_splits)
      .Attr("output_encoding", std::string(output_encoding));
  Operation op = ErrorAttrs(b, attrs, false).Finalize();
  return op.valid() ? op.output(0) : Output();
}

Output UnicodeTranscode(const Scope& scope, Input input,
                        absl::string_view input_encoding,
                        absl::string_view output_encoding,
                        const UnicodeErrorAttrs& attrs) {
  OpBuilder b(scope, "UnicodeTranscode");
  b.Input(input)
      .Attr("input_encoding", std::string(input_encoding))
      .Attr("output_encoding", std::string(output_encoding));
  Operation op = ErrorAttrs(b, attrs, true).Finalize();
  return op.valid() ? op.output(0) : Output();
}

Output UnicodeScript(const Scope& scope, Input input) {
  Operation op = OpBuilder(scope, "UnicodeScript").Input(input).Finalize();
  return op.valid() ? op.output(0) : Output();
}

}  // namespace ops
}  // namespace dflow
