// Schemas of TensorFlow's tf.Example parsing ops and DecodeRaw
// (core/ops/parsing_ops.cc), with TensorFlow 2.21's OpDefs.
// parse_single_example in tf.compat.v1 writes ParseExampleV2 of a scalar
// record; older graphs carry ParseSingleExample.
#include "graph/ops/parsing_ops.h"

#include <cstdint>
#include <string>
#include <vector>

#include "graph/op_registry.h"
#include "graph/ops/array_ops.h"
#include "graph/shape_inference.h"

namespace dflow {
namespace {

// Dense values are [batch] + dense_shapes[i] ([] batch for a scalar
// `serialized`); sparse outputs are [nnz, rank], [nnz] and [rank].
absl::Status ParseExampleShape(InferenceContext* c, bool single,
                               int64_t num_sparse) {
  const TensorShape& serialized = c->input(0);
  std::vector<TensorShape> dense_shapes;
  if (absl::Status s = c->GetAttr("dense_shapes", &dense_shapes); !s.ok()) {
    return s;
  }
  // For ParseSingleExample the record is a scalar; for ParseExampleV2 the
  // batch is `serialized`'s shape (a scalar or a vector).
  const int64_t sparse_rank =
      single ? 1 : (serialized.rank() >= 0 ? serialized.rank() + 1 : -1);
  int out = 0;
  for (int64_t i = 0; i < num_sparse; ++i) {
    c->set_output(out++, TensorShape({-1, sparse_rank}));
  }
  for (int64_t i = 0; i < num_sparse; ++i)
    c->set_output(out++, TensorShape({-1}));
  for (int64_t i = 0; i < num_sparse; ++i) {
    c->set_output(out++, TensorShape({sparse_rank}));
  }
  for (const TensorShape& dense : dense_shapes) {
    if (single || serialized.rank() == 0) {
      c->set_output(out++, dense);
    } else if (serialized.rank() == 1 && dense.rank() >= 0) {
      TensorShape shape({serialized.dim(0)});
      for (int d = 0; d < dense.rank(); ++d) shape.AddDim(dense.dim(d));
      c->set_output(out++, shape);
    } else {
      c->set_output(out++, TensorShape::Unknown());
    }
  }
  // Ragged outputs (ParseExampleV2 only): values and row splits, 1-D.
  for (; out < c->num_outputs(); ++out) c->set_output(out, TensorShape({-1}));
  return absl::OkStatus();
}

absl::Status ParseExampleV2Shape(InferenceContext* c) {
  int64_t num_sparse = 0;
  if (absl::Status s = c->GetAttr("num_sparse", &num_sparse); !s.ok()) return s;
  return ParseExampleShape(c, /*single=*/false, num_sparse);
}

absl::Status ParseSingleExampleShape(InferenceContext* c) {
  int64_t num_sparse = 0;
  if (absl::Status s = c->GetAttr("num_sparse", &num_sparse); !s.ok()) return s;
  return ParseExampleShape(c, /*single=*/true, num_sparse);
}

// DecodeRaw: the bytes' shape plus one dimension (elements per string).
absl::Status DecodeRawShape(InferenceContext* c) {
  const TensorShape& bytes = c->input(0);
  if (bytes.rank() < 0) {
    c->set_output(0, TensorShape::Unknown());
    return absl::OkStatus();
  }
  TensorShape out = bytes;
  out.AddDim(-1);
  c->set_output(0, out);
  return absl::OkStatus();
}

DFLOW_REGISTER_OP("ParseExampleV2")
    .Input("serialized: string")
    .Input("names: string")
    .Input("sparse_keys: string")
    .Input("dense_keys: string")
    .Input("ragged_keys: string")
    .Input("dense_defaults: Tdense")
    .Output("sparse_indices: num_sparse * int64")
    .Output("sparse_values: sparse_types")
    .Output("sparse_shapes: num_sparse * int64")
    .Output("dense_values: Tdense")
    .Output("ragged_values: ragged_value_types")
    .Output("ragged_row_splits: ragged_split_types")
    .Attr("Tdense: list({float,int64,string}) >= 0")
    .Attr("num_sparse: int >= 0")
    .Attr("sparse_types: list({float,int64,string}) >= 0")
    .Attr("ragged_value_types: list({float,int64,string}) >= 0")
    .Attr("ragged_split_types: list({int32,int64}) >= 0")
    .Attr("dense_shapes: list(shape) >= 0")
    .SetShapeFn(ParseExampleV2Shape)
    .Doc(
        "Parses serialized tf.Example protos into dense, sparse and ragged "
        "tensors.");

DFLOW_REGISTER_OP("ParseSingleExample")
    .Input("serialized: string")
    .Input("dense_defaults: Tdense")
    .Output("sparse_indices: num_sparse * int64")
    .Output("sparse_values: sparse_types")
    .Output("sparse_shapes: num_sparse * int64")
    .Output("dense_values: Tdense")
    .Attr("num_sparse: int >= 0")
    .Attr("sparse_keys: list(string) >= 0")
    .Attr("dense_keys: list(string) >= 0")
    .Attr("sparse_types: list({float,int64,string}) >= 0")
    .Attr("Tdense: list({float,int64,string}) >= 0")
    .Attr("dense_shapes: list(shape) >= 0")
    .SetShapeFn(ParseSingleExampleShape)
    .Doc("Parses one serialized tf.Example proto.");

DFLOW_REGISTER_OP("DecodeRaw")
    .Input("bytes: string")
    .Output("output: out_type")
    .Attr(
        "out_type: {half,float,double,int32,uint16,uint8,int16,int8,int64,"
        "complex64,complex128,bool,bfloat16}")
    .Attr("little_endian: bool = true")
    .SetShapeFn(DecodeRawShape)
    .Doc("Reinterprets the bytes of each string as a vector of numbers.");

}  // namespace

namespace ops {

std::vector<Output> ParseSingleExample(const Scope& scope, Input serialized,
                                       const std::vector<std::string>& keys,
                                       const std::vector<DataType>& types,
                                       const std::vector<TensorShape>& shapes) {
  // Empty defaults: every feature is required.
  std::vector<Output> defaults;
  for (DataType t : types) {
    defaults.push_back(
        ops::Const(scope.WithOpName(""), Tensor(t, TensorShape({0}))));
  }
  Operation parsed = OpBuilder(scope, "ParseSingleExample")
                         .Input(serialized)
                         .InputList(defaults)
                         .Attr("num_sparse", int64_t{0})
                         .Attr("sparse_keys", std::vector<std::string>{})
                         .Attr("dense_keys", keys)
                         .Attr("sparse_types", std::vector<DataType>{})
                         .Attr("dense_shapes", shapes)
                         .Finalize();
  std::vector<Output> values;
  if (!parsed.valid()) return values;
  for (size_t i = 0; i < keys.size(); ++i) {
    values.push_back(parsed.output(static_cast<int>(i)));
  }
  return values;
}

Output DecodeRaw(const Scope& scope, Input bytes, DataType out_type) {
  Operation op = OpBuilder(scope, "DecodeRaw")
                     .Input(bytes)
                     .Attr("out_type", out_type)
                     .Finalize();
  return op.valid() ? op.output(0) : Output();
}

}  // namespace ops
}  // namespace dflow
