#include "graph/gradients/while_loop_grad.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/ops/array_ops.h"
#include "graph/ops/math_ops.h"
#include "graph/ops/state_ops.h"
#include "graph/types.h"

namespace dflow {
namespace {

// Types whose values carry a gradient (resources: through the values read).
bool Differentiable(DataType type) {
  const DataType base = BaseType(type);
  return IsFloatingType(base) || IsComplexType(base);
}

// Adds the stacks and the pushes of every variable to the forward loop.
absl::Status AddPushes(const Scope& scope, ops::WhileLoopRecord& record) {
  if (!record.stacks.empty()) return absl::OkStatus();
  Graph* graph = scope.graph();
  const Scope stacks = scope.NewSubScope("stacks").WithNoControlDependencies();
  for (size_t i = 0; i < record.body_vars.size(); ++i) {
    const Output& var = record.body_vars[i];
    const Output stack =
        OpBuilder(stacks, "StackV2")
            .Input(-1)
            .Attr("elem_type", BaseType(var.dtype()))
            .Attr("stack_name", absl::StrCat(record.frame, "/var_", i))
            .Finalize();
    // Into the forward frame, beside the body's ops.
    const Scope inside = scope.WithNoControlDependencies().WithExactDevice(
        var.node()->requested_device());
    const Output entered =
        OpBuilder(inside, "Enter")
            .Input(stack)
            .Attr("frame_name", record.frame)
            .Attr("is_constant", true)
            .Attr("parallel_iterations",
                  static_cast<int64_t>(record.parallel_iterations))
            .Finalize();
    const Operation push =
        OpBuilder(inside, "StackPushV2").Input(entered).Input(var).Finalize();
    if (!scope.ok()) return scope.status();
    for (Node* next : record.next_iterations) {
      graph->AddControlEdge(push.node(), next);
    }
    record.stacks.push_back(stack);
  }
  return absl::OkStatus();
}

// Zeros shaped like `x`; for a variable's handle, like its value.
Output ZerosFor(const Scope& scope, const Output& x) {
  if (BaseType(x.dtype()) != DT_RESOURCE) return ops::ZerosLike(scope, x);
  DataType dtype = DT_INVALID;
  if (!x.node()->GetAttr("dtype", &dtype).ok()) {
    scope.UpdateStatus(absl::InvalidArgumentError(absl::StrCat(
        "the gradient of a loop that reads resource '", x.name(),
        "': its producer has no dtype attr; read the variable before the "
        "loop")));
    return Output();
  }
  return ops::ZerosLike(scope, ops::ReadVariableOp(scope, x, dtype));
}

bool CarriesLoopGradient(const Output& x) {
  return Differentiable(x.dtype()) || BaseType(x.dtype()) == DT_RESOURCE;
}

}  // namespace

absl::StatusOr<WhileLoopGradients> BuildWhileLoopGradient(
    const Scope& scope, ops::WhileLoopRecord& record,
    absl::Span<const Output> grad_exits, const GradientOptions& options) {
  if (!scope.ok()) return scope.status();
  if (absl::Status s = AddPushes(scope, record); !s.ok()) return s;
  const Scope grad = scope.NewSubScope("while_grad");
  const int num_vars = static_cast<int>(record.body_vars.size());
  // The variables and captures a gradient flows to.
  std::vector<int> vars, captures;
  for (int i = 0; i < num_vars; ++i) {
    if (Differentiable(record.body_vars[i].dtype())) vars.push_back(i);
  }
  for (int c = 0; c < static_cast<int>(record.captures.size()); ++c) {
    if (CarriesLoopGradient(record.captures[c].first)) captures.push_back(c);
  }
  WhileLoopGradients result;
  result.inputs.resize(num_vars);
  result.captures.resize(record.captures.size());
  if (vars.empty()) return result;

  // Loop variables: the iterations left, each variable's gradient, each
  // capture's running sum.
  std::vector<Output> init = {Output(record.counter_exit, 0)};
  for (int i : vars) {
    init.push_back(grad_exits[i].valid()
                       ? grad_exits[i]
                       : ops::ZerosLike(grad, record.exits[i]));
  }
  for (int c : captures)
    init.push_back(ZerosFor(grad, record.captures[c].first));
  if (!grad.ok()) return grad.status();

  const ops::WhileLoopRecord forward = record;  // the body may add loops
  auto cond = [](const Scope& s, const std::vector<Output>& v) -> CondResult {
    return ops::Greater(s, v[0], 0);
  };
  auto body = [&](const Scope& s,
                  const std::vector<Output>& v) -> BranchResult {
    std::vector<Output> xs;
    std::vector<Operation> pops;
    for (int i = 0; i < num_vars; ++i) {
      // The control input: an iteration's pops wait for its count, which
      // comes from the forward loop's end (the stack handle alone is there
      // as soon as the frame starts).
      const Operation pop =
          OpBuilder(s, "StackPopV2")
              .Input(forward.stacks[i])
              .ControlInput(v[0].op())
              .Attr("elem_type", BaseType(forward.body_vars[i].dtype()))
              .Finalize();
      if (!pop.valid()) return s.status();
      // The stack holds what the body read: its shape.
      pop.node()->set_output_shapes({forward.body_vars[i].shape()});
      xs.push_back(pop.output(0));
      pops.push_back(pop);
    }
    BranchResult ys = forward.body(s.NewSubScope("recompute"), xs);
    if (!ys.ok()) return ys.status();
    std::vector<Output> ys_f, grad_ys, wrt;
    for (size_t j = 0; j < vars.size(); ++j) {
      ys_f.push_back((*ys)[vars[j]]);
      grad_ys.push_back(v[1 + j]);
      wrt.push_back(xs[vars[j]]);
    }
    for (int c : captures) wrt.push_back(forward.captures[c].first);
    GradientOptions inner = options;
    inner.unconnected = GradientOptions::Unconnected::kZeros;
    absl::StatusOr<std::vector<Output>> dx =
        AddSymbolicGradients(s, ys_f, wrt, grad_ys, inner);
    if (!dx.ok()) return dx.status();
    // The next iteration starts after this one's pops: each iteration pops
    // its own values, in order.
    std::vector<Output> next = {
        ops::Sub(s.WithControlDependencies(pops), v[0], 1)};
    for (size_t j = 0; j < vars.size(); ++j) next.push_back((*dx)[j]);
    for (size_t j = 0; j < captures.size(); ++j) {
      next.push_back(
          ops::Add(s, v[1 + vars.size() + j], (*dx)[vars.size() + j]));
    }
    return next;
  };
  ops::WhileLoopOptions loop_options;
  loop_options.parallel_iterations = record.parallel_iterations;
  loop_options.name = "loop";
  BranchResult out = ops::WhileLoop(grad, init, cond, body, loop_options);
  if (!out.ok()) return out.status();
  for (size_t j = 0; j < vars.size(); ++j) {
    result.inputs[vars[j]] = (*out)[1 + j];
  }
  for (size_t j = 0; j < captures.size(); ++j) {
    result.captures[captures[j]] = (*out)[1 + vars.size() + j];
  }
  return result;
}

}  // namespace dflow
