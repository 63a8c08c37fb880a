// Schema and wrapper of CheckNumerics (TensorFlow 2.21's array_ops.cc
// OpDef): stateful, so it is neither folded nor merged with another check
// of the same tensor. Kernel: kernels/cpu/check_ops_numerics.cc.
#include <string>

#include "graph/op_registry.h"
#include "graph/ops/check_ops.h"
#include "graph/shape_inference.h"

namespace dflow {
namespace {

DFLOW_REGISTER_OP("CheckNumerics")
    .Input("tensor: T")
    .Output("output: T")
    .Attr("T: {bfloat16, half, float, double}")
    .Attr("message: string")
    .SetIsStateful()
    .SetShapeFn(shape_fns::UnchangedShape)
    .Doc("tensor, or an error naming `message` if it has NaN or Inf values.");

DFLOW_REGISTER_OP("CheckNumericsV2")
    .Input("tensor: T")
    .Output("output: T")
    .Attr("T: {bfloat16, half, float, double}")
    .Attr("message: string")
    .SetIsStateful()
    .SetShapeFn(shape_fns::UnchangedShape)
    .Doc("CheckNumerics telling -Inf from +Inf in its error.");

}  // namespace

namespace ops {

Output CheckNumericsV2(const Scope& scope, Input tensor,
                       const std::string& message) {
  Operation op = OpBuilder(scope, "CheckNumericsV2")
                     .Input(tensor)
                     .Attr("message", message)
                     .Finalize();
  return op.valid() ? op.output(0) : Output();
}

Output CheckNumerics(const Scope& scope, Input tensor,
                     const std::string& message) {
  Operation op = OpBuilder(scope, "CheckNumerics")
                     .Input(tensor)
                     .Attr("message", message)
                     .Finalize();
  return op.valid() ? op.output(0) : Output();
}

}  // namespace ops
}  // namespace dflow
