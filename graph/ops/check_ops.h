// Run-time checks: CheckNumerics (tf.debugging.check_numerics), and Assert,
// which fails the step with InvalidArgument ("assertion failed: [...]",
// TensorFlow's message with summaries of `data`) when its condition is
// false. Both are stateful, so neither is pruned away as a duplicate or
// folded; make the checked values depend on an Assert with control
// dependencies, as TensorFlow's tf.debugging.assert_* do.
#ifndef DFLOW_GRAPH_OPS_CHECK_OPS_H_
#define DFLOW_GRAPH_OPS_CHECK_OPS_H_

#include <cstdint>
#include <string>

#include "absl/types/span.h"
#include "graph/scope.h"

namespace dflow {
namespace ops {

struct AssertAttrs {
  // How many leading elements of each data tensor the message shows.
  int64_t summarize = 3;
  AssertAttrs& Summarize(int64_t v) {
    summarize = v;
    return *this;
  }
};
Operation Assert(const Scope& scope, Input condition,
                 absl::Span<const Output> data, const AssertAttrs& attrs = {});

// `tensor` itself, after checking that it holds no NaN or infinity; else
// the step fails with InvalidArgument "<message> : Tensor had NaN values"
// (or Inf, or Inf and NaN), TensorFlow's words (check_ops_numerics.cc).
Output CheckNumerics(const Scope& scope, Input tensor,
                     const std::string& message);
// CheckNumerics whose error names -Inf and +Inf apart
// (tf.debugging.enable_check_numerics's op).
Output CheckNumericsV2(const Scope& scope, Input tensor,
                       const std::string& message);

}  // namespace ops
}  // namespace dflow

#endif  // DFLOW_GRAPH_OPS_CHECK_OPS_H_
