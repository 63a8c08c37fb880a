// Schema and builder wrapper of Bitcast (tf.bitcast; TensorFlow 2.21's
// array_ops.cc OpDef): the bytes of a tensor read as another type. Equal
// sizes keep the shape; a smaller output type adds a last dimension of
// size_in / size_out; a larger one drops a last dimension that must be
// size_out / size_in. Kernel: kernels/cpu/cwise_ops_bitcast.cc.
#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "graph/op_registry.h"
#include "graph/ops/array_ops.h"
#include "graph/ops/shape_fn_util.h"
#include "graph/shape_inference.h"
#include "graph/tensor_shape.h"
#include "graph/types.h"

namespace dflow {
namespace {

using shape_fn_util::InvalidArgument;

constexpr char kBitcastTypes[] =
    "{bfloat16, half, float, double, int64, int32, uint8, uint16, uint32, "
    "uint64, int8, int16, complex64, complex128, qint8, quint8, qint16, "
    "quint16, qint32}";

absl::Status BitcastShape(InferenceContext* c) {
  DataType in_type = DT_INVALID, out_type = DT_INVALID;
  DFLOW_RETURN_IF_ERROR(c->GetAttr("T", &in_type));
  DFLOW_RETURN_IF_ERROR(c->GetAttr("type", &out_type));
  const int in_size = DataTypeSize(in_type);
  const int out_size = DataTypeSize(out_type);
  if (in_size <= 0 || out_size <= 0) {
    return InvalidArgument("Cannot bitcast types ", DataTypeName(in_type),
                           " to ", DataTypeName(out_type),
                           " because one of the type sizes is zero.");
  }
  TensorShape s = c->input(0);
  if (s.unknown_rank() || in_size == out_size) {
    c->set_output(0, s);
    return absl::OkStatus();
  }
  if (in_size > out_size) {
    s.AddDim(in_size / out_size);
    c->set_output(0, s);
    return absl::OkStatus();
  }
  const int64_t ratio = out_size / in_size;
  if (s.rank() == 0 ||
      (s.dim(s.rank() - 1) >= 0 && s.dim(s.rank() - 1) != ratio)) {
    return InvalidArgument("Cannot bitcast ", DataTypeName(in_type), " ",
                           s.ToString(), " to ", DataTypeName(out_type),
                           ": the last dimension must be ", ratio);
  }
  s.RemoveDim(s.rank() - 1);
  c->set_output(0, s);
  return absl::OkStatus();
}

}  // namespace

DFLOW_REGISTER_OP("Bitcast")
    .Input("input: T")
    .Output("output: type")
    .Attr(absl::StrCat("T: ", kBitcastTypes))
    .Attr(absl::StrCat("type: ", kBitcastTypes))
    .SetShapeFn(BitcastShape)
    .Doc("The bytes of input read as another type, without a copy of value.");

namespace ops {

Output Bitcast(const Scope& scope, Input input, DataType type) {
  return shape_fn_util::FirstOutput(
      OpBuilder(scope, "Bitcast").Input(input).Attr("type", type).Finalize());
}

}  // namespace ops
}  // namespace dflow
