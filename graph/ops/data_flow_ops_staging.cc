// Schemas of TensorFlow's staging area ops (core/ops/data_flow_ops.cc), with
// TensorFlow 2.21's OpDefs: tf.compat.v1's data_flow_ops.StagingArea, which
// multi-GPU input pipelines (tf_cnn_benchmarks) use to stage the next batch
// beside the device while the current one trains. The ops take no handle:
// every op of one area names it by container/shared_name, and the area
// lives in the session's resource store
// (kernels/cpu/data_flow_ops_staging.cc has the kernels).
#include "graph/op_registry.h"
#include "graph/shape_inference.h"

namespace dflow {
namespace {

absl::Status NoOutputs(InferenceContext*) { return absl::OkStatus(); }

// What Unstage and StagePeek return depends on what was staged: unknown.
absl::Status UnknownOutputs(InferenceContext* c) {
  for (int i = 0; i < c->num_outputs(); ++i)
    c->set_output(i, TensorShape::Unknown());
  return absl::OkStatus();
}

absl::Status ScalarOutput(InferenceContext* c) {
  c->set_output(0, TensorShape({}));
  return absl::OkStatus();
}

// The attrs every op of an area carries (TensorFlow's Python sets them all
// alike); `dtypes` may be empty on StageSize and StageClear.
#define DFLOW_STAGING_AREA_ATTRS(dtypes_attr)     \
  Attr("capacity: int >= 0 = 0")                  \
      .Attr("memory_limit: int >= 0 = 0")         \
      .Attr(dtypes_attr)                          \
      .Attr("container: string = ''")             \
      .Attr("shared_name: string = ''")

DFLOW_REGISTER_OP("Stage")
    .Input("values: dtypes")
    .DFLOW_STAGING_AREA_ATTRS("dtypes: list(type) >= 1")
    .SetIsStateful()
    .SetShapeFn(NoOutputs)
    .Doc(
        "Appends the values, as one element, to the staging area named by "
        "container/shared_name; waits while it holds `capacity` elements "
        "or `memory_limit` bytes (0: no limit).");

DFLOW_REGISTER_OP("Unstage")
    .Output("values: dtypes")
    .DFLOW_STAGING_AREA_ATTRS("dtypes: list(type) >= 1")
    .SetIsStateful()
    .SetShapeFn(UnknownOutputs)
    .Doc(
        "Removes and returns the staging area's oldest element; waits while "
        "it is empty.");

DFLOW_REGISTER_OP("StagePeek")
    .Input("index: int32")
    .Output("values: dtypes")
    .DFLOW_STAGING_AREA_ATTRS("dtypes: list(type) >= 1")
    .SetIsStateful()
    .SetShapeFn(UnknownOutputs)
    .Doc(
        "Returns the staging area's element at `index` (0: the oldest) "
        "without removing it; waits until the area holds that many.");

DFLOW_REGISTER_OP("StageSize")
    .Output("size: int32")
    .DFLOW_STAGING_AREA_ATTRS("dtypes: list(type)")
    .SetIsStateful()
    .SetShapeFn(ScalarOutput)
    .Doc("The number of elements in the staging area.");

DFLOW_REGISTER_OP("StageClear")
    .DFLOW_STAGING_AREA_ATTRS("dtypes: list(type)")
    .SetIsStateful()
    .SetShapeFn(NoOutputs)
    .Doc("Removes every element of the staging area.");

#undef DFLOW_STAGING_AREA_ATTRS

}  // namespace
}  // namespace dflow
