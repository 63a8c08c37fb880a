// Schemas, shape functions and builder wrappers of the summary ops, as in
// TensorFlow's `core/ops/logging_ops.cc`. Not stateful (TensorFlow's are
// not): two identical summaries of one value may be merged.
#include "graph/ops/summary_ops.h"

#include "graph/op_registry.h"
#include "graph/ops/shape_fn_util.h"
#include "graph/shape_inference.h"

namespace dflow {
namespace {

DFLOW_REGISTER_OP("ScalarSummary")
    .Input("tags: string")
    .Input("values: T")
    .Output("summary: string")
    .Attr("T: realnumbertype")
    .SetShapeFn(shape_fns::ScalarShape)
    .Doc("A Summary with one simple_value per element of values.");

DFLOW_REGISTER_OP("HistogramSummary")
    .Input("tag: string")
    .Input("values: T")
    .Output("summary: string")
    .Attr("T: realnumbertype = DT_FLOAT")
    .SetShapeFn(shape_fns::ScalarShape)
    .Doc("A Summary with a histogram of values.");

DFLOW_REGISTER_OP("MergeSummary")
    .Input("inputs: N * string")
    .Output("summary: string")
    .Attr("N: int >= 1")
    .SetShapeFn(shape_fns::ScalarShape)
    .Doc("The union of the values of serialized Summary protos.");

}  // namespace

namespace ops {

Output ScalarSummary(const Scope& scope, Input tags, Input values) {
  return shape_fn_util::FirstOutput(
      OpBuilder(scope, "ScalarSummary").Input(tags).Input(values).Finalize());
}

Output HistogramSummary(const Scope& scope, Input tag, Input values) {
  return shape_fn_util::FirstOutput(
      OpBuilder(scope, "HistogramSummary").Input(tag).Input(values).Finalize());
}

Output MergeSummary(const Scope& scope, InputList inputs) {
  return shape_fn_util::FirstOutput(
      OpBuilder(scope, "MergeSummary").InputList(inputs).Finalize());
}

}  // namespace ops
}  // namespace dflow
