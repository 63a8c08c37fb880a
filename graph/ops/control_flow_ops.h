// Control-flow ops, with TensorFlow 2.21's names and OpDefs: the TF1
// primitives the executor runs with dead tensors (Switch, RefSwitch, Merge,
// RefMerge; see runtime/executor.h) and the functional conditionals
// (If, StatelessIf), which compiler/lower_functional_if.h lowers into the
// primitives before placement; the loop primitives (Enter, Exit,
// NextIteration, LoopCond; frames in runtime/executor_frames.cc) and the
// functional loops (While, StatelessWhile), which
// compiler/lower_functional_while.h lowers into them.
#ifndef DFLOW_GRAPH_OPS_CONTROL_FLOW_OPS_H_
#define DFLOW_GRAPH_OPS_CONTROL_FLOW_OPS_H_

#include "absl/strings/string_view.h"

namespace dflow {

class Graph;

// Ops whose output may be dead while the node itself ran (one of a
// Switch's two outputs is).
inline bool IsSwitchOp(absl::string_view op) {
  return op == "Switch" || op == "RefSwitch" || op == "_SwitchN";
}
// Ops that run with dead inputs, forwarding their first live one.
inline bool IsMergeOp(absl::string_view op) {
  return op == "Merge" || op == "RefMerge";
}
// Functional conditionals (lowered by compiler/lower_functional_if.h).
inline bool IsFunctionalIfOp(absl::string_view op) {
  return op == "If" || op == "StatelessIf";
}
// Functional switches (lowered by compiler/lower_functional_case.h).
inline bool IsFunctionalCaseOp(absl::string_view op) {
  return op == "Case" || op == "StatelessCase";
}
// Functional loops (lowered by compiler/lower_functional_while.h).
inline bool IsFunctionalWhileOp(absl::string_view op) {
  return op == "While" || op == "StatelessWhile";
}
// Calls of a library function (inlined by compiler/inline_function_calls.h).
inline bool IsFunctionCallOp(absl::string_view op) {
  return op == "PartitionedCall" || op == "StatefulPartitionedCall";
}
// The loop primitives (runtime/executor_frames.cc gives them meaning).
inline bool IsEnterOp(absl::string_view op) {
  return op == "Enter" || op == "RefEnter";
}
inline bool IsExitOp(absl::string_view op) {
  return op == "Exit" || op == "RefExit";
}
inline bool IsNextIterationOp(absl::string_view op) {
  return op == "NextIteration" || op == "RefNextIteration";
}
// TensorFlow's loop primitives and ControlTrigger: passes must not treat
// them as values.
inline bool IsLoopOrTriggerOp(absl::string_view op) {
  return op == "Enter" || op == "RefEnter" || op == "Exit" || op == "RefExit" ||
         op == "NextIteration" || op == "RefNextIteration" ||
         op == "LoopCond" || op == "ControlTrigger";
}
// Any op whose meaning depends on deadness: passes that evaluate, move or
// remove nodes (constant folding, fusion) leave these alone.
inline bool IsControlFlowOp(absl::string_view op) {
  return IsSwitchOp(op) || IsMergeOp(op) || IsFunctionalIfOp(op) ||
         IsFunctionalCaseOp(op) || IsFunctionalWhileOp(op) ||
         IsLoopOrTriggerOp(op);
}

// Whether `graph` has a loop (an Enter): such graphs run on the executor's
// frames and skip the passes that do not know frames.
bool GraphHasLoops(const Graph& graph);

}  // namespace dflow

#endif  // DFLOW_GRAPH_OPS_CONTROL_FLOW_OPS_H_
