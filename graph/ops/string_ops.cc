// Schemas and wrappers of TensorFlow 2.21's string ops (string_ops.cc and
// logging_ops.cc OpDefs): StaticRegexFullMatch, RegexFullMatch,
// StringLength, and
// StringFormat with PrintV2 (tf.print).
#include "graph/ops/string_ops.h"

#include <string>

#include "graph/graph.h"
#include "graph/op_registry.h"
#include "graph/shape_inference.h"

namespace dflow {
namespace {

DFLOW_REGISTER_OP("StaticRegexFullMatch")
    .Input("input: string")
    .Output("output: bool")
    .Attr("pattern: string")
    .SetShapeFn(shape_fns::UnchangedShape)
    .Doc("Whether each string matches the RE2 pattern as a whole.");

// RegexFullMatch: input's shape (the pattern is a scalar).
absl::Status RegexFullMatchShape(InferenceContext* c) {
  TensorShape pattern;
  DFLOW_RETURN_IF_ERROR(c->WithRank(c->input(1), 0, "input 'pattern'",
                                    &pattern));
  c->set_output(0, c->input(0));
  return absl::OkStatus();
}

DFLOW_REGISTER_OP("RegexFullMatch")
    .Input("input: string")
    .Input("pattern: string")
    .Output("output: bool")
    .SetShapeFn(RegexFullMatchShape)
    .Doc("Whether each string matches the scalar RE2 pattern as a whole.");

DFLOW_REGISTER_OP("StringLength")
    .Input("input: string")
    .Output("output: int32")
    .Attr("unit: {'BYTE', 'UTF8_CHAR'} = 'BYTE'")
    .SetShapeFn(shape_fns::UnchangedShape)
    .Doc("The length of each string, in bytes or in UTF-8 characters.");

DFLOW_REGISTER_OP("StringFormat")
    .Input("inputs: T")
    .Output("output: string")
    .Attr("T: list(type) >= 0")
    .Attr("template: string = '%s'")
    .Attr("placeholder: string = '%s'")
    .Attr("summarize: int = 3")
    .SetShapeFn(shape_fns::ScalarShape)
    .Doc(
        "The template with each placeholder replaced by an input's values "
        "(the first and last `summarize` of each dimension).");

DFLOW_REGISTER_OP("PrintV2")
    .Input("input: string")
    .Attr("output_stream: string = 'stderr'")
    .Attr("end: string = '\n'")
    .SetIsStateful()
    .SetShapeFn([](InferenceContext*) { return absl::OkStatus(); })
    .Doc(
        "Writes the string and `end` to output_stream: stderr, stdout, "
        "log(info|warning|error) or file://<path>.");

// Print: its input's shape (it passes the input on).
absl::Status PrintShape(InferenceContext* c) {
  c->set_output(0, c->input(0));
  return absl::OkStatus();
}

DFLOW_REGISTER_OP("Print")
    .Input("input: T")
    .Input("data: U")
    .Output("output: T")
    .Attr("T: type")
    .Attr("U: list(type) >= 0")
    .Attr("message: string = ''")
    .Attr("first_n: int = -1")
    .Attr("summarize: int = 3")
    .SetIsStateful()
    .SetShapeFn(PrintShape)
    .Doc(
        "Passes input on, writing message and each data tensor (its first "
        "`summarize` elements) to stderr the first first_n times (-1: "
        "always).");

}  // namespace

namespace ops {

Output StaticRegexFullMatch(const Scope& scope, Input input,
                            absl::string_view pattern) {
  Operation op = OpBuilder(scope, "StaticRegexFullMatch")
                     .Input(input)
                     .Attr("pattern", std::string(pattern))
                     .Finalize();
  return op.valid() ? op.output(0) : Output();
}

Output RegexFullMatch(const Scope& scope, Input input, Input pattern) {
  Operation op =
      OpBuilder(scope, "RegexFullMatch").Input(input).Input(pattern).Finalize();
  return op.valid() ? op.output(0) : Output();
}

Output StringLength(const Scope& scope, Input input, absl::string_view unit) {
  Operation op = OpBuilder(scope, "StringLength")
                     .Input(input)
                     .Attr("unit", std::string(unit))
                     .Finalize();
  return op.valid() ? op.output(0) : Output();
}

Output StringFormat(const Scope& scope, InputList inputs,
                    absl::string_view format, int64_t summarize) {
  Operation op = OpBuilder(scope, "StringFormat")
                     .InputList(inputs)
                     .Attr("template", std::string(format))
                     .Attr("placeholder", std::string("{}"))
                     .Attr("summarize", summarize)
                     .Finalize();
  return op.valid() ? op.output(0) : Output();
}

Output Print(const Scope& scope, Input input, InputList data,
             absl::string_view message) {
  Operation op = OpBuilder(scope, "Print")
                     .Input(input)
                     .InputList(data)
                     .Attr("message", std::string(message))
                     .Finalize();
  return op.valid() ? op.output(0) : Output();
}

Operation PrintV2(const Scope& scope, Input input,
                  absl::string_view output_stream) {
  return OpBuilder(scope, "PrintV2")
      .Input(input)
      .Attr("output_stream", std::string(output_stream))
      .Finalize();
}

}  // namespace ops
}  // namespace dflow
