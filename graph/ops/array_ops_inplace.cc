// Schemas and builder wrappers of the small array ops older graphs and
// tf.raw_ops write (TensorFlow 2.21's array_ops.cc, logging_ops.cc and
// math_ops.cc OpDefs): InplaceAdd / InplaceSub / InplaceUpdate (rows i of x
// plus, minus or replaced by v), ParallelConcat (inputs [1, ...] stacked
// along dimension 0, into the output shape the attr gives), GuaranteeConst
// (an identity that promises its input is constant) and Timestamp (the
// wall time in seconds). Kernels: kernels/cpu/slicing_ops_inplace.cc and
// identity_ops.cc.
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "graph/op_registry.h"
#include "graph/ops/array_ops.h"
#include "graph/ops/shape_fn_util.h"
#include "graph/shape_inference.h"
#include "graph/tensor_shape.h"

namespace dflow {
namespace {

using shape_fn_util::FirstOutput;
using shape_fn_util::InvalidArgument;

absl::Status InplaceShape(InferenceContext* c) {
  c->set_output(0, c->input(0));
  return absl::OkStatus();
}

absl::Status ParallelConcatShape(InferenceContext* c) {
  TensorShape shape;
  DFLOW_RETURN_IF_ERROR(c->GetAttr("shape", &shape));
  int64_t n = 0;
  DFLOW_RETURN_IF_ERROR(c->GetAttr("N", &n));
  for (int i = 0; i < c->num_inputs(); ++i) {
    const TensorShape& in = c->input(i);
    if (in.rank() >= 1 && in.dim(0) >= 0 && in.dim(0) != 1) {
      return InvalidArgument("ParallelConcat's inputs must have size 1 in ",
                             "dimension 0, got input ", i, " of shape ",
                             in.ToString());
    }
  }
  if (shape.unknown_rank()) {
    // The inputs' shape with dimension 0 the number of inputs.
    const TensorShape& in = c->input(0);
    if (in.unknown_rank()) {
      c->set_output(0, TensorShape::Unknown());
      return absl::OkStatus();
    }
    shape = in;
    if (shape.rank() >= 1) shape.set_dim(0, n);
  }
  c->set_output(0, shape);
  return absl::OkStatus();
}

absl::Status ScalarShape(InferenceContext* c) {
  c->set_output(0, TensorShape({}));
  return absl::OkStatus();
}

#define DFLOW_INPLACE_OP(name, doc) \
  DFLOW_REGISTER_OP(name)           \
      .Input("x: T")                \
      .Input("i: int32")            \
      .Input("v: T")                \
      .Output("y: T")               \
      .Attr("T: type")              \
      .SetShapeFn(InplaceShape)     \
      .Doc(doc)

DFLOW_INPLACE_OP("InplaceAdd", "x with v[j] added to row i[j].");
DFLOW_INPLACE_OP("InplaceSub", "x with v[j] subtracted from row i[j].");
DFLOW_INPLACE_OP("InplaceUpdate", "x with row i[j] replaced by v[j].");

#undef DFLOW_INPLACE_OP

DFLOW_REGISTER_OP("ParallelConcat")
    .Input("values: N * T")
    .Output("output: T")
    .Attr("N: int >= 1")
    .Attr("T: type")
    .Attr("shape: shape")
    .SetShapeFn(ParallelConcatShape)
    .Doc("The inputs, each of size 1 in dimension 0, concatenated along it.");

DFLOW_REGISTER_OP("GuaranteeConst")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: type")
    .SetIsStateful()
    .SetShapeFn(InplaceShape)
    .Doc("Its input, which the graph promises is constant.");

DFLOW_REGISTER_OP("Timestamp")
    .Output("ts: double")
    .SetIsStateful()
    .SetShapeFn(ScalarShape)
    .Doc("The wall time in seconds since the Unix epoch.");

}  // namespace

namespace ops {

namespace {
Output Inplace(const Scope& scope, const char* op, Input x, Input i, Input v) {
  return FirstOutput(
      OpBuilder(scope, op).Input(x).Input(i).Input(v).Finalize());
}
}  // namespace

Output InplaceAdd(const Scope& scope, Input x, Input i, Input v) {
  return Inplace(scope, "InplaceAdd", x, i, v);
}
Output InplaceSub(const Scope& scope, Input x, Input i, Input v) {
  return Inplace(scope, "InplaceSub", x, i, v);
}
Output InplaceUpdate(const Scope& scope, Input x, Input i, Input v) {
  return Inplace(scope, "InplaceUpdate", x, i, v);
}

Output ParallelConcat(const Scope& scope, const std::vector<Output>& values,
                      const TensorShape& shape) {
  return FirstOutput(OpBuilder(scope, "ParallelConcat")
                         .InputList(values)
                         .Attr("shape", shape)
                         .Finalize());
}

Output GuaranteeConst(const Scope& scope, Input input) {
  return FirstOutput(OpBuilder(scope, "GuaranteeConst").Input(input).Finalize());
}

Output Timestamp(const Scope& scope) {
  return FirstOutput(OpBuilder(scope, "Timestamp").Finalize());
}

}  // namespace ops
}  // namespace dflow
