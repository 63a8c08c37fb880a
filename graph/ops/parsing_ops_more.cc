// Schemas of the rest of TensorFlow's parsing ops (core/ops/parsing_ops.cc),
// with TensorFlow 2.21's OpDefs: CSV records (tf.io.decode_csv), tensors as
// TensorProto bytes (tf.io.serialize_tensor / parse_tensor), compressed
// strings, fixed-length raw bytes and tf.Examples written as JSON. The CPU
// kernels are kernels/cpu/parsing_ops_*.cc.
#include <cstdint>
#include <string>
#include <vector>

#include "graph/op_registry.h"
#include "graph/ops/parsing_ops.h"
#include "graph/shape_inference.h"

namespace dflow {
namespace {

// Every output has the first input's shape.
absl::Status EachOutputLikeInput0(InferenceContext* c) {
  for (int i = 0; i < c->num_outputs(); ++i) c->set_output(i, c->input(0));
  return absl::OkStatus();
}

absl::Status UnknownShape(InferenceContext* c) {
  c->set_output(0, TensorShape::Unknown());
  return absl::OkStatus();
}

absl::Status ScalarOutput(InferenceContext* c) {
  c->set_output(0, TensorShape({}));
  return absl::OkStatus();
}

// DecodePaddedRaw: the input's shape plus the element count, known when
// fixed_length is a constant.
absl::Status DecodePaddedRawShape(InferenceContext* c) {
  const TensorShape& bytes = c->input(0);
  if (bytes.rank() < 0) return UnknownShape(c);
  DataType out_type = DT_INVALID;
  if (absl::Status s = c->GetAttr("out_type", &out_type); !s.ok()) return s;
  TensorShape out = bytes;
  std::vector<int64_t> length;
  const int64_t width = static_cast<int64_t>(DataTypeSize(out_type));
  if (c->ConstantInputAsInts(1, &length) && length.size() == 1 && width > 0) {
    out.AddDim(length[0] / width);
  } else {
    out.AddDim(-1);
  }
  c->set_output(0, out);
  return absl::OkStatus();
}

DFLOW_REGISTER_OP("DecodeCSV")
    .Input("records: string")
    .Input("record_defaults: OUT_TYPE")
    .Output("output: OUT_TYPE")
    .Attr("OUT_TYPE: list({float,double,int32,int64,string}) >= 1")
    .Attr("field_delim: string = ','")
    .Attr("use_quote_delim: bool = true")
    .Attr("na_value: string = ''")
    .Attr("select_cols: list(int) = []")
    .SetShapeFn(EachOutputLikeInput0)
    .Doc(
        "Splits CSV records into columns, one output per column, each "
        "shaped like `records`; an empty or na_value field takes its "
        "column's default (an empty default makes the column required).");

DFLOW_REGISTER_OP("SerializeTensor")
    .Input("tensor: T")
    .Output("serialized: string")
    .Attr("T: type")
    .SetShapeFn(ScalarOutput)
    .Doc("The tensor as the bytes of a TensorProto.");

DFLOW_REGISTER_OP("ParseTensor")
    .Input("serialized: string")
    .Output("output: out_type")
    .Attr("out_type: type")
    .SetShapeFn(UnknownShape)
    .Doc("The tensor of a serialized TensorProto of dtype out_type.");

DFLOW_REGISTER_OP("DecodeCompressed")
    .Input("bytes: string")
    .Output("output: string")
    .Attr("compression_type: string = ''")
    .SetShapeFn(EachOutputLikeInput0)
    .Doc("Inflates each string ('' leaves it, 'ZLIB' or 'GZIP').");

DFLOW_REGISTER_OP("DecodePaddedRaw")
    .Input("input_bytes: string")
    .Input("fixed_length: int32")
    .Output("output: out_type")
    .Attr(
        "out_type: {half,float,double,int32,uint16,uint8,int16,int8,int64,"
        "bfloat16}")
    .Attr("little_endian: bool = true")
    .SetShapeFn(DecodePaddedRawShape)
    .Doc(
        "Reads each string's first fixed_length bytes as numbers, zero-"
        "padding shorter strings.");

DFLOW_REGISTER_OP("DecodeJSONExample")
    .Input("json_examples: string")
    .Output("binary_examples: string")
    .SetShapeFn(EachOutputLikeInput0)
    .Doc("tf.Example protos in protobuf's JSON form, serialized.");

}  // namespace

namespace ops {

std::vector<Output> DecodeCSV(const Scope& scope, Input records,
                              InputList record_defaults,
                              const DecodeCSVOptions& options) {
  Operation op = OpBuilder(scope, "DecodeCSV")
                     .Input(records)
                     .InputList(record_defaults)
                     .Attr("field_delim", options.field_delim)
                     .Attr("use_quote_delim", options.use_quote_delim)
                     .Attr("na_value", options.na_value)
                     .Attr("select_cols", options.select_cols)
                     .Finalize();
  std::vector<Output> columns;
  if (!op.valid()) return columns;
  for (int i = 0; i < op.num_outputs(); ++i) columns.push_back(op.output(i));
  return columns;
}

Output SerializeTensor(const Scope& scope, Input tensor) {
  Operation op = OpBuilder(scope, "SerializeTensor").Input(tensor).Finalize();
  return op.valid() ? op.output(0) : Output();
}

Output ParseTensor(const Scope& scope, Input serialized, DataType out_type) {
  Operation op = OpBuilder(scope, "ParseTensor")
                     .Input(serialized)
                     .Attr("out_type", out_type)
                     .Finalize();
  return op.valid() ? op.output(0) : Output();
}

Output DecodeCompressed(const Scope& scope, Input bytes,
                        const std::string& compression_type) {
  Operation op = OpBuilder(scope, "DecodeCompressed")
                     .Input(bytes)
                     .Attr("compression_type", compression_type)
                     .Finalize();
  return op.valid() ? op.output(0) : Output();
}

}  // namespace ops
}  // namespace dflow
