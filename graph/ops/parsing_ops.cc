// Schemas of TensorFlow's tf.Example parsing ops and DecodeRaw
// (core/ops/parsing_ops.cc), with TensorFlow 2.21's OpDefs.
// parse_single_example in tf.compat.v1 writes ParseExampleV2 of a scalar
// record; older graphs carry ParseSingleExample. tf.train.SequenceExample:
// ParseSequenceExampleV2 (tf.io.parse_sequence_example and
// parse_single_sequence_example), ParseSequenceExample and
// ParseSingleSequenceExample (older graphs).
#include "graph/ops/parsing_ops.h"

#include <cstdint>
#include <string>
#include <utility>
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

// SequenceExample parsers: context outputs as ParseExampleV2's; feature
// list values have one more dimension than the context ones (the steps).
// Ranks are known where the batch's is; the sizes come from the records.
absl::Status ParseSequenceExampleShape(InferenceContext* c) {
  const bool v2 = c->node().op() == "ParseSequenceExampleV2";
  const bool single = c->node().op() == "ParseSingleSequenceExample";
  const TensorShape& serialized = c->input(0);
  const int64_t batch_rank =
      single ? 0 : (serialized.rank() >= 0 ? serialized.rank() : -1);
  auto counted = [&](const char* attr, int64_t* n) -> absl::Status {
    std::vector<DataType> types;
    if (absl::Status s = c->GetAttr(attr, &types); !s.ok()) return s;
    *n = static_cast<int64_t>(types.size());
    return absl::OkStatus();
  };
  int64_t cs = 0, cd = 0, cr = 0, ls = 0, ld = 0, lr = 0;
  for (auto [attr, n] :
       {std::pair<const char*, int64_t*>{"context_sparse_types", &cs},
        {"Tcontext_dense", &cd},
        {"feature_list_sparse_types", &ls},
        {"feature_list_dense_types", &ld}}) {
    if (absl::Status s = counted(attr, n); !s.ok()) return s;
  }
  if (v2) {
    if (absl::Status s = counted("context_ragged_value_types", &cr); !s.ok()) {
      return s;
    }
    if (absl::Status s = counted("feature_list_ragged_value_types", &lr);
        !s.ok()) {
      return s;
    }
  }
  std::vector<TensorShape> context_shapes, list_shapes;
  if (absl::Status s = c->GetAttr("context_dense_shapes", &context_shapes);
      !s.ok()) {
    return s;
  }
  if (absl::Status s = c->GetAttr("feature_list_dense_shapes", &list_shapes);
      !s.ok()) {
    return s;
  }
  // batch dims (unknown sizes) + `tail` (unknown when the batch rank is).
  auto batched = [&](int extra, const TensorShape* tail) {
    if (batch_rank < 0) return TensorShape::Unknown();
    TensorShape shape;
    for (int64_t k = 0; k < batch_rank; ++k) {
      shape.AddDim(serialized.rank() == 1 ? serialized.dim(0) : -1);
    }
    for (int k = 0; k < extra; ++k) shape.AddDim(-1);
    if (tail != nullptr) {
      if (tail->rank() < 0) return TensorShape::Unknown();
      for (int k = 0; k < tail->rank(); ++k) shape.AddDim(tail->dim(k));
    }
    return shape;
  };
  const int64_t context_index = batch_rank < 0 ? -1 : batch_rank + 1;
  const int64_t list_index = batch_rank < 0 ? -1 : batch_rank + 2;
  int out = 0;
  for (int64_t i = 0; i < cs; ++i) {
    c->set_output(out++, TensorShape({-1, context_index}));
  }
  for (int64_t i = 0; i < cs; ++i) c->set_output(out++, TensorShape({-1}));
  for (int64_t i = 0; i < cs; ++i) {
    c->set_output(out++, TensorShape({context_index}));
  }
  for (int64_t i = 0; i < cd; ++i) {
    c->set_output(out++, batched(0, i < static_cast<int64_t>(
                                            context_shapes.size())
                                        ? &context_shapes[i]
                                        : nullptr));
  }
  for (int64_t i = 0; i < 2 * cr; ++i) c->set_output(out++, TensorShape({-1}));
  for (int64_t i = 0; i < ls; ++i) {
    c->set_output(out++, TensorShape({-1, list_index}));
  }
  for (int64_t i = 0; i < ls; ++i) c->set_output(out++, TensorShape({-1}));
  for (int64_t i = 0; i < ls; ++i) {
    c->set_output(out++, TensorShape({list_index}));
  }
  for (int64_t i = 0; i < ld; ++i) {
    c->set_output(out++,
                  batched(1, i < static_cast<int64_t>(list_shapes.size())
                                 ? &list_shapes[i]
                                 : nullptr));
  }
  if (!single) {  // the lengths
    for (int64_t i = 0; i < ld; ++i) c->set_output(out++, batched(0, nullptr));
  }
  for (int64_t i = 0; i < lr; ++i) c->set_output(out++, TensorShape({-1}));
  for (int64_t i = 0; i < lr; ++i) {
    c->set_output(out++, batch_rank == 0 ? TensorShape({}) : TensorShape({-1}));
  }
  for (int64_t i = 0; i < lr; ++i) c->set_output(out++, TensorShape({-1}));
  for (; out < c->num_outputs(); ++out) {
    c->set_output(out, TensorShape::Unknown());
  }
  return absl::OkStatus();
}

DFLOW_REGISTER_OP("ParseSequenceExampleV2")
    .Input("serialized: string")
    .Input("debug_name: string")
    .Input("context_sparse_keys: string")
    .Input("context_dense_keys: string")
    .Input("context_ragged_keys: string")
    .Input("feature_list_sparse_keys: string")
    .Input("feature_list_dense_keys: string")
    .Input("feature_list_ragged_keys: string")
    .Input("feature_list_dense_missing_assumed_empty: bool")
    .Input("context_dense_defaults: Tcontext_dense")
    .Output("context_sparse_indices: Ncontext_sparse * int64")
    .Output("context_sparse_values: context_sparse_types")
    .Output("context_sparse_shapes: Ncontext_sparse * int64")
    .Output("context_dense_values: Tcontext_dense")
    .Output("context_ragged_values: context_ragged_value_types")
    .Output("context_ragged_row_splits: context_ragged_split_types")
    .Output("feature_list_sparse_indices: Nfeature_list_sparse * int64")
    .Output("feature_list_sparse_values: feature_list_sparse_types")
    .Output("feature_list_sparse_shapes: Nfeature_list_sparse * int64")
    .Output("feature_list_dense_values: feature_list_dense_types")
    .Output("feature_list_dense_lengths: Nfeature_list_dense * int64")
    .Output("feature_list_ragged_values: feature_list_ragged_value_types")
    .Output("feature_list_ragged_outer_splits: feature_list_ragged_split_types")
    .Output("feature_list_ragged_inner_splits: feature_list_ragged_split_types")
    .Attr("Ncontext_sparse: int >= 0 = 0")
    .Attr("Tcontext_dense: list({float,int64,string}) >= 0 = []")
    .Attr("context_sparse_types: list({float,int64,string}) >= 0 = []")
    .Attr("context_ragged_value_types: list({float,int64,string}) >= 0 = []")
    .Attr("context_ragged_split_types: list({int32,int64}) >= 0 = []")
    .Attr("context_dense_shapes: list(shape) >= 0 = []")
    .Attr("Nfeature_list_sparse: int >= 0 = 0")
    .Attr("Nfeature_list_dense: int >= 0 = 0")
    .Attr("feature_list_dense_types: list({float,int64,string}) >= 0 = []")
    .Attr("feature_list_sparse_types: list({float,int64,string}) >= 0 = []")
    .Attr(
        "feature_list_ragged_value_types: list({float,int64,string}) >= 0 = "
        "[]")
    .Attr("feature_list_ragged_split_types: list({int32,int64}) >= 0 = []")
    .Attr("feature_list_dense_shapes: list(shape) >= 0 = []")
    .SetShapeFn(ParseSequenceExampleShape)
    .Doc(
        "Parses serialized tf.SequenceExample protos: context features as "
        "ParseExampleV2's, feature lists into dense (with lengths), sparse "
        "and ragged tensors.");

DFLOW_REGISTER_OP("ParseSequenceExample")
    .Input("serialized: string")
    .Input("debug_name: string")
    .Input("context_dense_defaults: Tcontext_dense")
    .Output("context_sparse_indices: Ncontext_sparse * int64")
    .Output("context_sparse_values: context_sparse_types")
    .Output("context_sparse_shapes: Ncontext_sparse * int64")
    .Output("context_dense_values: Tcontext_dense")
    .Output("feature_list_sparse_indices: Nfeature_list_sparse * int64")
    .Output("feature_list_sparse_values: feature_list_sparse_types")
    .Output("feature_list_sparse_shapes: Nfeature_list_sparse * int64")
    .Output("feature_list_dense_values: feature_list_dense_types")
    .Output("feature_list_dense_lengths: Nfeature_list_dense * int64")
    .Attr("feature_list_dense_missing_assumed_empty: list(string) >= 0")
    .Attr("context_sparse_keys: list(string) >= 0")
    .Attr("context_dense_keys: list(string) >= 0")
    .Attr("feature_list_sparse_keys: list(string) >= 0")
    .Attr("feature_list_dense_keys: list(string) >= 0")
    .Attr("Ncontext_sparse: int >= 0 = 0")
    .Attr("Ncontext_dense: int >= 0 = 0")
    .Attr("Nfeature_list_sparse: int >= 0 = 0")
    .Attr("Nfeature_list_dense: int >= 0 = 0")
    .Attr("context_sparse_types: list({float,int64,string}) >= 0 = []")
    .Attr("Tcontext_dense: list({float,int64,string}) >= 0 = []")
    .Attr("feature_list_dense_types: list({float,int64,string}) >= 0 = []")
    .Attr("context_dense_shapes: list(shape) >= 0 = []")
    .Attr("feature_list_sparse_types: list({float,int64,string}) >= 0 = []")
    .Attr("feature_list_dense_shapes: list(shape) >= 0 = []")
    .SetShapeFn(ParseSequenceExampleShape)
    .Doc("Parses a vector of serialized tf.SequenceExample protos (keys as "
         "attrs).");

DFLOW_REGISTER_OP("ParseSingleSequenceExample")
    .Input("serialized: string")
    .Input("feature_list_dense_missing_assumed_empty: string")
    .Input("context_sparse_keys: Ncontext_sparse * string")
    .Input("context_dense_keys: Ncontext_dense * string")
    .Input("feature_list_sparse_keys: Nfeature_list_sparse * string")
    .Input("feature_list_dense_keys: Nfeature_list_dense * string")
    .Input("context_dense_defaults: Tcontext_dense")
    .Input("debug_name: string")
    .Output("context_sparse_indices: Ncontext_sparse * int64")
    .Output("context_sparse_values: context_sparse_types")
    .Output("context_sparse_shapes: Ncontext_sparse * int64")
    .Output("context_dense_values: Tcontext_dense")
    .Output("feature_list_sparse_indices: Nfeature_list_sparse * int64")
    .Output("feature_list_sparse_values: feature_list_sparse_types")
    .Output("feature_list_sparse_shapes: Nfeature_list_sparse * int64")
    .Output("feature_list_dense_values: feature_list_dense_types")
    .Attr("Ncontext_sparse: int >= 0 = 0")
    .Attr("Ncontext_dense: int >= 0 = 0")
    .Attr("Nfeature_list_sparse: int >= 0 = 0")
    .Attr("Nfeature_list_dense: int >= 0 = 0")
    .Attr("context_sparse_types: list({float,int64,string}) >= 0 = []")
    .Attr("Tcontext_dense: list({float,int64,string}) >= 0 = []")
    .Attr("feature_list_dense_types: list({float,int64,string}) >= 0 = []")
    .Attr("context_dense_shapes: list(shape) >= 0 = []")
    .Attr("feature_list_sparse_types: list({float,int64,string}) >= 0 = []")
    .Attr("feature_list_dense_shapes: list(shape) >= 0 = []")
    .SetShapeFn(ParseSequenceExampleShape)
    .Doc("Parses one serialized tf.SequenceExample proto (keys as inputs).");

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
