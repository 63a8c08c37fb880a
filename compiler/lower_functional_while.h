// Lowering of TensorFlow's functional loops (While, StatelessWhile) into the
// TF1 frame primitives the executor runs (runtime/executor_frames.cc): a
// required pass of the device-independent stage, right after the If
// lowering, so every later pass, the placer and the partitioner see plain
// nodes, and `--dump_passes` shows the result.
//
// For `w = While(inputs...)` with loop variable types T, cond C and body B
// (FunctionDefs in the graph's library), per loop variable i:
//   w/enter_<i>           Enter(input i), frame_name "w" (the node's name,
//                         unique in the graph), is_constant false,
//                         parallel_iterations of the call
//   w/merge_<i>           Merge(enter_i, next_iteration_i): the back edge
//   w/cond/...            C's body reading the merges; its nodes without
//                         inputs wait for the pivot's merge, so they are in
//                         the frame
//   w/loop_cond           LoopCond(C's output)
//   w/switch_<i>          Switch(merge_i, loop_cond)
//   w/exit_<i>            Exit(switch_i:0): the loop's result i
//   w/identity_<i>        Identity(switch_i:1): B's argument i; the
//                         pivot's (variable 0, or the first that is not
//                         invariant, below) is what B's input-less nodes
//                         wait for
//   w/body/...            B's body
//   w/next_iteration_<i>  NextIteration(B's output i)
//   w                     NoOp after every Exit, for the call's control
//                         outputs and targets; readers of w:i read exit_i
// A loop variable the body returns unchanged (B's output i is its argument
// i, directly or through Identities) is invariant: it gets only
// w/enter_<i> with is_constant true, which C and B read, and the call's
// output i becomes w/output_<i>, an Identity of input i after the loop
// ends (control edge from w).
// The call's control inputs gate every Enter. TensorFlow's StatelessWhile
// passes [loop_counter, maximum_iterations, user vars..., captures...]:
// all plain loop variables here. Bodies may call While or If again: this
// pass lowers both until neither is left (an If in a loop body runs in the
// loop's frame). A function missing from the library, a signature that
// does not match T, a function that reaches itself, or a resource loop
// variable is an error naming the node and the function.
#ifndef DFLOW_COMPILER_LOWER_FUNCTIONAL_WHILE_H_
#define DFLOW_COMPILER_LOWER_FUNCTIONAL_WHILE_H_

#include "absl/status/statusor.h"
#include "compiler/graph_pass.h"
#include "graph/graph.h"

namespace dflow {

absl::StatusOr<PassResult> LowerFunctionalWhile(const PassContext& ctx,
                                                Graph* graph);

}  // namespace dflow

#endif  // DFLOW_COMPILER_LOWER_FUNCTIONAL_WHILE_H_
