// Copying a FunctionDef's body from the graph's library into the graph: what
// the lowerings of functional control flow (compiler/lower_functional_if.h,
// compiler/lower_functional_while.h) share. A call's arguments become edges
// from nodes the caller chose (Switch outputs, a loop's Identities), its
// returns the outputs the caller wires on; `node:out_arg:k` references,
// function attrs (`$T` placeholders) and nested calls (PartitionedCall, and
// direct calls whose op is a function's name) are resolved here, so each
// lowering only builds its own control structure around the body.
#ifndef DFLOW_COMPILER_FUNCTION_INLINING_H_
#define DFLOW_COMPILER_FUNCTION_INLINING_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "graph/graph.h"

namespace dflow {

// The library's functions by name (pointers into the library, which must
// outlive the map and not change while it is used).
using FunctionMap = absl::flat_hash_map<std::string, const FunctionDef*>;
FunctionMap LibraryFunctions(const FunctionDefLibrary& library);

// Fails when `name` is missing from `functions` (NotFound) or reaches itself
// through the functions its body calls (InvalidArgument): a recursive body
// would be copied forever. `label` names the calling node ("node 'w'
// (While)") at the start of the message.
absl::Status CheckCallable(absl::string_view label, const std::string& name,
                           const FunctionMap& functions);

// A graph output: (node, output index).
using OutputRef = std::pair<Node*, int>;

// Adds `def` under its name, or with a `_<k>` suffix when the name is taken,
// with data inputs `inputs` in order. `where` prefixes errors ("lowering
// node 'c' (If)").
absl::StatusOr<Node*> AddNodeWithUniqueName(
    Graph* graph, NodeDef def, const std::vector<OutputRef>& inputs,
    absl::string_view where);

// A call node's edges, taken before the lowering removes it: its data
// inputs in order, the nodes it waits for, and every out-edge (control
// edges with dst_input kControlSlot) for rewiring onto what replaces it.
struct CallEdges {
  struct Out {
    Node* dst;
    int dst_input;
    int src_output;
  };
  std::vector<OutputRef> inputs;
  std::vector<Node*> control_inputs;
  std::vector<Out> outs;
};
// Fails (FailedPrecondition) when a data input is not connected; `label`
// names the call in the message.
absl::StatusOr<CallEdges> EdgesOfCall(const Node* call,
                                      absl::string_view label);

// Removes `call` and adds in its place, under its name and on its device,
// an IdentityN of `outputs` (a NoOp when there are none) that also waits
// for `wait_for`; the call's consumers (`edges.outs`, taken before) read it
// instead. What every lowering of a call ends with: a fetch or target of
// the call's name still finds what it returned.
absl::StatusOr<Node*> ReplaceCall(Graph* graph, Node* call,
                                  const CallEdges& edges,
                                  const std::vector<OutputRef>& outputs,
                                  const std::vector<Node*>& wait_for,
                                  absl::string_view where);

struct InstantiatedFunction {
  std::vector<OutputRef> outputs;  // in the signature's output order
  std::vector<Node*> nodes;        // every node copied from the body
};

// Copies the body of `func` (which must be in `functions`) into `graph`,
// each node named `<prefix>/<body node name>` and, without a device of its
// own, on `device`. Argument i is read from `args[i]`; nodes without any
// input get a control edge from `pivot`, so they run where the call runs
// (in its branch, in its loop frame) rather than in the root frame.
// `label` names the calling node in errors.
// Calls in the body (PartitionedCall, StatefulPartitionedCall) are
// inlined too (InlineFunctionCall), so `nodes` holds no call.
absl::StatusOr<InstantiatedFunction> InstantiateFunction(
    Graph* graph, const FunctionMap& functions, const NameAttrList& func,
    const std::vector<OutputRef>& args, Node* pivot, absl::string_view prefix,
    absl::string_view device, absl::string_view label);

// Replaces `call` (a PartitionedCall or StatefulPartitionedCall) by the body
// of its function `f`: a NoOp `<call>/input_control_node` waits for the
// call's inputs and control inputs (the body's input-free nodes wait for
// it, so they run where the call would: in its branch, in its frame), and
// an IdentityN of the body's outputs takes the call's name (a NoOp when it
// returns nothing); it waits for every body node, so whoever waited for
// the call still waits for all of its side effects. `nodes` are the nodes
// added; `result` is the one named as the call.
struct InlinedCall {
  std::vector<Node*> nodes;
  Node* result = nullptr;
};
absl::StatusOr<InlinedCall> InlineFunctionCall(Graph* graph,
                                               const FunctionMap& functions,
                                               Node* call);

}  // namespace dflow

#endif  // DFLOW_COMPILER_FUNCTION_INLINING_H_
