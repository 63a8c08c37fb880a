// The "inline_function_calls" pass: every PartitionedCall and
// StatefulPartitionedCall (a tf.function called from a graph; TensorFlow 2
// writes them into graph-mode GraphDefs) is replaced by its function's body
// from the graph's library, as TensorFlow's own function inlining does
// before placement (compiler/function_inlining.h's InlineFunctionCall:
// what the body returns keeps the call's name, and whoever waited for the
// call waits for the whole body). Calls inside other calls, If branches
// and While bodies are inlined as those bodies are copied. Required: no
// kernel runs a call. A function that calls itself is an error naming the
// chain of calls.
#ifndef DFLOW_COMPILER_INLINE_FUNCTION_CALLS_H_
#define DFLOW_COMPILER_INLINE_FUNCTION_CALLS_H_

#include "absl/status/statusor.h"
#include "compiler/graph_pass.h"
#include "graph/graph.h"

namespace dflow {

// changes = calls inlined; what = "2 function calls inlined".
absl::StatusOr<PassResult> InlineFunctionCalls(const PassContext& ctx,
                                               Graph* graph);

}  // namespace dflow

#endif  // DFLOW_COMPILER_INLINE_FUNCTION_CALLS_H_
