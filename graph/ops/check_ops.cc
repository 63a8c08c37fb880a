// Schema and wrapper of Assert (TensorFlow 2.21's logging_ops.cc OpDef).
#include "graph/ops/check_ops.h"

#include "absl/status/status.h"
#include "graph/graph.h"
#include "graph/op_registry.h"
#include "graph/shape_inference.h"
#include "graph/tensor_shape.h"

namespace dflow {
namespace {

absl::Status AssertShape(InferenceContext* c) {
  TensorShape unused;
  return c->WithRank(c->input(0), 0, "input 'condition'", &unused);
}

DFLOW_REGISTER_OP("Assert")
    .Input("condition: bool")
    .Input("data: T")
    .Attr("T: list(type) >= 1")
    .Attr("summarize: int = 3")
    .SetIsStateful()
    .SetShapeFn(AssertShape)
    .Doc("Fails the step with the summaries of data if condition is false.");

}  // namespace

namespace ops {

Operation Assert(const Scope& scope, Input condition,
                 absl::Span<const Output> data, const AssertAttrs& attrs) {
  return OpBuilder(scope, "Assert")
      .Input(condition)
      .InputList(data)
      .Attr("summarize", attrs.summarize)
      .Finalize();
}

}  // namespace ops
}  // namespace dflow
