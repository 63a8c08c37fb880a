#include "graph/ops/control_flow_ops.h"

#include <vector>

#include "absl/status/status.h"
#include "graph/graph.h"
#include "graph/op_registry.h"
#include "graph/shape_inference.h"
#include "graph/tensor_shape.h"

namespace dflow {
namespace {

// Both outputs carry the data's shape (one of them dead at run time).
absl::Status SwitchShape(InferenceContext* c) {
  for (int i = 0; i < c->num_outputs(); ++i) c->set_output(i, c->input(0));
  return absl::OkStatus();
}

// The output is one of the inputs: the dims they all agree on, unknown
// where they differ (rank unknown when the ranks differ).
absl::Status MergeShape(InferenceContext* c) {
  TensorShape merged = c->input(0);
  for (int i = 1; i < c->num_inputs() && !merged.unknown_rank(); ++i) {
    const TensorShape& s = c->input(i);
    if (s.unknown_rank() || s.rank() != merged.rank()) {
      merged = TensorShape::Unknown();
      break;
    }
    for (int d = 0; d < merged.rank(); ++d) {
      if (merged.dim(d) != s.dim(d))
        merged.set_dim(d, TensorShape::kUnknownDim);
    }
  }
  c->set_output(0, merged);
  c->set_output(1, TensorShape({}));
  return absl::OkStatus();
}

// The output is the input (Enter, Exit, NextIteration): a loop variable's
// shape at the Merge is what the iterations agree on (MergeShape).
absl::Status ForwardShape(InferenceContext* c) {
  c->set_output(0, c->input(0));
  return absl::OkStatus();
}

absl::Status NoOutputs(InferenceContext*) { return absl::OkStatus(); }

// A functional op's outputs as it declares them (`output_shapes`: an If's
// or Case's branch outputs, a While's shape invariants), else unknown (a
// loop iteration may change them).
absl::Status DeclaredShapes(InferenceContext* c) {
  std::vector<TensorShape> shapes;
  if (c->GetAttr("output_shapes", &shapes).ok() &&
      static_cast<int>(shapes.size()) == c->num_outputs()) {
    for (int i = 0; i < c->num_outputs(); ++i) c->set_output(i, shapes[i]);
    return absl::OkStatus();
  }
  for (int i = 0; i < c->num_outputs(); ++i) {
    c->set_output(i, TensorShape::Unknown());
  }
  return absl::OkStatus();
}

}  // namespace

bool GraphHasLoops(const Graph& graph) {
  for (const Node* n : graph.nodes()) {
    if (IsEnterOp(n->op())) return true;
  }
  return false;
}

DFLOW_REGISTER_OP("Switch")
    .Input("data: T")
    .Input("pred: bool")
    .Output("output_false: T")
    .Output("output_true: T")
    .Attr("T: type")
    .SetShapeFn(SwitchShape)
    .Doc(
        "Forwards data to output_true if pred, else to output_false; the "
        "other output is dead.");

DFLOW_REGISTER_OP("RefSwitch")
    .Input("data: Ref(T)")
    .Input("pred: bool")
    .Output("output_false: Ref(T)")
    .Output("output_true: Ref(T)")
    .Attr("T: type")
    .SetAllowsUninitializedInput()
    .SetShapeFn(SwitchShape)
    .Doc("Switch of a reference: forwards the variable itself.");

DFLOW_REGISTER_OP("Merge")
    .Input("inputs: N * T")
    .Output("output: T")
    .Output("value_index: int32")
    .Attr("T: type")
    .Attr("N: int >= 1")
    .SetShapeFn(MergeShape)
    .Doc(
        "Forwards the first live input and its index; dead when all inputs "
        "are.");

DFLOW_REGISTER_OP("RefMerge")
    .Input("inputs: Ref(N * T)")
    .Output("output: Ref(T)")
    .Output("value_index: int32")
    .Attr("T: type")
    .Attr("N: int >= 1")
    .SetShapeFn(MergeShape)
    .Doc("Merge of references.");

// --- Loops (TF1 frames; see runtime/executor_frames.h). ---

DFLOW_REGISTER_OP("Enter")
    .Input("data: T")
    .Output("output: T")
    .Attr("T: type")
    .Attr("frame_name: string")
    .Attr("is_constant: bool = false")
    .Attr("parallel_iterations: int = 10")
    .SetShapeFn(ForwardShape)
    .Doc(
        "Makes data available to the child frame frame_name: to its first "
        "iteration, or to every iteration when is_constant.");

DFLOW_REGISTER_OP("RefEnter")
    .Input("data: Ref(T)")
    .Output("output: Ref(T)")
    .Attr("T: type")
    .Attr("frame_name: string")
    .Attr("is_constant: bool = false")
    .Attr("parallel_iterations: int = 10")
    .SetAllowsUninitializedInput()
    .SetShapeFn(ForwardShape)
    .Doc("Enter of a reference: the variable itself enters the frame.");

DFLOW_REGISTER_OP("Exit")
    .Input("data: T")
    .Output("output: T")
    .Attr("T: type")
    .SetShapeFn(ForwardShape)
    .Doc("Makes data available to the parent frame: a loop's result.");

DFLOW_REGISTER_OP("RefExit")
    .Input("data: Ref(T)")
    .Output("output: Ref(T)")
    .Attr("T: type")
    .SetAllowsUninitializedInput()
    .SetShapeFn(ForwardShape)
    .Doc("Exit of a reference.");

DFLOW_REGISTER_OP("NextIteration")
    .Input("data: T")
    .Output("output: T")
    .Attr("T: type")
    .SetShapeFn(ForwardShape)
    .Doc("Makes data available to the next iteration of the frame.");

DFLOW_REGISTER_OP("RefNextIteration")
    .Input("data: Ref(T)")
    .Output("output: Ref(T)")
    .Attr("T: type")
    .SetAllowsUninitializedInput()
    .SetShapeFn(ForwardShape)
    .Doc("NextIteration of a reference.");

DFLOW_REGISTER_OP("LoopCond")
    .Input("input: bool")
    .Output("output: bool")
    .SetShapeFn(ForwardShape)
    .Doc("The loop's predicate: whether another iteration runs.");

DFLOW_REGISTER_OP("ControlTrigger")
    .SetShapeFn(NoOutputs)
    .Doc(
        "Does nothing; runs even when its control inputs are dead (a sync "
        "point of TensorFlow's loop gradients).");

// Made by compiler/lower_functional_case.h: Case's N-way Switch.
DFLOW_REGISTER_OP("_SwitchN")
    .Input("data: T")
    .Input("output_index: int32")
    .Output("outputs: num_outs * T")
    .Attr("num_outs: int >= 1")
    .Attr("T: type")
    .SetShapeFn(SwitchShape)
    .Doc(
        "Forwards data to outputs[output_index] (the last output when the "
        "index is out of range, as Case runs its last branch); the others "
        "are dead.");

// Made by compiler/lower_functional_if.h for an If whose cond is not a bool
// scalar.
DFLOW_REGISTER_OP("_ToBool")
    .Input("input: T")
    .Output("output: bool")
    .Attr("T: type")
    .SetShapeFn(shape_fns::ScalarShape)
    .Doc(
        "TensorFlow's truth value of a tensor: a scalar is true when "
        "non-zero (a string when non-empty), any other tensor when it has "
        "elements.");

// Functional switches: branches[branch_index](input), the last branch for
// an index out of range. Lowered before placement by the required
// lower_functional_case pass.
DFLOW_REGISTER_OP("Case")
    .Input("branch_index: int32")
    .Input("input: Tin")
    .Output("output: Tout")
    .Attr("Tin: list(type) >= 0")
    .Attr("Tout: list(type) >= 0")
    .Attr("branches: list(func) >= 1")
    .Attr("output_shapes: list(shape) = []")
    .SetIsStateful()
    .SetShapeFn(DeclaredShapes)
    .Doc("branches[branch_index](input); lowered to _SwitchN/Merge.");

DFLOW_REGISTER_OP("StatelessCase")
    .Input("branch_index: int32")
    .Input("input: Tin")
    .Output("output: Tout")
    .Attr("Tin: list(type) >= 0")
    .Attr("Tout: list(type) >= 0")
    .Attr("branches: list(func) >= 1")
    .Attr("output_shapes: list(shape) = []")
    .SetShapeFn(DeclaredShapes)
    .Doc("Case whose branches have no side effects.");

DFLOW_REGISTER_OP("If")
    .Input("cond: Tcond")
    .Input("input: Tin")
    .Output("output: Tout")
    .Attr("Tcond: type")
    .Attr("Tin: list(type) >= 0")
    .Attr("Tout: list(type) >= 0")
    .Attr("then_branch: func")
    .Attr("else_branch: func")
    .Attr("output_shapes: list(shape) = []")
    .SetIsStateful()
    .SetShapeFn(DeclaredShapes)
    .Doc(
        "then_branch(input) if cond else else_branch(input); lowered to "
        "Switch/Merge before placement.");

DFLOW_REGISTER_OP("StatelessIf")
    .Input("cond: Tcond")
    .Input("input: Tin")
    .Output("output: Tout")
    .Attr("Tcond: type")
    .Attr("Tin: list(type) >= 0")
    .Attr("Tout: list(type) >= 0")
    .Attr("then_branch: func")
    .Attr("else_branch: func")
    .Attr("output_shapes: list(shape) = []")
    .SetShapeFn(DeclaredShapes)
    .Doc("If whose branches have no side effects.");

DFLOW_REGISTER_OP("While")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: list(type) >= 0")
    .Attr("cond: func")
    .Attr("body: func")
    .Attr("output_shapes: list(shape) = []")
    .Attr("parallel_iterations: int = 10")
    .SetIsStateful()
    .SetShapeFn(DeclaredShapes)
    .Doc(
        "while cond(vars): vars = body(vars), starting from input; lowered "
        "to Enter/Merge/Switch/Exit/NextIteration before placement.");

DFLOW_REGISTER_OP("StatelessWhile")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: list(type) >= 0")
    .Attr("cond: func")
    .Attr("body: func")
    .Attr("output_shapes: list(shape) = []")
    .Attr("parallel_iterations: int = 10")
    .SetShapeFn(DeclaredShapes)
    .Doc("While whose cond and body have no side effects.");

// A tf.function called from a graph. Never run: the required
// inline_function_calls pass (compiler/inline_function_calls.h) puts the
// body in its place first.
DFLOW_REGISTER_OP("PartitionedCall")
    .Input("args: Tin")
    .Output("output: Tout")
    .Attr("Tin: list(type) >= 0")
    .Attr("Tout: list(type) >= 0")
    .Attr("f: func")
    .Attr("config: string = ''")
    .Attr("config_proto: string = ''")
    .Attr("executor_type: string = ''")
    .SetShapeFn(shape_fns::Unknown)
    .Doc("f(args), inlined before placement.");

DFLOW_REGISTER_OP("StatefulPartitionedCall")
    .Input("args: Tin")
    .Output("output: Tout")
    .Attr("Tin: list(type) >= 0")
    .Attr("Tout: list(type) >= 0")
    .Attr("f: func")
    .Attr("config: string = ''")
    .Attr("config_proto: string = ''")
    .Attr("executor_type: string = ''")
    .SetIsStateful()
    .SetShapeFn(shape_fns::Unknown)
    .Doc(
        "f(args) with side effects, inlined before placement (whoever "
        "waits for the call waits for the whole body).");

}  // namespace dflow
