// Schemas and builder wrappers of Snapshot (an Identity that TensorFlow
// guarantees to copy: dflow never changes a value once read, see
// kernels/cpu/state_ops.cc, so forwarding it is a snapshot already),
// EnsureShape (an Identity that checks its input's shape against `shape`,
// at graph construction as far as known and again at run time) and Empty
// (a tensor of shape `shape` whose contents are unspecified unless `init`).
#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "graph/op_registry.h"
#include "graph/ops/array_ops.h"
#include "graph/shape_inference.h"
#include "graph/types.h"

namespace dflow {
namespace {

absl::Status SnapshotShape(InferenceContext* c) {
  c->set_output(0, c->input(0));
  return absl::OkStatus();
}

// The input's shape merged with the expected one: a known dimension of
// either fills an unknown one of the other; two known ones must agree.
absl::Status EnsureShapeShape(InferenceContext* c) {
  TensorShape expected;
  DFLOW_RETURN_IF_ERROR(c->GetAttr("shape", &expected));
  absl::StatusOr<TensorShape> merged = c->input(0).Merge(expected);
  if (!merged.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the input's shape ", c->input(0).ToString(),
        " is not compatible with the expected shape ", expected.ToString()));
  }
  c->set_output(0, *merged);
  return absl::OkStatus();
}

absl::Status EmptyShape(InferenceContext* c) {
  TensorShape unused;
  DFLOW_RETURN_IF_ERROR(c->WithRank(c->input(0), 1, "input 'shape'", &unused));
  TensorShape out;
  DFLOW_RETURN_IF_ERROR(c->ShapeFromShapeTensor(0, &out));
  c->set_output(0, out);
  return absl::OkStatus();
}

Output FirstOutputOf(const Operation& op) {
  return op.valid() ? op.output(0) : Output();
}

}  // namespace

DFLOW_REGISTER_OP("Snapshot")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: type")
    .SetShapeFn(SnapshotShape)
    .Doc("A copy of its input (values dflow read never change).");

DFLOW_REGISTER_OP("EnsureShape")
    .Input("input: T")
    .Output("output: T")
    .Attr("shape: shape")
    .Attr("T: type")
    .SetShapeFn(EnsureShapeShape)
    .Doc("Returns its input after checking its shape against `shape`.");

DFLOW_REGISTER_OP("Empty")
    .Input("shape: int32")
    .Output("output: dtype")
    .Attr("dtype: type")
    .Attr("init: bool = false")
    .SetIsStateful()
    .SetShapeFn(EmptyShape)
    .Doc("A tensor of shape `shape`; zeros when `init`, else unspecified.");

namespace ops {

Output Snapshot(const Scope& scope, Input input) {
  return FirstOutputOf(OpBuilder(scope, "Snapshot").Input(input).Finalize());
}

Output EnsureShape(const Scope& scope, Input input, const TensorShape& shape) {
  return FirstOutputOf(OpBuilder(scope, "EnsureShape")
                           .Input(input)
                           .Attr("shape", shape)
                           .Finalize());
}

Output Empty(const Scope& scope, Input shape, DataType dtype, bool init) {
  return FirstOutputOf(OpBuilder(scope, "Empty")
                           .Input(shape)
                           .Attr("dtype", dtype)
                           .Attr("init", init)
                           .Finalize());
}

}  // namespace ops
}  // namespace dflow
