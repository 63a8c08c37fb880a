// Lowering of TensorFlow's functional conditionals (If, StatelessIf) into
// the TF1 primitives the executor runs with dead tensors: the first pass of
// the device-independent stage, so every later pass, the placer and the
// partitioner see plain nodes, and `--dump_passes` shows the result.
//
// For `n = If(cond, inputs...)` with then_branch T and else_branch E (both
// FunctionDefs in the graph's library):
//   n/pred            the predicate (a _ToBool of cond when cond is not a
//                     bool scalar: non-zero numbers, non-empty strings or
//                     tensors are true, as TensorFlow's If does)
//   n/switch_pred     Switch(pred, pred); n/pivot_t, n/pivot_f its Identity
//                     outputs, on which nodes of a branch without inputs
//                     (its Consts) wait, so they are dead with the branch
//   n/input_<i>       Switch(input i, pred): output 1 feeds T, output 0 E
//   n/then/..., n/else/...  the bodies, instantiated with the function
//                     attrs (`$T` placeholders) of the call
//   n/output_<j>      Merge(T's output j, E's output j)
//   n/branch_executed Merge of the two branches' markers, which wait for
//                     every node of their branch (side effects included)
//   n                 IdentityN of the outputs (NoOp without outputs), so
//                     the call's readers, fetches and targets keep its name
// A body that calls If again is lowered in the next round. A function
// missing from the library, or a function that reaches itself through its
// calls, is an error naming the node and the function.
#ifndef DFLOW_COMPILER_LOWER_FUNCTIONAL_IF_H_
#define DFLOW_COMPILER_LOWER_FUNCTIONAL_IF_H_

#include "absl/status/statusor.h"
#include "compiler/graph_pass.h"
#include "graph/graph.h"

namespace dflow {

// Internal op: TensorFlow's truth value of a tensor as a bool scalar.
inline constexpr char kToBoolOp[] = "_ToBool";

absl::StatusOr<PassResult> LowerFunctionalIf(const PassContext& ctx,
                                             Graph* graph);

}  // namespace dflow

#endif  // DFLOW_COMPILER_LOWER_FUNCTIONAL_IF_H_
