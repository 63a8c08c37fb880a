// What the tf.data op files (dataset_ops*.cc) share: their shape
// functions and builder glue. Not a family of its own: it registers no op,
// and only the dataset_ops library uses it.
#ifndef DFLOW_GRAPH_OPS_DATASET_UTIL_H_
#define DFLOW_GRAPH_OPS_DATASET_UTIL_H_

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "graph/ops/dataset_ops.h"
#include "graph/scope.h"
#include "graph/shape_inference.h"
#include "proto/attr_value.pb.h"

namespace dflow {
namespace dataset_shape_fns {

// Output 0 (and 1, a deleter, if there is one) is a scalar: a dataset, a
// resource handle, a count.
absl::Status DatasetHandle(InferenceContext* c);
// Outputs are the element's components, shaped as `output_shapes` says.
absl::Status ElementShapes(InferenceContext* c);
// No outputs.
absl::Status NoOutputs(InferenceContext* c);

}  // namespace dataset_shape_fns

namespace dataset_builders {

// output_types and output_shapes from `spec`.
void SetSpec(OpBuilder* b, const ops::ElementSpec& spec);
// A func attr naming a function of the graph's library.
AttrValue Func(absl::string_view name);
// Output 0 of `op`, or an invalid Output when it failed to build.
Output FirstOutput(const Operation& op);
// Every output of `op` (none when it failed to build).
OutputList AllOutputs(const Operation& op);
ops::ResourceAndDeleter TwoOutputs(const Operation& op);

}  // namespace dataset_builders
}  // namespace dflow

#endif  // DFLOW_GRAPH_OPS_DATASET_UTIL_H_
