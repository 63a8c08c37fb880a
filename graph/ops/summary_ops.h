// Summary ops, with TensorFlow's names and OpDefs (core/ops/logging_ops.cc):
// each outputs a serialized Summary proto (proto/summary.proto) as a
// DT_STRING scalar, for an event-file writer and TensorBoard.
#ifndef DFLOW_GRAPH_OPS_SUMMARY_OPS_H_
#define DFLOW_GRAPH_OPS_SUMMARY_OPS_H_

#include "graph/scope.h"

namespace dflow {
namespace ops {

// One simple_value per element: `tags` and `values` have one shape (or are
// both scalars).
Output ScalarSummary(const Scope& scope, Input tags, Input values);
// A histogram of every element of `values` (TensorFlow's default buckets)
// under the scalar string `tag`.
Output HistogramSummary(const Scope& scope, Input tag, Input values);
// The values of every input Summary in one; a tag seen twice is an error.
Output MergeSummary(const Scope& scope, InputList inputs);

}  // namespace ops
}  // namespace dflow

#endif  // DFLOW_GRAPH_OPS_SUMMARY_OPS_H_
