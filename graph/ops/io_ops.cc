// Schemas, shape functions and builder wrappers of the checkpoint ops, as in
// TensorFlow's `core/ops/io_ops.cc` and `string_ops.cc` (StringJoin).
#include "graph/ops/io_ops.h"

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "graph/attr_value_util.h"
#include "graph/op_registry.h"
#include "graph/shape_inference.h"

namespace dflow {
namespace {

absl::Status Scalar(InferenceContext* c, int i, absl::string_view what) {
  TensorShape unused;
  return c->WithRank(c->input(i), 0, what, &unused);
}

// tensor_names and shape_and_slices: vectors of one length.
absl::Status NamesAndSlices(InferenceContext* c, int names, int slices,
                            int64_t* count) {
  TensorShape n, s;
  DFLOW_RETURN_IF_ERROR(
      c->WithRank(c->input(names), 1, "input 'tensor_names'", &n));
  DFLOW_RETURN_IF_ERROR(
      c->WithRank(c->input(slices), 1, "input 'shape_and_slices'", &s));
  return c->MergeDim(n.dim(0), s.dim(0),
                     "the lengths of 'tensor_names' and 'shape_and_slices'",
                     count);
}

absl::Status SaveV2Shape(InferenceContext* c) {
  DFLOW_RETURN_IF_ERROR(Scalar(c, 0, "input 'prefix'"));
  int64_t count = -1;
  DFLOW_RETURN_IF_ERROR(NamesAndSlices(c, 1, 2, &count));
  const int64_t tensors = c->num_inputs() - 3;
  if (count >= 0 && count != tensors) {
    return absl::InvalidArgumentError(absl::StrCat(
        "SaveV2 names ", count, " tensors but is given ", tensors,
        "; give one name and one shape_and_slices entry per tensor"));
  }
  return absl::OkStatus();
}

absl::Status RestoreV2Shape(InferenceContext* c) {
  DFLOW_RETURN_IF_ERROR(Scalar(c, 0, "input 'prefix'"));
  int64_t count = -1;
  DFLOW_RETURN_IF_ERROR(NamesAndSlices(c, 1, 2, &count));
  if (count >= 0 && count != c->num_outputs()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "RestoreV2 names ", count, " tensors but attr 'dtypes' lists ",
        c->num_outputs(), "; give one dtype per tensor name"));
  }
  // The shapes are in the checkpoint, known only when the op runs.
  for (int i = 0; i < c->num_outputs(); ++i) {
    c->set_output(i, TensorShape::Unknown());
  }
  return absl::OkStatus();
}

absl::Status MergeV2Shape(InferenceContext* c) {
  TensorShape unused;
  DFLOW_RETURN_IF_ERROR(c->WithRankAtLeast(
      c->input(0), 0, "input 'checkpoint_prefixes'", &unused));
  if (c->input(0).rank() > 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "input 'checkpoint_prefixes' must be a scalar or vector, not ",
        c->input(0).ToString()));
  }
  return Scalar(c, 1, "input 'destination_prefix'");
}

absl::Status ShardedFilenameShape(InferenceContext* c) {
  DFLOW_RETURN_IF_ERROR(Scalar(c, 0, "input 'basename'"));
  DFLOW_RETURN_IF_ERROR(Scalar(c, 1, "input 'shard'"));
  DFLOW_RETURN_IF_ERROR(Scalar(c, 2, "input 'num_shards'"));
  c->set_output(0, TensorShape());
  return absl::OkStatus();
}

absl::Status ShardedFilespecShape(InferenceContext* c) {
  DFLOW_RETURN_IF_ERROR(Scalar(c, 0, "input 'basename'"));
  DFLOW_RETURN_IF_ERROR(Scalar(c, 1, "input 'num_shards'"));
  c->set_output(0, TensorShape());
  return absl::OkStatus();
}

// Scalars broadcast; every non-scalar input must have the same shape.
absl::Status StringJoinShape(InferenceContext* c) {
  TensorShape out;  // scalar unless an input is not
  bool any_unknown = false;
  for (int i = 0; i < c->num_inputs(); ++i) {
    const TensorShape& s = c->input(i);
    if (s.unknown_rank()) {
      any_unknown = true;
      continue;
    }
    if (s.rank() == 0) continue;
    if (out.rank() == 0) {
      out = s;
      continue;
    }
    DFLOW_RETURN_IF_ERROR(c->MergeShapes(
        out, s, absl::StrCat("input ", i, " of StringJoin"), &out));
  }
  c->set_output(0,
                any_unknown && out.rank() == 0 ? TensorShape::Unknown() : out);
  return absl::OkStatus();
}

DFLOW_REGISTER_OP("SaveV2")
    .Input("prefix: string")
    .Input("tensor_names: string")
    .Input("shape_and_slices: string")
    .Input("tensors: dtypes")
    .Attr("dtypes: list(type) >= 1")
    .SetIsStateful()
    .SetShapeFn(SaveV2Shape)
    .Doc("Saves tensors in the V2 checkpoint format (tensor bundle).");

DFLOW_REGISTER_OP("RestoreV2")
    .Input("prefix: string")
    .Input("tensor_names: string")
    .Input("shape_and_slices: string")
    .Output("tensors: dtypes")
    .Attr("dtypes: list(type) >= 1")
    .SetIsStateful()
    .SetShapeFn(RestoreV2Shape)
    .Doc("Restores tensors from a V2 checkpoint.");

DFLOW_REGISTER_OP("MergeV2Checkpoints")
    .Input("checkpoint_prefixes: string")
    .Input("destination_prefix: string")
    .Attr("delete_old_dirs: bool = true")
    .Attr("allow_missing_files: bool = false")
    .SetIsStateful()
    .SetShapeFn(MergeV2Shape)
    .Doc("Merges V2 checkpoints (the shards of a sharded save) into one.");

DFLOW_REGISTER_OP("ShardedFilename")
    .Input("basename: string")
    .Input("shard: int32")
    .Input("num_shards: int32")
    .Output("filename: string")
    .SetShapeFn(ShardedFilenameShape)
    .Doc("Generates the file name of a shard: basename-00001-of-00002.");

DFLOW_REGISTER_OP("ShardedFilespec")
    .Input("basename: string")
    .Input("num_shards: int32")
    .Output("filename: string")
    .SetShapeFn(ShardedFilespecShape)
    .Doc("Generates a glob of every shard: basename-?\?\?\?\?-of-00002.");

DFLOW_REGISTER_OP("StringJoin")
    .Input("inputs: N * string")
    .Attr("N: int >= 0")
    .Attr("separator: string = ''")
    .Output("output: string")
    .SetShapeFn(StringJoinShape)
    .Doc("Joins the strings of its inputs element-wise.");

}  // namespace

namespace ops {

Operation SaveV2(const Scope& scope, Input prefix, Input tensor_names,
                 Input shape_and_slices, InputList tensors) {
  return OpBuilder(scope, "SaveV2")
      .Input(prefix)
      .Input(tensor_names)
      .Input(shape_and_slices)
      .InputList(tensors)
      .Finalize();
}

std::vector<Output> RestoreV2(const Scope& scope, Input prefix,
                              Input tensor_names, Input shape_and_slices,
                              const std::vector<DataType>& dtypes) {
  Operation op = OpBuilder(scope, "RestoreV2")
                     .Input(prefix)
                     .Input(tensor_names)
                     .Input(shape_and_slices)
                     .Attr("dtypes", MakeAttr(absl::MakeConstSpan(dtypes)))
                     .Finalize();
  std::vector<Output> outputs;
  for (int i = 0; i < op.num_outputs(); ++i) outputs.push_back(op.output(i));
  return outputs;
}

Output ShardedFilename(const Scope& scope, Input basename, Input shard,
                       Input num_shards) {
  Operation op = OpBuilder(scope, "ShardedFilename")
                     .Input(basename)
                     .Input(shard)
                     .Input(num_shards)
                     .Finalize();
  return op.valid() ? op.output(0) : Output();
}

Output StringJoin(const Scope& scope, InputList inputs,
                  const std::string& separator) {
  Operation op = OpBuilder(scope, "StringJoin")
                     .InputList(inputs)
                     .Attr("separator", separator)
                     .Finalize();
  return op.valid() ? op.output(0) : Output();
}

}  // namespace ops
}  // namespace dflow
