// Test-only ops of the builder tests, registered once per test binary that
// links this file.
#include "absl/status/status.h"
#include "graph/op_registry.h"
#include "graph/shape_inference.h"
#include "tests/graph/test_shape_fns.h"

namespace dflow {
namespace {

using test_shape_fns::ConstShape;
using test_shape_fns::MatMulShape;

absl::Status ReshapeShape(InferenceContext* c) {
  TensorShape out;
  if (auto s = c->ShapeFromShapeTensor(1, &out); !s.ok()) return s;
  c->set_output(0, out);
  return absl::OkStatus();
}

// The builder materializes constants as op "Const" with attrs value/dtype;
// the real array_ops library is not linked into this test, so this binary
// declares its own "Const".
DFLOW_REGISTER_OP("Const")
    .Output("output: dtype")
    .Attr("value: tensor")
    .Attr("dtype: type")
    .SetShapeFn(ConstShape);

DFLOW_REGISTER_OP("TestAdd")
    .Input("a: T")
    .Input("b: T")
    .Output("sum: T")
    .Attr("T: {float, double, int32}")
    .SetShapeFn(shape_fns::BroadcastBinary);

DFLOW_REGISTER_OP("TestMatMul")
    .Input("a: T")
    .Input("b: T")
    .Output("product: T")
    .Attr("transpose_a: bool = false")
    .Attr("transpose_b: bool = false")
    .Attr("T: {float, double}")
    .SetShapeFn(MatMulShape);

DFLOW_REGISTER_OP("TestAddN")
    .Input("inputs: N * T")
    .Output("sum: T")
    .Attr("N: int >= 1")
    .Attr("T: {float, double, int32}")
    .SetShapeFn(shape_fns::AllInputsSameShape);

DFLOW_REGISTER_OP("TestIdentityN")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: list(type)");

DFLOW_REGISTER_OP("TestVar")
    .Output("ref: Ref(dtype)")
    .Attr("dtype: type")
    .SetIsStateful();

DFLOW_REGISTER_OP("TestAssign")
    .Input("ref: Ref(T)")
    .Input("value: T")
    .Output("output_ref: Ref(T)")
    .Attr("T: type");

DFLOW_REGISTER_OP("TestReshape")
    .Input("tensor: T")
    .Input("shape: Tshape")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tshape: {int32, int64} = DT_INT32")
    .SetShapeFn(ReshapeShape);

DFLOW_REGISTER_OP("TestNoOp");

}  // namespace
}  // namespace dflow
