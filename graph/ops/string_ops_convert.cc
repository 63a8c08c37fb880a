// Schemas and wrappers of TensorFlow 2.21's string conversions:
// StringSplit and StringSplitV2 (sparse pieces), StringToNumber, AsString,
// EncodeBase64, DecodeBase64, the hash buckets StringToHashBucketFast
// (FarmHash Fingerprint64), StringToHashBucketStrong (keyed SipHash) and
// StringToHashBucket (TensorFlow's Hash64), and Fingerprint (tf.fingerprint).
#include <cstdint>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "graph/op_registry.h"
#include "graph/ops/string_ops.h"
#include "graph/shape_inference.h"

namespace dflow {
namespace {

// A vector of strings and a scalar separator make a SparseTensor of pieces
// whose count is known only at run time: indices [?,2], values [?],
// dense_shape [2].
absl::Status SplitShape(InferenceContext* c) {
  TensorShape unused;
  DFLOW_RETURN_IF_ERROR(c->WithRank(c->input(0), 1, "input", &unused));
  DFLOW_RETURN_IF_ERROR(c->WithRank(c->input(1), 0, "separator", &unused));
  c->set_output(0, TensorShape({TensorShape::kUnknownDim, 2}));
  c->set_output(1, TensorShape({TensorShape::kUnknownDim}));
  c->set_output(2, TensorShape({2}));
  return absl::OkStatus();
}

DFLOW_REGISTER_OP("StringSplit")
    .Input("input: string")
    .Input("delimiter: string")
    .Output("indices: int64")
    .Output("values: string")
    .Output("shape: int64")
    .Attr("skip_empty: bool = true")
    .SetShapeFn(SplitShape)
    .Doc(
        "Splits each string at any byte of delimiter (empty: into bytes); "
        "the pieces as a SparseTensor.");

DFLOW_REGISTER_OP("StringSplitV2")
    .Input("input: string")
    .Input("sep: string")
    .Output("indices: int64")
    .Output("values: string")
    .Output("shape: int64")
    .Attr("maxsplit: int = -1")
    .SetShapeFn(SplitShape)
    .Doc(
        "Splits each string as Python's str.split(sep, maxsplit) (empty "
        "sep: runs of whitespace); the pieces as a SparseTensor.");

DFLOW_REGISTER_OP("StringToNumber")
    .Input("string_tensor: string")
    .Output("output: out_type")
    .Attr("out_type: {float, double, int32, int64, uint32, uint64} = float")
    .SetShapeFn(shape_fns::UnchangedShape)
    .Doc("Each string parsed as a number of out_type.");

DFLOW_REGISTER_OP("AsString")
    .Input("input: T")
    .Output("output: string")
    .Attr(
        "T: {float, double, int32, uint8, int16, int8, int64, bfloat16, "
        "uint16, half, uint32, uint64, complex64, complex128, bool, variant, "
        "string}")
    .Attr("precision: int = -1")
    .Attr("scientific: bool = false")
    .Attr("shortest: bool = false")
    .Attr("width: int = -1")
    .Attr("fill: string = ''")
    .SetShapeFn(shape_fns::UnchangedShape)
    .Doc("Each element written as text, printf-style.");

DFLOW_REGISTER_OP("EncodeBase64")
    .Input("input: string")
    .Output("output: string")
    .Attr("pad: bool = false")
    .SetShapeFn(shape_fns::UnchangedShape)
    .Doc("Each string in web-safe base64 (- and _), '='-padded if pad.");

DFLOW_REGISTER_OP("DecodeBase64")
    .Input("input: string")
    .Output("output: string")
    .SetShapeFn(shape_fns::UnchangedShape)
    .Doc("Each web-safe base64 string decoded (padding optional).");

DFLOW_REGISTER_OP("StringToHashBucketFast")
    .Input("input: string")
    .Output("output: int64")
    .Attr("num_buckets: int >= 1")
    .SetShapeFn(shape_fns::UnchangedShape)
    .Doc("FarmHash Fingerprint64 of each string modulo num_buckets.");

DFLOW_REGISTER_OP("StringToHashBucketStrong")
    .Input("input: string")
    .Output("output: int64")
    .Attr("num_buckets: int >= 1")
    .Attr("key: list(int)")
    .SetShapeFn(shape_fns::UnchangedShape)
    .Doc("SipHash-2-4 of each string under the 128-bit key, modulo buckets.");

DFLOW_REGISTER_OP("StringToHashBucket")
    .Input("string_tensor: string")
    .Output("output: int64")
    .Attr("num_buckets: int >= 1")
    .SetShapeFn(shape_fns::UnchangedShape)
    .Doc("TensorFlow's Hash64 (MurmurHash64A) of each string modulo buckets.");

// One 8-byte fingerprint per row (dimension 0) of data.
absl::Status FingerprintShape(InferenceContext* c) {
  TensorShape data, unused;
  DFLOW_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 1, "data", &data));
  DFLOW_RETURN_IF_ERROR(c->WithRank(c->input(1), 0, "method", &unused));
  c->set_output(0, TensorShape({data.dim(0), 8}));
  return absl::OkStatus();
}

DFLOW_REGISTER_OP("Fingerprint")
    .Input("data: T")
    .Input("method: string")
    .Output("fingerprint: uint8")
    .Attr("T: type")
    .SetShapeFn(FingerprintShape)
    .Doc(
        "FarmHash Fingerprint64 of each row of data, as 8 little-endian "
        "bytes.");

}  // namespace

namespace ops {

StringSplitOutputs StringSplit(const Scope& scope, Input input, Input delimiter,
                               bool skip_empty) {
  Operation op = OpBuilder(scope, "StringSplit")
                     .Input(input)
                     .Input(delimiter)
                     .Attr("skip_empty", skip_empty)
                     .Finalize();
  if (!op.valid()) return {};
  return {op.output(0), op.output(1), op.output(2)};
}

StringSplitOutputs StringSplitV2(const Scope& scope, Input input, Input sep,
                                 int64_t maxsplit) {
  Operation op = OpBuilder(scope, "StringSplitV2")
                     .Input(input)
                     .Input(sep)
                     .Attr("maxsplit", maxsplit)
                     .Finalize();
  if (!op.valid()) return {};
  return {op.output(0), op.output(1), op.output(2)};
}

Output StringToNumber(const Scope& scope, Input input, DataType out_type) {
  Operation op = OpBuilder(scope, "StringToNumber")
                     .Input(input)
                     .Attr("out_type", out_type)
                     .Finalize();
  return op.valid() ? op.output(0) : Output();
}

Output AsString(const Scope& scope, Input input, const AsStringAttrs& attrs) {
  Operation op = OpBuilder(scope, "AsString")
                     .Input(input)
                     .Attr("precision", attrs.precision)
                     .Attr("scientific", attrs.scientific)
                     .Attr("shortest", attrs.shortest)
                     .Attr("width", attrs.width)
                     .Attr("fill", attrs.fill)
                     .Finalize();
  return op.valid() ? op.output(0) : Output();
}

Output EncodeBase64(const Scope& scope, Input input, bool pad) {
  Operation op =
      OpBuilder(scope, "EncodeBase64").Input(input).Attr("pad", pad).Finalize();
  return op.valid() ? op.output(0) : Output();
}

Output DecodeBase64(const Scope& scope, Input input) {
  Operation op = OpBuilder(scope, "DecodeBase64").Input(input).Finalize();
  return op.valid() ? op.output(0) : Output();
}

Output StringToHashBucketFast(const Scope& scope, Input input,
                              int64_t num_buckets) {
  Operation op = OpBuilder(scope, "StringToHashBucketFast")
                     .Input(input)
                     .Attr("num_buckets", num_buckets)
                     .Finalize();
  return op.valid() ? op.output(0) : Output();
}

Output StringToHashBucketStrong(const Scope& scope, Input input,
                                int64_t num_buckets,
                                const std::vector<int64_t>& key) {
  Operation op = OpBuilder(scope, "StringToHashBucketStrong")
                     .Input(input)
                     .Attr("num_buckets", num_buckets)
                     .Attr("key", absl::Span<const int64_t>(key))
                     .Finalize();
  return op.valid() ? op.output(0) : Output();
}

Output StringToHashBucket(const Scope& scope, Input input,
                          int64_t num_buckets) {
  Operation op = OpBuilder(scope, "StringToHashBucket")
                     .Input(input)
                     .Attr("num_buckets", num_buckets)
                     .Finalize();
  return op.valid() ? op.output(0) : Output();
}

Output Fingerprint(const Scope& scope, Input data, Input method) {
  Operation op =
      OpBuilder(scope, "Fingerprint").Input(data).Input(method).Finalize();
  return op.valid() ? op.output(0) : Output();
}

}  // namespace ops
}  // namespace dflow
