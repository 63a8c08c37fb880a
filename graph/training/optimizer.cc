#include "graph/training/optimizer.h"

#include "absl/strings/str_cat.h"
#include "graph/ops/ops.h"
#include "graph/training/variables.h"

namespace dflow {
namespace train {

absl::StatusOr<std::vector<GradAndVar>> Optimizer::ComputeGradients(
    const Scope& scope, const Output& loss, const std::vector<Output>& var_list,
    GradientOptions options) const {
  const std::vector<Output> vars =
      var_list.empty() ? TrainableVariables(scope) : var_list;
  if (vars.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        name_, ".ComputeGradients: no variables to optimize; make them with "
               "train::NewVariable (trainable) or pass var_list"));
  }
  options.unconnected = GradientOptions::Unconnected::kNone;
  if (options.gate_gradients == GradientOptions::Gate::kDefault) {
    options.gate_gradients = GradientOptions::Gate::kOp;  // TensorFlow's
  }
  absl::StatusOr<std::vector<Output>> grads =
      AddSymbolicGradients(scope, {loss}, vars, {}, options);
  if (!grads.ok()) return grads.status();
  std::vector<GradAndVar> result;
  for (size_t i = 0; i < vars.size(); ++i) {
    result.push_back({(*grads)[i], vars[i]});
  }
  return result;
}

absl::StatusOr<Operation> Optimizer::ApplyGradients(
    const Scope& scope, const std::vector<GradAndVar>& grads_and_vars,
    const Output& global_step) {
  if (!scope.ok()) return scope.status();
  std::vector<Output> vars;
  for (size_t i = 0; i < grads_and_vars.size(); ++i) {
    const GradAndVar& gv = grads_and_vars[i];
    if (!gv.var.valid()) {
      return absl::InvalidArgumentError(absl::StrCat(
          name_, ".ApplyGradients: variable ", i, " is invalid"));
    }
    if (gv.grad.valid()) vars.push_back(gv.var);
  }
  if (vars.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        name_,
        ".ApplyGradients: no variable has a gradient; does the loss depend on "
        "the variables?"));
  }
  const Scope s = scope.NewSubScope(name_);
  if (absl::Status st = Prepare(s, vars); !st.ok()) return st;
  std::vector<Operation> updates;
  for (const GradAndVar& gv : grads_and_vars) {
    if (!gv.grad.valid()) continue;
    const Node* var = gv.var.node();
    const Scope at_var = s.WithNameScopePath(absl::StrCat("update_", var->name()))
                             .WithExactDevice(var->requested_device())
                             .ColocateWith(gv.var.op());
    updates.push_back(ApplyDense(at_var, gv.grad, gv.var));
  }
  Operation done = Finish(s, updates);
  if (global_step.valid()) {
    const Scope at_step = s.WithExactDevice(global_step.node()->requested_device())
                              .ColocateWith(global_step.op())
                              .WithControlDependencies({done});
    done = ops::AssignAdd(at_step.WithOpName("increment_global_step"),
                          global_step,
                          ops::Const(at_step, Tensor::Scalar<int64_t>(1)))
               .op();
  }
  if (!scope.ok()) return scope.status();
  return done;
}

absl::StatusOr<Operation> Optimizer::Minimize(
    const Scope& scope, const Output& loss, const Output& global_step,
    const std::vector<Output>& var_list, const GradientOptions& options) {
  absl::StatusOr<std::vector<GradAndVar>> grads =
      ComputeGradients(scope, loss, var_list, options);
  if (!grads.ok()) return grads.status();
  return ApplyGradients(scope, *grads, global_step);
}

Output Optimizer::GetSlot(const Output& var, absl::string_view slot) const {
  auto it = slots_.find({var.node(), std::string(slot)});
  return it == slots_.end() ? Output() : it->second;
}

Operation Optimizer::Finish(const Scope& scope,
                            const std::vector<Operation>& updates) {
  return Group(scope, updates, "update");
}

Output Optimizer::CreateZerosSlot(const Scope& scope, const Output& var,
                                  absl::string_view slot,
                                  absl::string_view op_name) {
  Output& existing = slots_[{var.node(), std::string(slot)}];
  if (existing.valid()) return existing;
  TensorShape shape;
  if (absl::Status s = var.node()->GetAttr("shape", &shape); !s.ok()) {
    scope.UpdateStatus(s);
    return Output();
  }
  const Scope at_var = scope.WithRootNameScope()
                           .WithNoControlDependencies()
                           .WithExactDevice(var.node()->requested_device())
                           .ColocateWith(var.op());
  existing = NewVariable(
      at_var, absl::StrCat(var.node()->name(), "/", op_name), shape,
      ValueType(var), ZerosInitializer(),
      VariableOptions().Trainable(false).Resource(var.dtype() == DT_RESOURCE));
  return existing;
}

Output Optimizer::AsType(const Scope& scope, const Input& value,
                         DataType dtype) {
  if (value.is_const()) {
    Output c = ops::Const(scope, value.tensor());
    return value.tensor().dtype() == dtype ? c : ops::Cast(scope, c, dtype);
  }
  const Output& o = value.output();
  return BaseType(o.dtype()) == dtype ? o : ops::Cast(scope, o, dtype);
}

}  // namespace train
}  // namespace dflow
