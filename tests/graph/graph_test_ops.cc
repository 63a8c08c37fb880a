// Test-only ops of the Graph IR tests (graph_test, graph_order_test):
// registered once per test binary that links this file.
#include "graph/op_registry.h"
#include "graph/shape_inference.h"
#include "tests/graph/test_shape_fns.h"

namespace dflow {
namespace {

using test_shape_fns::ConstShape;
using test_shape_fns::MatMulShape;

DFLOW_REGISTER_OP("TestConst")
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

DFLOW_REGISTER_OP("TestIdentity")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: type")
    .SetShapeFn(shape_fns::UnchangedShape);

DFLOW_REGISTER_OP("TestVar")
    .Output("ref: Ref(dtype)")
    .Attr("dtype: type")
    .SetIsStateful();

DFLOW_REGISTER_OP("TestAssign")
    .Input("ref: Ref(T)")
    .Input("value: T")
    .Output("output_ref: Ref(T)")
    .Attr("T: type");

DFLOW_REGISTER_OP("TestSplit")
    .Input("value: T")
    .Output("output: num_split * T")
    .Attr("num_split: int")
    .Attr("T: type");

DFLOW_REGISTER_OP("TestNoOp");

}  // namespace
}  // namespace dflow
