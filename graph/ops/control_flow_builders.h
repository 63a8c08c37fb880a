// Conditionals and loops in the C++ builder API, built from TensorFlow's
// TF1 control-flow primitives (Switch, Merge, Enter, Exit, NextIteration,
// LoopCond), which the executor runs with dead tensors and frames
// (runtime/executor.h), as tf.cond and tf.while_loop build them with
// control flow v1.
//
//   // y = x > 0 ? x * w : -x
//   auto y = ops::Cond(
//       root, ops::Greater(root, x, 0.0f),
//       [&](const Scope& s) -> BranchResult { return {{ops::Mul(s, x, w)}}; },
//       [&](const Scope& s) -> BranchResult { return {{ops::Neg(s, x)}}; });
//
//   // for (i = 0, h = h0; i < 20; ++i) h = tanh(h W + x[i])
//   auto out = ops::WhileLoop(
//       root, {zero, h0},
//       [&](const Scope& s, const std::vector<Output>& v) -> CondResult {
//         return ops::Less(s, v[0], 20);
//       },
//       [&](const Scope& s, const std::vector<Output>& v) -> BranchResult {
//         return {{ops::Add(s, v[0], 1), Step(s, v[0], v[1])}};
//       });
//
// The functions build the branches and the loop's condition and body; they
// may read any tensor built before the Cond or WhileLoop ("captures"):
// the builder routes each such read through a Switch on the predicate (a
// conditional's branch runs only when taken) or an Enter into the loop's
// frame (is_constant: the same value every iteration), and gives every op
// the functions build without inputs (a Const) a control input from the
// branch's or the iteration's pivot, so that it belongs there. Conditionals
// and loops nest.
//
// Shapes: a loop variable keeps its initial shape unless
// WhileLoopOptions::shape_invariants relaxes it; a body that changes it is
// an error naming the variable (TensorFlow's rule).
//
// Gradients (AddSymbolicGradients) flow through both: a conditional's
// Switch and Merge have gradient functions; a loop is differentiated as a
// whole (graph/gradients/while_loop_grad.h), from the records kept here.
#ifndef DFLOW_GRAPH_OPS_CONTROL_FLOW_BUILDERS_H_
#define DFLOW_GRAPH_OPS_CONTROL_FLOW_BUILDERS_H_

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "graph/scope.h"
#include "graph/tensor_shape.h"

namespace dflow {

// What a branch or a loop body builds: its outputs.
using BranchResult = absl::StatusOr<std::vector<Output>>;
// What a loop condition builds: a bool scalar.
using CondResult = absl::StatusOr<Output>;

namespace ops {

using BranchFn = std::function<BranchResult(const Scope&)>;
using LoopCondFn =
    std::function<CondResult(const Scope&, const std::vector<Output>&)>;
using LoopBodyFn =
    std::function<BranchResult(const Scope&, const std::vector<Output>&)>;

// pred ? then_fn() : else_fn(), with only the taken branch running. Both
// branches must return as many outputs, of the same dtypes. The ops are
// named "<scope>/cond/..." ("cond_1", ... for later ones).
BranchResult Cond(const Scope& scope, const Output& pred,
                  const BranchFn& then_fn, const BranchFn& else_fn);

struct WhileLoopOptions {
  // Iterations that may run at once (TensorFlow's parallel_iterations).
  int parallel_iterations = 10;
  // Per loop variable, the shape it may have in any iteration (unknown
  // dimensions where the body changes them); empty: the initial shapes.
  std::vector<TensorShape> shape_invariants;
  // The loop's name scope and frame name ("while" by default).
  std::string name = "while";
};

// vars = inputs; while (cond(vars)) vars = body(vars); returns vars. `body`
// returns one value per variable, of its dtype and (see shape_invariants)
// shape.
BranchResult WhileLoop(const Scope& scope, absl::Span<const Output> inputs,
                       const LoopCondFn& cond, const LoopBodyFn& body,
                       const WhileLoopOptions& options = {});

// What the builders record about what they built, for the gradients.
struct WhileLoopRecord {
  std::string frame;
  int parallel_iterations = 10;
  std::vector<Output> inputs;     // the initial values, outside the loop
  std::vector<Node*> enters;      // each variable's Enter
  std::vector<Output> body_vars;  // each variable as the body read it
  std::vector<Node*> next_iterations;
  std::vector<Output> exits;  // the results, outside the loop
  // Tensors from outside that the condition or body read, and the Enter
  // each came in by.
  std::vector<std::pair<Output, Node*>> captures;
  Node* counter_exit = nullptr;  // how many times the body ran (int32)
  // One stack per variable that the body's values are pushed onto, added
  // when the loop's gradient is first built (empty until then).
  std::vector<Output> stacks;
  LoopCondFn cond;
  LoopBodyFn body;
};

struct ControlFlowRecords {
  std::vector<WhileLoopRecord> loops;
  // Each conditional's Merge (by node id) -> its predicate.
  absl::flat_hash_map<int, Output> merge_predicates;
};

// The records of the graph `scope` builds (created empty on first use).
ControlFlowRecords& RecordsOf(const Scope& scope);

}  // namespace ops
}  // namespace dflow

#endif  // DFLOW_GRAPH_OPS_CONTROL_FLOW_BUILDERS_H_
