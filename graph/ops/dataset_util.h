// What the tf.data op files (dataset_ops*.cc) share: the attrs every
// dataset op carries, their shape functions and builder glue. Not a
// family: it registers no op, and only this package uses it.
#ifndef DFLOW_GRAPH_OPS_DATASET_UTIL_H_
#define DFLOW_GRAPH_OPS_DATASET_UTIL_H_

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "graph/ops/dataset_ops.h"
#include "graph/scope.h"
#include "graph/shape_inference.h"
#include "proto/attr_value.pb.h"

// The components of the elements: one dtype and one (possibly partial)
// shape each. For OpDefBuilder chains: `.DFLOW_DATASET_ELEMENT_ATTRS`.
#define DFLOW_DATASET_ELEMENT_ATTRS        \
  Attr("output_types: list(type) >= 1") \
      .Attr("output_shapes: list(shape) >= 1")

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
