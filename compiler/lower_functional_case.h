// Lowering of TensorFlow's functional switches (Case, StatelessCase:
// tf.switch_case) into the primitives the executor runs with dead tensors,
// the way lower_functional_if.h lowers If, with an N-way Switch:
//
// For `n = Case(branch_index, inputs...)` with branches B0..B(N-1):
//   n/switch_index    _SwitchN(branch_index, branch_index): output k is live
//                     when branch k runs (the last for an index out of
//                     range, TensorFlow's default branch); n/pivot_<k> its
//                     Identity outputs, on which input-free nodes of branch
//                     k wait
//   n/input_<i>       _SwitchN(input i, branch_index): output k feeds Bk
//   n/branch_<k>/...  the bodies (calls in them inlined)
//   n/output_<j>      Merge of the branches' outputs j
//   n/branch_executed Merge of the branches' markers, which wait for every
//                     node of their branch (side effects included)
//   n                 IdentityN of the outputs (NoOp without outputs)
// Required: no kernel runs a Case. A branch that is not in the library, or
// that reaches itself, is an error naming the node and the function.
#ifndef DFLOW_COMPILER_LOWER_FUNCTIONAL_CASE_H_
#define DFLOW_COMPILER_LOWER_FUNCTIONAL_CASE_H_

#include "absl/status/statusor.h"
#include "compiler/graph_pass.h"
#include "graph/graph.h"

namespace dflow {

// The "lower_functional_case" pass: changes = Case nodes lowered.
absl::StatusOr<PassResult> LowerFunctionalCase(const PassContext& ctx,
                                               Graph* graph);

}  // namespace dflow

#endif  // DFLOW_COMPILER_LOWER_FUNCTIONAL_CASE_H_
