#include "compiler/inline_function_calls.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/function_inlining.h"
#include "graph/ops/control_flow_ops.h"

namespace dflow {

absl::StatusOr<PassResult> InlineFunctionCalls(const PassContext& ctx,
                                               Graph* graph) {
  (void)ctx;
  PassResult result;
  std::vector<Node*> calls;
  for (Node* n : graph->nodes()) {
    if (IsFunctionCallOp(n->op())) calls.push_back(n);
  }
  if (!calls.empty()) {
    const FunctionMap functions = LibraryFunctions(graph->library());
    for (Node* call : calls) {
      absl::StatusOr<InlinedCall> inlined =
          InlineFunctionCall(graph, functions, call);
      if (!inlined.ok()) return inlined.status();
      ++result.changes;
    }
    if (absl::Status s = graph->InferShapes(); !s.ok()) return s;
  }
  result.what = absl::StrCat(result.changes, result.changes == 1
                                                 ? " function call inlined"
                                                 : " function calls inlined");
  return result;
}

}  // namespace dflow
