// Run-time checks: Assert, which fails the step with InvalidArgument
// ("assertion failed: [...]", TensorFlow's message with summaries of
// `data`) when its condition is false. Stateful, so it is never pruned
// away as a duplicate or folded; make the checked values depend on it with
// control dependencies, as TensorFlow's tf.debugging.assert_* do.
#ifndef DFLOW_GRAPH_OPS_CHECK_OPS_H_
#define DFLOW_GRAPH_OPS_CHECK_OPS_H_

#include <cstdint>

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

}  // namespace ops
}  // namespace dflow

#endif  // DFLOW_GRAPH_OPS_CHECK_OPS_H_
