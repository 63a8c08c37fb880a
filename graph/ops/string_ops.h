// String ops: StaticRegexFullMatch (TensorFlow's string_ops.cc), which
// TensorFlow's Saver writes to tell "s3://" paths apart.
#ifndef DFLOW_GRAPH_OPS_STRING_OPS_H_
#define DFLOW_GRAPH_OPS_STRING_OPS_H_

#include "absl/strings/string_view.h"
#include "graph/scope.h"

namespace dflow {
namespace ops {

// Whether each string of `input` matches `pattern` as a whole (RE2 syntax
// and full-match semantics, as in TensorFlow).
Output StaticRegexFullMatch(const Scope& scope, Input input,
                            absl::string_view pattern);

}  // namespace ops
}  // namespace dflow

#endif  // DFLOW_GRAPH_OPS_STRING_OPS_H_
