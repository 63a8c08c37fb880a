// Schemas and wrappers of TensorFlow 2.21's string-to-string ops:
// StringLower, StringUpper, StringStrip, Substr, ReduceJoin,
// StaticRegexReplace and RegexReplace (tf.strings.lower, upper, strip,
// substr, reduce_join, regex_replace).
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/graph.h"
#include "graph/op_registry.h"
#include "graph/ops/string_ops.h"
#include "graph/shape_inference.h"

namespace dflow {
namespace {

// Substr's output: input broadcast against pos (pos and len agree).
absl::Status SubstrShape(InferenceContext* c) {
  TensorShape pos_len;
  DFLOW_RETURN_IF_ERROR(
      c->MergeShapes(c->input(1), c->input(2), "pos and len", &pos_len));
  TensorShape out;
  DFLOW_RETURN_IF_ERROR(c->BroadcastShapes(c->input(0), pos_len, &out));
  c->set_output(0, out);
  return absl::OkStatus();
}

// ReduceJoin drops (or keeps as 1) the reduced dimensions; without the
// input's rank or the indices' values only the output's rank (or nothing)
// is known.
absl::Status ReduceJoinShape(InferenceContext* c) {
  bool keep_dims = false;
  DFLOW_RETURN_IF_ERROR(c->GetAttr("keep_dims", &keep_dims));
  const TensorShape& in = c->input(0);
  std::vector<int64_t> axes;
  if (in.unknown_rank() || !c->ConstantInputAsInts(1, &axes)) {
    c->set_output(0, keep_dims && !in.unknown_rank()
                         ? TensorShape::UnknownWithRank(in.rank())
                         : TensorShape::Unknown());
    return absl::OkStatus();
  }
  std::vector<bool> reduced(in.rank(), false);
  for (int64_t axis : axes) {
    if (axis < -in.rank() || axis >= in.rank()) {
      return absl::InvalidArgumentError(
          absl::StrCat("Invalid reduction dimension ", axis, " for input with ",
                       in.rank(), " dimensions"));
    }
    reduced[axis < 0 ? axis + in.rank() : axis] = true;
  }
  TensorShape out({});
  for (int d = 0; d < in.rank(); ++d) {
    if (!reduced[d]) {
      out.AddDim(in.dim(d));
    } else if (keep_dims) {
      out.AddDim(1);
    }
  }
  c->set_output(0, out);
  return absl::OkStatus();
}

// RegexReplace: pattern and rewrite are scalars.
absl::Status RegexReplaceShape(InferenceContext* c) {
  TensorShape unused;
  DFLOW_RETURN_IF_ERROR(c->WithRank(c->input(1), 0, "pattern", &unused));
  DFLOW_RETURN_IF_ERROR(c->WithRank(c->input(2), 0, "rewrite", &unused));
  c->set_output(0, c->input(0));
  return absl::OkStatus();
}

DFLOW_REGISTER_OP("StringLower")
    .Input("input: string")
    .Output("output: string")
    .Attr("encoding: string = ''")
    .SetShapeFn(shape_fns::UnchangedShape)
    .Doc("Each string lower-cased: ASCII letters, or with encoding "
         "'utf-8' every cased letter.");

DFLOW_REGISTER_OP("StringUpper")
    .Input("input: string")
    .Output("output: string")
    .Attr("encoding: string = ''")
    .SetShapeFn(shape_fns::UnchangedShape)
    .Doc("Each string upper-cased: ASCII letters, or with encoding "
         "'utf-8' every cased letter.");

DFLOW_REGISTER_OP("StringStrip")
    .Input("input: string")
    .Output("output: string")
    .SetShapeFn(shape_fns::UnchangedShape)
    .Doc("Each string without leading and trailing ASCII whitespace.");

DFLOW_REGISTER_OP("Substr")
    .Input("input: string")
    .Input("pos: T")
    .Input("len: T")
    .Output("output: string")
    .Attr("T: {int32, int64}")
    .Attr("unit: {'BYTE', 'UTF8_CHAR'} = 'BYTE'")
    .SetShapeFn(SubstrShape)
    .Doc("len units of each string from pos (negative: from the end).");

DFLOW_REGISTER_OP("ReduceJoin")
    .Input("inputs: string")
    .Input("reduction_indices: int32")
    .Output("output: string")
    .Attr("keep_dims: bool = false")
    .Attr("separator: string = ''")
    .SetShapeFn(ReduceJoinShape)
    .Doc("The strings joined with separator along the reduced dimensions.");

DFLOW_REGISTER_OP("StaticRegexReplace")
    .Input("input: string")
    .Output("output: string")
    .Attr("pattern: string")
    .Attr("rewrite: string")
    .Attr("replace_global: bool = true")
    .SetShapeFn(shape_fns::UnchangedShape)
    .Doc("Each string with RE2 matches of the pattern attr rewritten.");

DFLOW_REGISTER_OP("RegexReplace")
    .Input("input: string")
    .Input("pattern: string")
    .Input("rewrite: string")
    .Output("output: string")
    .Attr("replace_global: bool = true")
    .SetShapeFn(RegexReplaceShape)
    .Doc("Each string with RE2 matches of the pattern input rewritten.");

}  // namespace

namespace ops {

namespace {
Output StringUnary(const Scope& scope, const char* op, Input input) {
  Operation node = OpBuilder(scope, op).Input(input).Finalize();
  return node.valid() ? node.output(0) : Output();
}
}  // namespace

Output StringLower(const Scope& scope, Input input,
                   absl::string_view encoding) {
  Operation op = OpBuilder(scope, "StringLower")
                     .Input(input)
                     .Attr("encoding", std::string(encoding))
                     .Finalize();
  return op.valid() ? op.output(0) : Output();
}

Output StringUpper(const Scope& scope, Input input,
                   absl::string_view encoding) {
  Operation op = OpBuilder(scope, "StringUpper")
                     .Input(input)
                     .Attr("encoding", std::string(encoding))
                     .Finalize();
  return op.valid() ? op.output(0) : Output();
}

Output StringStrip(const Scope& scope, Input input) {
  return StringUnary(scope, "StringStrip", input);
}

Output Substr(const Scope& scope, Input input, Input pos, Input len,
              absl::string_view unit) {
  Operation op = OpBuilder(scope, "Substr")
                     .Input(input)
                     .Input(pos)
                     .Input(len)
                     .Attr("unit", std::string(unit))
                     .Finalize();
  return op.valid() ? op.output(0) : Output();
}

Output ReduceJoin(const Scope& scope, Input inputs, Input reduction_indices,
                  bool keep_dims, absl::string_view separator) {
  Operation op = OpBuilder(scope, "ReduceJoin")
                     .Input(inputs)
                     .Input(reduction_indices)
                     .Attr("keep_dims", keep_dims)
                     .Attr("separator", std::string(separator))
                     .Finalize();
  return op.valid() ? op.output(0) : Output();
}

Output StaticRegexReplace(const Scope& scope, Input input,
                          absl::string_view pattern, absl::string_view rewrite,
                          bool replace_global) {
  Operation op = OpBuilder(scope, "StaticRegexReplace")
                     .Input(input)
                     .Attr("pattern", std::string(pattern))
                     .Attr("rewrite", std::string(rewrite))
                     .Attr("replace_global", replace_global)
                     .Finalize();
  return op.valid() ? op.output(0) : Output();
}

Output RegexReplace(const Scope& scope, Input input, Input pattern,
                    Input rewrite, bool replace_global) {
  Operation op = OpBuilder(scope, "RegexReplace")
                     .Input(input)
                     .Input(pattern)
                     .Input(rewrite)
                     .Attr("replace_global", replace_global)
                     .Finalize();
  return op.valid() ? op.output(0) : Output();
}

}  // namespace ops
}  // namespace dflow
